#pragma once
// Closed triangle surface used as a (possibly moving) wall. Vertices in metres,
// triangles wound counter-clockwise seen from outside (normals point out of the
// enclosed fluid volume).

#include "sim/sph/Vec3.h"

#include <array>
#include <functional>
#include <cstdint>
#include <vector>

namespace atrium::sph {

struct TriangleMesh {
    std::vector<Vec3> vertices;
    std::vector<std::array<std::uint32_t, 3>> triangles;

    Aabb bounds() const;
    /// Signed enclosed volume (m^3), positive for outward-facing triangles.
    double enclosedVolume() const;
    /// How many points of the lattice lo + (i + 1/2, j + 1/2, k + 1/2) step over bounds()
    /// lie inside the mesh (which must be closed) and are accepted by `accept` (called
    /// only for inside points). Inside is decided by crossing parity along each x row of
    /// the lattice, so a row costs its crossings, not a distance query per point; a row
    /// whose crossings do not pair up (it grazed an edge or a vertex) is taken again a
    /// hair's breadth away. Throws std::runtime_error if the mesh is not closed.
    /// `step` in the mesh's units, > 0.
    std::size_t countLatticePointsInside(float step, const std::function<bool(Vec3)>& accept) const;
    /// Unit-sphere-like mesh: an icosahedron subdivided `subdivisions` times, projected
    /// on the sphere of `radius` around `center`. 20 * 4^subdivisions triangles.
    static TriangleMesh icosphere(Vec3 center, float radius, int subdivisions);
};

} // namespace atrium::sph
