#pragma once
// Closed triangle surface used as a (possibly moving) wall. Vertices in metres,
// triangles wound counter-clockwise seen from outside (normals point out of the
// enclosed fluid volume).

#include "sim/sph/Vec3.h"

#include <array>
#include <cstdint>
#include <vector>

namespace atrium::sph {

struct TriangleMesh {
    std::vector<Vec3> vertices;
    std::vector<std::array<std::uint32_t, 3>> triangles;

    Aabb bounds() const;
    /// Signed enclosed volume (m^3), positive for outward-facing triangles.
    double enclosedVolume() const;
    /// Unit-sphere-like mesh: an icosahedron subdivided `subdivisions` times, projected
    /// on the sphere of `radius` around `center`. 20 * 4^subdivisions triangles.
    static TriangleMesh icosphere(Vec3 center, float radius, int subdivisions);
};

} // namespace atrium::sph
