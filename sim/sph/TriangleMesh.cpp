#include "sim/sph/TriangleMesh.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>

namespace atrium::sph {

Aabb TriangleMesh::bounds() const {
    if (vertices.empty()) return Aabb{};
    Aabb b{vertices.front(), vertices.front()};
    for (const Vec3& v : vertices) {
        b.lo = componentMin(b.lo, v);
        b.hi = componentMax(b.hi, v);
    }
    return b;
}

double TriangleMesh::enclosedVolume() const {
    // Divergence theorem: V = 1/6 sum over triangles of a . (b x c), taken relative to a
    // point near the mesh to limit cancellation; in double for large meshes.
    if (vertices.empty()) return 0.0;
    const Aabb b = bounds();
    const double ox = 0.5 * (double(b.lo.x) + b.hi.x), oy = 0.5 * (double(b.lo.y) + b.hi.y),
                 oz = 0.5 * (double(b.lo.z) + b.hi.z);
    double sum = 0.0;
    for (const auto& t : triangles) {
        const Vec3& pa = vertices.at(t[0]);
        const Vec3& pb = vertices.at(t[1]);
        const Vec3& pc = vertices.at(t[2]);
        const double ax = pa.x - ox, ay = pa.y - oy, az = pa.z - oz;
        const double bx = pb.x - ox, by = pb.y - oy, bz = pb.z - oz;
        const double cx = pc.x - ox, cy = pc.y - oy, cz = pc.z - oz;
        sum += ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
    }
    return sum / 6.0;
}

TriangleMesh TriangleMesh::icosphere(Vec3 center, float radius, int subdivisions) {
    if (!(radius > 0.f) || !std::isfinite(radius))
        throw std::invalid_argument("icosphere: radius must be positive and finite, got " + std::to_string(radius));
    if (subdivisions < 0 || subdivisions > 8)
        throw std::invalid_argument("icosphere: subdivisions must be in [0, 8], got " + std::to_string(subdivisions));
    if (!isFinite(center)) throw std::invalid_argument("icosphere: centre is not finite");

    // Unit directions in double until the final projection.
    struct D3 { double x, y, z; };
    std::vector<D3> dirs;
    const std::size_t finalVertices = 10u * (std::size_t(1) << (2 * subdivisions)) + 2u;
    dirs.reserve(finalVertices);
    auto addUnit = [&dirs](double x, double y, double z) {
        const double l = std::sqrt(x * x + y * y + z * z);
        dirs.push_back({x / l, y / l, z / l});
        return std::uint32_t(dirs.size() - 1);
    };
    const double g = (1.0 + std::sqrt(5.0)) / 2.0;
    const double base[12][3] = {{-1, g, 0}, {1, g, 0}, {-1, -g, 0}, {1, -g, 0}, {0, -1, g}, {0, 1, g},
                                {0, -1, -g}, {0, 1, -g}, {g, 0, -1}, {g, 0, 1}, {-g, 0, -1}, {-g, 0, 1}};
    for (const auto& v : base) addUnit(v[0], v[1], v[2]);
    std::vector<std::array<std::uint32_t, 3>> tris = {
        {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4},
        {11, 10, 2}, {10, 7, 6}, {7, 1, 8},  {3, 9, 4},  {3, 4, 2},   {3, 2, 6}, {3, 6, 8},
        {3, 8, 9},  {4, 9, 5},  {2, 4, 11}, {6, 2, 10}, {8, 6, 7},   {9, 8, 1}};
    // Make every base face counter-clockwise seen from outside (normal . centroid > 0);
    // subdivision below preserves the orientation.
    for (auto& t : tris) {
        const D3 &a = dirs[t[0]], &b = dirs[t[1]], &c = dirs[t[2]];
        const double ux = b.x - a.x, uy = b.y - a.y, uz = b.z - a.z;
        const double vx = c.x - a.x, vy = c.y - a.y, vz = c.z - a.z;
        const double nx = uy * vz - uz * vy, ny = uz * vx - ux * vz, nz = ux * vy - uy * vx;
        if (nx * (a.x + b.x + c.x) + ny * (a.y + b.y + c.y) + nz * (a.z + b.z + c.z) < 0.0) std::swap(t[1], t[2]);
    }

    std::unordered_map<std::uint64_t, std::uint32_t> midpoints;
    for (int s = 0; s < subdivisions; ++s) {
        midpoints.clear();
        midpoints.reserve(tris.size() * 3 / 2);
        auto midpoint = [&](std::uint32_t i, std::uint32_t j) {
            const std::uint64_t key = (std::uint64_t(std::min(i, j)) << 32) | std::max(i, j);
            const auto it = midpoints.find(key);
            if (it != midpoints.end()) return it->second;
            const D3 a = dirs[i], b = dirs[j];
            const std::uint32_t m = addUnit(a.x + b.x, a.y + b.y, a.z + b.z);
            midpoints.emplace(key, m);
            return m;
        };
        std::vector<std::array<std::uint32_t, 3>> next;
        next.reserve(tris.size() * 4);
        for (const auto& t : tris) {
            const std::uint32_t ab = midpoint(t[0], t[1]), bc = midpoint(t[1], t[2]), ca = midpoint(t[2], t[0]);
            next.push_back({t[0], ab, ca});
            next.push_back({t[1], bc, ab});
            next.push_back({t[2], ca, bc});
            next.push_back({ab, bc, ca});
        }
        tris.swap(next);
    }

    TriangleMesh mesh;
    mesh.vertices.reserve(dirs.size());
    for (const D3& d : dirs)
        mesh.vertices.push_back({float(center.x + radius * d.x), float(center.y + radius * d.y),
                                 float(center.z + radius * d.z)});
    mesh.triangles = std::move(tris);
    return mesh;
}

} // namespace atrium::sph
