#include "sim/sph/TriangleMesh.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
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

namespace atrium::sph {

std::size_t TriangleMesh::countLatticePointsInside(float step, const std::function<bool(Vec3)>& accept) const {
    if (!(step > 0.f) || !std::isfinite(step))
        throw std::invalid_argument("countLatticePointsInside: step must be positive and finite, got " + std::to_string(step));
    if (triangles.empty()) return 0;
    const Aabb b = bounds();
    const double s = step;
    const auto count = [&](float lo, float hi) { return std::size_t(std::max(0.0, std::floor((double(hi) - lo) / s))) + 1; };
    const std::size_t nx = count(b.lo.x, b.hi.x), ny = count(b.lo.y, b.hi.y), nz = count(b.lo.z, b.hi.z);
    // The lattice index range [first, last] whose coordinates lo + (n + 1/2) s fall in [a, c].
    const auto span = [&](double lo, double a, double c, std::size_t n) {
        const double f = std::max(0.0, std::ceil((a - lo) / s - 0.5)), l = std::floor((c - lo) / s - 0.5);
        return std::pair<std::size_t, std::size_t>{std::size_t(f), l < f ? 0 : std::min(std::size_t(l) + 1, n)};
    };
    // The triangles each x row of the lattice can cross (compressed rows, index j + ny k):
    // counted on the first pass, listed on the second.
    std::vector<std::uint32_t> start(ny * nz + 1, 0), next, list;
    for (int pass = 0; pass < 2; ++pass) {
        if (pass == 1) {
            for (std::size_t r = 0; r < ny * nz; ++r) start[r + 1] += start[r];
            next.assign(start.begin(), start.end() - 1);
            list.resize(start.back());
        }
        for (std::uint32_t t = 0; t < triangles.size(); ++t) {
            const Vec3 &p = vertices[triangles[t][0]], &q = vertices[triangles[t][1]], &r = vertices[triangles[t][2]];
            const double margin = 0.01 * s; // beyond the largest nudge of a row (below)
            const auto [j0, j1] = span(b.lo.y, std::min({p.y, q.y, r.y}) - margin, std::max({p.y, q.y, r.y}) + margin, ny);
            const auto [k0, k1] = span(b.lo.z, std::min({p.z, q.z, r.z}) - margin, std::max({p.z, q.z, r.z}) + margin, nz);
            for (std::size_t k = k0; k < k1; ++k)
                for (std::size_t j = j0; j < j1; ++j) {
                    if (pass == 0) ++start[j + ny * k + 1];
                    else list[next[j + ny * k]++] = t;
                }
        }
    }
    const auto rowCount = [&](std::size_t j, std::size_t k) -> std::size_t {
        std::vector<double> crossings;
        for (int attempt = 0; attempt < 4; ++attempt) {
            // The row's (y, z), nudged by an irrational fraction of a step on a retry.
            const double y = b.lo.y + (double(j) + 0.5) * s + attempt * 1.1e-3 * std::numbers::sqrt2 * s;
            const double z = b.lo.z + (double(k) + 0.5) * s + attempt * 0.7e-3 * std::numbers::pi * s;
            crossings.clear();
            bool grazed = false;
            for (std::uint32_t e = start[j + ny * k]; e < start[j + ny * k + 1] && !grazed; ++e) {
                const auto& t = triangles[list[e]];
                const Vec3 &p = vertices[t[0]], &q = vertices[t[1]], &r = vertices[t[2]];
                const auto edge = [&](const Vec3& a, const Vec3& c) {
                    return (double(c.y) - a.y) * (z - a.z) - (double(c.z) - a.z) * (y - a.y);
                };
                const double w0 = edge(q, r), w1 = edge(r, p), w2 = edge(p, q);
                if (w0 == 0.0 || w1 == 0.0 || w2 == 0.0) {
                    // On an edge's line: a crossing only if within the other two edges.
                    if ((w0 >= 0 && w1 >= 0 && w2 >= 0) || (w0 <= 0 && w1 <= 0 && w2 <= 0)) grazed = true;
                    continue;
                }
                if ((w0 > 0) != (w1 > 0) || (w1 > 0) != (w2 > 0)) continue;
                const double d = w0 + w1 + w2;
                crossings.push_back((w0 * p.x + w1 * q.x + w2 * r.x) / d);
            }
            if (grazed || crossings.size() % 2 != 0) continue;
            std::sort(crossings.begin(), crossings.end());
            std::size_t inside = 0;
            for (std::size_t c = 0; c < crossings.size(); c += 2) {
                const auto [i0, i1] = span(b.lo.x, crossings[c], crossings[c + 1], nx);
                for (std::size_t i = i0; i < i1; ++i)
                    if (accept(Vec3{float(b.lo.x + (double(i) + 0.5) * s), float(y), float(z)})) ++inside;
            }
            return inside;
        }
        throw std::runtime_error("countLatticePointsInside: the lattice row at y = " + std::to_string(b.lo.y + (j + 0.5) * s) +
                                 ", z = " + std::to_string(b.lo.z + (k + 0.5) * s) +
                                 " crosses the surface an odd number of times: the mesh is not closed");
    };
    return tbb::parallel_reduce(
        tbb::blocked_range<std::size_t>(0, nz), std::size_t(0),
        [&](const tbb::blocked_range<std::size_t>& range, std::size_t n) {
            for (std::size_t k = range.begin(); k < range.end(); ++k)
                for (std::size_t j = 0; j < ny; ++j) n += rowCount(j, k);
            return n;
        },
        std::plus<>());
}

} // namespace atrium::sph
