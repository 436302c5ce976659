#pragma once
// CPU/CUDA parity checks shared by the solver's and the heart's parity tests: the two
// backends order particles inside a cell differently, so particles are matched by
// nearest position, then positions, velocities and densities are compared.

#include "sim/sph/Backend.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <vector>

namespace atrium::sph::test {

/// Per-particle differences between matched particles: the largest and the 99.5th
/// percentile. Rare single-particle outliers are legitimate: a collision (box, plane,
/// wall margin) switches the velocity discontinuously, so a particle whose position
/// differs by one rounding error right at the threshold bounces one step earlier on
/// one backend. A bug shows up in the percentiles and in the aggregates.
struct Comparison {
    double maxDistance = 0.0, p995Distance = 0.0;     ///< m, CPU particle -> nearest CUDA particle
    double maxVelocity = 0.0, p995Velocity = 0.0;     ///< m/s, |v_cpu - v_cuda|
    double maxDensityRel = 0.0, p995DensityRel = 0.0; ///< |rho_cpu / rho_cuda - 1|
    std::size_t unmatched = 0; ///< CPU particles with no CUDA particle within a cell
};

inline double percentile995(std::vector<double>& v) {
    if (v.empty()) return 0.0;
    const std::size_t k = std::min(v.size() - 1, std::size_t(0.995 * double(v.size())));
    std::nth_element(v.begin(), v.begin() + std::ptrdiff_t(k), v.end());
    return v[k];
}

/// Matches every particle of `a` to the nearest one of `b` (bucketed by `cell`).
inline Comparison compareParticles(const HostParticles& a, const HostParticles& b, float cell) {
    const auto key = [cell](Vec3 p, int dx, int dy, int dz) {
        const auto c = [cell](float x, int d) { return std::int64_t(std::floor(x / cell)) + d; };
        return (c(p.x, dx) * 73856093) ^ (c(p.y, dy) * 19349663) ^ (c(p.z, dz) * 83492791);
    };
    std::unordered_multimap<std::int64_t, std::size_t> buckets;
    for (std::size_t j = 0; j < b.position.size(); ++j) buckets.emplace(key(b.position[j], 0, 0, 0), j);
    Comparison r;
    std::vector<double> dist, dv, drho;
    for (std::size_t i = 0; i < a.position.size(); ++i) {
        const Vec3 p = a.position[i];
        float best = std::numeric_limits<float>::infinity();
        std::size_t bestJ = 0;
        for (int dz = -1; dz <= 1; ++dz)
            for (int dy = -1; dy <= 1; ++dy)
                for (int dx = -1; dx <= 1; ++dx) {
                    const auto range = buckets.equal_range(key(p, dx, dy, dz));
                    for (auto it = range.first; it != range.second; ++it) {
                        const float d = lengthSquared(b.position[it->second] - p);
                        if (d < best) {
                            best = d;
                            bestJ = it->second;
                        }
                    }
                }
        if (!std::isfinite(best)) {
            ++r.unmatched;
            continue;
        }
        dist.push_back(std::sqrt(double(best)));
        if (!a.velocity.empty()) dv.push_back(length(a.velocity[i] - b.velocity[bestJ]));
        if (!a.density.empty()) drho.push_back(std::fabs(double(a.density[i]) / b.density[bestJ] - 1.0));
    }
    const auto maxOf = [](const std::vector<double>& v) { return v.empty() ? 0.0 : *std::max_element(v.begin(), v.end()); };
    r.maxDistance = maxOf(dist);
    r.maxVelocity = maxOf(dv);
    r.maxDensityRel = maxOf(drho);
    r.p995Distance = percentile995(dist);
    r.p995Velocity = percentile995(dv);
    r.p995DensityRel = percentile995(drho);
    return r;
}

inline Vec3 meanPosition(const HostParticles& h) {
    double x = 0, y = 0, z = 0;
    for (const Vec3& p : h.position) {
        x += p.x;
        y += p.y;
        z += p.z;
    }
    const double n = double(std::max<std::size_t>(h.position.size(), 1));
    return {float(x / n), float(y / n), float(z / n)};
}

inline double meanDensity(const HostParticles& h) {
    double sum = 0.0;
    for (float d : h.density) sum += d;
    return sum / double(std::max<std::size_t>(h.density.size(), 1));
}

inline double relDiff(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(a), 1e-30); }

/// The tolerances of float rounding: positions within 1e-4 of the domain and
/// densities and velocities within 1e-3 for 99.5 % of the particles, the worst particle
/// within 5 % of a spacing (one early bounce at most), means within 1e-5 / 1e-4.
inline void expectParticleFieldsAgree(const HostParticles& a, const HostParticles& b, float spacing) {
    ASSERT_EQ(a.position.size(), b.position.size());
    ASSERT_FALSE(a.position.empty());
    ASSERT_EQ(b.velocity.size(), b.position.size());
    ASSERT_EQ(b.density.size(), b.position.size());
    ASSERT_EQ(b.pressure.size(), b.position.size());
    Aabb domain{a.position.front(), a.position.front()};
    for (const Vec3& p : a.position) {
        domain.lo = componentMin(domain.lo, p);
        domain.hi = componentMax(domain.hi, p);
    }
    const Vec3 extent = domain.size();
    const float size = std::max({extent.x, extent.y, extent.z, 10.f * spacing});
    const float posTol = 1e-4f * size;

    const Comparison c = compareParticles(a, b, spacing);
    EXPECT_EQ(c.unmatched, 0u);
    EXPECT_LE(c.p995Distance, posTol) << "positions (domain " << size << " m)";
    EXPECT_LE(c.p995DensityRel, 1e-3) << "densities";
    EXPECT_LE(c.p995Velocity, 1e-3) << "velocities (m/s)";
    EXPECT_LE(c.maxDistance, 0.05f * spacing) << "worst particle (one early bounce at most)";
    EXPECT_LE(c.maxDensityRel, 2e-2) << "worst particle";
    EXPECT_LE(length(meanPosition(a) - meanPosition(b)), 1e-5f * size) << "mean position";
    EXPECT_LE(relDiff(meanDensity(a), meanDensity(b)), 1e-4) << "mean density";
}

} // namespace atrium::sph::test
