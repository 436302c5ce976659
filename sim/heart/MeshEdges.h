#pragma once
// The edges of a triangle mesh: each undirected edge once with the triangles that use it,
// and the boundary edges (used by one triangle). Implemented in MeshConversion.cpp;
// this header needs no VTK.

#include "sim/sph/TriangleMesh.h"

#include <array>
#include <cstdint>
#include <vector>

namespace atrium::heart {

using Edge = std::array<std::uint32_t, 2>;

/// Every undirected edge of a mesh once, with the triangles that use it.
struct EdgeTable {
    struct Entry {
        std::uint32_t a, b;        ///< a < b
        std::uint32_t firstUse;    ///< index into `useTriangle` / `useForward`
        std::uint32_t useCount;    ///< triangles using the edge: 1 boundary, 2 interior, >2 non-manifold
    };
    std::vector<Entry> edges;                              ///< sorted by (a, b)
    std::vector<std::uint32_t> useTriangle;                ///< triangle of each use
    std::vector<std::uint8_t> useForward;                  ///< 1 when that triangle runs a -> b
    std::vector<std::array<std::uint32_t, 3>> triangleEdges; ///< edge index of (v0v1, v1v2, v2v0)
};
EdgeTable buildEdgeTable(const sph::TriangleMesh& mesh);

/// Edges used by exactly one triangle (of the mesh, or of an edge table), directed as that
/// triangle runs them.
std::vector<Edge> boundaryEdges(const EdgeTable& table);
std::vector<Edge> boundaryEdges(const sph::TriangleMesh& mesh);

} // namespace atrium::heart
