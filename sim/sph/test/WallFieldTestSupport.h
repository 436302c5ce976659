#pragma once
// Shared by the WallDistanceField tests: closed boxes, meshes put together, and the
// independent references (brute-force distance, inside by the winding number).

#include "sim/sph/TriangleMesh.h"
#include "sim/sph/WallDistanceField.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace atrium::sph::test {

inline constexpr double kPi = 3.14159265358979323846;

/// Closed box with outward counter-clockwise triangles.
inline TriangleMesh makeBox(Vec3 lo, Vec3 hi) {
    TriangleMesh m;
    for (int i = 0; i < 8; ++i)
        m.vertices.push_back({(i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z});
    const std::uint32_t q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : q) {
        m.triangles.push_back({f[0], f[1], f[2]});
        m.triangles.push_back({f[0], f[2], f[3]});
    }
    return m;
}

inline void append(TriangleMesh& dst, const TriangleMesh& src, bool flip = false) {
    const auto offset = std::uint32_t(dst.vertices.size());
    dst.vertices.insert(dst.vertices.end(), src.vertices.begin(), src.vertices.end());
    for (auto t : src.triangles) {
        if (flip) std::swap(t[1], t[2]);
        dst.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
    }
}

/// Independent reference: unsigned distance by brute force over all triangles and the
/// inside test by the generalised winding number (solid angles, Van Oosterom-Strackee).
inline double bruteDistance(const TriangleMesh& m, Vec3 p) {
    double best = 1e30;
    for (const auto& t : m.triangles) {
        const auto c = closestPointOnTriangle(p, m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]]);
        best = std::min(best, double(length(p - c.point)));
    }
    return best;
}
inline bool insideByWinding(const TriangleMesh& m, Vec3 p) {
    double total = 0.0;
    for (const auto& t : m.triangles) {
        double a[3], b[3], c[3];
        const Vec3 va = m.vertices[t[0]] - p, vb = m.vertices[t[1]] - p, vc = m.vertices[t[2]] - p;
        a[0] = va.x; a[1] = va.y; a[2] = va.z;
        b[0] = vb.x; b[1] = vb.y; b[2] = vb.z;
        c[0] = vc.x; c[1] = vc.y; c[2] = vc.z;
        auto len = [](const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
        auto dt = [](const double* u, const double* v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; };
        const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                           a[2] * (b[0] * c[1] - b[1] * c[0]);
        const double la = len(a), lb = len(b), lc = len(c);
        const double den = la * lb * lc + dt(a, b) * lc + dt(b, c) * la + dt(c, a) * lb;
        total += 2.0 * std::atan2(det, den);
    }
    return total / (4.0 * kPi) > 0.5;
}

inline WallDistanceField::Settings cells(float h) {
    WallDistanceField::Settings s;
    s.cellSize = h;
    return s;
}

} // namespace atrium::sph::test
