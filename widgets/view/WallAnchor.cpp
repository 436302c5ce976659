#include "widgets/view/WallAnchor.h"

#include "sim/heart/Fnv1a.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace atrium::widgets {

namespace {

using narrative::Vec3;

Vec3 vertex(const std::vector<float>& v, std::uint32_t i) {
    return {double(v[3 * std::size_t(i)]), double(v[3 * std::size_t(i) + 1]), double(v[3 * std::size_t(i) + 2])};
}

bool valid(const std::vector<float>& v, const std::vector<std::uint32_t>& t) {
    if (t.empty() || t.size() % 3 != 0 || v.size() % 3 != 0) return false;
    const std::size_t n = v.size() / 3;
    return std::all_of(t.begin(), t.end(), [n](std::uint32_t i) { return i < n; });
}

/// Closest point to p on triangle abc (Ericson, Real-Time Collision Detection 5.1.5),
/// as barycentric weights (u, v, w) of a, b, c.
void closestOnTriangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, double& u, double& v, double& w) {
    const Vec3 ab = b - a, ac = c - a, ap = p - a;
    const double d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0 && d2 <= 0) { u = 1; v = 0; w = 0; return; }
    const Vec3 bp = p - b;
    const double d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0 && d4 <= d3) { u = 0; v = 1; w = 0; return; }
    const double vc = d1 * d4 - d3 * d2;
    if (vc <= 0 && d1 >= 0 && d3 <= 0) { const double s = d1 / (d1 - d3); u = 1 - s; v = s; w = 0; return; }
    const Vec3 cp = p - c;
    const double d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0 && d5 <= d6) { u = 0; v = 0; w = 1; return; }
    const double vb = d5 * d2 - d1 * d6;
    if (vb <= 0 && d2 >= 0 && d6 <= 0) { const double s = d2 / (d2 - d6); u = 1 - s; v = 0; w = s; return; }
    const double va = d3 * d6 - d5 * d4;
    if (va <= 0 && (d4 - d3) >= 0 && (d5 - d6) >= 0) {
        const double s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        u = 0; v = 1 - s; w = s;
        return;
    }
    const double denom = 1.0 / (va + vb + vc);
    v = vb * denom;
    w = vc * denom;
    u = 1.0 - v - w;
}

std::uint64_t hashOf(const std::vector<std::uint32_t>& t) {
    return heart::fnv1a(heart::kFnvOffset, t.data(), t.size() * sizeof(std::uint32_t));
}

} // namespace

namespace {

/// Where the ray origin + t dir meets triangle k (Moller-Trumbore, both faces): its t,
/// or nothing.
std::optional<double> rayMeetsTriangle(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                                       std::size_t k, const Vec3& origin, const Vec3& dir) {
    const Vec3 a = vertex(vertexMm, triangles[k]), b = vertex(vertexMm, triangles[k + 1]), c = vertex(vertexMm, triangles[k + 2]);
    const Vec3 e1 = b - a, e2 = c - a, p = cross(dir, e2);
    const double det = dot(e1, p);
    if (std::abs(det) < 1e-12) return std::nullopt;
    const Vec3 s = origin - a;
    const double u = dot(s, p) / det;
    if (u < 0.0 || u > 1.0) return std::nullopt;
    const Vec3 q = cross(s, e1);
    const double v = dot(dir, q) / det;
    if (v < 0.0 || u + v > 1.0) return std::nullopt;
    return dot(e2, q) / det;
}

} // namespace

std::optional<Vec3> intersectWall(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                                  const Vec3& origin, const Vec3& dir) {
    if (!valid(vertexMm, triangles)) return std::nullopt;
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k + 2 < triangles.size(); k += 3)
        if (const auto t = rayMeetsTriangle(vertexMm, triangles, k, origin, dir); t && *t > 0.0 && *t < best) best = *t;
    if (!std::isfinite(best)) return std::nullopt;
    return origin + dir * best;
}

std::size_t wallCrossings(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                          const Vec3& from, const Vec3& to) {
    if (!valid(vertexMm, triangles)) return 0;
    std::size_t n = 0;
    for (std::size_t k = 0; k + 2 < triangles.size(); k += 3)
        if (const auto t = rayMeetsTriangle(vertexMm, triangles, k, from, to - from); t && *t > 0.0 && *t < 1.0) ++n;
    return n;
}

Vec3 WallAnchor::follow(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                        std::uint64_t topology) {
    if (!valid(vertexMm, triangles)) return point_;
    // Hash the connectivity only when it changed.
    if (lastTopology_ != topology) lastKey_ = hashOf(triangles);
    lastTopology_ = topology;
    auto it = bindings_.find(lastKey_);
    if (it == bindings_.end()) {
        Binding best;
        double bestDistance = std::numeric_limits<double>::infinity();
        for (std::size_t k = 0; k + 2 < triangles.size(); k += 3) {
            const Vec3 a = vertex(vertexMm, triangles[k]), b = vertex(vertexMm, triangles[k + 1]), c = vertex(vertexMm, triangles[k + 2]);
            double u, v, w;
            closestOnTriangle(point_, a, b, c, u, v, w);
            const Vec3 q = a * u + b * v + c * w;
            const double d = lengthSquared(point_ - q);
            if (d < bestDistance) {
                bestDistance = d;
                best = {std::uint32_t(k / 3), u, v};
            }
        }
        it = bindings_.emplace(lastKey_, best).first;
    }
    const Binding& b = it->second;
    const std::size_t k = 3 * std::size_t(b.triangle);
    point_ = vertex(vertexMm, triangles[k]) * b.a + vertex(vertexMm, triangles[k + 1]) * b.b +
             vertex(vertexMm, triangles[k + 2]) * (1.0 - b.a - b.b);
    return point_;
}

} // namespace atrium::widgets
