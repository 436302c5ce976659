#include "sim/sph/WallDistanceField.h"

#include "sim/sph/WallFieldBuild.h"

#include <tbb/blocked_range.h>
#include <tbb/blocked_range2d.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace atrium::sph {

using namespace wallfield;

namespace {

/// Bytes a vector holds (its capacity), for the memory reports.
template <class V>
std::size_t capacityBytes(const V& v) {
    return v.capacity() * sizeof(typename V::value_type);
}

// Four floats / ints (GCC and Clang vector extension; SSE on x86-64).
using V4 = float __attribute__((vector_size(16)));
using V4i = std::int32_t __attribute__((vector_size(16)));

/// Bit l set where lane l of a comparison result is true.
inline unsigned laneMask(V4i m) {
#if defined(__SSE2__)
    return unsigned(_mm_movemask_ps(_mm_castsi128_ps(__m128i(m))));
#else
    return (m[0] & 1u) | (m[1] & 2u) | (m[2] & 4u) | (m[3] & 8u);
#endif
}

/// Per lane: the smallest grid index >= g, clamped to [0, last + 1] (NaN: last + 1).
V4i ceilIndex(V4 g, int last) {
    const V4 top = V4{} + float(last + 1);
    g = g >= -1.f ? (g < top ? g : top) : (g < -1.f ? V4{} - 1.f : top);
    V4i i = __builtin_convertvector(g, V4i); // truncation
    i -= __builtin_convertvector(i, V4) < g; // true is -1
    return i < 0 ? V4i{} : i;
}
/// Per lane: the largest grid index <= g, clamped to [-1, last] (NaN: -1).
V4i floorIndex(V4 g, int last) {
    const V4 top = V4{} + float(last + 1);
    g = g >= -1.f ? (g < top ? g : top) : V4{} - 1.f;
    V4i i = __builtin_convertvector(g, V4i);
    i += __builtin_convertvector(i, V4) > g;
    return i > last ? V4i{} + last : i;
}


std::string describe(Vec3 v) {
    return "(" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " + std::to_string(v.z) + ")";
}

/// Key ordered by squared distance first, then triangle index (non-negative floats
/// order like their bit patterns).
std::uint64_t packKey(float d2, std::uint32_t triangle) {
    return (std::uint64_t(std::bit_cast<std::uint32_t>(d2)) << 32) | triangle;
}

void atomicMin(std::uint64_t& target, std::uint64_t value) {
    std::atomic_ref<std::uint64_t> ref(target);
    std::uint64_t current = ref.load(std::memory_order_relaxed);
    while (value < current && !ref.compare_exchange_weak(current, value, std::memory_order_relaxed)) {
    }
}


/// Index range [lo, hi] of grid positions origin + i * h overlapping [a, b], clamped to
/// [0, last]; empty when lo > hi.
[[gnu::always_inline]] inline std::pair<int, int> indexRange(float a, float b, float origin, float invH, int last) {
    // ceil / floor by truncation after clamping (std::ceil and std::floor are library
    // calls on baseline x86-64); NaN maps to an empty range.
    const float top = float(last + 1);
    float fa = (a - origin) * invH, fb = (b - origin) * invH;
    fa = fa >= -1.f ? (fa < top ? fa : top) : (fa < -1.f ? -1.f : top); // NaN: empty
    fb = fb >= -1.f ? (fb < top ? fb : top) : -1.f;
    int lo = int(fa), hi = int(fb);
    lo += float(lo) < fa ? 1 : 0;
    hi -= float(hi) > fb ? 1 : 0;
    return {std::max(lo, 0), std::min(hi, last)};
}

/// Which side of the directed edge a -> b, in the (y, z) plane, the point (py, pz)
/// lies on: +1 left, -1 right. The point is perturbed symbolically by (eps, eps^2), so
/// it never lies on an edge and an edge taken in the opposite direction always gives the
/// opposite answer: a grid line through a shared edge or vertex crosses exactly one of
/// the triangles there (Edelsbrunner & Muecke's simulation of simplicity). Float inputs
/// make the products exact in double, so the sign is exact. 0 only for a = b.
int edgeSide(float ay, float az, float by, float bz, float py, float pz) {
    const double dy = double(by) - ay, dz = double(bz) - az;
    const double e = dy * (double(pz) - az) - dz * (double(py) - ay);
    if (e != 0.0) return e > 0.0 ? 1 : -1;
    if (dz != 0.0) return dz < 0.0 ? 1 : -1; // d e / d py = -dz
    if (dy != 0.0) return dy > 0.0 ? 1 : -1; // d e / d pz = dy
    return 0;
}

/// Where the grid line {(x, py, pz)} crosses triangle (a, b, c), if it does (see
/// edgeSide for lines through edges and vertices).
bool lineCrossing(Vec3 a, Vec3 b, Vec3 c, float py, float pz, float& x) {
    const int sa = edgeSide(b.y, b.z, c.y, c.z, py, pz); // weight of a
    const int sb = edgeSide(c.y, c.z, a.y, a.z, py, pz);
    const int sc = edgeSide(a.y, a.z, b.y, b.z, py, pz);
    if (sa == 0 || sa != sb || sb != sc) return false;
    const auto area = [&](Vec3 u, Vec3 v) {
        return (double(v.y) - u.y) * (double(pz) - u.z) - (double(v.z) - u.z) * (double(py) - u.y);
    };
    const double wa = area(b, c), wb = area(c, a), wc = area(a, b), sum = wa + wb + wc;
    x = sum != 0.0 ? float((wa * a.x + wb * b.x + wc * c.x) / sum) : (a.x + b.x + c.x) / 3.f;
    return true;
}

} // namespace

void WallDistanceField::build(const TriangleMesh& mesh, const std::vector<Vec3>* vertexVelocities,
                              const Settings& settings) {
    using Clock = std::chrono::steady_clock;
    const auto msSince = [](Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); };
    auto t0 = Clock::now();
    // ---- Validation (nothing is modified until it passes).
    const std::size_t vertexCount = mesh.vertices.size();
    const std::size_t triangleCount = mesh.triangles.size();
    if (vertexCount == 0 || triangleCount == 0)
        throw std::invalid_argument("WallDistanceField: the wall mesh is empty (" + std::to_string(vertexCount) +
                                    " vertices, " + std::to_string(triangleCount) + " triangles)");
    if (vertexCount >= kNoNeighbour || triangleCount >= kNoNeighbour / 3)
        throw std::invalid_argument("WallDistanceField: the wall mesh is too large (" + std::to_string(vertexCount) +
                                    " vertices, " + std::to_string(triangleCount) + " triangles)");
    for (std::size_t t = 0; t < triangleCount; ++t)
        for (int c = 0; c < 3; ++c)
            if (mesh.triangles[t][c] >= vertexCount)
                throw std::invalid_argument("WallDistanceField: triangle " + std::to_string(t) + " references vertex " +
                                            std::to_string(mesh.triangles[t][c]) + " but the mesh has only " +
                                            std::to_string(vertexCount) + " vertices");
    for (std::size_t v = 0; v < vertexCount; ++v)
        if (!isFinite(mesh.vertices[v]))
            throw std::invalid_argument("WallDistanceField: vertex " + std::to_string(v) + " is not finite " +
                                        describe(mesh.vertices[v]));
    if (vertexVelocities) {
        if (vertexVelocities->size() != vertexCount)
            throw std::invalid_argument("WallDistanceField: " + std::to_string(vertexVelocities->size()) +
                                        " vertex velocities given for " + std::to_string(vertexCount) + " vertices");
        for (std::size_t v = 0; v < vertexCount; ++v)
            if (!isFinite((*vertexVelocities)[v]))
                throw std::invalid_argument("WallDistanceField: velocity of vertex " + std::to_string(v) +
                                            " is not finite " + describe((*vertexVelocities)[v]));
    }
    const float h = settings.cellSize;
    if (!(h > 0.f) || !std::isfinite(h))
        throw std::invalid_argument("WallDistanceField: cell size must be positive and finite, got " +
                                    std::to_string(h) + " m");
    if (settings.paddingCells < 1)
        throw std::invalid_argument("WallDistanceField: paddingCells must be at least 1, got " +
                                    std::to_string(settings.paddingCells));
    if (!(settings.margin >= 0.f) || !std::isfinite(settings.margin))
        throw std::invalid_argument("WallDistanceField: margin must be finite and >= 0, got " +
                                    std::to_string(settings.margin));
    float band = settings.band;
    if (band == 0.f) band = std::max(3.f * h, settings.margin + 2.f * h);
    if (!(band >= 2.f * h * 0.9999f) || !std::isfinite(band))
        throw std::invalid_argument("WallDistanceField: band (" + std::to_string(settings.band) +
                                    " m) must be at least 2 cells (" + std::to_string(2.f * h) +
                                    " m), or 0 for automatic");
    const Aabb mb = mesh.bounds();
    const int pad = settings.paddingCells;
    int dims[3];
    double nodes = 1.0;
    for (int a = 0; a < 3; ++a) {
        const double n = std::ceil((double(mb.hi[a]) - double(mb.lo[a])) / h) + 2.0 * pad + 1.0;
        nodes *= n;
        if (!(n < 1e9) || !(nodes <= kMaxNodes))
            throw std::invalid_argument("WallDistanceField: a grid of cell size " + std::to_string(h) +
                                        " m over the mesh bounds " + describe(mb.lo) + " - " + describe(mb.hi) +
                                        " would need more than 2^26 (~64M) nodes; use a larger cell size");
        dims[a] = int(n);
    }

    // ---- Grid and mesh copy.
    settings_ = settings;
    cellSize_ = h;
    band_ = band;
    nx_ = dims[0];
    ny_ = dims[1];
    nz_ = dims[2];
    meshBounds_ = mb;
    origin_ = mb.lo - Vec3{1.f, 1.f, 1.f} * (float(pad) * h);

    updateTopology(mesh);
    vertices_.assign(mesh.vertices.begin(), mesh.vertices.end());
    if (vertexVelocities)
        vertexVelocities_.assign(vertexVelocities->begin(), vertexVelocities->end());
    else
        vertexVelocities_.assign(vertexCount, Vec3{});
    computeNormals();
    sizeGrid();

    times_.meshMs = msSince(t0);
    t0 = Clock::now();
    scatterBand();
    times_.bandMs = msSince(t0);
    t0 = Clock::now();
    resolveNodes();
    times_.signMs = msSince(t0);
    t0 = Clock::now();
    buildThinCells();
    times_.thinMs = msSince(t0);
}

void WallDistanceField::sizeGrid() {
    nodeCount_ = std::size_t(nx_) * ny_ * nz_;
    cellCount_ = std::size_t(nx_ - 1) * (ny_ - 1) * (nz_ - 1);
    // Grow only: a beating wall changes the grid size every build, and shrinking then
    // growing again would re-initialise the regrown tail. Elements past the counts are
    // stale but keep the invariants (zero velocity wherever nodeBand_ is 0, zero cell
    // starts past cellStartDirtyEnd_).
    auto grow = [](auto& vec, std::size_t n) {
        if (vec.size() < n) vec.resize(n);
    };
    grow(phi_, nodeCount_);
    grow(nodeVelocity_, nodeCount_);
    grow(nodeBand_, nodeCount_);
    grow(nodeKey_, nodeCount_);
    grow(cellTriangleStart_, cellCount_ + 1);
    grow(cellThin_, cellCount_);
}

void WallDistanceField::updateTopology(const TriangleMesh& mesh) {
    const std::size_t T = mesh.triangles.size(), V = mesh.vertices.size();
    bool same = topologyValid_ && triangles_.size() == 3 * T && vertexCornerStart_.size() == V + 1;
    if (same) same = std::memcmp(triangles_.data(), mesh.triangles.data(), 3 * T * sizeof(std::uint32_t)) == 0;
    if (same) return;

    topologyValid_ = false;
    triangles_.resize(3 * T);
    std::memcpy(triangles_.data(), mesh.triangles.data(), 3 * T * sizeof(std::uint32_t));

    // Edge adjacency by sorting (undirected edge, triangle * 3 + edge); only when the
    // triangle list changes (a moving heart keeps its connectivity).
    std::vector<std::pair<std::uint64_t, std::uint32_t>> edges(3 * T);
    for (std::size_t t = 0; t < T; ++t)
        for (int e = 0; e < 3; ++e) {
            const std::uint32_t a = triangles_[3 * t + e], b = triangles_[3 * t + (e + 1) % 3];
            edges[3 * t + e] = {(std::uint64_t(std::min(a, b)) << 32) | std::max(a, b), std::uint32_t(3 * t + e)};
        }
    std::sort(edges.begin(), edges.end());
    edgeNeighbour_.assign(3 * T, kNoNeighbour);
    for (std::size_t i = 0; i < edges.size();) {
        std::size_t j = i + 1;
        while (j < edges.size() && edges[j].first == edges[i].first) ++j;
        if (j - i == 2) { // manifold edge; boundary and non-manifold edges keep the face normal
            edgeNeighbour_[edges[i].second] = edges[i + 1].second / 3;
            edgeNeighbour_[edges[i + 1].second] = edges[i].second / 3;
        }
        i = j;
    }

    // Vertex -> incident corners (CSR).
    vertexCornerStart_.assign(V + 1, 0);
    for (std::uint32_t v : triangles_) ++vertexCornerStart_[v + 1];
    for (std::size_t v = 0; v < V; ++v) vertexCornerStart_[v + 1] += vertexCornerStart_[v];
    vertexCorners_.resize(3 * T);
    std::vector<std::uint32_t> cursor(vertexCornerStart_.begin(), vertexCornerStart_.end() - 1);
    for (std::size_t k = 0; k < 3 * T; ++k) vertexCorners_[cursor[triangles_[k]]++] = std::uint32_t(k);

    // Regular vertices: the incident triangles form a single closed fan, every edge at the
    // vertex shared by exactly two of them with opposite directions (consistent winding).
    // Walk around the vertex across the edge (previous corner -> vertex) of each triangle.
    vertexRegular_.assign(V, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, V, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t v = r.begin(); v != r.end(); ++v) {
            const std::uint32_t begin = vertexCornerStart_[v], valence = vertexCornerStart_[v + 1] - begin;
            if (valence < 3) continue;
            bool ok = true;
            for (std::uint32_t k = begin; k < begin + valence && ok; ++k) { // no repeated corners
                const std::uint32_t t = vertexCorners_[k] / 3;
                const std::uint32_t* tri = &triangles_[3 * t];
                ok = tri[0] != tri[1] && tri[1] != tri[2] && tri[2] != tri[0];
            }
            const std::uint32_t first = vertexCorners_[begin];
            std::uint32_t t = first / 3, c = first % 3, steps = 0;
            while (ok) {
                const std::uint32_t prev = triangles_[3 * t + (c + 2) % 3];
                const std::uint32_t nb = edgeNeighbour_[3 * t + (c + 2) % 3];
                if (nb == kNoNeighbour) { ok = false; break; }
                std::uint32_t c2 = 0;
                while (c2 < 3 && triangles_[3 * nb + c2] != std::uint32_t(v)) ++c2;
                if (c2 == 3 || triangles_[3 * nb + (c2 + 1) % 3] != prev) { ok = false; break; }
                t = nb;
                c = c2;
                if (++steps > valence) { ok = false; break; }
                if (3 * t + c == first) break;
            }
            vertexRegular_[v] = ok && steps == valence ? 1 : 0;
        }
    });
    topologyValid_ = true;
}

void WallDistanceField::computeNormals(bool all) {
    const std::size_t T = triangles_.size() / 3, V = vertices_.size();
    faceNormals_.resize(T);
    triangleBalls_.resize(4 * T);
    edgeNormals_.resize(3 * T);
    cornerAngle_.resize(3 * T);
    triangleSliver_.resize(T);
    triangleConeCos_.resize(T);
    vertexNormals_.resize(V);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, T, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t t = r.begin(); t != r.end(); ++t) {
            const Vec3 p0 = vertices_[triangles_[3 * t]], p1 = vertices_[triangles_[3 * t + 1]],
                       p2 = vertices_[triangles_[3 * t + 2]];
            const Vec3 e1 = p1 - p0, e2 = p2 - p0, nc = cross(e1, e2);
            faceNormals_[t] = normalized(nc);
            // Centroid and farthest corner, the radius rounded up past its float error.
            const Vec3 c = (p0 + p1 + p2) * (1.f / 3.f);
            const float radius = std::sqrt(std::max({lengthSquared(p0 - c), lengthSquared(p1 - c), lengthSquared(p2 - c)}));
            float* ball = &triangleBalls_[4 * t];
            ball[0] = c.x, ball[1] = c.y, ball[2] = c.z;
            ball[3] = radius * (1.f + 1e-5f) + 1e-6f * (std::fabs(c.x) + std::fabs(c.y) + std::fabs(c.z));
            if (!all) continue;
            // The direction of the computed normal is trusted (to ~1e-4 rad) when the
            // sine of the angle at corner 0 is at least 1e-3.
            const float n2 = lengthSquared(nc);
            triangleSliver_[t] = (n2 > 0.f && n2 >= 1e-6f * lengthSquared(e1) * lengthSquared(e2)) ? 0 : 1;
            // Corner c spans the unit edges towards c + 1 and c + 2; each unit edge serves
            // two corners (normalized(-x) == -normalized(x) exactly).
            const Vec3 u01 = normalized(e1), u12 = normalized(p2 - p1), u20 = normalized(p0 - p2);
            const bool ok01 = lengthSquared(u01) > 0.f, ok12 = lengthSquared(u12) > 0.f, ok20 = lengthSquared(u20) > 0.f;
            // Zero-length edges contribute no angle (and a zero face normal anyway).
            cornerAngle_[3 * t] = ok01 && ok20 ? std::acos(std::clamp(-dot(u01, u20), -1.f, 1.f)) : 0.f;
            cornerAngle_[3 * t + 1] = ok12 && ok01 ? std::acos(std::clamp(-dot(u12, u01), -1.f, 1.f)) : 0.f;
            cornerAngle_[3 * t + 2] = ok20 && ok12 ? std::acos(std::clamp(-dot(u20, u12), -1.f, 1.f)) : 0.f;
        }
    });
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, T, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t t = r.begin(); t != r.end(); ++t)
            for (int e = 0; e < 3; ++e) {
                const std::uint32_t other = edgeNeighbour_[3 * t + e];
                Vec3 n = faceNormals_[t];
                if (other != kNoNeighbour) n += faceNormals_[other];
                const Vec3 u = normalized(n);
                edgeNormals_[3 * t + e] = lengthSquared(u) > 0.f ? u : faceNormals_[t];
            }
    });
    if (!all) return;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, V, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t v = r.begin(); v != r.end(); ++v) {
            Vec3 n{};
            const std::uint32_t begin = vertexCornerStart_[v], end = vertexCornerStart_[v + 1];
            for (std::uint32_t k = begin; k < end; ++k) {
                const std::uint32_t corner = vertexCorners_[k];
                n += faceNormals_[corner / 3] * cornerAngle_[corner];
            }
            const Vec3 N = normalized(n);
            vertexNormals_[v] = N;
        }
    });
    // Per triangle: cosine of the widest angle between its normal and any face normal in
    // the stars of its three vertices (-1: a vertex is irregular, or a sliver is near).
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, T, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t t = r.begin(); t != r.end(); ++t) {
            const Vec3 n = faceNormals_[t];
            float cone = triangleSliver_[t] ? -1.f : 1.f;
            for (int c = 0; c < 3 && cone > -1.f; ++c) {
                const std::uint32_t v = triangles_[3 * t + c];
                if (!vertexRegular_[v]) cone = -1.f;
                for (std::uint32_t k = vertexCornerStart_[v]; k < vertexCornerStart_[v + 1] && cone > -1.f; ++k) {
                    const std::uint32_t f = vertexCorners_[k] / 3;
                    cone = triangleSliver_[f] ? -1.f : std::min(cone, dot(faceNormals_[f], n));
                }
            }
            triangleConeCos_[t] = cone;
        }
    });
}

void WallDistanceField::scatterBand() {
    // Which nodes must triangle t be evaluated at? Only those p where t can be a closest
    // triangle of the whole mesh (Mauch's characteristic regions), plus a margin. If t is
    // closest to p with closest point q, v = p - q lies in the normal cone of the mesh at
    // q: along n_t for q inside the face; between n_t and n_t' for q inside the edge
    // shared with t'; for q at a vertex a, in the polar of the vertex star,
    // {v : v . (x - a) <= 0 for every neighbour x of a}.
    //
    // "Regular" triangles: every vertex is a closed, consistently wound manifold fan of
    // non-sliver triangles, and every face normal around the three vertices is within
    // theta < 46 degrees of n_t. The star of such a vertex is the graph of a piecewise
    // linear function over t's plane whose projection covers every direction, so a
    // supporting plane's slope lies in the convex hull of the star's slopes and any v in
    // the polar satisfies |v_tangential| <= tan(theta) |v . n_t|; the edge and face cones
    // obey the same bound. With h = n_t . (p - a) and s_e the in-plane distance of p past
    // edge e, s_e <= |v_tangential|, so t only needs the tilted prism
    //     |h| <= band,  s_e <= tol + tau |h|,  tau = tan(theta) + margin,
    // a few nodes for a triangle of about a cell. theta is measured per triangle, against
    // every face of its three stars (triangleConeCos_; a bound through the vertex normals,
    // twice the widest angle from them, made 70 % of the adult phantom's triangles wide).
    // Other triangles with a normal take everything within band of their plane and edge
    // lines and of their bounding ball; zero-normal ones that ball.
    //
    // Scan: planes x_A = const across the axis A closest to n_t. Projected along n_t onto
    // such a plane, the region lies in the projected triangle grown by the projected
    // tangential reach; its grid points are tested four at a time. Every tested node keeps
    // the minimum (squared distance, triangle) key by atomic min, so the result does not
    // depend on the order or on the thread count.
    {
        std::uint64_t* keys = nodeKey_.data();
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodeCount_, 1 << 16),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              std::fill(keys + r.begin(), keys + r.end(), kNoTriangle);
                          });
    }
    const WallFieldView v = view();
    const float h = cellSize_, invH = 1.f / h, band = band_, band2 = band * band;
    const int dims[3] = {nx_, ny_, nz_};
    const std::size_t stride[3] = {1, std::size_t(nx_), std::size_t(nx_) * std::size_t(ny_)};
    const float org[3] = {origin_.x, origin_.y, origin_.z};
    // Slack on the bounds below so that float rounding can never reject a triangle that
    // ties with the current best (keeps the result order-independent).
    const float slack = 1e-3f * h;
    const float bandS = band + slack;
    float maxAbs = 0.f;
    for (int a = 0; a < 3; ++a)
        maxAbs = std::max({maxAbs, std::fabs(org[a]), std::fabs(org[a] + float(dims[a] - 1) * h)});
    // Tolerance of the tilted-prism side planes (float error of the plane tests).
    const float tol = 3e-3f * h + 1e-6f * maxAbs;
    constexpr float kMinConeCos = 0.7f; // theta <= ~45.6 degrees
    std::uint64_t* keys = nodeKey_.data();
    const float* coneCos = triangleConeCos_.data();
    const V4 laneF = {0.f, 1.f, 2.f, 3.f};

    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, v.triangleCount, 64),
                      [&](const tbb::blocked_range<std::uint32_t>& range) {
        for (std::uint32_t t = range.begin(); t != range.end(); ++t) {
            const std::uint32_t ia = v.triangles[3 * t], ib = v.triangles[3 * t + 1], ic = v.triangles[3 * t + 2];
            const Vec3 a = v.vertices[ia], b = v.vertices[ib], c = v.vertices[ic];
            const Vec3 corner[3] = {a, b, c};
            const Vec3 n = v.faceNormals[t];
            const Vec3 lo = componentMin(a, componentMin(b, c)), hi = componentMax(a, componentMax(b, c));
            // Bounding ball (centroid, R) for the wide regions.
            Vec3 centre;
            float R = 0.f;
            // Lower bounds (plane, bounding ball) that already exceed the node's best.
            auto pruned = [&](const std::uint64_t& slot, Vec3 p) {
                const std::uint64_t current = std::atomic_ref<const std::uint64_t>(slot).load(std::memory_order_relaxed);
                const float bestD2 = current == kNoTriangle ? band2 : std::bit_cast<float>(std::uint32_t(current >> 32));
                const float bound = std::sqrt(bestD2) + slack;
                return std::fabs(dot(n, p - a)) > bound || lengthSquared(p - centre) > (R + bound) * (R + bound);
            };
            auto evaluate = [&](std::uint64_t& slot, Vec3 p) {
                const float d2 = lengthSquared(p - closestPointOnTriangle(p, a, b, c).point);
                if (d2 < band2) atomicMin(slot, packKey(d2, t));
            };
            auto ball = [&] {
                centre = (a + b + c) * (1.f / 3.f);
                R = std::sqrt(std::max(lengthSquared(a - centre), std::max(lengthSquared(b - centre), lengthSquared(c - centre))));
            };

            if (!(lengthSquared(n) > 0.f)) {
                // Zero-area triangle: every node within band of the bounding ball, by x rows.
                ball();
                const float reach = R + bandS, reach2 = reach * reach;
                const auto [k0, k1] = indexRange(centre.z - reach, centre.z + reach, org[2], invH, dims[2] - 1);
                const auto [j0, j1] = indexRange(centre.y - reach, centre.y + reach, org[1], invH, dims[1] - 1);
                for (int k = k0; k <= k1; ++k) {
                    const float z = org[2] + float(k) * h, dz = z - centre.z;
                    for (int j = j0; j <= j1; ++j) {
                        const float y = org[1] + float(j) * h, dy = y - centre.y;
                        const float rest2 = reach2 - dy * dy - dz * dz;
                        if (rest2 <= 0.f) continue;
                        const float half = std::sqrt(rest2);
                        const auto [i0, i1] = indexRange(centre.x - half, centre.x + half, org[0], invH, dims[0] - 1);
                        for (int i = i0; i <= i1; ++i) {
                            std::uint64_t& slot = keys[stride[1] * std::size_t(j) + stride[2] * std::size_t(k) + std::size_t(i)];
                            const Vec3 p{org[0] + float(i) * h, y, z};
                            if (!pruned(slot, p)) evaluate(slot, p);
                        }
                    }
                }
                continue;
            }

            // Tilt of the characteristic region; wide (tau huge) when not regular.
            const float kappa = coneCos[t];
            const bool regular = kappa >= kMinConeCos;
            const float tau = regular ? std::sqrt(std::max(0.f, 1.f - kappa * kappa)) / kappa + 3e-3f : 1e30f;
            // Largest in-plane offset of a region point from the triangle.
            const float reachT = std::min(tau * bandS, bandS) + tol;
            if (!regular) ball();

            const float an[3] = {std::fabs(n.x), std::fabs(n.y), std::fabs(n.z)};
            const int A = an[0] >= an[1] && an[0] >= an[2] ? 0 : (an[1] >= an[2] ? 1 : 2);
            const int B = A == 2 ? 0 : A + 1, C = A == 0 ? 2 : (A == 1 ? 0 : 1);
            const float planeOffset = dot(n, a);
            // Components in the frame (A, B, C).
            auto frame = [&](Vec3 u, float* out) {
                const float xyz[3] = {u.x, u.y, u.z};
                out[0] = xyz[A];
                out[1] = xyz[B];
                out[2] = xyz[C];
            };
            float me[3][3], mo[3], cf[3][3], nf[3]; // edge normals, offsets, corners, normal
            for (int e = 0; e < 3; ++e) {
                const Vec3 m = normalized(cross(corner[e == 2 ? 0 : e + 1] - corner[e], n));
                frame(m, me[e]);
                frame(corner[e], cf[e]);
                mo[e] = dot(m, corner[e]) + tol;
            }
            frame(n, nf);
            float lof[3], hif[3];
            frame(lo, lof);
            frame(hi, hif);
            const float nA = nf[0], nB = nf[1], nC = nf[2];
            const float gB = nB / nA, gC = nC / nA;
            const float orgA = org[A], orgB = org[B], orgC = org[C];
            const float reachA = bandS * std::fabs(nA) + reachT * std::sqrt(std::max(0.f, 1.f - nA * nA));
            const auto [i0, i1] = indexRange(lof[0] - reachA, hif[0] + reachA, orgA, invH, dims[A] - 1);
            if (i0 > i1) continue;
            // Triangle projected along n onto the plane of i0 (it moves by h (gB, gC) per
            // plane), grown by the projected tangential reach |u| (1 + g^2)^1/2.
            const float X0 = orgA + float(i0) * h;
            float yl = 3.4e38f, yh = -3.4e38f, zl = 3.4e38f, zh = -3.4e38f;
            for (const float* q : cf) {
                const float s0 = X0 - q[0];
                const float y = q[1] + s0 * gB, z = q[2] + s0 * gC;
                yl = std::min(yl, y);
                yh = std::max(yh, y);
                zl = std::min(zl, z);
                zh = std::max(zh, z);
            }
            const float mB = reachT * std::sqrt(1.f + gB * gB) + slack, mC = reachT * std::sqrt(1.f + gC * gC) + slack;
            yl -= mB;
            yh += mB;
            zl -= mC;
            zh += mC;
            // Allowed s_e - tol at height h: min(tau |h|, band) for regular triangles, band
            // for the others (a node farther than band past an edge line is off band).
            const float capS = bandS - tol;
            const float tauT = regular ? tau : 0.f, floorT = regular ? 0.f : capS;
            const int lastB = dims[B] - 1, lastC = dims[C] - 1;
            const std::size_t sA = stride[A], sB = stride[B], sC = stride[C];
            // Four planes at a time: each lane holds one plane's range of grid points in B
            // and C (usually one or two each); the ranges are walked in lock step.
            for (int iq = i0; iq <= i1; iq += 4) {
                const V4 If = float(iq) + laneF;
                const V4 X = orgA + If * h, shift = (If - float(i0)) * h;
                const V4i j0 = ceilIndex((yl + shift * gB - orgB) * invH, lastB);
                const V4i j1 = floorIndex((yh + shift * gB - orgB) * invH, lastB);
                const V4i k0 = ceilIndex((zl + shift * gC - orgC) * invH, lastC);
                const V4i k1 = floorIndex((zh + shift * gC - orgC) * invH, lastC);
                const V4i live = If <= float(i1);
                int spanJ = 0, spanK = 0;
                for (int l = 0; l < 4; ++l)
                    if (live[l]) {
                        spanJ = std::max(spanJ, j1[l] - j0[l] + 1);
                        spanK = std::max(spanK, k1[l] - k0[l] + 1);
                    }
                const V4 hX = nA * X - planeOffset;
                const V4 sX0 = me[0][0] * X - mo[0], sX1 = me[1][0] * X - mo[1], sX2 = me[2][0] * X - mo[2];
                for (int dk = 0; dk < spanK; ++dk) {
                    const V4i K = k0 + dk;
                    const V4 Z = orgC + __builtin_convertvector(K, V4) * h;
                    for (int dj = 0; dj < spanJ; ++dj) {
                        const V4i J = j0 + dj;
                        const V4 Y = orgB + __builtin_convertvector(J, V4) * h;
                        const V4 hs = hX + nB * Y + nC * Z;
                        const V4 hh = hs < 0.f ? -hs : hs;
                        const V4 s0 = sX0 + me[0][1] * Y + me[0][2] * Z;
                        const V4 s1 = sX1 + me[1][1] * Y + me[1][2] * Z;
                        const V4 s2 = sX2 + me[2][1] * Y + me[2][2] * Z;
                        const V4 s01 = s0 > s1 ? s0 : s1, smax = s01 > s2 ? s01 : s2;
                        const V4 reach = tauT * hh + floorT, lim = reach < capS ? reach : capS;
                        const V4i in = live & (J <= j1) & (K <= k1) & (hh <= bandS) & (smax <= lim);
                        unsigned mask = laneMask(in);
                        while (mask) {
                            const int l = std::countr_zero(mask);
                            mask &= mask - 1;
                            const Vec3 p = A == 0 ? Vec3{X[l], Y[l], Z[l]} : (A == 1 ? Vec3{Z[l], X[l], Y[l]} : Vec3{Y[l], Z[l], X[l]});
                            std::uint64_t& slot = keys[sA * std::size_t(iq + l) + sB * std::size_t(J[l]) + sC * std::size_t(K[l])];
                            if (!regular && pruned(slot, p)) continue;
                            evaluate(slot, p);
                        }
                    }
                }
            }
        }
    });
}

void WallDistanceField::resolveNodes() {
    // Band nodes: exact distance and wall velocity of the closest triangle found by
    // scatterBand(); off-band nodes: band. The sign of every node is the parity of the
    // mesh crossings along its x grid line before it (the line starts outside, on the
    // grid border): for a closed mesh that is inside/outside exactly, and unlike the
    // closest feature's pseudo-normal it stays right where the mesh has slivers turned
    // over by its motion or small folds. (A sliver of an interpolated heart wall, turned
    // over, carries a large angle weight into its vertex pseudo-normal; one wrong band
    // sign then used to be carried along the whole x line and put a wall into the blood.)
    const WallFieldView v = view();
    const float h = cellSize_, band = band_;
    const int nx = nx_, ny = ny_, nz = nz_;
    const Vec3 o = origin_;
    const std::uint64_t* keys = nodeKey_.data();
    float* phi = phi_.data();
    Vec3* velocity = nodeVelocity_.data();
    std::uint8_t* bandFlag = nodeBand_.data();

    // Triangles by the grid lines (j, k) their (y, z) extent covers (CSR over j + ny k).
    const std::size_t rows = std::size_t(ny) * nz;
    rowTriangleStart_.assign(rows + 1, 0);
    const std::uint32_t T = std::uint32_t(triangles_.size() / 3);
    const float invH = 1.f / h;
    const auto lineRange = [&](float lo, float hi, float origin, int n) {
        const int first = std::max(0, int(std::ceil((lo - origin) * invH)) - 1);
        const int last = std::min(n - 1, int(std::floor((hi - origin) * invH)) + 1);
        return std::pair{first, last};
    };
    const auto forEachLine = [&](std::uint32_t t, auto&& f) {
        const Vec3 a = vertices_[triangles_[3 * t]], b = vertices_[triangles_[3 * t + 1]], c = vertices_[triangles_[3 * t + 2]];
        const auto [j0, j1] = lineRange(std::min({a.y, b.y, c.y}), std::max({a.y, b.y, c.y}), o.y, ny);
        const auto [k0, k1] = lineRange(std::min({a.z, b.z, c.z}), std::max({a.z, b.z, c.z}), o.z, nz);
        for (int k = k0; k <= k1; ++k)
            for (int j = j0; j <= j1; ++j) f(std::size_t(j) + std::size_t(ny) * std::size_t(k));
    };
    for (std::uint32_t t = 0; t < T; ++t) forEachLine(t, [&](std::size_t r) { ++rowTriangleStart_[r + 1]; });
    for (std::size_t r = 0; r < rows; ++r) rowTriangleStart_[r + 1] += rowTriangleStart_[r];
    rowTriangles_.resize(rowTriangleStart_[rows]);
    {
        std::vector<std::uint32_t> cursor(rowTriangleStart_.begin(), rowTriangleStart_.end() - 1);
        for (std::uint32_t t = 0; t < T; ++t) forEachLine(t, [&](std::size_t r) { rowTriangles_[cursor[r]++] = t; });
    }

    tbb::enumerable_thread_specific<std::vector<float>> crossingsPerThread;
    tbb::parallel_for(tbb::blocked_range2d<int>(0, nz, 0, ny), [&](const tbb::blocked_range2d<int>& r) {
        std::vector<float>& crossings = crossingsPerThread.local();
        for (int k = r.rows().begin(); k != r.rows().end(); ++k)
            for (int j = r.cols().begin(); j != r.cols().end(); ++j) {
                const std::size_t line = std::size_t(j) + std::size_t(ny) * std::size_t(k);
                const std::size_t row = std::size_t(nx) * line;
                const float y = o.y + float(j) * h, z = o.z + float(k) * h;
                crossings.clear();
                for (std::uint32_t q = rowTriangleStart_[line]; q < rowTriangleStart_[line + 1]; ++q) {
                    const std::uint32_t t = rowTriangles_[q];
                    float x = 0.f;
                    if (lineCrossing(vertices_[triangles_[3 * t]], vertices_[triangles_[3 * t + 1]],
                                     vertices_[triangles_[3 * t + 2]], y, z, x))
                        crossings.push_back(x);
                }
                std::sort(crossings.begin(), crossings.end());
                std::size_t passed = 0; // crossings before the node
                for (int i = 0; i < nx; ++i) {
                    const std::size_t n = row + std::size_t(i);
                    const float x = o.x + float(i) * h;
                    while (passed < crossings.size() && crossings[passed] < x) ++passed;
                    const float sign = passed % 2 == 1 ? -1.f : 1.f;
                    const std::uint64_t key = keys[n];
                    if (key == kNoTriangle) {
                        phi[n] = sign * band;
                        // Off-band velocities are zero; only nodes that were in the band
                        // of the previous build (same index) hold anything else.
                        if (bandFlag[n]) {
                            velocity[n] = Vec3{};
                            bandFlag[n] = 0;
                        }
                        continue;
                    }
                    const WallClosest c = v.closestOnTriangle(Vec3{x, y, z}, std::uint32_t(key & 0xffffffffu));
                    phi[n] = std::min(c.distance, band) * sign;
                    velocity[n] = c.velocity;
                    bandFlag[n] = 1;
                }
            }
    });
}

WallFieldView WallDistanceField::view() const {
    WallFieldView v;
    v.origin = origin_;
    v.cellSize = cellSize_;
    v.invCellSize = cellSize_ > 0.f ? 1.f / cellSize_ : 0.f;
    v.nx = nx_;
    v.ny = ny_;
    v.nz = nz_;
    v.band = band_;
    v.phi = phi_.empty() ? nullptr : phi_.data();
    v.wallVelocity = nodeVelocity_.data();
    v.nodeCount = std::uint32_t(nodeCount_);
    v.cellTriangleStart = cellTriangleStart_.data();
    v.cellCount = std::uint32_t(cellCount_);
    v.cellTriangles = cellTriangles_.data();
    v.cellTriangleCount = std::uint32_t(cellTriangles_.size());
    v.vertices = vertices_.data();
    v.vertexNormals = vertexNormals_.data();
    v.vertexVelocities = vertexVelocities_.data();
    v.vertexCount = std::uint32_t(vertices_.size());
    v.triangles = triangles_.data();
    v.faceNormals = faceNormals_.data();
    v.triangleBalls = triangleBalls_.data();
    v.edgeNormals = edgeNormals_.data();
    v.triangleCount = std::uint32_t(triangles_.size() / 3);
    return v;
}

Aabb WallDistanceField::bounds() const {
    if (empty()) return Aabb{};
    const float h = cellSize_;
    return {origin_, origin_ + Vec3{float(nx_ - 1) * h, float(ny_ - 1) * h, float(nz_ - 1) * h}};
}

float WallDistanceField::signedDistance(Vec3 p) const {
    if (empty()) throw std::logic_error("WallDistanceField::signedDistance: the field was not built");
    return view().signedDistance(p);
}

std::size_t WallDistanceField::bytes() const {
    const auto b = [](const auto& vec) { return capacityBytes(vec); };
    return b(phi_) + b(nodeVelocity_) + b(cellTriangleStart_) + b(cellTriangles_) + b(vertices_) +
           b(vertexNormals_) + b(vertexVelocities_) + b(triangles_) + b(faceNormals_) + b(triangleBalls_) + b(edgeNormals_) +
           b(edgeNeighbour_) + b(vertexCornerStart_) + b(vertexCorners_) + b(nodeKey_) + b(nodeBand_) +
           b(cellThin_) + b(cornerAngle_) + b(vertexRegular_) + b(triangleSliver_) + b(triangleConeCos_) +
           b(thinList_) + b(thinOffset_) + b(bucketStart_) + b(bucketTris_) + b(rowTriangleStart_) + b(rowTriangles_);
}

} // namespace atrium::sph
