#include "widgets/view/ColorMap.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace atrium::widgets {
namespace {

struct Stop {
    float t, r, g, b;
};

// Approximations of matplotlib's "inferno" (sequential) and a blue-white-red
// diverging map, as piecewise-linear control points.
constexpr Stop kSequential[] = {{0.00f, 0.00f, 0.00f, 0.02f}, {0.25f, 0.34f, 0.06f, 0.43f},
                                {0.50f, 0.73f, 0.21f, 0.33f}, {0.75f, 0.98f, 0.55f, 0.04f},
                                {1.00f, 0.99f, 1.00f, 0.64f}};
constexpr Stop kDiverging[] = {{0.00f, 0.02f, 0.19f, 0.58f}, {0.25f, 0.40f, 0.66f, 0.81f},
                               {0.50f, 0.97f, 0.97f, 0.97f}, {0.75f, 0.96f, 0.50f, 0.38f},
                               {1.00f, 0.58f, 0.00f, 0.10f}};

constexpr std::uint8_t kBloodRed[3] = {150, 12, 18};

template <std::size_t N>
std::array<std::uint8_t, 3> lookup(const Stop (&stops)[N], float t) {
    t = std::clamp(std::isfinite(t) ? t : 0.f, 0.f, 1.f);
    std::size_t k = 1;
    while (k + 1 < N && stops[k].t < t) ++k;
    const Stop& a = stops[k - 1];
    const Stop& b = stops[k];
    const float u = (t - a.t) / (b.t - a.t);
    auto channel = [u](float x, float y) { return std::uint8_t(std::lround(255.f * (x + u * (y - x)))); };
    return {channel(a.r, b.r), channel(a.g, b.g), channel(a.b, b.b)};
}

} // namespace

std::string quantityLabel(ColorQuantity q) {
    switch (q) {
    case ColorQuantity::Blood: return "blood";
    case ColorQuantity::Speed: return "speed (m/s)";
    case ColorQuantity::DensityError: return "density error (%)";
    // Physiological: the circulation model's level plus the 3D flow's variation
    // (HeartSimulation::physiologicalPressure; docs/physiology.md).
    case ColorQuantity::Pressure: return "pressure (mmHg, model + 3D flow)";
    }
    return {};
}

bool isDiverging(ColorQuantity q) { return q == ColorQuantity::DensityError; }

std::array<std::uint8_t, 3> colorFor(ColorQuantity q, ColorRange range, float value) {
    if (q == ColorQuantity::Blood) return {kBloodRed[0], kBloodRed[1], kBloodRed[2]};
    const float span = range.max - range.min;
    const float t = span > 0.f ? (value - range.min) / span : 0.5f;
    return isDiverging(q) ? lookup(kDiverging, t) : lookup(kSequential, t);
}

float niceCeiling(float value) {
    if (!(value > 0.f) || !std::isfinite(value)) return 1.f;
    const float decade = std::pow(10.f, std::floor(std::log10(value)));
    for (const float step : {1.f, 1.5f, 2.f, 2.5f, 3.f, 4.f, 5.f, 6.f, 8.f, 10.f})
        if (step * decade >= value * (1.f - 1e-6f)) return step * decade;
    return 10.f * decade;
}

ColorRange BeatSpeedRange::update(double phase, float fastest) {
    if (phase_ >= 0.0 && phase < phase_) { // a new beat: the last one's fastest blood sets the range
        top_ = std::max(kFloor, niceCeiling(beatMax_));
        beatMax_ = 0.f;
    }
    phase_ = phase;
    if (std::isfinite(fastest)) beatMax_ = std::max(beatMax_, fastest);
    if (beatMax_ > top_) top_ = niceCeiling(beatMax_); // faster than the range: it widens at once
    return range();
}

ColorRange robustRange(ColorQuantity q, std::span<const float> values) {
    std::vector<float> v;
    v.reserve(values.size());
    for (float x : values)
        if (std::isfinite(x)) v.push_back(isDiverging(q) ? std::fabs(x) : x);
    float p98 = 0.f;
    if (!v.empty()) {
        const auto k = std::min(v.size() - 1, std::size_t(0.98 * double(v.size())));
        std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
        p98 = v[k];
    }
    p98 = std::max(p98, 1e-2f);
    return isDiverging(q) ? ColorRange{-p98, p98} : ColorRange{0.f, p98};
}

int tickDecimals(ColorRange range) {
    const double span = std::fabs(double(range.max) - double(range.min));
    if (!(span > 0.0) || !std::isfinite(span)) return 1;
    // Five ticks a quarter of the span apart: enough decimals to tell them apart.
    return std::clamp(int(std::ceil(-std::log10(span / 4.0))) + 1, 0, 4);
}

ColorRange smoothRange(ColorRange current, ColorRange target, double dtSeconds) {
    const float a = float(1.0 - std::exp(-std::max(dtSeconds, 0.0) / 0.5));
    return {current.min + a * (target.min - current.min), current.max + a * (target.max - current.max)};
}

} // namespace atrium::widgets
