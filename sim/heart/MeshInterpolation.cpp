#include "sim/heart/MeshInterpolation.h"

#include "sim/sph/WallDistanceField.h" // sph::closestPointOnTriangle
#include "io/BinaryIo.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <istream>
#include <limits>
#include <ostream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace atrium::heart {

using sph::Vec3;

namespace {

constexpr std::size_t kParallelGrain = 1024;

/// Calls `progress` with non-decreasing values on the calling thread.
class Progress {
public:
    explicit Progress(std::function<void(double)> fn) : fn_(std::move(fn)) {}
    void report(double value) {
        value = std::clamp(value, last_, 1.0);
        last_ = value;
        if (fn_) fn_(value);
    }

private:
    std::function<void(double)> fn_;
    double last_ = 0.0;
};

/// Runs job(0..count-1) in parallel, in batches of the arena's concurrency so that
/// progress is reported between batches from the calling thread, from lo to hi.
template <class Job>
void runJobs(int count, Job&& job, Progress& progress, double lo, double hi) {
    const int batch = std::max(1, tbb::this_task_arena::max_concurrency());
    for (int begin = 0; begin < count; begin += batch) {
        const int end = std::min(count, begin + batch);
        tbb::parallel_for(begin, end, [&](int j) { job(j); });
        progress.report(lo + (hi - lo) * double(end) / double(count));
    }
    if (count == 0) progress.report(hi);
}

std::string phaseName(std::size_t k) { return "phase " + std::to_string(k); }

void validateGeneratorSettings(const InterpolationSettings& s) {
    if (s.iterations < 1)
        throw std::invalid_argument("mesh interpolation: iterations must be >= 1, got " + std::to_string(s.iterations));
    if (!(s.closestPointFactor > 0.0 && s.closestPointFactor <= 1.0))
        throw std::invalid_argument("mesh interpolation: closestPointFactor (f_cp) must be in (0, 1], got " +
                                    std::to_string(s.closestPointFactor));
    if (!(s.relaxFactor >= 0.0 && s.relaxFactor <= 1.0))
        throw std::invalid_argument("mesh interpolation: relaxFactor (f_r) must be in [0, 1], got " +
                                    std::to_string(s.relaxFactor));
}

void validateSettings(const InterpolationSettings& s) {
    if (s.subframes < 1)
        throw std::invalid_argument("mesh interpolation: subframes must be >= 1, got " + std::to_string(s.subframes));
    validateGeneratorSettings(s);
}

void validateMesh(const sph::TriangleMesh& m, const std::string& what) {
    if (m.vertices.empty() || m.triangles.empty())
        throw std::invalid_argument("mesh interpolation: " + what + " mesh is empty (" +
                                    std::to_string(m.vertices.size()) + " vertices, " +
                                    std::to_string(m.triangles.size()) + " triangles)");
    for (std::size_t i = 0; i < m.vertices.size(); ++i)
        if (!sph::isFinite(m.vertices[i]))
            throw std::invalid_argument("mesh interpolation: " + what + " vertex " + std::to_string(i) +
                                        " is not finite");
    const std::size_t n = m.vertices.size();
    for (std::size_t t = 0; t < m.triangles.size(); ++t)
        for (const std::uint32_t v : m.triangles[t])
            if (v >= n)
                throw std::invalid_argument("mesh interpolation: " + what + " triangle " + std::to_string(t) +
                                            " refers to vertex " + std::to_string(v) + " of " + std::to_string(n));
}

/// Mean and max distance of `points` to the surface of `locator`.
std::pair<double, double> distanceStats(std::span<const Vec3> points, const TriangleLocator& locator) {
    std::vector<float> d(points.size());
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, points.size(), kParallelGrain),
                      [&](const tbb::blocked_range<std::size_t>& r) {
                          for (std::size_t i = r.begin(); i != r.end(); ++i) d[i] = locator.distance(points[i]);
                      });
    double sum = 0.0, mx = 0.0;
    for (const float v : d) {
        sum += v;
        mx = std::max(mx, double(v));
    }
    return {points.empty() ? 0.0 : sum / double(points.size()), mx};
}

} // namespace

// ---------------------------------------------------------------------------------------
// TriangleLocator

TriangleLocator::TriangleLocator(const sph::TriangleMesh& mesh) : TriangleLocator(mesh.vertices, mesh.triangles) {}

TriangleLocator::TriangleLocator(std::span<const Vec3> vertices, std::span<const std::array<std::uint32_t, 3>> triangles) {
    if (triangles.empty()) throw std::invalid_argument("TriangleLocator: the mesh has no triangles");
    const std::size_t n = vertices.size();
    for (std::size_t t = 0; t < triangles.size(); ++t)
        for (const std::uint32_t v : triangles[t])
            if (v >= n)
                throw std::invalid_argument("TriangleLocator: triangle " + std::to_string(t) + " refers to vertex " +
                                            std::to_string(v) + " of " + std::to_string(n));
    if (triangles.size() >= std::size_t(std::numeric_limits<std::uint32_t>::max()) / 2)
        throw std::invalid_argument("TriangleLocator: too many triangles");

    const std::size_t tc = triangles.size();
    triangleCount_ = tc;
    std::vector<Vec3> lo(tc), hi(tc), centroid(tc);
    for (std::size_t t = 0; t < tc; ++t) {
        const Vec3 a = vertices[triangles[t][0]], b = vertices[triangles[t][1]], c = vertices[triangles[t][2]];
        lo[t] = sph::componentMin(a, sph::componentMin(b, c));
        hi[t] = sph::componentMax(a, sph::componentMax(b, c));
        centroid[t] = (a + b + c) * (1.f / 3.f);
    }
    std::vector<std::uint32_t> order(tc);
    for (std::size_t t = 0; t < tc; ++t) order[t] = std::uint32_t(t);

    // Binary hierarchy by median splits of the centroids along their longest extent.
    struct BinaryNode {
        Vec3 lo, hi;
        std::uint32_t begin = 0, end = 0; ///< slots in `order`
        std::uint32_t left = 0;           ///< inner: left child (right = left + 1); leaf: 0
    };
    constexpr std::uint32_t kLeafSize = 4;
    std::vector<BinaryNode> bin;
    bin.reserve(tc);
    bin.push_back({Vec3{}, Vec3{}, 0u, std::uint32_t(tc), 0u});
    for (std::size_t i = 0; i < bin.size(); ++i) {
        const std::uint32_t begin = bin[i].begin, end = bin[i].end;
        Vec3 blo = lo[order[begin]], bhi = hi[order[begin]];
        Vec3 clo = centroid[order[begin]], chi = clo;
        for (std::uint32_t q = begin; q < end; ++q) {
            const std::uint32_t t = order[q];
            blo = sph::componentMin(blo, lo[t]);
            bhi = sph::componentMax(bhi, hi[t]);
            clo = sph::componentMin(clo, centroid[t]);
            chi = sph::componentMax(chi, centroid[t]);
        }
        bin[i].lo = blo;
        bin[i].hi = bhi;
        if (end - begin <= kLeafSize) continue;
        const Vec3 ext = chi - clo;
        const int axis = (ext.x >= ext.y && ext.x >= ext.z) ? 0 : (ext.y >= ext.z ? 1 : 2);
        const std::uint32_t mid = begin + (end - begin) / 2;
        std::nth_element(order.begin() + begin, order.begin() + mid, order.begin() + end,
                         [&](std::uint32_t x, std::uint32_t y) { return centroid[x][axis] < centroid[y][axis]; });
        bin[i].left = std::uint32_t(bin.size());
        bin.push_back({Vec3{}, Vec3{}, begin, mid, 0u});
        bin.push_back({Vec3{}, Vec3{}, mid, end, 0u});
    }

    // Triangles in leaf order, with their corners inline.
    leafTriangles_.resize(tc);
    leafTriangleIds_.resize(tc);
    slotOfTriangle_.resize(tc);
    for (std::size_t q = 0; q < tc; ++q) {
        const auto& tri = triangles[order[q]];
        leafTriangles_[q] = {vertices[tri[0]], vertices[tri[1]], vertices[tri[2]]};
        leafTriangleIds_[q] = order[q];
        slotOfTriangle_[order[q]] = std::uint32_t(q);
    }

    // Pack: one Node per inner binary node (the root first) with its children's boxes.
    std::vector<std::uint32_t> packedIndex(bin.size(), 0);
    std::uint32_t innerCount = 0;
    for (std::size_t i = 0; i < bin.size(); ++i)
        if (bin[i].left != 0) packedIndex[i] = innerCount++;
    auto setChild = [&](Node& node, int c, const BinaryNode& b) {
        node.lo[c] = b.lo;
        node.hi[c] = b.hi;
        if (b.left != 0) {
            node.child[c] = packedIndex[std::size_t(&b - bin.data())];
            node.count[c] = 0;
        } else {
            node.child[c] = b.begin;
            node.count[c] = b.end - b.begin;
        }
    };
    if (bin[0].left == 0) {
        // A single leaf: the root holds it and an absent second child.
        Node root;
        setChild(root, 0, bin[0]);
        const float big = std::numeric_limits<float>::max();
        root.lo[1] = Vec3{big, big, big};
        root.hi[1] = Vec3{-big, -big, -big};
        root.count[1] = 1; // a leaf that is never entered: its box is empty
        nodes_.push_back(root);
    } else {
        nodes_.resize(innerCount);
        for (std::size_t i = 0; i < bin.size(); ++i) {
            if (bin[i].left == 0) continue;
            Node& node = nodes_[packedIndex[i]];
            setChild(node, 0, bin[bin[i].left]);
            setChild(node, 1, bin[bin[i].left + 1]);
        }
    }
}

namespace {

/// Squared distance from p to the box [lo, hi] (0 inside, +inf for an empty box).
inline float boxDistance2(Vec3 p, Vec3 lo, Vec3 hi) {
    const float dx = std::max(std::max(lo.x - p.x, p.x - hi.x), 0.f);
    const float dy = std::max(std::max(lo.y - p.y, p.y - hi.y), 0.f);
    const float dz = std::max(std::max(lo.z - p.z, p.z - hi.z), 0.f);
    return dx * dx + dy * dy + dz * dz;
}

} // namespace

Vec3 TriangleLocator::closestPoint(Vec3 p, std::uint32_t* triangle) const {
    std::uint32_t t = std::numeric_limits<std::uint32_t>::max();
    const Vec3 c = closestPointFrom(p, t);
    if (triangle) *triangle = t;
    return c;
}

Vec3 TriangleLocator::closestPointFrom(Vec3 p, std::uint32_t& triangle) const {
    if (nodes_.empty()) throw std::logic_error("TriangleLocator: query on an empty locator");
    float best2 = std::numeric_limits<float>::infinity();
    Vec3 bestPoint = p;
    std::uint32_t bestSlot = 0;
    auto testSlot = [&](std::uint32_t q) {
        const auto& c = leafTriangles_[q];
        const Vec3 cp = sph::closestPointOnTriangle(p, c[0], c[1], c[2]).point;
        const float d2 = sph::lengthSquared(p - cp);
        if (d2 < best2) {
            best2 = d2;
            bestPoint = cp;
            bestSlot = q;
        }
    };
    // A guess only tightens the bound early; the search below stays exact.
    if (triangle < triangleCount_) testSlot(slotOfTriangle_[triangle]);

    // Depth-first, nearer child first; entries keep their box distance so that a subtree
    // whose box became farther than the best so far is dropped when popped. The tree is
    // balanced (median splits), so at most depth + 1 < 64 entries are pending.
    struct Entry {
        std::uint32_t node;
        float d2;
    };
    Entry stack[128];
    int top = 0;
    stack[top++] = {0u, 0.f};
    while (top > 0) {
        const Entry e = stack[--top];
        if (e.d2 >= best2) continue;
        const Node& node = nodes_[e.node];
        const float d0 = boxDistance2(p, node.lo[0], node.hi[0]);
        const float d1 = boxDistance2(p, node.lo[1], node.hi[1]);
        const int nearC = d1 < d0 ? 1 : 0, farC = 1 - nearC;
        const float dNear = nearC == 0 ? d0 : d1, dFar = nearC == 0 ? d1 : d0;
        if (node.count[nearC] > 0 && dNear < best2)
            for (std::uint32_t q = node.child[nearC]; q < node.child[nearC] + node.count[nearC]; ++q) testSlot(q);
        if (node.count[farC] > 0) {
            if (dFar < best2)
                for (std::uint32_t q = node.child[farC]; q < node.child[farC] + node.count[farC]; ++q) testSlot(q);
        } else if (dFar < best2) {
            stack[top++] = {node.child[farC], dFar};
        }
        if (node.count[nearC] == 0 && dNear < best2) stack[top++] = {node.child[nearC], dNear};
    }
    triangle = leafTriangleIds_[bestSlot];
    return bestPoint;
}

float TriangleLocator::distance(Vec3 p) const { return sph::length(p - closestPoint(p)); }

// ---------------------------------------------------------------------------------------
// Adjacency and the interpolation point generator

VertexNeighbours VertexNeighbours::of(const sph::TriangleMesh& mesh) {
    const std::size_t n = mesh.vertices.size();
    std::vector<std::uint64_t> edges;
    edges.reserve(mesh.triangles.size() * 6);
    for (const auto& t : mesh.triangles)
        for (int e = 0; e < 3; ++e) {
            const std::uint32_t a = t[std::size_t(e)], b = t[std::size_t((e + 1) % 3)];
            if (a == b || a >= n || b >= n) continue;
            edges.push_back((std::uint64_t(a) << 32) | b);
            edges.push_back((std::uint64_t(b) << 32) | a);
        }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    VertexNeighbours nb;
    nb.start.assign(n + 1, 0);
    nb.index.resize(edges.size());
    for (std::size_t e = 0; e < edges.size(); ++e) {
        ++nb.start[std::size_t(edges[e] >> 32) + 1];
        nb.index[e] = std::uint32_t(edges[e] & 0xffffffffu);
    }
    for (std::size_t v = 0; v < n; ++v) nb.start[v + 1] += nb.start[v];
    return nb;
}

std::vector<Vec3> generateInterpolationPoints(const sph::TriangleMesh& source, const VertexNeighbours& neighbours,
                                              const TriangleLocator& target, const InterpolationSettings& settings,
                                              std::span<const Vec3> sourcePositions) {
    const std::span<const Vec3> d0 = sourcePositions.empty() ? std::span<const Vec3>(source.vertices) : sourcePositions;
    const std::size_t n = d0.size();
    if (n != source.vertices.size())
        throw std::invalid_argument("generateInterpolationPoints: " + std::to_string(n) + " source positions for " +
                                    std::to_string(source.vertices.size()) + " vertices");
    if (neighbours.start.size() != n + 1)
        throw std::invalid_argument("generateInterpolationPoints: adjacency does not belong to the source mesh");
    validateGeneratorSettings(settings);

    const float fcp = float(settings.closestPointFactor);
    const float fr = float(settings.relaxFactor);
    std::vector<Vec3> d1(d0.begin(), d0.end()); // Algorithm 1: copy D0 to D1
    // Each vertex's last closest triangle, a good first guess for the next iteration.
    std::vector<std::uint32_t> guess(n, std::numeric_limits<std::uint32_t>::max());
    for (int it = 0; it < settings.iterations; ++it) {
        // Algorithm 2: closestPoint.
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kParallelGrain),
                          [&](const tbb::blocked_range<std::size_t>& r) {
                              for (std::size_t v = r.begin(); v != r.end(); ++v) {
                                  const Vec3 c = target.closestPointFrom(d1[v], guess[v]);
                                  d1[v] += (c - d1[v]) * fcp;
                              }
                          });
        // Algorithm 3: relax (in place, in vertex order; f_r = 0 changes nothing).
        if (fr > 0.f) {
            const float keep = 1.f - fr;
            for (std::size_t v = 0; v < n; ++v) {
                const Vec3 v0 = d0[v];
                for (std::uint32_t q = neighbours.start[v]; q < neighbours.start[v + 1]; ++q) {
                    const std::uint32_t w = neighbours.index[q];
                    const Vec3 v1 = d1[v];
                    const Vec3 edge0 = d0[w] - v0;
                    const Vec3 edge1 = d1[w] - v1;
                    d1[w] = v1 + edge1 * keep + edge0 * fr;
                }
            }
        }
    }
    return d1;
}

std::vector<Vec3> generateInterpolationPoints(const sph::TriangleMesh& source, const sph::TriangleMesh& target,
                                              const InterpolationSettings& settings) {
    validateGeneratorSettings(settings);
    validateMesh(source, "source");
    validateMesh(target, "target");
    return generateInterpolationPoints(source, VertexNeighbours::of(source), TriangleLocator(target), settings);
}

// ---------------------------------------------------------------------------------------
// MovingHeartMesh

int MovingHeartMesh::wrapPhase(int k) const {
    const int p = phaseCount();
    return ((k % p) + p) % p;
}

int MovingHeartMesh::wrapFrame(int f) const {
    const int n = frameCount();
    return ((f % n) + n) % n;
}

MovingHeartMesh::FrameRef MovingHeartMesh::locate(int interval, double s) const {
    FrameRef r;
    if (s < 0.5) {
        r.mesh = wrapPhase(interval);
        r.forward = true;
        r.factor = float(s / 0.5);
    } else {
        r.mesh = wrapPhase(interval + 1);
        r.forward = false;
        r.factor = float((1.0 - s) / 0.5);
    }
    return r;
}

MovingHeartMesh MovingHeartMesh::build(std::vector<sph::TriangleMesh> phases, const InterpolationSettings& settings,
                                       std::function<void(double)> progressFn) {
    if (phases.size() < 2)
        throw std::invalid_argument("MovingHeartMesh: need at least 2 cardiac phases, got " + std::to_string(phases.size()));
    validateSettings(settings);
    for (std::size_t k = 0; k < phases.size(); ++k) validateMesh(phases[k], phaseName(k));

    Progress progress(std::move(progressFn));
    MovingHeartMesh m;
    const int P = int(phases.size());
    m.phases_ = std::move(phases);
    m.subframes_ = settings.subframes;
    m.forward_.resize(std::size_t(P));
    m.backward_.resize(std::size_t(P));
    m.mismatch_.resize(std::size_t(P));

    const auto& ph = m.phases_;
    auto next = [P](int k) { return (k + 1) % P; };
    auto prev = [P](int k) { return (k + P - 1) % P; };

    m.sharedTopology_ = std::all_of(ph.begin() + 1, ph.end(), [&](const sph::TriangleMesh& x) {
        return x.vertices.size() == ph[0].vertices.size() && x.triangles == ph[0].triangles;
    });

    if (m.sharedTopology_) {
        // Vertex correspondence: the displacement is the difference of corresponding vertices.
        for (int k = 0; k < P; ++k) {
            const auto& x = ph[std::size_t(k)].vertices;
            const auto& xn = ph[std::size_t(next(k))].vertices;
            const auto& xp = ph[std::size_t(prev(k))].vertices;
            auto& f = m.forward_[std::size_t(k)];
            auto& b = m.backward_[std::size_t(k)];
            f.resize(x.size());
            b.resize(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
                f[i] = (xn[i] - x[i]) * 0.5f;
                b[i] = (xp[i] - x[i]) * 0.5f;
            }
        }
        // The jump at the switch is the distance between corresponding half-way vertices.
        for (int k = 0; k < P; ++k) {
            const auto& x = ph[std::size_t(k)].vertices;
            const auto& xn = ph[std::size_t(next(k))].vertices;
            const auto& f = m.forward_[std::size_t(k)];
            const auto& b = m.backward_[std::size_t(next(k))];
            double sum = 0.0, mx = 0.0;
            for (std::size_t i = 0; i < x.size(); ++i) {
                const double d = sph::length((x[i] + f[i]) - (xn[i] + b[i]));
                sum += d;
                mx = std::max(mx, d);
            }
            HalfwayMismatch& mm = m.mismatch_[std::size_t(k)];
            mm.meanForward = mm.meanBackward = mm.mean = sum / double(x.size());
            mm.max = mx;
        }
        progress.report(1.0);
    } else {
        // Adjacency and locators of every phase mesh, built once.
        std::vector<VertexNeighbours> neighbours(static_cast<std::size_t>(P));
        std::vector<TriangleLocator> locators(static_cast<std::size_t>(P));
        runJobs(
            P,
            [&](int k) {
                neighbours[std::size_t(k)] = VertexNeighbours::of(ph[std::size_t(k)]);
                locators[std::size_t(k)] = TriangleLocator(ph[std::size_t(k)]);
            },
            progress, 0.0, 0.05);

        // With two phases the next and the previous mesh are the same one, so each point
        // set and each interval below is computed once and copied.
        const bool two = P == 2;

        // Step 2: forward and backward point sets of every phase; half-way positions.
        std::vector<std::vector<Vec3>> half(static_cast<std::size_t>(2 * P)); // 2k: forward of k, 2k+1: backward of k
        const double generatorEnd = settings.refine ? 0.45 : 0.85;
        runJobs(
            2 * P,
            [&](int j) {
                if (two && j % 2 == 1) return;
                const int k = j / 2;
                const int target = (j % 2 == 0) ? next(k) : prev(k);
                const auto& x = ph[std::size_t(k)].vertices;
                std::vector<Vec3> g = generateInterpolationPoints(ph[std::size_t(k)], neighbours[std::size_t(k)],
                                                                  locators[std::size_t(target)], settings);
                for (std::size_t i = 0; i < x.size(); ++i) g[i] = x[i] + (g[i] - x[i]) * 0.5f;
                half[std::size_t(j)] = std::move(g);
            },
            progress, 0.05, generatorEnd);
        locators.clear();
        if (two)
            for (int k = 0; k < 2; ++k) half[std::size_t(2 * k + 1)] = half[std::size_t(2 * k)];

        if (settings.refine) {
            // Step 3: for interval k, A' = half[2k] (mesh k), B' = half[2(k+1)+1] (mesh k+1).
            // Each goes half way towards the other; both read the unrefined copies.
            std::vector<std::vector<Vec3>> refined(static_cast<std::size_t>(2 * P));
            runJobs(
                2 * P,
                [&](int j) {
                    if (two && j >= 2) return;
                    const int k = j / 2;
                    const bool forward = j % 2 == 0;
                    const int src = forward ? k : next(k);
                    const int dst = forward ? next(k) : k;
                    const std::vector<Vec3>& srcPos = forward ? half[std::size_t(2 * k)] : half[std::size_t(2 * next(k) + 1)];
                    const std::vector<Vec3>& dstPos = forward ? half[std::size_t(2 * next(k) + 1)] : half[std::size_t(2 * k)];
                    const TriangleLocator loc(dstPos, ph[std::size_t(dst)].triangles);
                    std::vector<Vec3> g = generateInterpolationPoints(ph[std::size_t(src)], neighbours[std::size_t(src)],
                                                                      loc, settings, srcPos);
                    for (std::size_t i = 0; i < g.size(); ++i) g[i] = srcPos[i] + (g[i] - srcPos[i]) * 0.5f;
                    // Stored in the same slots as `half`: forward of k, backward of k+1.
                    refined[forward ? std::size_t(2 * k) : std::size_t(2 * next(k) + 1)] = std::move(g);
                },
                progress, 0.45, 0.85);
            if (two) {
                refined[2] = refined[3]; // mesh 1 forward = mesh 1 backward (both towards mesh 0)
                refined[1] = refined[0]; // mesh 0 backward = mesh 0 forward
            }
            half = std::move(refined);
        }

        // Step 4: half-way displacements.
        for (int k = 0; k < P; ++k) {
            const auto& x = ph[std::size_t(k)].vertices;
            auto& f = m.forward_[std::size_t(k)];
            auto& b = m.backward_[std::size_t(k)];
            const auto& hf = half[std::size_t(2 * k)];
            const auto& hb = half[std::size_t(2 * k + 1)];
            f.resize(x.size());
            b.resize(x.size());
            for (std::size_t i = 0; i < x.size(); ++i) {
                f[i] = hf[i] - x[i];
                b[i] = hb[i] - x[i];
            }
        }

        // The gap at every switch: mesh k at half way forward vs mesh k+1 at half way back.
        runJobs(
            P,
            [&](int k) {
                if (two && k == 1) return;
                const auto& hf = half[std::size_t(2 * k)];
                const auto& hb = half[std::size_t(2 * next(k) + 1)];
                const TriangleLocator locF(hf, ph[std::size_t(k)].triangles);
                const TriangleLocator locB(hb, ph[std::size_t(next(k))].triangles);
                const auto [meanF, maxF] = distanceStats(hf, locB);
                const auto [meanB, maxB] = distanceStats(hb, locF);
                HalfwayMismatch& mm = m.mismatch_[std::size_t(k)];
                mm.meanForward = meanF;
                mm.meanBackward = meanB;
                mm.mean = 0.5 * (meanF + meanB);
                mm.max = std::max(maxF, maxB);
            },
            progress, 0.85, 1.0);
        if (two) {
            // Interval 1 is interval 0 seen from the other side.
            HalfwayMismatch& mm = m.mismatch_[1];
            mm = m.mismatch_[0];
            std::swap(mm.meanForward, mm.meanBackward);
        }
    }
    m.refined_ = settings.refine && !m.sharedTopology_;
    m.buildFrameTable();
    progress.report(1.0);
    return m;
}

void MovingHeartMesh::buildFrameTable() {
    // Sub-frame table and the largest per-sub-frame step: a vertex moves 2 / subframes of
    // its half-way displacement per sub-frame.
    const int P = phaseCount();
    const int S = subframes_;
    frames_.resize(std::size_t(P) * std::size_t(S));
    for (int k = 0; k < P; ++k)
        for (int j = 0; j < S; ++j) frames_[std::size_t(k * S + j)] = locate(k, double(j) / double(S));
    double maxHalf = 0.0;
    for (int k = 0; k < P; ++k) {
        for (const Vec3& d : forward_[std::size_t(k)]) maxHalf = std::max(maxHalf, double(sph::length(d)));
        for (const Vec3& d : backward_[std::size_t(k)]) maxHalf = std::max(maxHalf, double(sph::length(d)));
    }
    maxSubframeDisplacement_ = maxHalf * 2.0 / double(S);
}

void MovingHeartMesh::verticesAt(int frame, std::vector<Vec3>& out) const {
    const FrameRef r = frames_[std::size_t(wrapFrame(frame))];
    const std::vector<Vec3>& x = phases_[std::size_t(r.mesh)].vertices;
    const std::vector<Vec3>& d = r.forward ? forward_[std::size_t(r.mesh)] : backward_[std::size_t(r.mesh)];
    out.resize(x.size());
    const float f = r.factor;
    Vec3* o = out.data();
    const Vec3* px = x.data();
    const Vec3* pd = d.data();
    const std::size_t n = x.size();
    for (std::size_t i = 0; i < n; ++i) o[i] = px[i] + pd[i] * f;
}

int MovingHeartMesh::meshIndexAtTime(double cycleFraction) const {
    if (!std::isfinite(cycleFraction))
        throw std::invalid_argument("MovingHeartMesh: cycle fraction is not finite");
    double t = cycleFraction - std::floor(cycleFraction);
    if (t >= 1.0) t = 0.0;
    const double u = t * double(phaseCount());
    const int k = std::min(int(u), phaseCount() - 1);
    return locate(k, std::clamp(u - double(k), 0.0, 1.0)).mesh;
}

int MovingHeartMesh::sample(double cycleFraction, double cycleSeconds, sph::TriangleMesh& mesh,
                            std::vector<Vec3>& vertexVelocity) const {
    if (!std::isfinite(cycleFraction))
        throw std::invalid_argument("MovingHeartMesh::sample: cycle fraction is not finite");
    if (!(cycleSeconds > 0.0) || !std::isfinite(cycleSeconds))
        throw std::invalid_argument("MovingHeartMesh::sample: cycle duration must be positive, got " +
                                    std::to_string(cycleSeconds) + " s");
    double t = cycleFraction - std::floor(cycleFraction);
    if (t >= 1.0) t = 0.0;
    const int P = phaseCount();
    const double u = t * double(P);
    const int k = std::min(int(u), P - 1);
    const double s = std::clamp(u - double(k), 0.0, 1.0);
    const FrameRef r = locate(k, s);

    const sph::TriangleMesh& src = phases_[std::size_t(r.mesh)];
    const std::vector<Vec3>& d = r.forward ? forward_[std::size_t(r.mesh)] : backward_[std::size_t(r.mesh)];
    // d(factor)/dt: +-2 per unit of s, P units of s per cycle.
    const float rate = float((r.forward ? 2.0 : -2.0) * double(P) / cycleSeconds);
    mesh.triangles = src.triangles;
    const std::size_t n = src.vertices.size();
    mesh.vertices.resize(n);
    vertexVelocity.resize(n);
    const float f = r.factor;
    for (std::size_t i = 0; i < n; ++i) {
        mesh.vertices[i] = src.vertices[i] + d[i] * f;
        vertexVelocity[i] = d[i] * rate;
    }
    return r.mesh;
}

double MovingHeartMesh::maxHalfwayMismatch() const {
    double mx = 0.0;
    for (const HalfwayMismatch& mm : mismatch_) mx = std::max(mx, mm.max);
    return mx;
}

// ---------------------------------------------------------------------------------------
// Serialisation (format in the header, at save())

namespace {

constexpr char kMagic[8] = {'A', 'T', 'R', 'M', 'H', 'M', '0', '1'};
constexpr std::uint32_t kFormatVersion = 1;
constexpr std::uint32_t kFlagRefined = 1u;
// Sanity limits for a stream: far beyond any heart, small enough to reject garbage.
constexpr std::uint64_t kMaxPhases = 1u << 16;
constexpr std::uint64_t kMaxSubframes = 1u << 16;
constexpr std::uint64_t kMaxFrames = 1u << 24;

static_assert(sizeof(Vec3) == 3 * sizeof(float), "Vec3 must be three packed floats");
static_assert(sizeof(std::array<std::uint32_t, 3>) == 3 * sizeof(std::uint32_t));
static_assert(std::numeric_limits<float>::is_iec559 && std::numeric_limits<double>::is_iec559);

[[noreturn]] void corrupt(const std::string& why) { throw std::runtime_error("MovingHeartMesh::load: " + why); }

} // namespace

void MovingHeartMesh::save(std::ostream& out) const {
    try {
        io::StreamWriter w(out);
        w.bytes(kMagic, sizeof kMagic);
        w.value(kFormatVersion);
        w.value(std::uint32_t(phaseCount()));
        w.value(std::uint32_t(subframes_));
        w.value(std::uint32_t(refined_ ? kFlagRefined : 0u));
        for (int k = 0; k < phaseCount(); ++k) {
            const auto i = std::size_t(k);
            w.value(std::uint64_t(phases_[i].vertices.size()));
            w.value(std::uint64_t(phases_[i].triangles.size()));
            w.words<float>(phases_[i].vertices);
            w.words<std::uint32_t>(phases_[i].triangles);
            w.words<float>(forward_[i]);
            w.words<float>(backward_[i]);
            const HalfwayMismatch& mm = mismatch_[i];
            w.value(mm.meanForward);
            w.value(mm.meanBackward);
            w.value(mm.mean);
            w.value(mm.max);
        }
        const std::uint64_t checksum = w.hash();
        w.value(checksum);
    } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("MovingHeartMesh::save: ") + e.what());
    }
    out.flush();
    if (!out) throw std::runtime_error("MovingHeartMesh::save: the stream failed while writing");
}

MovingHeartMesh MovingHeartMesh::load(std::istream& in) {
    // A value or an array that the stream does not hold is damage like any other.
    try {
        io::StreamReader r(in);
        unsigned char magic[sizeof kMagic];
        r.copy(magic, sizeof magic, "magic");
        if (std::memcmp(magic, kMagic, sizeof kMagic) != 0) corrupt("not a moving heart mesh (bad magic)");
        const auto version = r.value<std::uint32_t>("format version");
        if (version != kFormatVersion)
            corrupt("format version " + std::to_string(version) + ", this build reads version " +
                    std::to_string(kFormatVersion));
        const auto phases = r.value<std::uint32_t>("phase count");
        const auto subframes = r.value<std::uint32_t>("sub-frame count");
        const auto flags = r.value<std::uint32_t>("flags");
        if (phases < 2 || phases > kMaxPhases) corrupt("implausible phase count " + std::to_string(phases));
        if (subframes < 1 || subframes > kMaxSubframes) corrupt("implausible sub-frame count " + std::to_string(subframes));
        if (std::uint64_t(phases) * subframes > kMaxFrames)
            corrupt("implausible frame count " + std::to_string(std::uint64_t(phases) * subframes));
        if ((flags & ~kFlagRefined) != 0) corrupt("unknown flags " + std::to_string(flags));

        MovingHeartMesh m;
        m.subframes_ = int(subframes);
        m.refined_ = (flags & kFlagRefined) != 0;
        m.phases_.resize(phases);
        m.forward_.resize(phases);
        m.backward_.resize(phases);
        m.mismatch_.resize(phases);
        for (std::size_t k = 0; k < phases; ++k) {
            const std::string name = phaseName(k);
            const auto n = r.value<std::uint64_t>("vertex count");
            const auto t = r.value<std::uint64_t>("triangle count");
            if (n == 0 || n >= std::numeric_limits<std::uint32_t>::max())
                corrupt(name + ": implausible vertex count " + std::to_string(n));
            if (t == 0 || t >= std::numeric_limits<std::uint32_t>::max())
                corrupt(name + ": implausible triangle count " + std::to_string(t));
            sph::TriangleMesh& mesh = m.phases_[k];
            r.words<float>(mesh.vertices, n, (name + " vertices").c_str());
            r.words<std::uint32_t>(mesh.triangles, t, (name + " triangles").c_str());
            r.words<float>(m.forward_[k], n, (name + " forward displacements").c_str());
            r.words<float>(m.backward_[k], n, (name + " backward displacements").c_str());
            HalfwayMismatch& mm = m.mismatch_[k];
            mm.meanForward = r.value<double>("mismatch");
            mm.meanBackward = r.value<double>("mismatch");
            mm.mean = r.value<double>("mismatch");
            mm.max = r.value<double>("mismatch");
            for (std::size_t i = 0; i < n; ++i)
                if (!sph::isFinite(mesh.vertices[i]) || !sph::isFinite(m.forward_[k][i]) || !sph::isFinite(m.backward_[k][i]))
                    corrupt(name + ": vertex " + std::to_string(i) + " or its displacement is not finite");
            for (std::size_t i = 0; i < t; ++i)
                for (const std::uint32_t v : mesh.triangles[i])
                    if (v >= n)
                        corrupt(name + ": triangle " + std::to_string(i) + " refers to vertex " + std::to_string(v) + " of " +
                                std::to_string(n));
            for (const double x : {mm.meanForward, mm.meanBackward, mm.mean, mm.max})
                if (!std::isfinite(x) || x < 0.0) corrupt(name + ": invalid half-way mismatch");
        }
        const std::uint64_t expected = r.hash();
        const auto stored = r.value<std::uint64_t>("checksum");
        if (stored != expected) corrupt("checksum mismatch (the data is corrupt)");

        const auto& ph = m.phases_;
        m.sharedTopology_ = std::all_of(ph.begin() + 1, ph.end(), [&](const sph::TriangleMesh& x) {
            return x.vertices.size() == ph[0].vertices.size() && x.triangles == ph[0].triangles;
        });
        m.buildFrameTable();
        return m;
    } catch (const io::BinaryInputError& e) {
        corrupt(e.what());
    }
}

} // namespace atrium::heart
