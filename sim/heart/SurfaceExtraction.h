#pragma once
// Volume -> surface mesh, as in Poyart 2016, sections 3.1-3.3: isosurface
// (vtkFlyingEdges3D), decimation that keeps topology and boundary vertices
// (vtkDecimatePro: PreserveTopology on, Splitting off, BoundaryVertexDeletion off),
// box-bounded noise removal, and capping of holes.
//
// Units are the volume's (millimetres in Atrium). The blood pool is the bright region
// (contrast CT): triangles are wound counter-clockwise seen from the darker side, so
// normals point out of the blood, towards lower intensity, and the enclosed volume of a
// closed blood surface is positive, as sph::TriangleMesh expects.

#include "sim/heart/HoleCapping.h" // capHoles, boundaryLoops
#include "sim/sph/TriangleMesh.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

class vtkImageData;

namespace atrium::heart {

struct Volume;  // sim/heart/VolumeSeries.h

struct ExtractionSettings {
    /// Intensity of the blood/wall interface; must lie strictly inside the volume's range.
    float isovalue = 0.f;
    /// vtkDecimatePro target reduction in [0, 1): the fraction of triangles to remove
    /// (0: no decimation). With topology preserved the reached reduction may be lower.
    double decimation = 0.8;
    /// vtkDecimatePro feature angle (degrees): with splitting off, vertices where surface
    /// normals turn by more than this are kept as corners. VTK's default of 15 degrees
    /// stalls the decimation far short of its target on noisy scans (about 0.43 instead
    /// of 0.8 with voxel noise of 15 % of the blood/wall contrast); 30 reaches it there,
    /// larger angles reach it on noisier scans but leave more non-manifold edges.
    double featureAngleDeg = 30.0;
    /// Windowed-sinc smoothing of the isosurface before decimation (Taubin, Zhang & Golub,
    /// "Optimal surface smoothing as filter design", ECCV 1996; vtkWindowedSincPolyData-
    /// Filter, as in 3D Slicer's model maker). It removes the voxel staircase that leaves
    /// the decimated wall jagged - on the adult phantom at 1 mm, 40 % of the triangles
    /// had a neighbouring face turned by more than 60 degrees - while keeping the volume
    /// (a low-pass filter without shrinkage). 0 iterations: no smoothing.
    int smoothingIterations = 20;
    /// Pass band of that filter in (0, 2): lower smooths more.
    double smoothingPassBand = 0.1;
    /// Edge of the noise-removal box in millimetres (0: no noise removal).
    double noiseBoxMm = 0.0;
    /// Cap holes that do not lie on the faces of the volume (an isosurface has none;
    /// this is a safety net). Openings where the surface leaves the volume are kept.
    bool capHoles = true;
};

struct ExtractionReport {
    /// The isovalue given to the isosurface filter: the requested one, or, when voxels
    /// lie exactly on it, halfway to the next lower intensity present (those voxels count
    /// as inside and no zero-area triangles are made).
    double isovalueUsed = 0.0;
    std::size_t trianglesExtracted = 0;         ///< from the isosurface
    std::size_t trianglesAfterDecimation = 0;   ///< after removing duplicate triangles
    /// Coincident triangle pairs (zero-volume fins) that vtkDecimatePro occasionally
    /// leaves where it closes a thin spot; removed because they make edges non-manifold.
    std::size_t duplicateTrianglesRemoved = 0;
    std::size_t trianglesRemovedAsNoise = 0;
    std::size_t structuresRemovedAsNoise = 0;   ///< edge-connected pieces removed
    std::size_t boundaryEdges = 0;              ///< in the final mesh
    std::size_t boundaryEdgesOffVolumeFaces = 0;///< of those, not on a face of the volume (3.1: 0)
    std::size_t nonManifoldEdges = 0;           ///< in the final mesh (expected 0)
    std::size_t holesCapped = 0;
    std::size_t holesLeftOpen = 0;              ///< off-face holes that could not be capped
    double msIsosurface = 0.0, msSmoothing = 0.0, msDecimation = 0.0, msNoiseRemoval = 0.0, msCapping = 0.0;
};

/// Extracts the surface of the region brighter than `settings.isovalue` from a
/// single-component image. Any vtkImageData origin, spacing, extent and (orthonormal)
/// direction matrix is honoured; vertices are in the image's world coordinates.
/// `progress`, when given, receives a fraction in [0, 1] during the long steps; an
/// exception it throws aborts the extraction and is rethrown.
/// Throws std::invalid_argument for a null/empty/multi-component image or bad settings,
/// std::runtime_error when the isovalue lies outside the intensity range (no surface).
sph::TriangleMesh extractSurface(vtkImageData* volume, const ExtractionSettings& settings,
                                 ExtractionReport* report = nullptr,
                                 std::function<void(double)> progress = {});

/// The same for a Volume (copied into a vtkImageData first).
sph::TriangleMesh extractSurface(const Volume& volume, const ExtractionSettings& settings,
                                 ExtractionReport* report = nullptr,
                                 std::function<void(double)> progress = {});

/// How removeNoise visits vertices. Both give the same result.
enum class NoiseSearch {
    /// Skip a vertex at once when the edge-connected piece of its first triangle does not
    /// fit in the box around it: S contains every triangle at the vertex (the vertex is
    /// inside the open box), condition 2 makes S a union of whole pieces and condition 1
    /// confines them to the box, so such a vertex can never lead to a removal.
    PrunedByPiece,
    /// Evaluate both conditions at every vertex, exactly as the dissertation describes.
    EveryVertex,
};

/// Box-bounded noise removal (3.3). For each vertex not yet visited, S is the set of
/// triangles that meet the open axis-aligned box of edge `boxSize` centred on it; S is
/// removed only if (1) every vertex of every triangle in S lies in the (closed) box and
/// (2) every triangle sharing an edge with a triangle of S is in S. A triangle that only
/// touches the box (an edge or its whole area on a face of the box) is not in S, so
/// condition 2 keeps the structure it belongs to. Removed triangles' vertices are marked
/// visited. Consequences: a structure wider than `boxSize` along some axis is never
/// removed; one narrower than boxSize/2 along every axis is always removed when nothing
/// else meets the box around it; in between it depends on where its vertices lie.
/// Unused vertices are then dropped (vertex order otherwise kept). Returns the number of
/// triangles removed; `structures` receives the number of edge-connected pieces removed.
/// Throws std::invalid_argument when boxSize is not positive and finite.
std::size_t removeNoise(sph::TriangleMesh& mesh, double boxSize, std::size_t* structures = nullptr,
                        const std::function<void(double)>& progress = {},
                        NoiseSearch search = NoiseSearch::PrunedByPiece);

} // namespace atrium::heart
