#pragma once
// Boundary conditions shared by both backends (host and device code).
//
// Box container: elastic collision at the container position with a coefficient of
// restitution, re-reflecting the remaining travel at edges and corners until the
// particle is inside (Poyart 2016, 3.5.2.1).
// Planes: finite or infinite discs that particles cannot cross (two-sided, e.g. an
// artificial septum) or may cross only along the normal (one-way, e.g. a valve).
// Outlets: regions that remove the particles entering them (sinks).

#include "sim/sph/Vec3.h"

namespace atrium::sph {

/// Closed axis-aligned container (metres). Restitution in [0, 1] scales the reflected
/// normal velocity.
struct BoxContainer {
    Aabb bounds;
    float restitution = 0.5f;
};

enum class PlaneKind : int {
    TwoSided = 0, ///< nothing crosses (septum)
    OneWay = 1,   ///< crossing allowed only in the direction of the normal (open valve)
    /// Nothing crosses, but blood lies on both sides (a closed valve between two pools):
    /// unlike TwoSided it adds no wall density or pressure, since the fluid beyond it is
    /// there as real neighbours (a wall integral on top of them would count that side
    /// twice, ~1.5 rho0 at the plane). A valve switches between OneWay and Closed at run
    /// time (Solver::setPlaneKind), which is why the pair exists.
    Closed = 2,
};

/// A wall plane through `point` with unit `normal`. radius > 0 limits it to a disc of
/// that radius around `point` (metres); radius <= 0 means an infinite plane.
///
/// A plane may have a hole (holeRadius > 0 and holeSpeed != 0): an orifice of that
/// radius around `point` through which blood is driven at |holeSpeed| (m/s) along the
/// normal (holeSpeed > 0) or against it (< 0), whatever the plane's kind - a leaking
/// valve's regurgitant orifice, whose flow a lumped model sets. Within the hole blood
/// may cross the plane that way, and blood within holeDepth of the plane there moves
/// that way at that speed (the jet's vena contracta); elsewhere the plane is as its
/// kind says. Upstream,
/// within holeConvergence of the hole's centre, blood converges on it at least as a
/// point sink's flow does, Q / (2 pi r^2) with Q = |holeSpeed| pi holeRadius^2 (the
/// hemispheres of equal speed that echo's PISA method reads): the weakly compressible
/// blood could not otherwise be drawn to the hole as fast as the jet leaves it.
struct BoundaryPlane {
    Vec3 point;
    Vec3 normal{0.f, 0.f, 1.f};
    float radius = 0.f;
    PlaneKind kind = PlaneKind::TwoSided;
    float restitution = 0.5f;
    float holeRadius = 0.f; ///< m; 0: no hole
    float holeSpeed = 0.f;  ///< m/s along the normal (signed); 0: no hole
    float holeDepth = 0.f;  ///< m on each side of the plane
    float holeConvergence = 0.f; ///< m: radius of the upstream convergence; 0: none
    ATRIUM_HD bool hasHole() const { return holeRadius > 0.f && holeSpeed != 0.f; }
};

enum class OutletShape : int { Sphere = 0, Box = 1 };

/// A sink: particles inside it are removed. Sphere uses centre/radius, box uses bounds.
struct Outlet {
    OutletShape shape = OutletShape::Sphere;
    Vec3 center;
    float radius = 0.f;
    Aabb bounds;

    ATRIUM_HD bool contains(Vec3 p) const {
        if (shape == OutletShape::Sphere) return lengthSquared(p - center) <= radius * radius;
        return bounds.contains(p);
    }
};

/// Reflects a particle that left the box back inside, following its travel from
/// `previous` to `position`: each face crossing mirrors the remaining travel and scales
/// the normal velocity by -restitution. Iterates (at most a few times) for corners.
/// Returns true if a collision happened.
ATRIUM_HD bool collideWithBox(const BoxContainer& box, Vec3& position, Vec3& velocity) {
    bool hit = false;
    const float e = box.restitution;
    // Each axis is independent for an axis-aligned box: mirroring along one axis does
    // not move the particle along the others, so reflect per axis until inside. The
    // restitution shortens the mirrored overshoot so energy matches the velocity.
    for (int iter = 0; iter < 4; ++iter) {
        bool inside = true;
        float* p = &position.x;
        float* v = &velocity.x;
        const float* lo = &box.bounds.lo.x;
        const float* hi = &box.bounds.hi.x;
        for (int a = 0; a < 3; ++a) {
            if (p[a] < lo[a]) {
                p[a] = lo[a] + e * (lo[a] - p[a]);
                if (v[a] < 0.f) v[a] = -e * v[a];
                inside = false;
            } else if (p[a] > hi[a]) {
                p[a] = hi[a] - e * (p[a] - hi[a]);
                if (v[a] > 0.f) v[a] = -e * v[a];
                inside = false;
            }
        }
        if (inside) break;
        hit = true;
        if (iter == 3) position = componentMax(box.bounds.lo, componentMin(position, box.bounds.hi));
    }
    return hit;
}

/// Stops a particle from crossing `plane` between `previous` and `position`. A crossing
/// counts only if it passes within the disc. Blocked crossings are mirrored back to
/// the side the particle came from, with the normal velocity reflected and scaled by
/// the plane's restitution. Returns true if the particle was reflected.
ATRIUM_HD bool collideWithPlane(const BoundaryPlane& plane, Vec3 previous, Vec3& position, Vec3& velocity) {
    const float d0 = dot(previous - plane.point, plane.normal);
    const float d1 = dot(position - plane.point, plane.normal);
    if (plane.hasHole()) {
        // Blood in the hole's slab is driven through it (BoundaryPlane).
        const Vec3 offset = position - plane.point - plane.normal * d1;
        if (fabsf(d1) < plane.holeDepth && lengthSquared(offset) < plane.holeRadius * plane.holeRadius) {
            velocity = velocity + plane.normal * (plane.holeSpeed - dot(velocity, plane.normal));
        } else if ((plane.holeSpeed > 0.f ? d1 < 0.f : d1 > 0.f) && plane.holeConvergence > 0.f) {
            const Vec3 toHole = plane.point - position;
            const float r2 = lengthSquared(toHole);
            if (r2 < plane.holeConvergence * plane.holeConvergence && r2 > 0.f) {
                const float r = sqrtf(r2);
                const float speed = fabsf(plane.holeSpeed) * plane.holeRadius * plane.holeRadius / (2.f * r2);
                const float towards = dot(velocity, toHole) / r;
                if (towards < speed) velocity = velocity + toHole * ((speed - towards) / r);
            }
        }
    }
    const bool crossed = (d0 >= 0.f && d1 < 0.f) || (d0 <= 0.f && d1 > 0.f && d0 != d1);
    if (!crossed) return false;
    if (plane.kind == PlaneKind::OneWay && d0 <= 0.f && d1 > 0.f) return false; // allowed direction
    if (plane.hasHole() && (plane.holeSpeed > 0.f ? d1 > 0.f : d1 < 0.f)) {
        // Crossing the hole's way: through the hole, or blocked by the plane around it.
        const float t = d0 / (d0 - d1);
        const Vec3 hitPoint = previous + (position - previous) * t;
        const Vec3 inPlane = hitPoint - plane.point - plane.normal * dot(hitPoint - plane.point, plane.normal);
        if (lengthSquared(inPlane) < plane.holeRadius * plane.holeRadius) return false;
    }
    if (plane.radius > 0.f) {
        const float t = d0 / (d0 - d1);
        const Vec3 hitPoint = previous + (position - previous) * t;
        const Vec3 inPlane = hitPoint - plane.point - plane.normal * dot(hitPoint - plane.point, plane.normal);
        if (lengthSquared(inPlane) > plane.radius * plane.radius) return false;
    }
    // Mirror the overshoot back to the original side, scaled by the restitution. A
    // small fraction of the travel keeps it strictly on that side even when e = 0.
    const float e = plane.restitution;
    const float side = d0 >= 0.f ? 1.f : -1.f;
    const float overshoot = fabsf(d1);
    const float keep = fmaxf(e * overshoot, 0.01f * fabsf(d1 - d0));
    position = position + plane.normal * (side * (overshoot + keep));
    const float vn = dot(velocity, plane.normal);
    if (vn * side < 0.f) velocity = velocity - plane.normal * ((1.f + e) * vn);
    return true;
}

} // namespace atrium::sph
