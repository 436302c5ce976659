#pragma once
// Conversion between VTK polygonal data and the solver's sph::TriangleMesh, and the
// mesh statistics the heart pipeline and its tests use (boundary and non-manifold
// edges, orientation consistency, minimum angles, connected components).
//
// Units are whatever the mesh carries; in sim/heart that is millimetres.

#include "sim/heart/MeshEdges.h"
#include "sim/sph/TriangleMesh.h"

#include <vtkSmartPointer.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

class vtkPolyData;

namespace atrium::heart {

/// Triangles of `polyData`: triangles are kept as they are, polygons are triangulated
/// (ear cut, winding kept), triangle strips are decomposed. Vertices, lines and cells
/// that cannot be triangulated are dropped; their number goes to `droppedCells`. A cell
/// that uses a point id out of range throws std::runtime_error naming it.
/// Every point becomes a vertex with the same index (point ids are kept, also for points
/// no triangle uses), so a series of meshes with fixed topology keeps its correspondence.
/// Throws std::invalid_argument for a null input, std::runtime_error for a non-finite
/// point or more than 2^32-1 points.
sph::TriangleMesh toTriangleMesh(vtkPolyData* polyData, std::size_t* droppedCells = nullptr);

/// vtkPolyData with float points (same order) and one triangle cell per triangle.
vtkSmartPointer<vtkPolyData> toPolyData(const sph::TriangleMesh& mesh);

/// Edges used by more than two triangles.
std::size_t nonManifoldEdgeCount(const sph::TriangleMesh& mesh);
/// Edges used by exactly two triangles that both run it in the same direction
/// (inconsistent winding; 0 for an oriented surface).
std::size_t inconsistentlyOrientedEdgeCount(const sph::TriangleMesh& mesh);

/// Statistics of each triangle's smallest interior angle, in degrees: the minimum over
/// the mesh, its 1st percentile and its mean. A degenerate triangle counts as 0 degrees.
/// All zero for a mesh without triangles.
struct AngleStats {
    double minDeg = 0.0, p01Deg = 0.0, meanDeg = 0.0;
};
AngleStats minimumAngles(const sph::TriangleMesh& mesh);

/// Connected components of the triangles (two triangles are connected when they share
/// a vertex), numbered in order of their first triangle.
struct Components {
    std::size_t count = 0;
    std::vector<std::uint32_t> triangleComponent;  ///< component of each triangle
    std::vector<std::size_t> trianglesPerComponent;
};
Components connectedComponents(const sph::TriangleMesh& mesh);

/// Removes the vertices no triangle uses, keeping the order of the others, and renumbers
/// the triangles. Returns the map old index -> new index (UINT32_MAX for removed ones).
std::vector<std::uint32_t> compactVertices(sph::TriangleMesh& mesh);

} // namespace atrium::heart
