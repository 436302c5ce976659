#pragma once
// Walls as missing neighbours. Without boundary particles, a particle at distance d
// from a wall lacks the neighbours that would lie beyond it: its density is too low,
// the fluid packs into dense layers along walls and falling sheets squirt along
// floors. We treat every wall locally as a plane backed by fluid at rest density and
// add the poly6 kernel's integral over that half-space in closed form - a planar
// "density map" after Koschier & Bender, "Density Maps for Improved SPH Boundary
// Handling" (SCA 2017):
//   density    rho_i += rho0 * V(d),   V(d) = int_{z > d} W_poly6 (dimensionless)
//   pressure   a_i   += p_i rho0 / rho_i^2 * |V'(d)| n,   n pointing into the fluid
// The pressure term is minus the gradient of the wall's density term with the weight
// p_i / rho_i^2 of the SPH momentum equation: only particle i's density depends on its
// distance to the (fixed) wall, so the pair is energy-consistent, as for Akinci et al.
// 2012's boundary particles. Two variants were tried and dropped: the spiky kernel's
// integral (inconsistent with the density, it pumped energy into resting fluid) and a
// mirrored pressure 2 p_i (it carries a hydrostatic column at the right pressure, but
// is not the gradient of an energy and blows resting fluid apart below a viscosity of
// ~0.5 Pa s). The price: the first layer needs ~1.5-2x the hydrostatic pressure
// before the floor carries the column.
// Walls are no-slip for viscosity: the mirrored fluid moves with the wall, so
//   viscosity  a_i   += mu / rho_i * (v_wall - v_i) * L(d),  L(d) = int_{z > d} lap W_visc
//                     = 7.5 (h - d)^3 (h + d) / h^6
// With q = d / h in [0, 1):
//   V(d)  = 315/256 (F(1) - F(q)),   F(u) = u - 4u^3/3 + 6u^5/5 - 4u^7/7 + u^9/9
//   V'(d) = -315/256 (1 - q^2)^4 / h
// Both vanish at d = h; V(0) = 1/2 (half the kernel is missing at the wall).
// The continuum integral over-counts what a particle layer half a spacing from a wall
// really misses (by 2.6 % of the density for h = 2 spacings, which the Tait equation
// turns into ~20 % of B): distances are therefore shifted by an offset calibrated so
// that a lattice resting against a wall has exactly its bulk density
// (wallDistanceOffset()).

#include "sim/sph/Boundaries.h"
#include "sim/sph/Vec3.h"
#include "sim/sph/WallDistanceField.h"

#include <cmath>

namespace atrium::sph {

/// Fraction of the poly6 kernel's mass beyond a plane at distance d >= 0.
ATRIUM_HD float wallDensityFraction(float d, float h) {
    if (d >= h) return 0.f;
    const float q = d > 0.f ? d / h : 0.f;
    const float q2 = q * q;
    // F(q) by Horner in q^2: q (1 - 4/3 q^2 + 6/5 q^4 - 4/7 q^6 + 1/9 q^8).
    const float f = q * (1.f + q2 * (-4.f / 3.f + q2 * (6.f / 5.f + q2 * (-4.f / 7.f + q2 * (1.f / 9.f)))));
    return (315.f / 256.f) * (128.f / 315.f - f);
}

/// |dV/dd| of wallDensityFraction at distance d >= 0 (1/m).
ATRIUM_HD float wallDensityFractionSlope(float d, float h) {
    if (d >= h) return 0.f;
    const float q = d > 0.f ? d / h : 0.f;
    const float u = 1.f - q * q;
    return (315.f / 256.f) * u * u * u * u / h;
}

/// Integral of the viscosity kernel's Laplacian beyond a plane at distance d >= 0
/// (1/m^2).
ATRIUM_HD float wallViscousWeight(float d, float h) {
    if (d >= h) return 0.f;
    const float dd = d > 0.f ? d : 0.f;
    const float e = h - dd;
    const float h3 = h * h * h;
    return 7.5f * e * e * e * (h + dd) / (h3 * h3);
}

/// The walls near p: the kernel fraction beyond them and the pressure-gradient vector
/// (pointing into the fluid). Box faces, two-sided planes (on the particle's side,
/// within the disc) and the wall mesh contribute; one-way valves do not. Several
/// walls (edges, corners) combine as for a separable kernel: the fraction left inside
/// is the product of each wall's inside fraction, so a corner misses 1 - (1/2)^2 of
/// the kernel rather than the 2 x 1/2 a plain sum would count twice.
struct WallNeighbourhood {
    float inside = 1.f;  ///< product of (1 - f_k)
    Vec3 weightedGradient; ///< sum of |V_k'| n_k / (1 - f_k)

    float offset = 0.f; ///< added to every wall distance (m), see wallDistanceOffset()

    float viscousWeight = 0.f; ///< sum of L_k (1/m^2)
    Vec3 viscousVelocity;      ///< sum of L_k v_wall,k (1/(m s))

    ATRIUM_HD void add(float d, Vec3 inward, float h, Vec3 wallVelocity = {}) {
        d += offset;
        if (d >= h) return;
        const float f = wallDensityFraction(d, h); // <= 1/2
        inside *= 1.f - f;
        weightedGradient += inward * (wallDensityFractionSlope(d, h) / (1.f - f));
        const float l = wallViscousWeight(d, h);
        viscousWeight += l;
        viscousVelocity += wallVelocity * l;
    }
    /// Fraction of the kernel beyond the walls (0 far from walls).
    ATRIUM_HD float densityFraction() const { return 1.f - inside; }
    /// Minus the gradient of densityFraction(), pointing into the fluid (1/m).
    ATRIUM_HD Vec3 pressureDirection() const { return weightedGradient * inside; }
};

ATRIUM_HD WallNeighbourhood wallNeighbourhood(Vec3 p, float h, float offset, const BoxContainer* box,
                                              const BoundaryPlane* planes, int planeCount, const WallFieldView* wall) {
    WallNeighbourhood w;
    w.offset = offset;
    if (box) {
        w.add(p.x - box->bounds.lo.x, {1.f, 0.f, 0.f}, h);
        w.add(box->bounds.hi.x - p.x, {-1.f, 0.f, 0.f}, h);
        w.add(p.y - box->bounds.lo.y, {0.f, 1.f, 0.f}, h);
        w.add(box->bounds.hi.y - p.y, {0.f, -1.f, 0.f}, h);
        w.add(p.z - box->bounds.lo.z, {0.f, 0.f, 1.f}, h);
        w.add(box->bounds.hi.z - p.z, {0.f, 0.f, -1.f}, h);
    }
    for (int k = 0; k < planeCount; ++k) {
        const BoundaryPlane& pl = planes[k];
        if (pl.kind != PlaneKind::TwoSided) continue;
        const float d = dot(p - pl.point, pl.normal);
        if (fabsf(d) >= h) continue;
        if (pl.radius > 0.f && lengthSquared(p - pl.normal * d - pl.point) > pl.radius * pl.radius) continue;
        w.add(fabsf(d), d >= 0.f ? pl.normal : -pl.normal, h);
    }
    if (wall && wall->valid()) {
        Vec3 outward, velocity;
        const float phi = wall->sample(p, outward, velocity);
        if (phi < 0.f && -phi < h && lengthSquared(outward) > 0.f) w.add(-phi, -outward, h, velocity);
    }
    return w;
}

/// The walls' force per unit volume on particle i (the backends divide the sum of all
/// forces by rho_i): mirrored pressure and no-slip viscosity, see the top of this file.
ATRIUM_HD Vec3 wallForce(const WallNeighbourhood& w, float pressure, float density, Vec3 velocity, float restDensity,
                         float viscosity) {
    return w.pressureDirection() * (pressure * restDensity / density) +
           (w.viscousVelocity - velocity * w.viscousWeight) * viscosity;
}

/// The wall-distance offset (m) for which a cubic lattice of `spacing` whose first
/// layer lies spacing/2 from a plane wall gets, with the wall's density fraction, the
/// density of the bulk lattice. Host only; computed once per scene.
inline float wallDistanceOffset(float spacing, float h) {
    const double s = spacing, hh = double(h) * h;
    const int m = int(std::ceil(h / spacing)) + 1;
    double full = 0.0, kept = 0.0; // poly6 up to a constant factor
    for (int z = -m; z <= m; ++z)
        for (int y = -m; y <= m; ++y)
            for (int x = -m; x <= m; ++x) {
                const double r2 = (double(x) * x + double(y) * y + double(z) * z) * s * s;
                if (r2 >= hh) continue;
                const double w = (hh - r2) * (hh - r2) * (hh - r2);
                full += w;
                if (z >= 0) kept += w; // the layer at +s/2 sees layers at z >= 0 only
            }
    const float missing = float(1.0 - kept / full);
    // wallDensityFraction decreases in d: bisect f(s/2 + offset) = missing.
    float lo = -0.5f * spacing, hi = h;
    for (int i = 0; i < 50; ++i) {
        const float mid = 0.5f * (lo + hi);
        (wallDensityFraction(0.5f * spacing + mid, h) > missing ? lo : hi) = mid;
    }
    return 0.5f * (lo + hi);
}

} // namespace atrium::sph
