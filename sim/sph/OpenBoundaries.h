#pragma once
// Open boundaries with a prescribed pressure: buffer layers of inlet/outlet particles
// after Tafuni, Domínguez, Vacondio & Crespo, "A versatile algorithm for the treatment
// of open boundary conditions in Smoothed particle hydrodynamics GPU models", Comput.
// Methods Appl. Mech. Engrg. 342 (2018) 604-624, as DualSPHysics implements it.
//
// An open boundary is a plane disc (or rectangle) with a normal pointing into the
// fluid. Behind it lies a buffer zone `depth` deep (at least the kernel radius, so that
// a fluid particle at the plane has a full neighbourhood). A particle's role follows
// from where it is, at the start of each step:
//  - in a buffer it is a buffer particle: its pressure is the boundary's (plus the
//    hydrostatic part rho0 g . (x - center)), its density follows from the equation of
//    state, its velocity is extrapolated from the fluid (a Shepard average of the fluid
//    just beyond the plane in front of it: zero-gradient, bufferVelocitySample) or
//    prescribed (a velocity inlet); it moves at that velocity and feels no force;
//  - elsewhere it is fluid. Fluid that crosses the plane backwards becomes buffer (an
//    outflow); a buffer particle that crosses it forwards becomes fluid (an inflow) and
//    a new buffer particle takes its place `depth` behind it; a particle that passes
//    the buffer's far side is removed.
// Buffer particles are ordinary neighbours of the fluid: the fluid beside the plane
// feels the prescribed pressure through them. Every crossing is counted per boundary,
// so the mass balance is exact: fluid now = fluid before + entered - left.
//
// Shared by both backends (host and device code).

#include "sim/sph/Vec3.h"

#include <cstdint>

namespace atrium::sph {

/// At most this many open boundaries per scene (the GPU's per-step counters are fixed).
inline constexpr int kMaxOpenBoundaries = 8;

enum class OpenBoundaryShape : int {
    Disc = 0,      ///< `radius` around `center`
    Rectangle = 1, ///< `halfWidth` along `axis`, `halfHeight` along normal x axis
};

enum class OpenBoundaryVelocity : int {
    Extrapolated = 0, ///< from the fluid (pressure inlet or outlet)
    Prescribed = 1,   ///< normal * inflowSpeed (velocity inlet)
};

/// One open boundary (metres, pascals, m/s). Solver::setOpenBoundaryPressure changes
/// `pressure` at run time.
struct OpenBoundary {
    OpenBoundaryShape shape = OpenBoundaryShape::Disc;
    Vec3 center;                ///< a point of the boundary plane, the middle of its section
    Vec3 normal{0.f, 0.f, 1.f}; ///< unit, pointing into the fluid
    float radius = 0.f;         ///< Disc: its radius
    Vec3 axis{1.f, 0.f, 0.f};   ///< Rectangle: first in-plane axis (unit, normal to `normal`)
    float halfWidth = 0.f;      ///< Rectangle: half extent along `axis`
    float halfHeight = 0.f;     ///< Rectangle: half extent along cross(normal, axis)
    float depth = 0.f;          ///< buffer depth behind the plane; 0: the kernel radius
    float pressure = 0.f;       ///< prescribed gauge pressure at `center` (Pa)
    OpenBoundaryVelocity velocity = OpenBoundaryVelocity::Extrapolated;
    float inflowSpeed = 0.f;    ///< Prescribed: speed along `normal` (m/s)

    /// Signed distance of p from the plane, positive on the fluid side.
    ATRIUM_HD float distance(Vec3 p) const { return dot(p - center, normal); }

    /// Whether p projects onto the boundary's section (disc or rectangle).
    ATRIUM_HD bool withinSection(Vec3 p) const {
        const Vec3 r = p - center;
        const Vec3 q = r - normal * dot(r, normal);
        if (shape == OpenBoundaryShape::Disc) return lengthSquared(q) <= radius * radius;
        const float u = dot(q, axis);
        const float v = dot(q, cross(normal, axis));
        return fabsf(u) <= halfWidth && fabsf(v) <= halfHeight;
    }

    /// Whether p lies in the buffer: behind the plane, at most `depth` deep, within the section.
    ATRIUM_HD bool inBuffer(Vec3 p) const {
        const float d = distance(p);
        return d < 0.f && d >= -depth && withinSection(p);
    }

    /// Whether p has passed the buffer's far side (within the section): to be removed.
    ATRIUM_HD bool beyond(Vec3 p) const { return distance(p) < -depth && withinSection(p); }

    /// Area of the section (m^2).
    float sectionArea() const {
        return shape == OpenBoundaryShape::Disc ? 3.14159265f * radius * radius : 4.f * halfWidth * halfHeight;
    }
};

/// 0 when p is fluid, b + 1 when it lies in the buffer of boundary b.
ATRIUM_HD int openBoundaryZone(const OpenBoundary* boundaries, int count, Vec3 p) {
    for (int b = 0; b < count; ++b)
        if (boundaries[b].inBuffer(p)) return b + 1;
    return 0;
}

/// The boundary whose far side p has passed, or -1.
ATRIUM_HD int openBoundaryBeyond(const OpenBoundary* boundaries, int count, Vec3 p) {
    for (int b = 0; b < count; ++b)
        if (boundaries[b].beyond(p)) return b;
    return -1;
}

/// Where a buffer particle at p takes its extrapolated velocity from: the fluid half a
/// kernel radius h beyond the plane, straight in front of it. One point for every
/// particle of a line along the normal (the zero-gradient condition dv/dn = 0), so the
/// buffer moves as the fluid at the plane does and neither thins out beside the plane
/// nor piles up at its far side (a mirror image across the plane, Tafuni's ghost node,
/// samples deeper fluid for deeper particles, which lets both happen under a zeroth-
/// order extrapolation).
ATRIUM_HD Vec3 bufferVelocitySample(const OpenBoundary& b, Vec3 p, float h) {
    return p + b.normal * (0.5f * h - b.distance(p));
}

/// The pressure a buffer particle at p carries (Pa): its boundary's, plus the
/// hydrostatic part rho0 g . (p - center).
ATRIUM_HD float bufferPressure(const OpenBoundary& b, float restDensity, Vec3 gravity, Vec3 p) {
    return b.pressure + restDensity * dot(gravity, p - b.center);
}

/// Whether a fluid particle at p may have buffer particles of any boundary within h
/// (it then gets bufferDensityCorrection).
ATRIUM_HD bool nearOpenBoundary(const OpenBoundary* boundaries, int count, Vec3 p, float h) {
    for (int k = 0; k < count; ++k) {
        const OpenBoundary& b = boundaries[k];
        const float d = b.distance(p);
        if (d < 0.f || d >= h) continue;
        const Vec3 q = p - b.center - b.normal * d;
        if (b.shape == OpenBoundaryShape::Disc) {
            if (lengthSquared(q) <= (b.radius + h) * (b.radius + h)) return true;
        } else if (fabsf(dot(q, b.axis)) <= b.halfWidth + h && fabsf(dot(q, cross(b.normal, b.axis))) <= b.halfHeight + h) {
            return true;
        }
    }
    return false;
}

// Why buffers need more than their pressure in a solver that sums its densities.
// Here a particle's density is the kernel sum over where its neighbours are, not an
// integrated continuity equation as in DualSPHysics. The fluid beside an inlet plane
// therefore reaches the boundary's pressure only if the particles behind the plane are
// as dense as that pressure says, and a buffer refilled from itself keeps the spacing
// it started with. Two terms make up for it (both vanish when the buffer is as dense as
// its pressure):
//  - bufferDensityExcess: a buffer particle j counts in a fluid neighbour's density with
//    the weight rho_b / rho_j (its boundary's density over the density its own
//    neighbours give it), so the fluid sees the prescribed density behind the plane;
//  - bufferSpeedFactor: where the fluid flows in, the buffer moves at the fluid's
//    velocity times rho_b / rho_j, i.e. it delivers the mass flux rho_b v that fluid at
//    the prescribed density would carry, so the fluid beside the plane fills up to
//    that density; where the fluid flows out, rho_f / rho_j (the fluid's own mass flux
//    across the plane, rho_f the fluid's density around the sample point).
// Measured on the test duct (OpenBoundaryTest): without them the fluid beside an inlet
// at 220 Pa held 40-100 Pa and the flow rate was a third to a half of the analytic one;
// with them the pressure falls linearly from plane to plane.
//
// Known limits, measured on that duct (220 / 20 Pa, 8,800 particles):
//  - with soundSpeed 2 m/s (dp / (rho0 c0^2) = 5 %) the flow rate is within 4 % of
//    Poiseuille's; with 4 m/s the inflow overshoots to 1.7x within 0.3 s and then
//    starves (0.35x at 0.5 s): once the buffer's speed varies along a line (the factor
//    above differs from particle to particle), particles created one depth behind a
//    crossing one land on taken spots, are dropped, and the buffer thins;
//  - a buffer that filled with outflow and then feeds the fluid (the flow turned round)
//    delivers about half the flow the pressures drive, for the same reason.
// Filling an inflowing buffer's far side wherever there is room (as emitters do)
// instead of creating one particle behind each that leaves is the next step.

/// The excess weight (rho_b / rho_j - 1) with which buffer particle j, of prescribed
/// density rho_b and kernel-sum density rho_j, counts in its fluid neighbours' density.
ATRIUM_HD float bufferDensityExcess(float prescribedDensity, float summedDensity) {
    return summedDensity > 0.f ? prescribedDensity / summedDensity - 1.f : 0.f;
}

/// The factor on the fluid's velocity v at a buffer particle (see above): rho_b / rho_j
/// for inflow (v . normal > 0), rho_f / rho_j for outflow.
ATRIUM_HD float bufferSpeedFactor(const OpenBoundary& b, Vec3 v, float prescribedDensity, float summedDensity,
                                  float fluidDensity) {
    if (!(summedDensity > 0.f)) return 1.f;
    return (dot(v, b.normal) > 0.f ? prescribedDensity : fluidDensity) / summedDensity;
}

/// Units of the flux sums both backends accumulate as integers (exact, so the sum does
/// not depend on the order of the particles or threads): a particle in a boundary's
/// measuring slab adds round(v . normal / kOpenFluxVelocityUnit).
inline constexpr float kOpenFluxVelocityUnit = 1e-6f; // m/s

/// A fluid particle at p moving at v, in boundary b's measuring slab (the fluid's first
/// `slab` metres beside the plane): its contribution to b's flux sum, else 0.
ATRIUM_HD long long openBoundaryFluxUnits(const OpenBoundary& b, float slab, Vec3 p, Vec3 v) {
    const float d = b.distance(p);
    if (!(d >= 0.f && d < slab) || !b.withinSection(p)) return 0;
    return llrintf(dot(v, b.normal) / kOpenFluxVelocityUnit);
}

/// Per boundary, what one step counted (StepOutput): particles that crossed the plane
/// into the fluid and out of it, and the flux sum of the measuring slab.
struct OpenBoundaryStepCounts {
    std::uint32_t entered = 0;
    std::uint32_t left = 0;
    long long fluxUnits = 0;
};

} // namespace atrium::sph
