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
// 2012's boundary particles. A variant was tried and dropped: the spiky kernel's
// integral (inconsistent with the density, it pumped energy into resting fluid).
// Pressure terms are divided by spikyGradientLatticeSum() as the fluid's are.
// Walls are no-slip for viscosity: the mirrored fluid moves with the wall, so
//   viscosity  a_i   += mu / rho_i * (v_wall - v_i) * L(d),  L(d) = int_{z > d} lap W_visc
//                     = 7.5 (h - d)^3 (h + d) / h^6
// (WallPressure::Mirrored takes Adami et al.'s no-slip velocity 2 v_wall - v_i for the
// fluid beyond the wall, which doubles this term: with the wall's velocity alone a
// pressure-driven duct flowed 8 % faster than the analytic Poiseuille flow, with
// Adami's within 4 %, OpenBoundaryTest.)
// With q = d / h in [0, 1):
//   V(d)  = 315/256 (F(1) - F(q)),   F(u) = u - 4u^3/3 + 6u^5/5 - 4u^7/7 + u^9/9
//   V'(d) = -315/256 (1 - q^2)^4 / h
// Both vanish at d = h; V(0) = 1/2 (half the kernel is missing at the wall).
// The continuum integral over-counts what a particle layer half a spacing from a wall
// really misses (by 2.6 % of the density for h = 2 spacings, which the Tait equation
// turns into ~20 % of B): distances are therefore shifted by an offset calibrated so
// that a lattice resting against a wall has exactly its bulk density
// (wallDistanceOffset()).
//
// The price of energy consistency: the floor carries a column only once its first layer
// is at ~2.2x the hydrostatic pressure (the wall pushes with p_i |V'| where the missing
// fluid would push with 2 p_i |V'|), and a particle beside a side wall lacks the
// vertical pressure gradient its missing neighbours would carry. A scene can therefore
// choose WallPressure::Mirrored, the continuum form of Adami, Hu & Adams, "A
// generalized wall boundary condition for smoothed particle hydrodynamics" (JCP 2012):
// the fluid beyond the wall has the particle's pressure, extrapolated hydrostatically,
//   p_w(x') = p_i + rho_i g . (x' - x_i)
// so the wall adds   2 p_i rho0 / rho_i |V'(d)| n  -  rho_i (N(d) g_n n + T(d) g_t),
// where N and T are the spiky gradient's moments over the half-space (both 1/2 at the
// wall, wallGradientMoments()); with the fluid's own terms a hydrostatic column then
// rests at p = rho0 g (H - z). Wall accelerations are neglected in the extrapolation
// (Adami's g - a_w with a_w = 0). It is not the gradient of an energy: resting fluid
// keeps ringing at low artificial viscosity (alpha = 0.05; it settles at 0.3-0.5), so
// it is a choice, not the default. Figures: docs/PERFORMANCE.md, "Hydrostatic column".
//
// Both models give the walls their share of the artificial viscosity: the fluid beyond
// the wall moves with it, so a particle approaching the wall meets Becker & Teschner's
// Pi_ij against the whole half-space, a_i = -alpha h c0 D(d) (v_i - v_w).n n with
// D(d) = int |W'| cos^2 / r (wallApproachDamping()). It damps the sound waves that
// reflect off walls.

#include "sim/sph/Boundaries.h"
#include "sim/sph/Vec3.h"
#include "sim/sph/WallDistanceField.h"

#include <cmath>
#include <numbers>

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

/// int_q^1 (1 - u)^2 u^k du (the spiky gradient's radial profile times u^k).
ATRIUM_HD float spikyRadialMoment(int k, float q) {
    const auto antiderivative = [k](float u) {
        float uk1 = u; // u^(k+1)
        for (int i = 0; i < k; ++i) uk1 *= u;
        return uk1 / float(k + 1) - 2.f * uk1 * u / float(k + 2) + uk1 * u * u / float(k + 3);
    };
    return antiderivative(1.f) - antiderivative(q);
}

/// Moments of the spiky kernel's gradient over the half-space beyond a plane at distance
/// d >= 0 (dimensionless): N = int (x' - x).n (grad W . n) dV' and T the same along a
/// tangent. Both are 1/2 at the wall (the whole space gives the identity) and 0 at d = h.
ATRIUM_HD void wallGradientMoments(float d, float h, float& normal, float& tangential) {
    const float q = d > 0.f ? d / h : 0.f;
    if (q >= 1.f) {
        normal = tangential = 0.f;
        return;
    }
    const float q3 = q * q * q;
    const float m0 = spikyRadialMoment(0, q), m2 = spikyRadialMoment(2, q), m3 = spikyRadialMoment(3, q);
    normal = 30.f * (m3 - q3 * m0);
    tangential = 45.f * (2.f / 3.f * m3 - q * m2 + q3 / 3.f * m0);
}

/// D(d) = int |grad W_spiky| cos^2(theta) / r dV' over the half-space beyond a plane at
/// distance d >= 0 (1/m^2; theta from the normal): the walls' artificial viscosity.
ATRIUM_HD float wallApproachDamping(float d, float h) {
    const float q = d > 0.f ? d / h : 0.f;
    if (q >= 1.f) return 0.f;
    // 30/h^2 int_q^1 (1 - u)^2 (u - q^3 / u^2) du; the second part is
    // q^3 (1/q + 2 ln q - q) = q^2 + 2 q^3 ln q - q^4, which is 0 at q = 0.
    const float q2 = q * q;
    const float tail = q > 0.f ? q2 + 2.f * q2 * q * logf(q) - q2 * q2 : 0.f;
    return 30.f / (h * h) * (spikyRadialMoment(1, q) - tail);
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

    /// sum of N_k (g . n_k) n_k + T_k (g - (g . n_k) n_k) (m/s^2): the missing fluid's
    /// share of the hydrostatic pressure gradient (WallPressure::Mirrored)
    Vec3 hydrostatic;
    Vec3 approach;                ///< sum of D_k n_k (1/m^2)
    float approachWallSpeed = 0.f; ///< sum of D_k (v_wall,k . n_k) (1/(m s))

    ATRIUM_HD void add(float d, Vec3 inward, float h, Vec3 gravity, Vec3 wallVelocity = {}) {
        d += offset;
        if (d >= h) return;
        const float f = wallDensityFraction(d, h); // <= 1/2
        inside *= 1.f - f;
        weightedGradient += inward * (wallDensityFractionSlope(d, h) / (1.f - f));
        const float l = wallViscousWeight(d, h);
        viscousWeight += l;
        viscousVelocity += wallVelocity * l;
        float normal, tangential;
        wallGradientMoments(d, h, normal, tangential);
        const float gn = dot(gravity, inward);
        hydrostatic += inward * (gn * normal) + (gravity - inward * gn) * tangential;
        const float damping = wallApproachDamping(d, h);
        approach += inward * damping;
        approachWallSpeed += damping * dot(inward, wallVelocity);
    }
    /// Fraction of the kernel beyond the walls (0 far from walls).
    ATRIUM_HD float densityFraction() const { return 1.f - inside; }
    /// Minus the gradient of densityFraction(), pointing into the fluid (1/m).
    ATRIUM_HD Vec3 pressureDirection() const { return weightedGradient * inside; }
};

ATRIUM_HD WallNeighbourhood wallNeighbourhood(Vec3 p, float h, float offset, Vec3 gravity, const BoxContainer* box,
                                              const BoundaryPlane* planes, int planeCount, const WallFieldView* wall) {
    WallNeighbourhood w;
    w.offset = offset;
    if (box) {
        w.add(p.x - box->bounds.lo.x, {1.f, 0.f, 0.f}, h, gravity);
        w.add(box->bounds.hi.x - p.x, {-1.f, 0.f, 0.f}, h, gravity);
        w.add(p.y - box->bounds.lo.y, {0.f, 1.f, 0.f}, h, gravity);
        w.add(box->bounds.hi.y - p.y, {0.f, -1.f, 0.f}, h, gravity);
        w.add(p.z - box->bounds.lo.z, {0.f, 0.f, 1.f}, h, gravity);
        w.add(box->bounds.hi.z - p.z, {0.f, 0.f, -1.f}, h, gravity);
    }
    for (int k = 0; k < planeCount; ++k) {
        const BoundaryPlane& pl = planes[k];
        if (pl.kind != PlaneKind::TwoSided) continue;
        const float d = dot(p - pl.point, pl.normal);
        if (fabsf(d) >= h) continue;
        if (pl.radius > 0.f && lengthSquared(p - pl.normal * d - pl.point) > pl.radius * pl.radius) continue;
        w.add(fabsf(d), d >= 0.f ? pl.normal : -pl.normal, h, gravity);
    }
    if (wall && wall->valid()) {
        Vec3 outward, velocity;
        const float phi = wall->sample(p, outward, velocity);
        if (phi < 0.f && -phi < h && lengthSquared(outward) > 0.f) w.add(-phi, -outward, h, gravity, velocity);
    }
    return w;
}

/// The walls' force per unit volume on particle i (the backends divide the sum of all
/// forces by rho_i): pressure (energy-consistent or mirrored, see the top of this
/// file), no-slip viscosity and artificial viscosity against approach. `step` is the
/// sub-step's parameters, StepInput or the CUDA backend's DeviceStep: restDensity,
/// viscosity, artificialViscosity, soundSpeed, kernels.h, pressureGradientScale and
/// mirroredWalls.
template <class Step>
ATRIUM_HD Vec3 wallForce(const WallNeighbourhood& w, float pressure, float density, Vec3 velocity, const Step& step) {
    const float mirror = step.mirroredWalls ? 2.f : 1.f;
    Vec3 f = w.pressureDirection() * (mirror * step.pressureGradientScale * pressure * step.restDensity / density) +
             (w.viscousVelocity - velocity * w.viscousWeight) * (mirror * step.viscosity);
    if (step.mirroredWalls) f -= w.hydrostatic * density;
    // Approach speed along the combined wall normal (exact for one wall, a blend at
    // edges and corners).
    const float approach2 = lengthSquared(w.approach);
    if (approach2 > 0.f) {
        const float closing = dot(velocity, w.approach) - w.approachWallSpeed; // D (v - v_w) . n
        const float approachViscosity = step.artificialViscosity * step.kernels.h * step.soundSpeed; // alpha h c0
        if (closing < 0.f) f -= w.approach * (approachViscosity * closing * density / sqrtf(approach2));
    }
    return f;
}

/// (1/3) sum_j V_j (x_j - x_i) . grad W_spiky(x_i - x_j) over a cubic lattice of
/// `spacing` at its own rest density (V_j = 1 / sum_j W_poly6): the discrete spiky
/// gradient of a linear field is this times the exact one (0.947 for h = 2 spacings,
/// -> 1 as h / spacing grows). The backends divide pressure gradients by it so that a
/// resting lattice carries exactly rho0 g. Host only; computed once per scene.
inline float spikyGradientLatticeSum(float spacing, float h) {
    const double s = spacing, hh = double(h) * h;
    const int m = int(std::ceil(h / spacing)) + 1;
    double moment = 0.0, density = 0.0; // up to the kernels' constants, restored below
    for (int z = -m; z <= m; ++z)
        for (int y = -m; y <= m; ++y)
            for (int x = -m; x <= m; ++x) {
                const double r2 = (double(x) * x + double(y) * y + double(z) * z) * s * s;
                if (r2 >= hh) continue;
                const double r = std::sqrt(r2);
                density += (hh - r2) * (hh - r2) * (hh - r2);
                moment += (h - r) * (h - r) * r; // (x_j - x_i) . grad W / (45 / (pi h^6))
            }
    const double pi = std::numbers::pi, poly6 = 315.0 / (64.0 * pi * std::pow(double(h), 9)),
                 spiky = 45.0 / (pi * std::pow(double(h), 6));
    return float(spiky * moment / (3.0 * poly6 * density));
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
