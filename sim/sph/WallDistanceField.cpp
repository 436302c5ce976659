#include "sim/sph/WallDistanceField.h"

#include <tbb/blocked_range.h>
#include <tbb/blocked_range2d.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#ifdef ATRIUM_WALL_STATS
std::atomic<long> gStatTauMilli{0}, gStatRows{0}, gStatRowsHit{0}, gStatNodes{0}, gStatRegular{0}, gStatTri{0};
#define WSTAT(x) (x).fetch_add(1, std::memory_order_relaxed)
#else
#define WSTAT(x) ((void)0)
#endif
#ifdef ATRIUM_WALL_PHASES
#include <ctime>
double gPhase[8];
static double cpuNow() { timespec ts; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) * 1e-6; }
#define PHASE(i) do { const double now_ = cpuNow(); gPhase[i] += now_ - phaseT_; phaseT_ = now_; } while (0)
#else
#define PHASE(i) ((void)0)
#endif
namespace atrium::sph {

namespace {

constexpr std::uint64_t kNoTriangle = ~std::uint64_t(0);
constexpr std::uint32_t kNoNeighbour = ~std::uint32_t(0);
constexpr double kMaxNodes = double(std::uint64_t(1) << 26); // ~64M nodes
constexpr float kSqrt3 = 1.7320508f;
constexpr int kBlock = 4; // cells per side of a thin-cell occupancy block

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

struct TriangleBox {
    Vec3 lo, hi;
};

TriangleBox triangleBox(const WallFieldView& v, std::uint32_t t) {
    const Vec3 a = v.vertices[v.triangles[3 * t]], b = v.vertices[v.triangles[3 * t + 1]],
               c = v.vertices[v.triangles[3 * t + 2]];
    return {componentMin(a, componentMin(b, c)), componentMax(a, componentMax(b, c))};
}

/// Index range [lo, hi] of grid positions origin + i * h overlapping [a, b], clamped to
/// [0, last]; empty when lo > hi.
std::pair<int, int> indexRange(float a, float b, float origin, float invH, int last) {
    const float fa = std::ceil((a - origin) * invH);
    const float fb = std::floor((b - origin) * invH);
    const int lo = fa < 0.f ? 0 : (fa > float(last) ? last + 1 : int(fa));
    const int hi = fb > float(last) ? last : (fb < 0.f ? -1 : int(fb));
    return {lo, hi};
}

/// Range of cells [i, i+1] (0 <= i <= lastCell) whose extent overlaps [a, b].
std::pair<int, int> cellRange(float a, float b, float origin, float invH, int lastCell) {
    const float fa = std::floor((a - origin) * invH) - 1.f;
    const float fb = std::floor((b - origin) * invH);
    const int lo = fa < 0.f ? 0 : (fa > float(lastCell) ? lastCell + 1 : int(fa));
    const int hi = fb > float(lastCell) ? lastCell : (fb < 0.f ? -1 : int(fb));
    return {lo, hi};
}

} // namespace

void WallDistanceField::build(const TriangleMesh& mesh, const std::vector<Vec3>* vertexVelocities,
                              const Settings& settings) {
#ifdef ATRIUM_WALL_PHASES
    double phaseT_ = cpuNow();
#endif
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

    PHASE(0);
    updateTopology(mesh);
    PHASE(1);
    vertices_.assign(mesh.vertices.begin(), mesh.vertices.end());
    if (vertexVelocities)
        vertexVelocities_.assign(vertexVelocities->begin(), vertexVelocities->end());
    else
        vertexVelocities_.assign(vertexCount, Vec3{});
    computeNormals();
    PHASE(2);

    const std::size_t nodeCount = std::size_t(nx_) * ny_ * nz_;
    const std::size_t cellCount = std::size_t(nx_ - 1) * (ny_ - 1) * (nz_ - 1);
    phi_.resize(nodeCount);
    nodeVelocity_.resize(nodeCount);
    nodeBand_.resize(nodeCount);
    nodeKey_.resize(nodeCount);
    cellTriangleStart_.resize(cellCount + 1);
    cellThin_.resize(cellCount);

    PHASE(3);
    scatterBand();
    PHASE(4);
    resolveNodes();
    PHASE(5);
    buildThinCells();
    PHASE(6);
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

void WallDistanceField::computeNormals() {
    const std::size_t T = triangles_.size() / 3, V = vertices_.size();
    faceNormals_.resize(T);
    edgeNormals_.resize(3 * T);
    cornerAngle_.resize(3 * T);
    triangleSliver_.resize(T);
    vertexNormals_.resize(V);
    vertexConeCos_.resize(V);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, T, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t t = r.begin(); t != r.end(); ++t) {
            const Vec3 p[3] = {vertices_[triangles_[3 * t]], vertices_[triangles_[3 * t + 1]],
                               vertices_[triangles_[3 * t + 2]]};
            const Vec3 e1 = p[1] - p[0], e2 = p[2] - p[0], nc = cross(e1, e2);
            faceNormals_[t] = normalized(nc);
            // The direction of the computed normal is trusted (to ~1e-4 rad) when the
            // sine of the angle at corner 0 is at least 1e-3.
            const float n2 = lengthSquared(nc);
            triangleSliver_[t] = (n2 > 0.f && n2 >= 1e-6f * lengthSquared(e1) * lengthSquared(e2)) ? 0 : 1;
            for (int c = 0; c < 3; ++c) {
                const Vec3 u = normalized(p[(c + 1) % 3] - p[c]), w = normalized(p[(c + 2) % 3] - p[c]);
                const float d = std::clamp(dot(u, w), -1.f, 1.f);
                // Zero-length edges contribute no angle (and a zero face normal anyway).
                cornerAngle_[3 * t + c] = (lengthSquared(u) > 0.f && lengthSquared(w) > 0.f) ? std::acos(d) : 0.f;
            }
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
            // Cosine of the cone around N holding all incident face normals (-1: the
            // vertex is irregular, or one of its triangles is a sliver).
            float cone = vertexRegular_[v] && lengthSquared(N) > 0.f ? 1.f : -1.f;
            for (std::uint32_t k = begin; k < end && cone > -1.f; ++k) {
                const std::uint32_t t = vertexCorners_[k] / 3;
                cone = triangleSliver_[t] ? -1.f : std::min(cone, dot(faceNormals_[t], N));
            }
            // Two face normals around the vertex are at most 2 beta apart, cos(beta) = cone.
            vertexConeCos_[v] = cone > 0.f ? 2.f * cone * cone - 1.f : -1.f;
        }
    });
}

void WallDistanceField::scatterBand() {
    // Which nodes must triangle t be evaluated at? Only those p where t can be a closest
    // triangle of the whole mesh (Mauch's characteristic regions). If t is closest to p
    // with closest point q, p - q lies in the normal cone of the mesh at q: along n_t for
    // q inside the face, between n_t and n_t' for q on the edge shared with t', and for q
    // at a vertex a in the polar of the vertex star {v : v . (x - a) <= 0 for the
    // neighbours x}. When every triangle around t's vertices faces within angle theta of
    // t (theta < 46 degrees, all triangles non-sliver, every vertex a closed, consistently
    // wound manifold fan), the star at a is the graph of a piecewise linear function over
    // t's plane whose projection covers every direction, so any v in that polar satisfies
    // |v_tangential| <= tan(theta) |v . n_t| (a supporting plane's slope lies in the convex
    // hull of the star's slopes). Hence, with h = n_t . (p - a) and s_e the in-plane
    // distance of p beyond edge e: s_e <= |v_tangential| <= tan(theta) |h|. The scan
    // region of such a "regular" triangle is that tilted prism (|h| <= band, s_e <= tol +
    // tau |h|), usually a few nodes; theta is bounded from per-vertex cones of face
    // normals, tau = tan(theta) plus margins for float error in the normals. Other
    // triangles scan everything within band of their plane, edges and bounding ball.
    // Rows run along the axis closest to n_t, so a region needs few rows. Every node
    // keeps the minimum (squared distance, triangle) key by atomic min, so the result
    // does not depend on the order or the thread count.
    {
        std::uint64_t* keys = nodeKey_.data();
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, nodeKey_.size(), 1 << 16),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              std::fill(keys + r.begin(), keys + r.end(), kNoTriangle);
                          });
    }
    const WallFieldView v = view();
    const float h = cellSize_, invH = 1.f / h, band = band_, band2 = band * band;
    const int dims[3] = {nx_, ny_, nz_};
    const std::size_t stride[3] = {1, std::size_t(nx_), std::size_t(nx_) * std::size_t(ny_)};
    const float org[3] = {origin_.x, origin_.y, origin_.z};
    // Slack on the lower bounds below so that float rounding can never reject a
    // triangle that ties with the current best (keeps the result order-independent).
    const float slack = 1e-3f * h;
    const float bandS = band + slack;
    float maxAbs = 0.f;
    for (int a = 0; a < 3; ++a)
        maxAbs = std::max({maxAbs, std::fabs(org[a]), std::fabs(org[a] + float(dims[a] - 1) * h)});
    // Tolerance of the tilted-prism side planes (float error of the plane tests).
    const float tol = 1e-2f * h + 1e-6f * maxAbs;
    constexpr float kMinConeCos = 0.7f; // ~45.6 degrees
    std::uint64_t* keys = nodeKey_.data();
    const float* cone2 = vertexConeCos_.data();

    // A convex piece of a scan region: half-spaces g . p <= r, in the row frame (rows
    // along axis A, lines of rows along B, rows of a line along C; coordinates x, y, z).
    // Each half-space bounds x from above (gA > 0) or below (gA < 0) by a linear function
    // of (y, z); eliminating x (Fourier-Motzkin: every lower bound <= every upper bound)
    // gives the z-range of a line exactly, so only rows that meet the piece are visited.
    struct Lin2 {
        float c0, cy, cz; // c0 - cy y - cz z
        float at(float y, float z) const { return c0 - cy * y - cz * z; }
    };
    struct Lin1 {
        float c0, cy; // c0 - cy y
        float at(float y) const { return c0 - cy * y; }
    };
    struct Piece {
        Lin2 xUp[5], xLo[5];
        Lin1 zUp[8], zLo[8], yOnly[8]; // yOnly: c0 - cy y >= 0
        int nxu = 0, nxl = 0, nzu = 0, nzl = 0, ny = 0;
        void addZ(float c0, float cy, float cz) { // c0 - cy y - cz z >= 0
            if (cz > 0.f) zUp[nzu++] = {c0 / cz, cy / cz};
            else if (cz < 0.f) zLo[nzl++] = {c0 / cz, cy / cz};
            else yOnly[ny++] = {c0, cy};
        }
        void add(Vec3 g, float r, int A, int B, int C) {
            const float gA = g[A];
            if (gA == 0.f) {
                addZ(r, g[B], g[C]);
                return;
            }
            const float inv = 1.f / gA;
            (gA > 0.f ? xUp[nxu++] : xLo[nxl++]) = {r * inv, g[B] * inv, g[C] * inv};
        }
        void eliminateX() {
            for (int q = 0; q < nxl; ++q)
                for (int u = 0; u < nxu; ++u) // xLo[q] <= xUp[u]
                    addZ(xUp[u].c0 - xLo[q].c0, xUp[u].cy - xLo[q].cy, xUp[u].cz - xLo[q].cz);
        }
        bool zRange(float y, float& lo, float& hi) const {
            for (int q = 0; q < ny; ++q)
                if (yOnly[q].at(y) < 0.f) return false;
            for (int q = 0; q < nzu; ++q) hi = std::min(hi, zUp[q].at(y));
            for (int q = 0; q < nzl; ++q) lo = std::max(lo, zLo[q].at(y));
            return lo <= hi;
        }
        bool xRange(float y, float z, float& lo, float& hi) const {
            for (int q = 0; q < nxu; ++q) hi = std::min(hi, xUp[q].at(y, z));
            for (int q = 0; q < nxl; ++q) lo = std::max(lo, xLo[q].at(y, z));
            return lo <= hi;
        }
    };

    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, v.triangleCount, 64),
                      [&](const tbb::blocked_range<std::uint32_t>& range) {
        for (std::uint32_t t = range.begin(); t != range.end(); ++t) {
            const std::uint32_t ia = v.triangles[3 * t], ib = v.triangles[3 * t + 1], ic = v.triangles[3 * t + 2];
            const Vec3 a = v.vertices[ia], b = v.vertices[ib], c = v.vertices[ic];
            const Vec3 corner[3] = {a, b, c};
            const Vec3 n = v.faceNormals[t];
            const Vec3 lo = componentMin(a, componentMin(b, c)), hi = componentMax(a, componentMax(b, c));

            // Tilt of the characteristic region: kappa bounds the cosine of the angle
            // between n_t and any face normal around t's vertices (cone2 = cos(2 beta_v)).
            const float kappa = std::min(cone2[ia], std::min(cone2[ib], cone2[ic]));
            const bool regular = kappa >= kMinConeCos;
            WSTAT(gStatTri);

            // Rows along the axis closest to the normal.
            const float an[3] = {std::fabs(n.x), std::fabs(n.y), std::fabs(n.z)};
            const int A = an[0] >= an[1] && an[0] >= an[2] ? 0 : (an[1] >= an[2] ? 1 : 2);
            const int B = A == 2 ? 0 : A + 1, C = A == 0 ? 2 : (A == 1 ? 0 : 1);
            const float planeOffset = dot(n, a);
            Piece piece[2];
            int pieces = 1;
            float extB, extC; // reach of the region beyond the triangle's box along B, C
            Vec3 centre;
            float R = 0.f, reach2 = 0.f;
            if (regular) {
                // Upper (h >= 0) and lower (h <= 0) halves of the tilted prism
                // s_e <= tol + tau |h|, |h| <= band.
                const float tau = std::sqrt(std::max(0.f, 1.f - kappa * kappa)) / kappa + 0.01f;
                WSTAT(gStatRegular);
#ifdef ATRIUM_WALL_STATS
                gStatTauMilli += long(tau * 1000.f);
#endif
                pieces = 2;
                piece[0].add(n, planeOffset + bandS, A, B, C);
                piece[0].add(-n, tol - planeOffset, A, B, C);
                piece[1].add(-n, bandS - planeOffset, A, B, C);
                piece[1].add(n, planeOffset + tol, A, B, C);
                for (int e = 0; e < 3; ++e) {
                    const Vec3 m = normalized(cross(corner[e == 2 ? 0 : e + 1] - corner[e], n));
                    const Vec3 gu = m - n * tau, gl = m + n * tau;
                    piece[0].add(gu, dot(gu, corner[e]) + tol, A, B, C);
                    piece[1].add(gl, dot(gl, corner[e]) + tol, A, B, C);
                }
                const float w = tol + tau * bandS;
                extB = bandS * an[B] + w * std::sqrt(std::max(0.f, 1.f - an[B] * an[B]));
                extC = bandS * an[C] + w * std::sqrt(std::max(0.f, 1.f - an[C] * an[C]));
            } else {
                // Everything within band of the plane, the edges' lines and the bounding
                // ball (centroid, radius R) grown by band.
                piece[0].add(n, planeOffset + bandS, A, B, C);
                piece[0].add(-n, bandS - planeOffset, A, B, C);
                if (lengthSquared(n) > 0.f)
                    for (int e = 0; e < 3; ++e) {
                        const Vec3 m = normalized(cross(corner[e == 2 ? 0 : e + 1] - corner[e], n));
                        if (lengthSquared(m) > 0.f) piece[0].add(m, dot(m, corner[e]) + bandS, A, B, C);
                    }
                centre = (a + b + c) * (1.f / 3.f);
                R = std::sqrt(std::max(lengthSquared(a - centre), std::max(lengthSquared(b - centre), lengthSquared(c - centre))));
                const float reach = R + bandS;
                reach2 = reach * reach;
                extB = extC = bandS;
            }
            for (int q = 0; q < pieces; ++q) piece[q].eliminateX();
#ifdef ATRIUM_WALL_NOROWS
            if (piece[0].nzu < 100) continue;
#endif
            const float zBoxLo = lo[C] - extC, zBoxHi = hi[C] + extC;
            const auto [j0, j1] = indexRange(lo[B] - extB, hi[B] + extB, org[B], invH, dims[B] - 1);
            float pos[3];
            for (int j = j0; j <= j1; ++j) {
                const float y = org[B] + float(j) * h;
                pos[B] = y;
                float zlo[2], zhi[2];
                bool any = false, on[2] = {false, false};
                for (int q = 0; q < pieces; ++q) {
                    zlo[q] = zBoxLo;
                    zhi[q] = zBoxHi;
                    on[q] = piece[q].zRange(y, zlo[q], zhi[q]);
                    any = any || on[q];
                }
                if (!any) continue;
                const float zl = on[0] ? (pieces == 2 && on[1] ? std::min(zlo[0], zlo[1]) : zlo[0]) : zlo[1];
                const float zh = on[0] ? (pieces == 2 && on[1] ? std::max(zhi[0], zhi[1]) : zhi[0]) : zhi[1];
                const auto [k0, k1] = indexRange(zl, zh, org[C], invH, dims[C] - 1);
                for (int k = k0; k <= k1; ++k) {
                    const float z = org[C] + float(k) * h;
                    WSTAT(gStatRows);
                    float xlo = 3.4e38f, xhi = -3.4e38f;
                    for (int q = 0; q < pieces; ++q) {
                        float l = -3.4e38f, u = 3.4e38f;
                        if (on[q] && piece[q].xRange(y, z, l, u)) {
                            xlo = std::min(xlo, l);
                            xhi = std::max(xhi, u);
                        }
                    }
                    if (!regular) {
                        const float dy = y - centre[B], dz = z - centre[C];
                        const float rest2 = reach2 - dy * dy - dz * dz;
                        if (rest2 <= 0.f) continue;
                        const float halfChord = std::sqrt(rest2);
                        xlo = std::max(xlo, centre[A] - halfChord);
                        xhi = std::min(xhi, centre[A] + halfChord);
                    }
                    if (!(xlo <= xhi)) continue;
                    pos[C] = z;
                    const auto [i0, i1] = indexRange(xlo, xhi, org[A], invH, dims[A] - 1);
                    if (i0 <= i1) WSTAT(gStatRowsHit);
                    std::size_t node = stride[B] * std::size_t(j) + stride[C] * std::size_t(k) + stride[A] * std::size_t(i0);
                    for (int i = i0; i <= i1; ++i, node += stride[A]) {
                        pos[A] = org[A] + float(i) * h;
                        const Vec3 p{pos[0], pos[1], pos[2]};
                        std::uint64_t& slot = keys[node];
                        if (!regular) {
                            // Skip when a plane or ball lower bound already exceeds the
                            // node's best.
                            const std::uint64_t current = std::atomic_ref<std::uint64_t>(slot).load(std::memory_order_relaxed);
                            const float bestD2 = current == kNoTriangle ? band2 : std::bit_cast<float>(std::uint32_t(current >> 32));
                            const float bound = std::sqrt(bestD2) + slack;
                            if (std::fabs(dot(n, p) - planeOffset) > bound) continue;
                            if (lengthSquared(p - centre) > (R + bound) * (R + bound)) continue;
                        }
                        WSTAT(gStatNodes);
#ifdef ATRIUM_WALL_NOEVAL
                        if (node != ~std::size_t(0)) continue;
#endif
                        const float d2 = lengthSquared(p - closestPointOnTriangle(p, a, b, c).point);
                        if (d2 < band2) atomicMin(slot, packKey(d2, t));
                    }
                }
            }
        }
    });
}

void WallDistanceField::resolveNodes() {
    // Band nodes: exact distance, pseudo-normal sign and wall velocity of the closest
    // triangle found by scatterBand(). Off-band nodes: +-band, the sign flood-filled
    // along each x grid line from its first node (on the grid border: outside). A run of
    // off-band nodes takes the sign of the node just before it - a band node, a node
    // outside the mesh bounds (outside) or the border. Since band >= 2 cells > one grid
    // edge, no grid edge with an off-band end crosses the surface, so the run is on the
    // same side as that node: this is exact for any closed mesh, including outside
    // pockets surrounded by the band and cavities of nested shells.
    const WallFieldView v = view();
    const float h = cellSize_, band = band_;
    const int nx = nx_, ny = ny_, nz = nz_;
    const Vec3 o = origin_;
    const Aabb mb = meshBounds_;
    tbb::parallel_for(tbb::blocked_range2d<int>(0, nz, 0, ny), [&](const tbb::blocked_range2d<int>& r) {
        for (int k = r.rows().begin(); k != r.rows().end(); ++k)
            for (int j = r.cols().begin(); j != r.cols().end(); ++j) {
                const std::size_t row = std::size_t(nx) * (std::size_t(j) + std::size_t(ny) * std::size_t(k));
                const float y = o.y + float(j) * h, z = o.z + float(k) * h;
                const bool rowOutside = y < mb.lo.y || y > mb.hi.y || z < mb.lo.z || z > mb.hi.z;
                float sign = 1.f; // the grid border is outside
                for (int i = 0; i < nx; ++i) {
                    const std::size_t n = row + std::size_t(i);
                    const Vec3 p{o.x + float(i) * h, y, z};
                    const std::uint64_t key = nodeKey_[n];
                    if (key == kNoTriangle) {
                        if (rowOutside || p.x < mb.lo.x || p.x > mb.hi.x) sign = 1.f;
                        phi_[n] = sign * band;
                        nodeVelocity_[n] = Vec3{};
                        nodeBand_[n] = 0;
                        continue;
                    }
                    const WallClosest c = v.closestOnTriangle(p, std::uint32_t(key & 0xffffffffu));
                    sign = c.sign;
                    phi_[n] = std::min(c.distance, band) * c.sign;
                    nodeVelocity_[n] = c.velocity;
                    nodeBand_[n] = 1;
                }
            }
    });
}

void WallDistanceField::buildThinCells() {
    const int cx = nx_ - 1, cy = ny_ - 1, cz = nz_ - 1;
    const std::size_t cellCount = std::size_t(cx) * cy * cz;
    const std::size_t sy = std::size_t(nx_), sz = std::size_t(nx_) * ny_;
    const std::size_t cornerOffset[8] = {0, 1, sy, sy + 1, sz, sz + 1, sz + sy, sz + sy + 1};
    const float thinDot = settings_.thinNormalDot;
    const int minBandCorners = thinDot > 1.f ? 1 : 2;
    const float h = cellSize_, invH = 1.f / h;
    const Vec3 o = origin_;

    // 1. Flag: two band corners whose closest triangles face more than the threshold apart.
    const int bx = (cx + kBlock - 1) / kBlock, by = (cy + kBlock - 1) / kBlock;
    std::atomic<std::size_t> thin{0};
    tbb::parallel_for(tbb::blocked_range2d<int>(0, cz, 0, cy), [&](const tbb::blocked_range2d<int>& r) {
        std::size_t local = 0;
        constexpr int kChunk = 256;
        std::uint8_t bandCorners[kChunk];
        for (int k = r.rows().begin(); k != r.rows().end(); ++k)
            for (int j = r.cols().begin(); j != r.cols().end(); ++j) {
                const std::size_t rowNode = sy * std::size_t(j) + sz * std::size_t(k);
                const std::uint8_t* b00 = nodeBand_.data() + rowNode;
                const std::uint8_t *b01 = b00 + sy, *b10 = b00 + sz, *b11 = b00 + sz + sy;
                std::uint8_t* flags = cellThin_.data() + std::size_t(cx) * (std::size_t(j) + std::size_t(cy) * std::size_t(k));
                for (int c0 = 0; c0 < cx; c0 += kChunk) {
                    const int len = std::min(kChunk, cx - c0);
                    // Band corners per cell (vectorisable); most cells have none.
                    for (int q = 0; q < len; ++q) {
                        const int i = c0 + q;
                        bandCorners[q] = std::uint8_t(b00[i] + b00[i + 1] + b01[i] + b01[i + 1] + b10[i] + b10[i + 1] +
                                                      b11[i] + b11[i + 1]);
                    }
                    for (int q = 0; q < len; ++q) {
                        const int i = c0 + q;
                        if (bandCorners[q] < minBandCorners) {
                            flags[i] = 0;
                            continue;
                        }
                        const std::size_t n0 = rowNode + std::size_t(i);
                        std::uint32_t tris[8];
                        int count = 0;
                        for (std::size_t off : cornerOffset) {
                            const std::uint64_t key = nodeKey_[n0 + off];
                            if (key == kNoTriangle) continue;
                            const std::uint32_t t = std::uint32_t(key & 0xffffffffu);
                            bool seen = false;
                            for (int u = 0; u < count; ++u) seen = seen || tris[u] == t;
                            if (!seen) tris[count++] = t;
                        }
                        bool flagged = thinDot > 1.f && count > 0; // validation mode: exact everywhere
                        for (int a = 0; a < count && !flagged; ++a)
                            for (int b = a + 1; b < count && !flagged; ++b)
                                flagged = dot(faceNormals_[tris[a]], faceNormals_[tris[b]]) < thinDot;
                        flags[i] = flagged ? 1 : 0;
                        local += flagged ? 1 : 0;
                    }
                }
            }
        thin += local;
    });
    thinCells_ = thin.load();
    // All zero unless the previous build listed thin cells (new elements of the resize
    // in build() are zero): skips a full pass for walls without thin features.
    if (cellStartDirty_) std::fill(cellTriangleStart_.begin(), cellTriangleStart_.end(), 0u);
    cellStartDirty_ = false;
    cellTriangles_.clear();
    if (thinCells_ == 0) return;
    cellStartDirty_ = true;

    // Coarse occupancy so that triangles far from any thin cell skip the cell loop.
    const int bz = (cz + kBlock - 1) / kBlock;
    std::vector<std::uint8_t>& blocks = blockThin_;
    blocks.assign(std::size_t(bx) * by * bz, 0);
    for (int k = 0; k < cz; ++k)
        for (int j = 0; j < cy; ++j)
            for (int i = 0; i < cx; ++i)
                if (cellThin_[std::size_t(i) + std::size_t(cx) * (std::size_t(j) + std::size_t(cy) * std::size_t(k))])
                    blocks[std::size_t(i / kBlock) + std::size_t(bx) * (std::size_t(j / kBlock) + std::size_t(by) * std::size_t(k / kBlock))] = 1;

    // 2. Triangles within r_cell = min_corner |phi| + sqrt(3) h of each thin cell: a point
    // of the cell is at most that far from the mesh, so its closest triangle is listed.
    // Conservative test: the triangle's box overlaps the cell box grown by r_cell.
    const float rMax = band_ + kSqrt3 * h;
    const WallFieldView v = view();
    std::uint32_t* start = cellTriangleStart_.data();
    auto forEachCell = [&](std::uint32_t t, auto&& visit) {
        const TriangleBox tb = triangleBox(v, t);
        const auto [i0, i1] = cellRange(tb.lo.x - rMax, tb.hi.x + rMax, o.x, invH, cx - 1);
        const auto [j0, j1] = cellRange(tb.lo.y - rMax, tb.hi.y + rMax, o.y, invH, cy - 1);
        const auto [k0, k1] = cellRange(tb.lo.z - rMax, tb.hi.z + rMax, o.z, invH, cz - 1);
        for (int kb = k0 / kBlock; kb <= k1 / kBlock && k0 <= k1; ++kb)
            for (int jb = j0 / kBlock; jb <= j1 / kBlock && j0 <= j1; ++jb)
                for (int ib = i0 / kBlock; ib <= i1 / kBlock && i0 <= i1; ++ib) {
                    if (!blocks[std::size_t(ib) + std::size_t(bx) * (std::size_t(jb) + std::size_t(by) * std::size_t(kb))])
                        continue;
                    for (int k = std::max(k0, kb * kBlock); k <= std::min(k1, kb * kBlock + kBlock - 1); ++k)
                        for (int j = std::max(j0, jb * kBlock); j <= std::min(j1, jb * kBlock + kBlock - 1); ++j)
                            for (int i = std::max(i0, ib * kBlock); i <= std::min(i1, ib * kBlock + kBlock - 1); ++i) {
                                const std::size_t cell = std::size_t(i) + std::size_t(cx) * (std::size_t(j) + std::size_t(cy) * std::size_t(k));
                                if (!cellThin_[cell]) continue;
                                const std::size_t n0 = std::size_t(i) + sy * std::size_t(j) + sz * std::size_t(k);
                                float minAbs = band_;
                                for (std::size_t off : cornerOffset) minAbs = std::min(minAbs, std::fabs(phi_[n0 + off]));
                                const float rc = minAbs + kSqrt3 * h;
                                const Vec3 clo{o.x + float(i) * h - rc, o.y + float(j) * h - rc, o.z + float(k) * h - rc};
                                const Vec3 chi{clo.x + h + 2.f * rc, clo.y + h + 2.f * rc, clo.z + h + 2.f * rc};
                                if (tb.lo.x > chi.x || tb.hi.x < clo.x || tb.lo.y > chi.y || tb.hi.y < clo.y ||
                                    tb.lo.z > chi.z || tb.hi.z < clo.z)
                                    continue;
                                visit(cell);
                            }
                }
    };
    const std::uint32_t T = v.triangleCount;
    // Count into start[cell].
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, T, 64), [&](const tbb::blocked_range<std::uint32_t>& r) {
        for (std::uint32_t t = r.begin(); t != r.end(); ++t)
            forEachCell(t, [&](std::size_t cell) {
                std::atomic_ref<std::uint32_t>(start[cell]).fetch_add(1, std::memory_order_relaxed);
            });
    });
    // Exclusive scan: start[cell] = first slot of the cell.
    std::uint64_t total = 0;
    for (std::size_t c = 0; c < cellCount; ++c) {
        const std::uint32_t count = start[c];
        start[c] = std::uint32_t(total);
        total += count;
    }
    if (total >= kNoNeighbour)
        throw std::runtime_error("WallDistanceField: too many thin-cell triangle entries; use a smaller band");
    start[cellCount] = std::uint32_t(total);
    cellTriangles_.resize(total);
    // Fill; afterwards start[cell] is the first slot of cell + 1, so shift right by one.
    std::uint32_t* list = cellTriangles_.data();
    tbb::parallel_for(tbb::blocked_range<std::uint32_t>(0, T, 64), [&](const tbb::blocked_range<std::uint32_t>& r) {
        for (std::uint32_t t = r.begin(); t != r.end(); ++t)
            forEachCell(t, [&](std::size_t cell) {
                list[std::atomic_ref<std::uint32_t>(start[cell]).fetch_add(1, std::memory_order_relaxed)] = t;
            });
    });
    std::copy_backward(start, start + cellCount, start + cellCount + 1);
    start[0] = 0;
    // Deterministic order (ties in the exact query go to the lower triangle index).
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, cellCount, 4096), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t c = r.begin(); c != r.end(); ++c)
            if (start[c + 1] - start[c] > 1) std::sort(list + start[c], list + start[c + 1]);
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
    v.nodeCount = std::uint32_t(phi_.size());
    v.cellTriangleStart = cellTriangleStart_.data();
    v.cellCount = cellTriangleStart_.empty() ? 0u : std::uint32_t(cellTriangleStart_.size() - 1);
    v.cellTriangles = cellTriangles_.data();
    v.cellTriangleCount = std::uint32_t(cellTriangles_.size());
    v.vertices = vertices_.data();
    v.vertexNormals = vertexNormals_.data();
    v.vertexVelocities = vertexVelocities_.data();
    v.vertexCount = std::uint32_t(vertices_.size());
    v.triangles = triangles_.data();
    v.faceNormals = faceNormals_.data();
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
    auto b = [](const auto& vec) { return vec.capacity() * sizeof(typename std::decay_t<decltype(vec)>::value_type); };
    return b(phi_) + b(nodeVelocity_) + b(cellTriangleStart_) + b(cellTriangles_) + b(vertices_) +
           b(vertexNormals_) + b(vertexVelocities_) + b(triangles_) + b(faceNormals_) + b(edgeNormals_) +
           b(edgeNeighbour_) + b(vertexCornerStart_) + b(vertexCorners_) + b(nodeKey_) + b(nodeBand_) +
           b(cellThin_) + b(cornerAngle_) + b(blockThin_) + b(vertexRegular_) + b(triangleSliver_) +
           b(vertexConeCos_);
}

} // namespace atrium::sph
