#include "sim/sph/DivergenceFreeSolve.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <functional>

namespace atrium::sph {
namespace {

constexpr std::size_t kGrain = 512;
/// Fewer fluid neighbours than this: a particle at a free surface, whose velocity
/// divergence is not corrected (its neighbourhood is too thin to say; SPlisHSPlasH's
/// DFSPH leaves such particles alone as well).
constexpr std::uint32_t kMinNeighboursForDivergence = 20;
constexpr float kRelaxation = 0.5f; ///< w above (DivergenceFreeSolve.h)
constexpr float kWarmStart = 0.5f;  ///< share of the last step's k_i a solve starts from

Vec3 gradW(const SphKernels& k, Vec3 r) { return k.spikyGradient(r, length(r)); }

/// The walls' g_i = rho0 grad Phi_i (pressureDirection() is -grad Phi).
Vec3 wallGradient(const WallNeighbourhood& w, float restDensity) { return w.pressureDirection() * -restDensity; }

} // namespace

float DivergenceFreeSolve::densityRate(const DivergenceFreeParticles& p, std::size_t i) const {
    const Vec3 vi = p.velocity[i];
    float rate = 0.f;
    for (std::uint32_t e = start_[i]; e < start_[i + 1]; ++e) rate += dot(vi - p.velocity[neighbours_[e]], massGradient_[e]);
    return rate + dot(vi - wallVelocity_[i], wallGradient_[i]);
}

void DivergenceFreeSolve::reorder(std::span<const std::uint32_t> order) {
    for (std::vector<float>* sums : {&densitySum_, &divergenceSum_}) {
        if (sums->empty()) continue;
        reordered_.resize(order.size());
        for (std::size_t k = 0; k < order.size(); ++k) reordered_[k] = order[k] < sums->size() ? (*sums)[order[k]] : 0.f;
        sums->swap(reordered_);
    }
}

void DivergenceFreeSolve::prepare(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s) {
    const std::size_t n = p.position.size();
    alpha_.resize(n);
    kappa_.resize(n);
    wallVelocity_.resize(n);
    wallGradient_.resize(n);
    massGradient_.resize(neighbours_.size());
    densitySum_.resize(n, 0.f); // particles added since the last step start from zero
    divergenceSum_.resize(n, 0.f);
    const float tiny = 1e-12f * s.restDensity * s.restDensity / (s.kernels.h2 * s.kernels.h2);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kGrain), [&](const auto& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
            const Vec3 xi = p.position[i];
            wallGradient_[i] = wallGradient(p.walls[i], s.restDensity);
            Vec3 sum = wallGradient_[i];
            float squares = 0.f;
            for (std::uint32_t e = start_[i]; e < start_[i + 1]; ++e) {
                const Vec3 g = gradW(s.kernels, xi - p.position[neighbours_[e]]) * s.mass;
                massGradient_[e] = g;
                sum += g;
                squares += lengthSquared(g);
            }
            const float denominator = lengthSquared(sum) + squares;
            alpha_[i] = denominator > tiny ? p.density[i] / denominator : 0.f; // alone: nothing to push against
            // The walls' velocity where they touch i: their no-slip weights' mean.
            const WallNeighbourhood& w = p.walls[i];
            wallVelocity_[i] = w.viscousWeight > 0.f ? w.viscousVelocity / w.viscousWeight : Vec3{};
        }
    });
}

void DivergenceFreeSolve::applyKappa(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, p.position.size(), kGrain), [&](const auto& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
            const float ki = kappa_[i] / p.density[i];
            Vec3 dv = wallGradient_[i] * ki;
            for (std::uint32_t e = start_[i]; e < start_[i + 1]; ++e) {
                const std::uint32_t j = neighbours_[e];
                dv += massGradient_[e] * (ki + kappa_[j] / p.density[j]);
            }
            p.velocity[i] -= dv * s.dt;
        }
    });
}

template <class Excess>
SolveReport DivergenceFreeSolve::solve(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s,
                                       std::vector<float>& total, Excess&& excess, float kScale, float errorScale,
                                       float bound, int minIterations) {
    const std::size_t n = p.position.size();
    for (std::size_t i = 0; i < n; ++i) total[i] = kappa_[i] = kWarmStart * total[i];
    applyKappa(p, s);
    SolveReport report;
    while (report.iterations < s.maxIterations) {
        // k_i from the velocities as they stand, and the pass's mean error.
        const float sum = tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, n, kGrain), 0.f,
            [&](const auto& r, float partial) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    const float e = std::max(excess(i), 0.f);
                    kappa_[i] = kRelaxation * e * kScale * alpha_[i];
                    partial += e;
                }
                return partial;
            },
            std::plus<>());
        report.error = n ? sum / float(n) * errorScale : 0.f;
        if (report.iterations >= minIterations && report.error <= bound) break;
        for (std::size_t i = 0; i < n; ++i) total[i] += kappa_[i];
        applyKappa(p, s);
        ++report.iterations;
    }
    return report;
}

SolveReport DivergenceFreeSolve::correctDivergence(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s) {
    const auto rate = [&](std::size_t i) {
        return start_[i + 1] - start_[i] < kMinNeighboursForDivergence ? 0.f : densityRate(p, i);
    };
    return solve(p, s, divergenceSum_, rate, 1.f / s.dt, s.dt / s.restDensity, s.maxDivergenceError, 0);
}

SolveReport DivergenceFreeSolve::correctDensity(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s) {
    const auto excess = [&](std::size_t i) {
        return p.density[i] + s.dt * densityRate(p, i) - s.restDensity;
    };
    const SolveReport report =
        solve(p, s, densitySum_, excess, 1.f / (s.dt * s.dt), 1.f / s.restDensity, s.maxDensityError, 2);
    pressure_.resize(p.position.size());
    for (std::size_t i = 0; i < pressure_.size(); ++i) pressure_[i] = densitySum_[i] * p.density[i];
    return report;
}

} // namespace atrium::sph
