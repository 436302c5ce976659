#pragma once
// Surface-mesh series: one triangle mesh per cardiac phase, read from files, which skip
// the volume -> surface extraction (sim/heart/SurfaceExtraction.h).
//
// Formats (by extension, case-insensitive): VTK legacy .vtk (POLYDATA or
// UNSTRUCTURED_GRID; the surface of an unstructured grid is taken with
// vtkGeometryFilter), VTK XML .vtp and .vtu, .stl, .obj, .ply. Units are millimetres
// (no conversion is applied). PLY, OBJ, STL and VTK legacy files are read by Atrium's own
// parsers, which check every declared size before allocating (MeshFileReaders.h); VTK
// XML files are checked, then read by VTK in a child process (IsolatedVtkReaders.h).
// VTK's own error and warning output is captured: a VTK XML file on which VTK complains
// but that still yields a triangle mesh is accepted and the messages are kept in the
// report.
//
// Every mesh is cleaned (cleanMesh): points on open edges (seams) closer than a
// tolerance are merged, collapsed and duplicated triangles dropped (and coincident pairs
// of opposite winding, zero-volume fins that make edges non-manifold), unused points
// removed, the winding made consistent and outward (positive enclosed volume, as
// sph::TriangleMesh expects), and holes (e.g. the valve plane of a ventricle mesh) capped. A series whose files all have
// the same point count and identical cells (fixed topology: the phases of one mesh that
// moves) is cleaned once for all phases (every decision is taken on phase 0, points
// merge only where they coincide in every phase), so the cleaned phases still share
// their triangles and MovingHeartMesh interpolates corresponding vertices.

#include "sim/heart/HeartFileError.h" // MeshError
#include "sim/heart/VolumeSeries.h"  // ProgressCallback, resolveSeriesFrames
#include "sim/sph/TriangleMesh.h"

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::heart {

enum class MeshFormat { VtkLegacy, Vtp, Vtu, Stl, Obj, Ply };

/// Format from the extension (.vtk, .vtp, .vtu, .stl, .obj, .ply; case-insensitive).
/// Throws MeshError naming the path for any other extension.
MeshFormat meshFormatFor(const std::filesystem::path& file);
/// The extensions above, lower case with the dot.
const std::vector<std::string>& meshExtensions();

/// How meshes are cleaned after reading.
struct MeshCleaning {
    /// Points on open edges (edges of a single triangle) closer than this (mm) become
    /// one point (0: only identical points merge). Points of a closed surface are never
    /// merged, however close: merging them would pinch the surface.
    double mergeToleranceMm = 1e-3;
    /// Close the holes of an open mesh (capHoles in SurfaceExtraction.h); when false an
    /// open mesh is kept open.
    bool capHoles = true;
    /// Holes wider than this (largest distance between two of their vertices, mm) are
    /// not capped: the mesh is rejected. 120 mm is above the base of an adult heart (the
    /// right-ventricular opening of the biventricular mesh in ../shared is 91 mm wide);
    /// the limit catches meshes that are not a closed surface with a few openings.
    double maxHoleDiameterMm = 120.0;
};

/// What cleanMesh did.
struct MeshCleanReport {
    std::size_t pointsMerged = 0;               ///< points that became another point
    std::size_t degenerateTrianglesRemoved = 0; ///< triangles using a point twice (after merging)
    std::size_t duplicateTrianglesRemoved = 0;  ///< repeated triangles, and coincident pairs of opposite winding (fins)
    std::size_t unusedPointsRemoved = 0;        ///< points that no triangle uses (merged ones not counted)
    std::size_t trianglesReoriented = 0;        ///< triangles flipped to make the winding consistent and outward
    std::size_t holesCapped = 0;
    std::size_t boundaryEdges = 0;              ///< left in the result (0 unless capping is off)
    std::size_t nonManifoldEdges = 0;           ///< in the result (edges of more than two triangles)
};

/// Cleans one mesh in place (see the header comment). Winding: each edge-connected
/// piece is made consistent (breadth-first from its first triangle) and then, when it
/// is closed, outward (positive enclosed volume). Throws std::runtime_error (from
/// capHoles) naming the hole when a hole cannot be capped; the mesh is then unchanged.
MeshCleanReport cleanMesh(sph::TriangleMesh& mesh, const MeshCleaning& cleaning = {});

/// What readMesh found in a file.
struct MeshReadReport {
    std::size_t pointsRead = 0, trianglesRead = 0;
    std::size_t cellsDropped = 0;        ///< vertices, lines and other cells that are not surfaces
    MeshCleanReport cleaning;
    std::vector<std::string> vtkMessages; ///< VTK errors and warnings on a file that still gave a mesh
};

/// Reads one mesh file as it is (point ids kept, no cleaning): triangles, polygons
/// (triangulated) and strips; the surface of an unstructured grid. Throws MeshError
/// naming the file when it is missing, empty (0 bytes), of an unknown extension,
/// unreadable, holds no points ("empty mesh") or no triangles.
sph::TriangleMesh readMeshFile(const std::filesystem::path& file, MeshReadReport* report = nullptr);

/// readMeshFile, then cleanMesh. A hole that cannot be capped throws MeshError naming
/// the file and the reason.
sph::TriangleMesh readMesh(const std::filesystem::path& file, const MeshCleaning& cleaning = {},
                           MeshReadReport* report = nullptr);

/// Writes a mesh; the format follows the extension (.vtk legacy POLYDATA, .vtp, .stl,
/// .obj, .ply; binary where the format has it; .vtu is read only). Creates missing
/// parent directories. Throws MeshError naming the file on failure.
void writeMesh(const sph::TriangleMesh& mesh, const std::filesystem::path& file);

/// Writes phase k to the file named by the printf-style pattern with k (from 0).
/// Returns the files written.
std::vector<std::filesystem::path> writeMeshSeries(const std::vector<sph::TriangleMesh>& phases,
                                                   const std::string& pattern);

struct MeshSeriesOptions {
    double cycleSeconds = 1.0; ///< files carry no heart rate; the caller supplies it
    int expectedPhases = 0;    ///< > 0: the series must have exactly this many phases
    MeshCleaning cleaning;
    ProgressCallback progress; ///< fraction of phases read
};

struct MeshSeries {
    std::vector<sph::TriangleMesh> phases; ///< cleaned, closed unless capping is off
    double cycleSeconds = 1.0;
    std::vector<std::filesystem::path> files;
    /// The files all had the same point count and identical cells, and were cleaned as
    /// one (so the phases share their triangles: vertex correspondence is kept).
    bool fixedTopology = false;
    std::vector<MeshReadReport> reports; ///< one per phase
    std::size_t holesCapped() const;     ///< total over the phases
};

/// The files of a mesh series: a printf-style pattern with one integer field
/// ("dir/lv_%02d.vtk") or a directory (its files of one mesh extension in natural
/// order), as resolveSeriesFrames (VolumeSeries.h) resolves them, or a single mesh file
/// (a series of one phase). expectedCount > 0 enforces the count. Throws MeshError
/// naming the file at fault (missing frame, unknown or mixed extensions, no files).
std::vector<std::filesystem::path> resolveMeshFrames(const std::string& source, int expectedCount = 0);

/// Reads a mesh series (resolveMeshFrames).
/// Throws MeshError naming the file at fault: missing frame, unknown or mixed
/// extensions, empty or unreadable file, empty mesh, no triangles, a hole that cannot
/// be capped (the message says why).
MeshSeries readMeshSeries(const std::string& patternOrDirectory, const MeshSeriesOptions& options = {});

} // namespace atrium::heart
