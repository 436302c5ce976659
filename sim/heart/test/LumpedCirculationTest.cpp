// The lumped circulation (sim/heart/LumpedCirculation.h) against a textbook normal cycle
// and published values, never against its own output. The cycle is built here, not
// taken from a phantom: 72 bpm, the Wiggers diagram's phases (Guyton & Hall, Textbook of
// Medical Physiology, ch. 9): isovolumic contraction 0.05 s, ejection 0.29 s (Weissler et
// al. 1968: 413 - 1.7 x HR ms), isovolumic relaxation 0.08 s, then filling in an E wave
// (50 mL), diastasis and an A wave (20 mL); stroke 70 mL.
// Held to:
// - aortic pressure ~120/80 mmHg (Guyton & Hall), within 10 mmHg;
// - LV peak systolic within 15 mmHg of the aortic peak for a normal aortic valve
//   (3.5 cm^2; normal 3-4 cm^2), LV end-diastolic 4-14 mmHg (normal 5-12);
// - the LV falls below the atrium as the mitral valve opens (the Wiggers diagram);
// - isovolumic relaxation is monoexponential (Weiss, Frederiksen & Weisfeldt 1976, J
//   Clin Invest 58:751): equal intervals shrink the fall by exp(-interval / tau);
// - severe aortic stenosis (0.8 cm^2; Baumgartner et al. 2017, JASE 30:372: AVA < 1.0
//   cm^2, Vmax >= 4 m/s, mean gradient >= 40 mmHg): the simplified Bernoulli 4 v^2.
#include "sim/heart/LumpedCirculation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

using namespace atrium::heart;

namespace {

constexpr double kCycle = 60.0 / 72.0;
constexpr double kContraction = 0.05, kEjection = 0.29, kRelaxation = 0.08;
constexpr double kEStart = kContraction + kEjection + kRelaxation, kEEnd = kEStart + 0.16;
constexpr double kAStart = kCycle - 0.12;

struct Cycle {
    std::vector<double> rate; // mL/s
    std::vector<ValveSample> valves;
};

/// A half-sine wave of `volume` mL over [from, to) at time t (mL/s).
double wave(double t, double from, double to, double volume) {
    if (t < from || t >= to) return 0.0;
    const double span = to - from;
    return std::numbers::pi * volume / (2.0 * span) * std::sin(std::numbers::pi * (t - from) / span);
}

Cycle normalCycle(int samples) {
    Cycle c;
    for (int k = 0; k < samples; ++k) {
        const double t = kCycle * k / samples;
        c.rate.push_back(-wave(t, kContraction, kContraction + kEjection, 70.0) + wave(t, kEStart, kEEnd, 50.0) +
                         wave(t, kAStart, kCycle, 20.0));
        ValveSample v;
        v.outflowOpen = t >= kContraction && t < kContraction + kEjection;
        v.inflowOpen = t >= kEStart;
        c.valves.push_back(v);
    }
    return c;
}

constexpr double kNormalAorticMm2 = 350.0, kNormalMitralMm2 = 500.0;

double maxOf(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }
double minOf(const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); }

} // namespace

TEST(LumpedCirculation, ANormalCycleGivesTheWiggersPressures) {
    const int n = 1000;
    const Cycle c = normalCycle(n);
    const ChamberPressureCurves p = lumpedChamberPressures({}, kCycle, c.rate, c.valves, kNormalMitralMm2, kNormalAorticMm2);
    ASSERT_EQ(p.chamber.size(), std::size_t(n));
    ASSERT_EQ(p.downstream.size(), std::size_t(n));
    ASSERT_EQ(p.upstream.size(), std::size_t(n));
    EXPECT_NEAR(maxOf(p.downstream), 120.0, 10.0) << "aortic systolic";
    EXPECT_NEAR(minOf(p.downstream), 80.0, 10.0) << "aortic diastolic";
    EXPECT_LE(std::fabs(maxOf(p.chamber) - maxOf(p.downstream)), 15.0) << "LV peak against the aortic peak";
    const double endDiastolic = p.chamber[0];
    EXPECT_GE(endDiastolic, 4.0);
    EXPECT_LE(endDiastolic, 14.0);
    // The mitral valve opens: the LV below the atrium in early filling.
    const int eaPeak = int((kEStart + 0.08) / kCycle * n);
    EXPECT_LT(p.chamber[std::size_t(eaPeak)], p.upstream[std::size_t(eaPeak)]);
    // Isovolumic contraction rises without a dip from end-diastolic to the aortic
    // pressure that opens the valve.
    const int open = int(std::ceil(kContraction / kCycle * n));
    for (int k = 1; k <= open; ++k) EXPECT_GE(p.chamber[std::size_t(k)], p.chamber[std::size_t(k - 1)] - 1e-9) << k;
    EXPECT_NEAR(p.chamber[std::size_t(open)], p.downstream[std::size_t(open)], 3.0);
}

TEST(LumpedCirculation, IsovolumicRelaxationFallsMonoexponentially) {
    const int n = 5000; // 1/6 ms a sample
    const Cycle c = normalCycle(n);
    CirculationParameters params;
    params.relaxationTimeConstantS = 0.035;
    const ChamberPressureCurves p = lumpedChamberPressures(params, kCycle, c.rate, c.valves, kNormalMitralMm2, kNormalAorticMm2);
    const double closes = kContraction + kEjection;
    const auto at = [&](double t) { return ChamberPressureCurves::at(p.chamber, t / kCycle); };
    const double interval = 0.02;
    const double t0 = closes + 0.005;
    const double first = at(t0) - at(t0 + interval), second = at(t0 + interval) - at(t0 + 2 * interval);
    ASSERT_GT(first, 0.0);
    EXPECT_NEAR(second / first, std::exp(-interval / params.relaxationTimeConstantS), 0.01);
    EXPECT_NEAR(at(kEStart), params.atrialPressureMmHg, 0.5) << "the mitral valve opens at the atrial pressure";
}

TEST(LumpedCirculation, SevereAorticStenosisMeetsTheGuidelinesGradient) {
    const int n = 1000;
    const Cycle c = normalCycle(n);
    const ChamberPressureCurves p = lumpedChamberPressures({}, kCycle, c.rate, c.valves, kNormalMitralMm2, 80.0);
    double gradientSum = 0.0, peakVelocity = 0.0;
    int ejecting = 0;
    for (int k = 0; k < n; ++k) {
        if (!c.valves[std::size_t(k)].outflowOpen) continue;
        gradientSum += p.chamber[std::size_t(k)] - p.downstream[std::size_t(k)];
        peakVelocity = std::max(peakVelocity, -c.rate[std::size_t(k)] * 1e3 / 80.0 * 1e-3);
        ++ejecting;
    }
    EXPECT_GE(peakVelocity, 4.0);
    EXPECT_GE(gradientSum / ejecting, 40.0) << "mean gradient, mmHg";
    EXPECT_GT(maxOf(p.chamber), maxOf(p.downstream) + 40.0) << "the LV works against the valve";
}

TEST(LumpedCirculation, TheSimplifiedBernoulliGradientIsFourVSquared) {
    EXPECT_NEAR(bernoulliGradientMmHg(400.0, 100.0), 64.0, 1e-9); // 4 m/s
    EXPECT_NEAR(bernoulliGradientMmHg(-100.0, 100.0), 4.0, 1e-9); // 1 m/s, either way
    EXPECT_EQ(bernoulliGradientMmHg(400.0, 0.0), 0.0);
}

TEST(LumpedCirculation, AChamberWithoutValvesOpenHoldsTheAtrialPressure) {
    const std::vector<double> rate(10, 0.0);
    const std::vector<ValveSample> shut(10);
    const ChamberPressureCurves p = lumpedChamberPressures({}, 1.0, rate, shut, 0.0, 0.0);
    EXPECT_TRUE(p.downstream.empty());
    EXPECT_TRUE(p.upstream.empty());
    for (double v : p.chamber) EXPECT_EQ(v, CirculationParameters{}.atrialPressureMmHg);
}

TEST(LumpedCirculation, BadInputIsRefusedWithWhatIsWrong) {
    const Cycle c = normalCycle(100);
    const auto message = [](auto&& f) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message([&] { lumpedChamberPressures({}, kCycle, c.rate, {}, 1, 1); }).find("same number"), std::string::npos);
    EXPECT_NE(message([&] { lumpedChamberPressures({}, 0.0, c.rate, c.valves, 1, 1); }).find("cycle"), std::string::npos);
    CirculationParameters bad;
    bad.relaxationTimeConstantS = -1;
    EXPECT_NE(message([&] { lumpedChamberPressures(bad, kCycle, c.rate, c.valves, 1, 1); }).find("relaxation"), std::string::npos);
    bad = {};
    bad.arterial.compliance = 0;
    EXPECT_NE(message([&] { lumpedChamberPressures(bad, kCycle, c.rate, c.valves, 1, 1); }).find("compliance"), std::string::npos);
}
