#pragma once
// Closing the holes of a triangle mesh: its boundary loops, found from the edges used by
// one triangle, each capped by ear clipping in its best-fit plane (best-shaped ear first)
// and wound as the surrounding surface. Surface extraction caps the holes that do not lie
// on the volume's faces; mesh series and chamber openings use capHoles and boundaryLoops.

#include "sim/heart/MeshEdges.h"
#include "sim/sph/TriangleMesh.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <unordered_set>
#include <vector>

namespace atrium::heart {

/// One hole's boundary.
struct BoundaryLoop {
    static constexpr std::uint32_t kNoVertex = std::numeric_limits<std::uint32_t>::max();
    std::vector<std::uint32_t> vertices; ///< in the direction the mesh's triangles run the edges
    std::vector<std::size_t> edges;      ///< indices into the boundary edge list
    bool simple = true;
    std::uint32_t badVertex = kNoVertex; ///< a vertex that makes the loop non-simple
};

/// The loops that `edges` (a mesh's boundary edges, boundaryEdges) form.
std::vector<BoundaryLoop> findBoundaryLoops(const std::vector<Edge>& edges, std::size_t nVertices);

/// Caps holes of one mesh one at a time, never adding an edge twice; the caps are added
/// to the mesh at the end (addCapsTo), so that the edge table stays that of the mesh.
class HoleCapper {
public:
    HoleCapper(const sph::TriangleMesh& mesh, const EdgeTable& table) : mesh_(mesh), table_(table) {}
    /// Triangulates a simple loop; false, with `why`, when it cannot be.
    bool cap(const BoundaryLoop& loop, std::string& why);
    void addCapsTo(sph::TriangleMesh& mesh) const;

private:
    const sph::TriangleMesh& mesh_;
    const EdgeTable& table_;
    std::unordered_set<std::uint64_t> added_;
    std::vector<std::array<std::uint32_t, 3>> caps_;
};

/// Closes every hole (boundary loop) of the mesh with triangles wound consistently with
/// the surrounding surface (ear clipping in the loop's best-fit plane, best-shaped ear
/// first), e.g. the valve-plane openings of a ventricle mesh. Returns how many holes it
/// closed (0 for a closed mesh). The mesh is left unchanged and std::runtime_error is
/// thrown, naming the hole's size and position, when a hole is wider than
/// `maxHoleDiameter` (largest distance between two of its vertices), when the boundary
/// is not a set of simple loops (a vertex shared by two holes, inconsistent winding), or
/// when a loop cannot be triangulated (self-intersecting in its plane, or every ear would
/// duplicate an existing edge). Throws std::invalid_argument when maxHoleDiameter is not
/// positive.
std::size_t capHoles(sph::TriangleMesh& mesh, double maxHoleDiameter);

/// The holes of an open mesh: each boundary loop's vertices, in the direction the
/// mesh's triangles run its edges (empty for a closed mesh). Throws std::runtime_error
/// naming the hole when the boundary is not a set of simple loops (as capHoles).
std::vector<std::vector<std::uint32_t>> boundaryLoops(const sph::TriangleMesh& mesh);

} // namespace atrium::heart
