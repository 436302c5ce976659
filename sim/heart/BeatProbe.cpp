#include "sim/heart/BeatProbe.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace atrium::heart {
namespace {

constexpr double kPascalPerMmHg = 133.322;

/// The q-quantile (0..1) of `values` (reordered); 0 for none.
double quantile(std::vector<double>& values, double q) {
    if (values.empty()) return 0.0;
    const std::size_t k = std::min(values.size() - 1, std::size_t(q * double(values.size())));
    std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(k), values.end());
    return values[k];
}

double interpolated(const std::vector<double>& curve, double phase) {
    const double u = (phase - std::floor(phase)) * double(curve.size());
    const std::size_t k = std::min(std::size_t(u), curve.size() - 1);
    const double s = u - double(k);
    return curve[k] * (1.0 - s) + curve[(k + 1) % curve.size()] * s;
}

} // namespace

BeatProbe::BeatProbe(const HeartSimulation& simulation, double fromBeat, int samples,
                     std::vector<std::vector<double>> chamberVolumesMl)
    : sim_(simulation), fromBeat_(fromBeat), samples_(std::max(samples, 1)), volumesMl_(std::move(chamberVolumesMl)) {
    chambers_.resize(sim_.anatomy().chambers.size());
    valves_.resize(sim_.anatomy().valveCount());
}

double BeatProbe::ValveSamples::peakSpeed() const {
    return speedP95.empty() ? 0.0 : *std::max_element(speedP95.begin(), speedP95.end());
}

void BeatProbe::observe() {
    if (sim_.filling()) return;
    while (next_ < samples_ && sim_.beats() >= fromBeat_ + double(next_) / double(samples_)) {
        sample();
        ++next_;
    }
}

void BeatProbe::sample() {
    const sph::Solver& solver = sim_.solver();
    sph::HostParticles h;
    solver.read(sph::FieldAll, h);
    sim_.physiologicalPressure(h);
    const std::size_t n = h.position.size();
    const double phase = sim_.beats();
    const double rho0 = solver.restDensity();

    // The density error of the chambers' blood: beyond the valves, the reservoirs'
    // fresh layers and the blood at the outlets lack neighbours (a free surface, ~0.5 rho0).
    const HeartAnatomy& anatomy = sim_.anatomy();
    std::vector<double> errors;
    errors.reserve(n);
    double errorSum = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
        const bool inChamber = anatomy.chambers.empty() ||
                               std::any_of(anatomy.chambers.begin(), anatomy.chambers.end(), [&](const Chamber& c) {
                                   return HeartAnatomy::insideValves(c, h.position[i] * 1000.f);
                               });
        if (!inChamber) continue;
        errors.push_back(std::fabs(double(h.density[i]) / rho0 - 1.0));
        errorSum += errors.back();
    }
    densityMean_.push_back(errors.empty() ? 0.0 : errorSum / double(errors.size()));
    densityP99_.push_back(quantile(errors, 0.99));

    for (std::size_t c = 0; c < anatomy.chambers.size(); ++c) {
        std::size_t count = 0;
        double pressure = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            if (HeartAnatomy::insideValves(anatomy.chambers[c], h.position[i] * 1000.f)) {
                ++count;
                pressure += h.pressure[i];
            }
        chambers_[c].pressureMmHg.push_back(count ? pressure / double(count) / kPascalPerMmHg : 0.0);
        if (c < volumesMl_.size() && !volumesMl_[c].empty()) {
            const double wall = interpolated(volumesMl_[c], phase);
            chambers_[c].bloodToWall.push_back(wall > 0.0 ? double(count) * sim_.particleVolumeMl() / wall : 0.0);
        }
    }

    // Each valve: the blood crossing its disc, within 1.5 spacings of its plane.
    const std::vector<ValveFlow> flows = sim_.valvesAt(phase);
    const double slab = 1.5 * std::cbrt(sim_.particleVolumeMl() * 1000.0); // mm
    std::size_t index = 0;
    for (const Chamber& chamber : anatomy.chambers)
        for (const Valve& v : chamber.valves) {
            std::vector<double> speeds;
            double normalSum = 0.0;
            // An open valve is measured over its disc, a leaking shut one over its
            // regurgitant orifice (the jet's vena contracta).
            double radius = v.disc.radius;
            if (flows[index] == ValveFlow::Shut)
                radius = sim_.regurgitantFlowMlPerS(phase, index) > 0.0 ? std::sqrt(v.regurgitantOrificeMm2 / std::numbers::pi) : 0.0;
            if (radius > 0.0) {
                const sph::Vec3 normal = normalized(v.disc.normal);
                for (std::size_t i = 0; i < n; ++i) {
                    const sph::Vec3 d = h.position[i] * 1000.f - v.disc.center;
                    const float along = dot(d, normal);
                    if (std::fabs(along) > slab || lengthSquared(d - normal * along) > radius * radius) continue;
                    speeds.push_back(length(h.velocity[i]));
                    normalSum += dot(h.velocity[i], normal);
                }
            }
            const bool enough = speeds.size() >= 3;
            valves_[index].speedP95.push_back(enough ? quantile(speeds, 0.95) : 0.0);
            // The flow through the disc is the flux of the slab's blood, sum V (v . n) /
            // its thickness; over the disc's area it is the mean speed across it. Where
            // the slab is full this is the particles' mean (v . n); where it is not (a
            // jet that fills only part of a tube), the mean over the particles would be
            // the jet's speed, not the flow's.
            const double slabVolume = 2.0 * slab * std::numbers::pi * radius * radius; // mm^3
            const double blood = double(speeds.size()) * sim_.particleVolumeMl() * 1000.0;          // mm^3
            valves_[index].meanNormalSpeed.push_back(enough ? std::fabs(normalSum) * (blood / double(speeds.size())) / slabVolume : 0.0);
            valves_[index].slabFill.push_back(radius > 0.0 ? blood / slabVolume : 0.0);
            ++index;
        }
}

} // namespace atrium::heart
