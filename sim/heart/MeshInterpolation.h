#pragma once
// Edge-direction-preserving mesh interpolation between the phases of a cardiac cycle
// (Poyart 2016, section 3.4), and the moving heart mesh the solver reads every
// sub-frame. Vertices in millimetres; each phase k = 0..P-1 has its own mesh (vertex
// counts and connectivity differ in general: every phase is extracted independently by
// marching cubes), and the cycle wraps (phase P-1 is followed by phase 0).
//
// 1. Interpolation point generator (Algorithms 1-3). For a source mesh S and a target
//    mesh T: copy D0 = S to a working set D1; `iterations` times
//      closestPoint: every vertex v1 of D1 moves towards its closest point c on T,
//                    v1 += f_cp (c - v1)  (parallel over vertices; the closest points
//                    come from a TriangleLocator built once per target, each vertex's
//                    last closest triangle as the first guess);
//      relax:        for every vertex v (index order) and each neighbour w (ascending),
//                    d0 = w0 - v0 (original edge), d1 = w1 - v1 (current edge),
//                    w1 = v1 + (1 - f_r) d1 + f_r d0  (in place, so a vertex may be
//                    moved several times; Gauss-Seidel as in Algorithm 3).
//    f_r is "the factor ... by which to move edges back to their original directions"
//    (3.4.1): f_r = 0 leaves the closest-point motion alone, f_r = 1 restores the
//    original edges. (Algorithm 3's listing writes the blend the other way round,
//    d_r = f_r d1 + (1 - f_r) d0; we follow the prose, so that f_r = 0, n = 1,
//    f_cp = 1 is exactly the naive closest-point interpolation of 3.4.1.)
//    The iteration converges to where closestPoint and relax balance: short of the
//    target by about the strain the shape change asks of the edges times their length
//    (hundredths of a mm for concentric spheres 30 -> 33 mm with 2 mm edges, ~0.4 mm
//    for a sphere -> rounded cube with 2 mm edges); that is the price of keeping
//    triangles from collapsing, and what the refinement (3.) works on.
//
// 2. Bidirectional interpolation. Mesh k gets a forward point set G(M_k -> M_k+1) and a
//    backward one G(M_k -> M_k-1) (indices wrap). Without refinement they are used at
//    half way: A'_k = x_k + 0.5 (G(M_k -> M_k+1) - x_k) is mesh k at the mid-point
//    towards k+1, B'_k+1 = x_k+1 + 0.5 (G(M_k+1 -> M_k) - x_k+1) mesh k+1 at the
//    mid-point towards k.
//
// 3. Refinement (3.4.2): "The interpolation point generation step is repeated to find
//    a displacement for mesh A' so that it approached B' and vice versa", working on
//    copies of the first-step half-way meshes (so that B' is computed from the
//    unrefined A' and the other way round). The refined half-way meshes are
//      A''_k = A'_k + 0.5 (G(A'_k -> B'_k+1) - A'_k),
//      B''_k+1 = B'_k+1 + 0.5 (G(B'_k+1 -> A'_k) - B'_k+1),
//    i.e. each first-step half-way mesh goes half way towards the other, so both meet
//    near the surface between them. (Moving each all the way, A' onto B' and B' onto
//    A', would only swap the two surfaces and leave the gap at the switch as it was;
//    half way is the same rule as step 2, applied to the pair A', B'.) After
//    refinement "the stored displacement values take mesh A's vertices to the
//    midpoint between A and B, and the same for mesh B".
//
// 4. Stored per vertex, per phase: the half-way displacements
//      forward_k  = (half-way position of mesh k towards k+1) - x_k   (A'' or A')
//      backward_k = (half-way position of mesh k towards k-1) - x_k   (B'' or B').
//
// 5. Sub-frame update. Time within the phase interval k (from phase k to k+1) is
//    s in [0, 1):
//      s <  0.5: connectivity of mesh k,   x = x_k   + (s / 0.5)       forward_k
//      s >= 0.5: connectivity of mesh k+1, x = x_k+1 + ((1 - s) / 0.5) backward_k+1
//    so mesh k leaves its own position at s = 0, reaches its half-way position at
//    s = 0.5, where mesh k+1 takes over at its own half-way position and arrives at its
//    own position at s = 1 (= s 0 of interval k+1). The only discontinuity is the switch
//    at s = 0.5, whose size is the half-way mismatch (halfwayMismatch()). Sub-frame f
//    (0 <= f < P * subframes, wrapping) is interval k = f / subframes at
//    s = (f mod subframes) / subframes; the interval P-1 ends on mesh 0, so the cycle
//    wraps with no jump. Every sub-frame is one multiply-add per vertex coordinate.
//
// 6. Shared topology. When all phases have the same vertex count and identical
//    triangle lists (a mesh series with vertex correspondence), no closest points are
//    searched: the displacement is the difference of corresponding vertices,
//    forward_k = 0.5 (x_k+1 - x_k), backward_k+1 = 0.5 (x_k - x_k+1), so the two
//    half-way meshes coincide and the motion is the linear interpolation of
//    corresponding vertices.

#include "sim/sph/TriangleMesh.h"
#include "sim/sph/Vec3.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <span>
#include <vector>

namespace atrium::heart {

/// Parameters of the interpolation; defaults are the dissertation's (3.4.1).
struct InterpolationSettings {
    int iterations = 20;             ///< n: closestPoint + relax rounds (>= 1)
    double closestPointFactor = 0.7; ///< f_cp in (0, 1]: fraction of the way to the closest point
    double relaxFactor = 0.4;        ///< f_r in [0, 1]: fraction of the way back to the original edge
    bool refine = true;              ///< apply the refinement step (3.4.2)
    int subframes = 8;               ///< sub-frames between consecutive phases (>= 1)
};

/// Closest-point queries on a static triangle mesh: a bounding-volume hierarchy (boxes
/// around median splits of the triangle centroids, up to 4 triangles per leaf) searched
/// branch and bound, nearer child first. Exact (up to float rounding) for any point,
/// near the surface or far from it, and indifferent to triangle sizes; thread-safe for
/// concurrent queries once built. A default-constructed locator is empty: queries
/// throw std::logic_error.
class TriangleLocator {
public:
    TriangleLocator() = default;
    /// Builds over `vertices` and `triangles` (both copied); throws
    /// std::invalid_argument for no triangles or an index out of range.
    TriangleLocator(std::span<const sph::Vec3> vertices, std::span<const std::array<std::uint32_t, 3>> triangles);
    explicit TriangleLocator(const sph::TriangleMesh& mesh);

    /// Closest point of the mesh to p; `triangle` (optional) receives its triangle index.
    sph::Vec3 closestPoint(sph::Vec3 p, std::uint32_t* triangle = nullptr) const;
    /// The same with a guess: `triangle` holds on entry a triangle index believed to be
    /// close (e.g. the previous answer for a point that moved a little; any value out of
    /// range means no guess), and on return the closest triangle. The distance found
    /// does not depend on the guess, only the time it takes.
    sph::Vec3 closestPointFrom(sph::Vec3 p, std::uint32_t& triangle) const;
    /// Distance from p to the mesh.
    float distance(sph::Vec3 p) const;

    std::size_t triangleCount() const { return triangleCount_; }

private:
    /// Inner node of the hierarchy, holding its two children's boxes (one cache line).
    /// Child c is a leaf when count[c] > 0 (slots child[c] .. child[c] + count[c] - 1 of
    /// leafTriangles_) and an inner node (nodes_[child[c]]) when count[c] == 0. A root
    /// over a single leaf has an empty second box (lo > hi), which no query enters.
    struct alignas(64) Node {
        sph::Vec3 lo[2], hi[2];
        std::uint32_t child[2] = {0, 0};
        std::uint32_t count[2] = {0, 0};
    };
    std::size_t triangleCount_ = 0;
    std::vector<std::array<sph::Vec3, 3>> leafTriangles_; ///< corner positions, leaf by leaf
    std::vector<std::uint32_t> leafTriangleIds_;          ///< their indices in the input
    std::vector<std::uint32_t> slotOfTriangle_;           ///< inverse of leafTriangleIds_
    std::vector<Node> nodes_;                             ///< nodes_[0] is the root
};

/// Vertex adjacency of a triangle mesh (CSR, neighbours ascending, each edge listed
/// from both ends).
struct VertexNeighbours {
    std::vector<std::uint32_t> start; ///< vertexCount + 1 offsets
    std::vector<std::uint32_t> index; ///< neighbour vertex indices
    static VertexNeighbours of(const sph::TriangleMesh& mesh);
};

/// Algorithm 1 (with 2 and 3): the positions D1 of `source`'s vertices after
/// settings.iterations rounds of closestPoint towards `target` and relax (header,
/// step 1). `sourcePositions` replaces source.vertices as D0 when not empty (same
/// count; the connectivity stays source's). Uses settings.iterations,
/// closestPointFactor and relaxFactor only.
std::vector<sph::Vec3> generateInterpolationPoints(const sph::TriangleMesh& source, const VertexNeighbours& neighbours,
                                                   const TriangleLocator& target, const InterpolationSettings& settings,
                                                   std::span<const sph::Vec3> sourcePositions = {});
/// Convenience overload that builds the adjacency and the locator.
std::vector<sph::Vec3> generateInterpolationPoints(const sph::TriangleMesh& source, const sph::TriangleMesh& target,
                                                   const InterpolationSettings& settings);

/// Gap between the two half-way meshes of one phase interval (where the switch happens):
/// point-to-surface distances both ways. With shared topology, the distances between
/// corresponding half-way vertices instead (the jump each vertex makes; ~0).
struct HalfwayMismatch {
    double meanForward = 0.0;  ///< mean distance of mesh k's half-way vertices to mesh k+1's half-way surface (mm)
    double meanBackward = 0.0; ///< mean distance of mesh k+1's half-way vertices to mesh k's half-way surface (mm)
    double mean = 0.0;         ///< mean symmetric distance: (meanForward + meanBackward) / 2 (mm)
    double max = 0.0;          ///< largest of those vertex distances (mm)
};

/// A heart mesh moving over the cardiac cycle (header, steps 2-6). Immutable once built:
/// every member is const and safe to call from several threads at once.
class MovingHeartMesh {
public:
    /// Interpolates the phase meshes (vertices in mm). `progress` (optional) is called
    /// on the calling thread with non-decreasing values in [0, 1], ending with 1.
    /// Throws std::invalid_argument for fewer than 2 phases, an empty phase mesh, a
    /// triangle index out of range, a non-finite vertex, or settings out of range.
    static MovingHeartMesh build(std::vector<sph::TriangleMesh> phases, const InterpolationSettings& settings,
                                 std::function<void(double)> progress = {});

    int phaseCount() const { return int(phases_.size()); }
    int subframesPerPhase() const { return subframes_; }
    int frameCount() const { return phaseCount() * subframes_; } ///< phases * subframes
    bool sharedTopology() const { return sharedTopology_; }
    bool refined() const { return refined_; }

    /// Phase k's mesh at its own position (k wraps).
    const sph::TriangleMesh& phaseMesh(int k) const { return phases_[std::size_t(wrapPhase(k))]; }
    /// Half-way displacements of phase k's vertices (mm): towards phase k+1 / k-1.
    std::span<const sph::Vec3> forwardDisplacement(int k) const { return forward_[std::size_t(wrapPhase(k))]; }
    std::span<const sph::Vec3> backwardDisplacement(int k) const { return backward_[std::size_t(wrapPhase(k))]; }
    /// Mismatch between mesh k at half way forward and mesh k+1 at half way backward.
    const HalfwayMismatch& halfwayMismatch(int k) const { return mismatch_[std::size_t(wrapPhase(k))]; }

    /// Sub-frame f (wraps): the phase mesh whose connectivity is used, and its current
    /// vertex positions (`out` is resized; no allocation when it has the right size).
    const sph::TriangleMesh& topologyAt(int frame) const { return phases_[std::size_t(frames_[std::size_t(wrapFrame(frame))].mesh)]; }
    int meshIndexAt(int frame) const { return frames_[std::size_t(wrapFrame(frame))].mesh; }
    void verticesAt(int frame, std::vector<sph::Vec3>& out) const;

    /// Continuous time in cycles (wraps into [0, 1)) -> the mesh at that time
    /// (connectivity copied, vertices computed) and per-vertex velocities in mm/s for a
    /// cycle of `cycleSeconds` (> 0). No allocation once `mesh` and `vertexVelocity`
    /// have the capacity of the largest phase. Returns the phase whose connectivity is used.
    int sample(double cycleFraction, double cycleSeconds, sph::TriangleMesh& mesh,
               std::vector<sph::Vec3>& vertexVelocity) const;
    /// The phase whose connectivity is used at `cycleFraction` (wraps).
    int meshIndexAtTime(double cycleFraction) const;

    /// Largest distance a vertex travels between consecutive sub-frames (mm):
    /// 2 / subframes times the longest half-way displacement (a vertex covers its
    /// half-way displacement in half a phase interval). Not counting the switch of
    /// meshes at half way (see halfwayMismatch()).
    double maxSubframeDisplacement() const { return maxSubframeDisplacement_; }
    /// Largest halfwayMismatch(k).max over the cycle (mm).
    double maxHalfwayMismatch() const;

    /// Writes the whole moving mesh (phase meshes, half-way displacements, mismatches,
    /// sub-frame count, refinement flag) in a binary little-endian format ending with an
    /// FNV-1a 64 checksum, so that load() restores it without recomputation:
    ///   "ATRMHM01" magic (8 bytes), u32 format version (1), u32 phases, u32 sub-frames,
    ///   u32 flags (bit 0: refined); per phase: u64 vertex count n, u64 triangle count t,
    ///   n x 3 f32 vertices, t x 3 u32 triangles, n x 3 f32 forward, n x 3 f32 backward
    ///   displacements, 4 f64 mismatch (meanForward, meanBackward, mean, max);
    ///   u64 FNV-1a 64 of every preceding byte.
    /// Throws std::runtime_error when the stream fails.
    void save(std::ostream& out) const;
    /// Reads what save() wrote. Throws std::runtime_error naming what is wrong for a
    /// stream that is truncated, has another magic or version, implausible counts, an
    /// index out of range, a non-finite value or a checksum mismatch (a corrupt stream
    /// never yields a mesh; arrays are read in bounded chunks, so a corrupt count cannot
    /// make it allocate more than the stream actually holds).
    static MovingHeartMesh load(std::istream& in);

private:
    MovingHeartMesh() = default; // only build() makes one: a built mesh always has >= 2 phases

    struct FrameRef {
        int mesh = 0;         ///< phase whose connectivity and positions are used
        bool forward = true;  ///< forward_[mesh] (s < 0.5) or backward_[mesh]
        float factor = 0.f;   ///< x = x_mesh + factor * displacement
    };
    /// Interval k, s in [0, 1) -> which mesh, which displacement, which factor.
    FrameRef locate(int interval, double s) const;
    /// The sub-frame table and maxSubframeDisplacement_ from phases_, forward_,
    /// backward_ and subframes_ (shared by build() and load()).
    void buildFrameTable();
    int wrapPhase(int k) const;
    int wrapFrame(int f) const;

    std::vector<sph::TriangleMesh> phases_;
    std::vector<std::vector<sph::Vec3>> forward_, backward_;
    std::vector<HalfwayMismatch> mismatch_;
    std::vector<FrameRef> frames_;
    int subframes_ = 1;
    bool sharedTopology_ = false;
    bool refined_ = false;
    double maxSubframeDisplacement_ = 0.0;
};

} // namespace atrium::heart
