#include "sim/heart/HoleCapping.h"

#include "sim/heart/DoubleVector.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace atrium::heart {

namespace {

using namespace surface;

constexpr std::uint32_t kNone = BoundaryLoop::kNoVertex;
constexpr double kPi = 3.14159265358979323846;

std::uint64_t edgeKey(std::uint32_t a, std::uint32_t b) {
    return (std::uint64_t(std::min(a, b)) << 32) | std::max(a, b);
}

bool tableHasEdge(const EdgeTable& table, std::uint32_t a, std::uint32_t b) {
    const std::uint32_t lo = std::min(a, b), hi = std::max(a, b);
    const auto it = std::lower_bound(table.edges.begin(), table.edges.end(), std::make_pair(lo, hi),
                                     [](const EdgeTable::Entry& e, const std::pair<std::uint32_t, std::uint32_t>& k) {
                                         return e.a < k.first || (e.a == k.first && e.b < k.second);
                                     });
    return it != table.edges.end() && it->a == lo && it->b == hi;
}

double loopDiameter(const sph::TriangleMesh& mesh, const std::vector<std::uint32_t>& loop) {
    double best = 0.0;
    for (std::size_t i = 0; i < loop.size(); ++i) {
        const D3 p = toD3(mesh.vertices[loop[i]]);
        for (std::size_t j = i + 1; j < loop.size(); ++j)
            best = std::max(best, norm(toD3(mesh.vertices[loop[j]]) - p));
    }
    return best;
}

D3 loopCentre(const sph::TriangleMesh& mesh, const std::vector<std::uint32_t>& loop) {
    D3 c;
    for (std::uint32_t v : loop) c = c + toD3(mesh.vertices[v]);
    return loop.empty() ? c : (1.0 / double(loop.size())) * c;
}

double minAngleDeg(D3 a, D3 b, D3 c) {
    const D3 corners[3][3] = {{a, b, c}, {b, c, a}, {c, a, b}};
    double smallest = 180.0;
    for (const auto& k : corners) {
        const D3 u = k[1] - k[0], v = k[2] - k[0];
        if (dot(u, u) == 0.0 || dot(v, v) == 0.0) return 0.0;
        smallest = std::min(smallest, std::atan2(norm(cross(u, v)), dot(u, v)) * 180.0 / kPi);
    }
    return smallest;
}

/// Closed-segment intersection in 2D (touching counts).
bool segmentsMeet(const std::array<double, 2>& p1, const std::array<double, 2>& p2, const std::array<double, 2>& q1,
                  const std::array<double, 2>& q2) {
    auto orient = [](const std::array<double, 2>& a, const std::array<double, 2>& b, const std::array<double, 2>& c) {
        const double v = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
        return v > 0.0 ? 1 : (v < 0.0 ? -1 : 0);
    };
    auto onSegment = [](const std::array<double, 2>& a, const std::array<double, 2>& b, const std::array<double, 2>& c) {
        return std::min(a[0], b[0]) <= c[0] && c[0] <= std::max(a[0], b[0]) && std::min(a[1], b[1]) <= c[1] &&
               c[1] <= std::max(a[1], b[1]);
    };
    const int o1 = orient(p1, p2, q1), o2 = orient(p1, p2, q2), o3 = orient(q1, q2, p1), o4 = orient(q1, q2, p2);
    if (o1 != o2 && o3 != o4) return true;
    if (o1 == 0 && onSegment(p1, p2, q1)) return true;
    if (o2 == 0 && onSegment(p1, p2, q2)) return true;
    if (o3 == 0 && onSegment(q1, q2, p1)) return true;
    if (o4 == 0 && onSegment(q1, q2, p2)) return true;
    return false;
}

/// Triangulates the polygon `poly` (mesh vertex indices, in the winding the cap must
/// have) by ear clipping in its best-fit plane, always clipping the ear with the largest
/// smallest angle. Diagonals that already are mesh edges (or diagonals of an earlier cap)
/// are refused, so the result stays manifold. Returns false and says why on failure.
bool triangulateHole(const sph::TriangleMesh& mesh, const std::vector<std::uint32_t>& poly, const EdgeTable& table,
                     std::unordered_set<std::uint64_t>& addedEdges, std::vector<std::array<std::uint32_t, 3>>& out,
                     std::string& why) {
    const std::size_t n = poly.size();
    if (n < 3) {
        why = "it has fewer than three edges";
        return false;
    }
    std::vector<D3> p(n);
    for (std::size_t i = 0; i < n; ++i) p[i] = toD3(mesh.vertices[poly[i]]);
    D3 normal;
    D3 lo = p[0], hi = p[0];
    for (std::size_t i = 0; i < n; ++i) {
        const D3 a = p[i], b = p[(i + 1) % n];
        normal.x += (a.y - b.y) * (a.z + b.z);
        normal.y += (a.z - b.z) * (a.x + b.x);
        normal.z += (a.x - b.x) * (a.y + b.y);
        lo = {std::min(lo.x, a.x), std::min(lo.y, a.y), std::min(lo.z, a.z)};
        hi = {std::max(hi.x, a.x), std::max(hi.y, a.y), std::max(hi.z, a.z)};
    }
    const double scale = norm(hi - lo);
    const double normalLength = norm(normal);
    if (!(normalLength > 1e-9 * scale * scale)) {
        why = "it encloses no area (its boundary folds back on itself)";
        return false;
    }
    const D3 nz = (1.0 / normalLength) * normal;
    const D3 helper = std::abs(nz.x) < 0.9 ? D3{1, 0, 0} : D3{0, 1, 0};
    D3 u = cross(helper, nz);
    u = (1.0 / norm(u)) * u;
    const D3 v = cross(nz, u);
    std::vector<std::array<double, 2>> q(n);
    for (std::size_t i = 0; i < n; ++i) q[i] = {dot(p[i] - p[0], u), dot(p[i] - p[0], v)};

    // The projected polygon must be simple: no two non-adjacent edges meet.
    if (n > 3)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = i + 2; j < n; ++j) {
                if (i == 0 && j == n - 1) continue;
                if (segmentsMeet(q[i], q[(i + 1) % n], q[j], q[(j + 1) % n])) {
                    why = "its boundary crosses itself when projected on the hole's mean plane";
                    return false;
                }
            }

    const double areaEps = 1e-12 * scale * scale;
    std::vector<std::size_t> prev(n), next(n);
    for (std::size_t i = 0; i < n; ++i) {
        prev[i] = (i + n - 1) % n;
        next[i] = (i + 1) % n;
    }
    std::vector<std::uint8_t> alive(n, 1);
    std::size_t remaining = n;
    auto orient2 = [&q](std::size_t a, std::size_t b, std::size_t c) {
        return (q[b][0] - q[a][0]) * (q[c][1] - q[a][1]) - (q[b][1] - q[a][1]) * (q[c][0] - q[a][0]);
    };
    auto quality = [&](std::size_t i) -> double {
        const std::size_t a = prev[i], c = next[i];
        if (!(orient2(a, i, c) > areaEps)) return -1.0;  // reflex or degenerate corner
        for (std::size_t j = next[c]; j != a; j = next[j]) {
            // Another vertex inside or on the candidate triangle blocks the ear.
            if (orient2(a, i, j) >= 0.0 && orient2(i, c, j) >= 0.0 && orient2(c, a, j) >= 0.0) return -1.0;
        }
        if (remaining > 3) {
            if (tableHasEdge(table, poly[a], poly[c]) || addedEdges.count(edgeKey(poly[a], poly[c])) != 0)
                return -1.0;
        }
        return minAngleDeg(p[a], p[i], p[c]);
    };
    std::vector<double> score(n);
    for (std::size_t i = 0; i < n; ++i) score[i] = quality(i);

    std::vector<std::array<std::uint32_t, 3>> tris;
    tris.reserve(n - 2);
    while (remaining > 3) {
        std::size_t best = kNone;
        for (int attempt = 0; attempt < 2 && best == std::size_t(kNone); ++attempt) {
            if (attempt == 1)
                for (std::size_t i = 0; i < n; ++i)
                    if (alive[i] != 0) score[i] = quality(i);
            double bestScore = -1.0;
            for (std::size_t i = 0; i < n; ++i)
                if (alive[i] != 0 && score[i] >= 0.0 && score[i] > bestScore) {
                    bestScore = score[i];
                    best = i;
                }
        }
        if (best == std::size_t(kNone)) {
            why = "no ear can be cut (the hole is not simple in its mean plane, or every remaining diagonal "
                  "already is an edge of the mesh)";
            return false;
        }
        const std::size_t a = prev[best], c = next[best];
        tris.push_back({poly[a], poly[best], poly[c]});
        addedEdges.insert(edgeKey(poly[a], poly[c]));
        alive[best] = 0;
        next[a] = c;
        prev[c] = a;
        --remaining;
        score[a] = quality(a);
        score[c] = quality(c);
    }
    std::size_t first = 0;
    while (alive[first] == 0) ++first;
    const std::size_t second = next[first], third = next[second];
    if (!(orient2(first, second, third) > areaEps)) {
        why = "its last triangle is degenerate (collinear boundary vertices)";
        return false;
    }
    tris.push_back({poly[first], poly[second], poly[third]});
    out.insert(out.end(), tris.begin(), tris.end());
    return true;
}

std::vector<std::uint32_t> capPolygon(const BoundaryLoop& loop) {
    // The cap runs every boundary edge opposite to the triangle that owns it.
    return std::vector<std::uint32_t>(loop.vertices.rbegin(), loop.vertices.rend());
}

std::string describeHole(const sph::TriangleMesh& mesh, const BoundaryLoop& loop, std::size_t index,
                         std::size_t count) {
    std::ostringstream s;
    s.precision(4);
    s << "hole " << index + 1 << " of " << count << " (" << loop.vertices.size() << " boundary edges, diameter "
      << loopDiameter(mesh, loop.vertices) << " mm, centred at " << formatPoint(loopCentre(mesh, loop.vertices))
      << ")";
    return s.str();
}

} // namespace

std::vector<BoundaryLoop> findBoundaryLoops(const std::vector<Edge>& edges, std::size_t nVertices) {
    std::vector<std::uint32_t> outDegree(nVertices, 0), inDegree(nVertices, 0);
    for (const Edge& e : edges) {
        ++outDegree[e[0]];
        ++inDegree[e[1]];
    }
    // Boundary edges grouped by their start vertex.
    std::vector<std::size_t> order(edges.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&edges](std::size_t i, std::size_t j) {
        return edges[i][0] < edges[j][0] || (edges[i][0] == edges[j][0] && i < j);
    });
    auto firstFrom = [&](std::uint32_t v) {
        return std::lower_bound(order.begin(), order.end(), v,
                                [&edges](std::size_t i, std::uint32_t x) { return edges[i][0] < x; });
    };
    std::vector<std::uint8_t> used(edges.size(), 0);
    std::vector<BoundaryLoop> loops;
    for (std::size_t seed : order) {
        if (used[seed] != 0) continue;
        BoundaryLoop loop;
        const std::uint32_t start = edges[seed][0];
        std::size_t current = seed;
        bool closed = false;
        for (;;) {
            used[current] = 1;
            loop.vertices.push_back(edges[current][0]);
            loop.edges.push_back(current);
            const std::uint32_t w = edges[current][1];
            if (w == start) {
                closed = true;
                break;
            }
            std::size_t next = kNone;
            for (auto it = firstFrom(w); it != order.end() && edges[*it][0] == w; ++it)
                if (used[*it] == 0) {
                    next = *it;
                    break;
                }
            if (next == std::size_t(kNone)) {
                loop.badVertex = w;
                break;
            }
            current = next;
        }
        loop.simple = closed;
        for (std::uint32_t v : loop.vertices)
            if (outDegree[v] != 1 || inDegree[v] != 1) {
                loop.simple = false;
                if (loop.badVertex == kNone) loop.badVertex = v;
            }
        loops.push_back(std::move(loop));
    }
    return loops;
}

bool HoleCapper::cap(const BoundaryLoop& loop, std::string& why) {
    return triangulateHole(mesh_, capPolygon(loop), table_, added_, caps_, why);
}

void HoleCapper::addCapsTo(sph::TriangleMesh& mesh) const {
    mesh.triangles.insert(mesh.triangles.end(), caps_.begin(), caps_.end());
}

std::size_t capHoles(sph::TriangleMesh& mesh, double maxHoleDiameter) {
    if (!(maxHoleDiameter > 0.0))
        throw std::invalid_argument("capHoles: the largest hole diameter must be positive, got " +
                                    std::to_string(maxHoleDiameter));
    const EdgeTable table = buildEdgeTable(mesh);
    const std::vector<Edge> edges = boundaryEdges(table);
    if (edges.empty()) return 0;
    const std::vector<BoundaryLoop> loops = findBoundaryLoops(edges, mesh.vertices.size());

    HoleCapper capper(mesh, table);
    for (std::size_t i = 0; i < loops.size(); ++i) {
        const BoundaryLoop& loop = loops[i];
        if (!loop.simple) {
            const std::uint32_t v = loop.badVertex;
            throw std::runtime_error("capHoles: cannot close " + describeHole(mesh, loop, i, loops.size()) +
                                     ": its boundary is not a simple loop (vertex " + std::to_string(v) + " at " +
                                     formatPoint(toD3(mesh.vertices[v])) +
                                     " is shared by two holes or the winding around it is inconsistent)");
        }
        const double diameter = loopDiameter(mesh, loop.vertices);
        if (diameter > maxHoleDiameter) {
            std::ostringstream limit;
            limit.precision(4);
            limit << maxHoleDiameter;
            throw std::runtime_error("capHoles: cannot close " + describeHole(mesh, loop, i, loops.size()) +
                                     ": it is wider than the limit of " + limit.str() + " mm");
        }
        std::string why;
        if (!capper.cap(loop, why))
            throw std::runtime_error("capHoles: cannot close " + describeHole(mesh, loop, i, loops.size()) + ": " +
                                     why);
    }
    capper.addCapsTo(mesh);
    return loops.size();
}

std::vector<std::vector<std::uint32_t>> boundaryLoops(const sph::TriangleMesh& mesh) {
    const std::vector<Edge> edges = boundaryEdges(mesh);
    const std::vector<BoundaryLoop> loops = findBoundaryLoops(edges, mesh.vertices.size());
    std::vector<std::vector<std::uint32_t>> out;
    for (std::size_t i = 0; i < loops.size(); ++i) {
        if (!loops[i].simple)
            throw std::runtime_error("the boundary of " + describeHole(mesh, loops[i], i, loops.size()) +
                                     " is not a simple loop (vertex " + std::to_string(loops[i].badVertex) +
                                     " is shared by two holes or the winding around it is inconsistent)");
        out.push_back(loops[i].vertices);
    }
    return out;
}

} // namespace atrium::heart
