#include "sim/heart/SurfaceExtraction.h"

#include "sim/heart/DoubleVector.h"
#include "sim/heart/HoleCapping.h"
#include "sim/heart/MeshConversion.h"
#include "sim/heart/VolumeSeries.h"

#include <vtkAlgorithm.h>
#include <vtkCallbackCommand.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkDataArray.h>
#include <vtkDecimatePro.h>
#include <vtkFloatArray.h>
#include <vtkFlyingEdges3D.h>
#include <vtkWindowedSincPolyDataFilter.h>
#include <vtkImageData.h>
#include <vtkMatrix3x3.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPolyData.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <memory>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

namespace atrium::heart {

namespace {

using namespace surface;

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();
constexpr double kPi = 3.14159265358979323846;
using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}


// ---------------------------------------------------------------------------------------
// Progress reporting from VTK filters, with exceptions from the callback carried across.

struct StageProgress {
    const std::function<void(double)>* callback = nullptr;
    double lo = 0.0, hi = 1.0;
    std::exception_ptr error;
    vtkAlgorithm* algorithm = nullptr;
};

void onVtkProgress(vtkObject*, unsigned long, void* clientData, void* callData) {
    auto* stage = static_cast<StageProgress*>(clientData);
    if (stage->error || stage->callback == nullptr || !*stage->callback) return;
    const double f = callData != nullptr ? *static_cast<const double*>(callData) : 0.0;
    try {
        (*stage->callback)(stage->lo + (stage->hi - stage->lo) * std::clamp(f, 0.0, 1.0));
    } catch (...) {
        stage->error = std::current_exception();
        stage->algorithm->SetAbortExecute(1);
    }
}

void updateWithProgress(vtkAlgorithm* algorithm, const std::function<void(double)>& progress, double lo,
                        double hi) {
    StageProgress stage{&progress, lo, hi, nullptr, algorithm};
    vtkNew<vtkCallbackCommand> command;
    command->SetCallback(onVtkProgress);
    command->SetClientData(&stage);
    unsigned long tag = 0;
    if (progress) tag = algorithm->AddObserver(vtkCommand::ProgressEvent, command);
    algorithm->Update();
    if (progress) algorithm->RemoveObserver(tag);
    if (stage.error) std::rethrow_exception(stage.error);
}

// ---------------------------------------------------------------------------------------
// Voxels exactly at the isovalue.

/// Whether some value equals `iso`, and the largest value below it (-inf when none).
template <class T>
void scanIsovalue(const T* values, vtkIdType n, double iso, bool* equal, double* below) {
    bool eq = false;
    double lower = -std::numeric_limits<double>::infinity();
    for (vtkIdType i = 0; i < n; ++i) {
        const double v = double(values[i]);
        if (v == iso) eq = true;
        else if (v < iso && v > lower) lower = v;
    }
    *equal = eq;
    *below = lower;
}

/// The isovalue to give the isosurface filter. A voxel exactly at the isovalue puts
/// surface points exactly on it, and every edge from it then yields the same point:
/// zero-area triangles (common with integer CT values and an integer isovalue). Such
/// voxels count as inside (value >= isovalue); extracting halfway between the isovalue
/// and the next lower value present classifies every voxel the same way and keeps all
/// points off the voxels.
double effectiveIsovalue(vtkDataArray* scalars, double iso) {
    bool equal = false;
    double below = -std::numeric_limits<double>::infinity();
    const vtkIdType n = scalars->GetNumberOfTuples();
    switch (scalars->GetDataType()) {
        vtkTemplateMacro(scanIsovalue(static_cast<const VTK_TT*>(scalars->GetVoidPointer(0)), n, iso, &equal, &below));
    default:
        for (vtkIdType i = 0; i < n; ++i) {
            const double v = scalars->GetComponent(i, 0);
            if (v == iso) equal = true;
            else if (v < iso && v > below) below = v;
        }
    }
    if (!equal || !std::isfinite(below)) return iso;
    const double middle = 0.5 * (iso + below);
    return (middle > below && middle < iso) ? middle : iso;
}

// ---------------------------------------------------------------------------------------
// Trilinear sampling of an image with identity direction (world = origin + index * spacing).

class ImageSampler {
public:
    explicit ImageSampler(vtkImageData* image) : scalars_(image->GetPointData()->GetScalars()) {
        image->GetExtent(extent_);
        image->GetOrigin(origin_);
        image->GetSpacing(spacing_);
        for (int a = 0; a < 3; ++a) dims_[a] = extent_[2 * a + 1] - extent_[2 * a] + 1;
    }

    double at(D3 p) const {
        int i0[3], i1[3];
        double t[3];
        for (int a = 0; a < 3; ++a) {
            const double lo = extent_[2 * a], hi = extent_[2 * a + 1];
            const double c = std::clamp((p[a] - origin_[a]) / spacing_[a], lo, hi);
            i0[a] = std::min(int(std::floor(c)), extent_[2 * a + 1]);
            i1[a] = std::min(i0[a] + 1, extent_[2 * a + 1]);
            t[a] = c - i0[a];
        }
        double value = 0.0;
        for (int corner = 0; corner < 8; ++corner) {
            double w = 1.0;
            int idx[3];
            for (int a = 0; a < 3; ++a) {
                const bool upper = ((corner >> a) & 1) != 0;
                idx[a] = upper ? i1[a] : i0[a];
                w *= upper ? t[a] : 1.0 - t[a];
            }
            if (w == 0.0) continue;
            const vtkIdType id = vtkIdType(idx[0] - extent_[0]) +
                                 vtkIdType(dims_[0]) * (vtkIdType(idx[1] - extent_[2]) +
                                                        vtkIdType(dims_[1]) * vtkIdType(idx[2] - extent_[4]));
            value += w * scalars_->GetComponent(id, 0);
        }
        return value;
    }

    double minSpacing() const {
        return std::min({std::abs(spacing_[0]), std::abs(spacing_[1]), std::abs(spacing_[2])});
    }

private:
    vtkDataArray* scalars_;
    int extent_[6];
    int dims_[3];
    double origin_[3];
    double spacing_[3];
};

/// Positive when the triangles of `surface` face towards lower intensity (out of the
/// bright region), negative when they face the other way. Marching-cubes style output is
/// consistently wound, so a vote over a sample of triangles decides for all of them.
double orientationVote(vtkPolyData* surface, const ImageSampler& sampler) {
    vtkCellArray* polys = surface->GetPolys();
    const vtkIdType nCells = polys->GetNumberOfCells();
    if (nCells == 0) return 0.0;
    const vtkIdType stride = std::max<vtkIdType>(1, nCells / 4096);
    const double h = 0.5 * sampler.minSpacing();
    double vote = 0.0;
    for (vtkIdType c = 0; c < nCells; c += stride) {
        vtkIdType n = 0;
        const vtkIdType* ids = nullptr;
        polys->GetCellAtId(c, n, ids);
        if (n != 3) continue;
        double p[3][3];
        for (int k = 0; k < 3; ++k) surface->GetPoint(ids[k], p[k]);
        const D3 a{p[0][0], p[0][1], p[0][2]}, b{p[1][0], p[1][1], p[1][2]}, d{p[2][0], p[2][1], p[2][2]};
        const D3 normal = cross(b - a, d - a);
        const double len = norm(normal);
        if (!(len > 0.0)) continue;
        const D3 centre = (1.0 / 3.0) * (a + b + d);
        const D3 step = (h / len) * normal;
        const double outside = sampler.at(centre + step), inside = sampler.at(centre - step);
        if (inside > outside) vote += 1.0;
        else if (inside < outside) vote -= 1.0;
    }
    return vote;
}

// ---------------------------------------------------------------------------------------
// Faces of the volume, in the image's unrotated frame.

class VolumeFaces {
public:
    explicit VolumeFaces(vtkImageData* image) {
        double bounds[6];
        image->GetBounds(bounds);
        double spacing[3];
        image->GetSpacing(spacing);
        for (int a = 0; a < 3; ++a) {
            lo_[a] = bounds[2 * a];
            hi_[a] = bounds[2 * a + 1];
            const double magnitude = std::max(std::abs(lo_[a]), std::abs(hi_[a]));
            tol_[a] = 1e-4 * std::abs(spacing[a]) + 8.0 * double(std::numeric_limits<float>::epsilon()) * magnitude;
        }
    }
    /// Bit 2a: on the low face of axis a; bit 2a+1: on the high face.
    unsigned faceMask(const sph::Vec3& p) const {
        unsigned mask = 0;
        for (int a = 0; a < 3; ++a) {
            if (std::abs(double(p[a]) - lo_[a]) <= tol_[a]) mask |= 1u << (2 * a);
            if (std::abs(double(p[a]) - hi_[a]) <= tol_[a]) mask |= 1u << (2 * a + 1);
        }
        return mask;
    }
    bool edgeOnFace(const sph::TriangleMesh& mesh, const Edge& e) const {
        return (faceMask(mesh.vertices[e[0]]) & faceMask(mesh.vertices[e[1]])) != 0;
    }

private:
    double lo_[3], hi_[3], tol_[3];
};

// ---------------------------------------------------------------------------------------
// Decimation clean-up.

/// vtkDecimatePro (even with PreserveTopology on) occasionally closes a thin spot into a
/// pair of coincident triangles with opposite winding: a zero-volume fin whose shared
/// edges become non-manifold. Removes such pairs, and exact duplicates of a triangle
/// (same vertices, same winding) beyond the first. Returns the triangles removed.
std::size_t removeDuplicateTriangles(sph::TriangleMesh& mesh) {
    const std::size_t nt = mesh.triangles.size();
    // Sort triangle indices by their sorted vertex triple: duplicates become neighbours.
    std::vector<std::array<std::uint32_t, 3>> keys(nt);
    for (std::size_t t = 0; t < nt; ++t) {
        keys[t] = mesh.triangles[t];
        std::sort(keys[t].begin(), keys[t].end());
    }
    std::vector<std::uint32_t> order(nt);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(),
              [&keys](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b] || (keys[a] == keys[b] && a < b); });
    // Winding of a triangle relative to its sorted triple: +1 when it is an even rotation.
    auto parity = [&](std::uint32_t t) {
        const auto& tri = mesh.triangles[t];
        const auto& k = keys[t];
        for (int r = 0; r < 3; ++r)
            if (tri[r] == k[0] && tri[(r + 1) % 3] == k[1]) return 1;
        return -1;
    };
    std::vector<std::uint8_t> drop(nt, 0);
    std::size_t dropped = 0;
    for (std::size_t i = 0; i < nt;) {
        std::size_t j = i + 1;
        while (j < nt && keys[order[j]] == keys[order[i]]) ++j;
        if (j - i > 1) {
            std::vector<std::uint32_t> positive, negative;
            for (std::size_t k = i; k < j; ++k) (parity(order[k]) > 0 ? positive : negative).push_back(order[k]);
            // Opposite pairs cancel; of what is left (all one winding) one triangle stays.
            const std::size_t pairs = std::min(positive.size(), negative.size());
            std::vector<std::uint32_t> doomed(positive.begin(), positive.begin() + std::ptrdiff_t(pairs));
            doomed.insert(doomed.end(), negative.begin(), negative.begin() + std::ptrdiff_t(pairs));
            const auto& rest = positive.size() > pairs ? positive : negative;
            for (std::size_t k = pairs + 1; k < rest.size(); ++k) doomed.push_back(rest[k]);
            for (std::uint32_t t : doomed) drop[t] = 1;
            dropped += doomed.size();
        }
        i = j;
    }
    if (dropped > 0) {
        std::size_t out = 0;
        for (std::size_t t = 0; t < nt; ++t)
            if (drop[t] == 0) mesh.triangles[out++] = mesh.triangles[t];
        mesh.triangles.resize(out);
    }
    return dropped;
}

// ---------------------------------------------------------------------------------------
// Box-bounded noise removal helpers.

/// Whether the closed triangle (v0, v1, v2) meets the open box of half edge h centred at
/// the origin (separating axis test with strict overlap: touching does not count).
bool triangleMeetsOpenBox(D3 v0, D3 v1, D3 v2, double h) {
    for (int a = 0; a < 3; ++a) {
        const double mn = std::min({v0[a], v1[a], v2[a]}), mx = std::max({v0[a], v1[a], v2[a]});
        if (mn >= h || mx <= -h) return false;
    }
    const D3 e[3] = {v1 - v0, v2 - v1, v0 - v2};
    const D3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    auto separated = [&](D3 l) {
        if (l.x == 0.0 && l.y == 0.0 && l.z == 0.0) return false;
        const double p0 = dot(l, v0), p1 = dot(l, v1), p2 = dot(l, v2);
        const double r = h * (std::abs(l.x) + std::abs(l.y) + std::abs(l.z));
        return std::min({p0, p1, p2}) >= r || std::max({p0, p1, p2}) <= -r;
    };
    for (const D3& edge : e)
        for (const D3& axis : axes)
            if (separated(cross(axis, edge))) return false;
    return !separated(cross(e[0], e[1]));
}

/// Uniform grid of triangle bounding boxes (compressed rows), for box queries.
class TriangleGrid {
public:
    TriangleGrid(const sph::TriangleMesh& mesh, double minCell) {
        const sph::Aabb b = mesh.bounds();
        lo_ = toD3(b.lo);
        const D3 extent = toD3(b.hi) - lo_;
        // At most ~max(4096, 2 * triangles) cells, never smaller than minCell.
        const double maxCells = std::max(4096.0, 2.0 * double(mesh.triangles.size()));
        const double volume = std::max(extent.x, minCell) * std::max(extent.y, minCell) * std::max(extent.z, minCell);
        cell_ = std::max(minCell, std::cbrt(volume / maxCells));
        for (int a = 0; a < 3; ++a) dims_[a] = std::max(1, int(std::floor(extent[a] / cell_)) + 1);
        const std::size_t nCells = std::size_t(dims_[0]) * std::size_t(dims_[1]) * std::size_t(dims_[2]);
        start_.assign(nCells + 1, 0);
        auto forCells = [&](const std::array<std::uint32_t, 3>& t, auto&& f) {
            int c0[3], c1[3];
            for (int a = 0; a < 3; ++a) {
                const double mn = std::min({double(mesh.vertices[t[0]][a]), double(mesh.vertices[t[1]][a]),
                                            double(mesh.vertices[t[2]][a])});
                const double mx = std::max({double(mesh.vertices[t[0]][a]), double(mesh.vertices[t[1]][a]),
                                            double(mesh.vertices[t[2]][a])});
                c0[a] = cellOf(mn, a);
                c1[a] = cellOf(mx, a);
            }
            for (int z = c0[2]; z <= c1[2]; ++z)
                for (int y = c0[1]; y <= c1[1]; ++y)
                    for (int x = c0[0]; x <= c1[0]; ++x) f(index(x, y, z));
        };
        for (const auto& t : mesh.triangles) forCells(t, [&](std::size_t c) { ++start_[c + 1]; });
        for (std::size_t c = 0; c < nCells; ++c) start_[c + 1] += start_[c];
        items_.resize(start_[nCells]);
        std::vector<std::size_t> fill(start_.begin(), start_.end() - 1);
        for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
            forCells(mesh.triangles[t], [&](std::size_t c) { items_[fill[c]++] = std::uint32_t(t); });
    }

    /// Calls f(triangle) for every triangle in the cells overlapping [lo, hi]
    /// (a triangle may be reported more than once).
    template <class F>
    void query(D3 lo, D3 hi, F&& f) const {
        int c0[3], c1[3];
        for (int a = 0; a < 3; ++a) {
            c0[a] = cellOf(lo[a], a);
            c1[a] = cellOf(hi[a], a);
        }
        for (int z = c0[2]; z <= c1[2]; ++z)
            for (int y = c0[1]; y <= c1[1]; ++y)
                for (int x = c0[0]; x <= c1[0]; ++x) {
                    const std::size_t c = index(x, y, z);
                    for (std::size_t k = start_[c]; k < start_[c + 1]; ++k) f(items_[k]);
                }
    }

private:
    int cellOf(double x, int a) const {
        const double c = std::floor((x - lo_[a]) / cell_);
        return int(std::clamp(c, 0.0, double(dims_[a] - 1)));
    }
    std::size_t index(int x, int y, int z) const {
        return std::size_t(x) + std::size_t(dims_[0]) * (std::size_t(y) + std::size_t(dims_[1]) * std::size_t(z));
    }

    D3 lo_;
    double cell_ = 1.0;
    int dims_[3] = {1, 1, 1};
    std::vector<std::size_t> start_;
    std::vector<std::uint32_t> items_;
};

} // namespace

// =======================================================================================

std::size_t removeNoise(sph::TriangleMesh& mesh, double boxSize, std::size_t* structures,
                        const std::function<void(double)>& progress, NoiseSearch search) {
    if (!(boxSize > 0.0) || !std::isfinite(boxSize))
        throw std::invalid_argument("removeNoise: the box size must be positive and finite, got " +
                                    std::to_string(boxSize));
    if (structures != nullptr) *structures = 0;
    const EdgeTable table = buildEdgeTable(mesh);  // also validates the indices
    const std::size_t nt = mesh.triangles.size(), nv = mesh.vertices.size();
    if (nt == 0) return 0;
    const double half = 0.5 * boxSize;

    // Edge-connected pieces and their bounds: the structures counted as removed, and the
    // pruning of NoiseSearch::PrunedByPiece (see the header for why it is exact).
    std::vector<std::uint32_t> piece(nt);
    std::iota(piece.begin(), piece.end(), 0u);
    auto findPiece = [&piece](std::uint32_t t) {
        while (piece[t] != t) {
            piece[t] = piece[piece[t]];
            t = piece[t];
        }
        return t;
    };
    for (const auto& e : table.edges)
        for (std::uint32_t k = 1; k < e.useCount; ++k) {
            const std::uint32_t r0 = findPiece(table.useTriangle[e.firstUse]);
            const std::uint32_t r1 = findPiece(table.useTriangle[e.firstUse + k]);
            if (r0 != r1) piece[r1] = r0;
        }
    std::vector<D3> pieceLo(nt), pieceHi(nt);
    std::vector<std::uint8_t> pieceSeen(nt, 0);
    for (std::uint32_t t = 0; t < nt; ++t) {
        const std::uint32_t r = findPiece(t);
        for (std::uint32_t vi : mesh.triangles[t]) {
            const D3 p = toD3(mesh.vertices[vi]);
            if (pieceSeen[r] == 0) {
                pieceLo[r] = pieceHi[r] = p;
                pieceSeen[r] = 1;
            }
            pieceLo[r] = {std::min(pieceLo[r].x, p.x), std::min(pieceLo[r].y, p.y), std::min(pieceLo[r].z, p.z)};
            pieceHi[r] = {std::max(pieceHi[r].x, p.x), std::max(pieceHi[r].y, p.y), std::max(pieceHi[r].z, p.z)};
        }
    }
    std::vector<std::uint32_t> firstTriangle(nv, kNone);
    for (std::uint32_t t = 0; t < nt; ++t)
        for (std::uint32_t vi : mesh.triangles[t])
            if (firstTriangle[vi] == kNone) firstTriangle[vi] = t;

    std::unique_ptr<TriangleGrid> grid;  // built when a vertex passes the pruning
    std::vector<std::uint8_t> removed(nt, 0), visited(nv, 0);
    std::vector<std::uint32_t> seenStamp(nt, 0), inSetStamp(nt, 0);
    std::uint32_t stamp = 0;
    std::vector<std::uint32_t> set;
    std::size_t removedTriangles = 0, removedPieces = 0;

    for (std::size_t vi = 0; vi < nv; ++vi) {
        if (progress && (vi & 0xffff) == 0) progress(double(vi) / double(nv));
        if (visited[vi] != 0 || firstTriangle[vi] == kNone) continue;
        visited[vi] = 1;
        if (removed[firstTriangle[vi]] != 0) continue;
        const D3 centre = toD3(mesh.vertices[vi]);
        if (search == NoiseSearch::PrunedByPiece) {
            const std::uint32_t root = findPiece(firstTriangle[vi]);
            bool fits = true;
            for (int a = 0; a < 3; ++a)
                fits = fits && pieceLo[root][a] - centre[a] >= -half && pieceHi[root][a] - centre[a] <= half;
            if (!fits) continue;
        }

        if (!grid) grid = std::make_unique<TriangleGrid>(mesh, boxSize);
        ++stamp;
        set.clear();
        bool condition1 = true;
        grid->query(centre - D3{half, half, half}, centre + D3{half, half, half}, [&](std::uint32_t t) {
            if (!condition1 || removed[t] != 0 || seenStamp[t] == stamp) return;
            seenStamp[t] = stamp;
            const auto& tri = mesh.triangles[t];
            const D3 a = toD3(mesh.vertices[tri[0]]) - centre, b = toD3(mesh.vertices[tri[1]]) - centre,
                     c = toD3(mesh.vertices[tri[2]]) - centre;
            if (!triangleMeetsOpenBox(a, b, c, half)) return;
            for (const D3& q : {a, b, c})
                if (std::abs(q.x) > half || std::abs(q.y) > half || std::abs(q.z) > half) condition1 = false;
            if (condition1) {
                set.push_back(t);
                inSetStamp[t] = stamp;
            }
        });
        if (!condition1 || set.empty()) continue;
        bool condition2 = true;
        for (std::uint32_t t : set) {
            for (std::uint32_t e : table.triangleEdges[t]) {
                if (e == kNone) continue;
                const EdgeTable::Entry& edge = table.edges[e];
                for (std::uint32_t k = 0; k < edge.useCount; ++k) {
                    const std::uint32_t other = table.useTriangle[edge.firstUse + k];
                    if (removed[other] == 0 && inSetStamp[other] != stamp) condition2 = false;
                }
            }
            if (!condition2) break;
        }
        if (!condition2) continue;
        std::vector<std::uint32_t> roots;
        for (std::uint32_t t : set) {
            removed[t] = 1;
            for (std::uint32_t v : mesh.triangles[t]) visited[v] = 1;
            roots.push_back(findPiece(t));
        }
        std::sort(roots.begin(), roots.end());
        removedPieces += std::size_t(std::unique(roots.begin(), roots.end()) - roots.begin());
        removedTriangles += set.size();
    }

    if (removedTriangles > 0) {
        std::size_t out = 0;
        for (std::size_t t = 0; t < nt; ++t)
            if (removed[t] == 0) mesh.triangles[out++] = mesh.triangles[t];
        mesh.triangles.resize(out);
        compactVertices(mesh);
    }
    if (progress) progress(1.0);
    if (structures != nullptr) *structures = removedPieces;
    return removedTriangles;
}


sph::TriangleMesh extractSurface(vtkImageData* volume, const ExtractionSettings& settings, ExtractionReport* report,
                                 std::function<void(double)> progress) {
    // ---- validation
    if (volume == nullptr) throw std::invalid_argument("extractSurface: the volume is null");
    if (!std::isfinite(settings.isovalue))
        throw std::invalid_argument("extractSurface: the isovalue is not finite");
    if (settings.smoothingIterations < 0 || settings.smoothingIterations > 1000)
        throw std::invalid_argument("extractSurface: smoothingIterations must be in [0, 1000], got " +
                                    std::to_string(settings.smoothingIterations));
    if (!(settings.smoothingPassBand > 0.0 && settings.smoothingPassBand < 2.0))
        throw std::invalid_argument("extractSurface: smoothingPassBand must be in (0, 2), got " +
                                    std::to_string(settings.smoothingPassBand));
    if (!(settings.decimation >= 0.0 && settings.decimation < 1.0))
        throw std::invalid_argument("extractSurface: decimation must be in [0, 1), got " +
                                    std::to_string(settings.decimation));
    if (!(settings.featureAngleDeg > 0.0 && settings.featureAngleDeg <= 180.0))
        throw std::invalid_argument("extractSurface: the feature angle must be in (0, 180] degrees, got " +
                                    std::to_string(settings.featureAngleDeg));
    if (!(settings.noiseBoxMm >= 0.0) || !std::isfinite(settings.noiseBoxMm))
        throw std::invalid_argument("extractSurface: the noise box must be 0 (off) or a positive size, got " +
                                    std::to_string(settings.noiseBoxMm));
    int dims[3];
    volume->GetDimensions(dims);
    if (dims[0] < 2 || dims[1] < 2 || dims[2] < 2)
        throw std::invalid_argument("extractSurface: the volume must have at least 2 samples along each axis, got " +
                                    std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + " x " +
                                    std::to_string(dims[2]));
    vtkDataArray* scalars = volume->GetPointData() != nullptr ? volume->GetPointData()->GetScalars() : nullptr;
    if (scalars == nullptr) throw std::invalid_argument("extractSurface: the volume has no point scalars");
    if (scalars->GetNumberOfComponents() != 1)
        throw std::invalid_argument("extractSurface: the volume's scalars have " +
                                    std::to_string(scalars->GetNumberOfComponents()) +
                                    " components; one intensity per voxel is needed");
    if (scalars->GetNumberOfTuples() != vtkIdType(dims[0]) * dims[1] * dims[2])
        throw std::invalid_argument("extractSurface: the volume has " + std::to_string(scalars->GetNumberOfTuples()) +
                                    " values for " + std::to_string(dims[0]) + " x " + std::to_string(dims[1]) + " x " +
                                    std::to_string(dims[2]) + " samples");
    double spacing[3];
    volume->GetSpacing(spacing);
    for (double s : spacing)
        if (!(s != 0.0) || !std::isfinite(s))
            throw std::invalid_argument("extractSurface: the volume's spacing must be finite and non-zero");
    double range[2];
    scalars->GetRange(range, 0);
    if (!(double(settings.isovalue) > range[0] && double(settings.isovalue) < range[1])) {
        std::ostringstream s;
        s << "extractSurface: the isovalue " << settings.isovalue << " lies outside the volume's intensity range ["
          << range[0] << ", " << range[1] << "]: there is no surface to extract";
        throw std::runtime_error(s.str());
    }
    // Direction matrix: extract in the unrotated frame, rotate at the end.
    double direction[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    bool rotated = false;
    if (vtkMatrix3x3* m = volume->GetDirectionMatrix()) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                direction[3 * r + c] = m->GetElement(r, c);
                if (direction[3 * r + c] != (r == c ? 1.0 : 0.0)) rotated = true;
            }
    }
    if (rotated) {
        for (int r = 0; r < 3; ++r)
            for (int c = 0; c < 3; ++c) {
                double d = 0.0;
                for (int k = 0; k < 3; ++k) d += direction[3 * k + r] * direction[3 * k + c];
                if (std::abs(d - (r == c ? 1.0 : 0.0)) > 1e-6)
                    throw std::invalid_argument("extractSurface: the volume's direction matrix is not orthonormal");
            }
    }
    vtkNew<vtkImageData> image;
    image->ShallowCopy(volume);
    image->SetDirectionMatrix(1, 0, 0, 0, 1, 0, 0, 0, 1);

    ExtractionReport local;
    ExtractionReport& rep = report != nullptr ? *report : local;
    rep = ExtractionReport{};
    if (progress) progress(0.0);

    // ---- isosurface (3.1)
    auto t0 = Clock::now();
    vtkNew<vtkFlyingEdges3D> iso;
    iso->SetInputData(image);
    rep.isovalueUsed = effectiveIsovalue(scalars, double(settings.isovalue));
    iso->SetValue(0, rep.isovalueUsed);
    iso->ComputeNormalsOff();
    iso->ComputeGradientsOff();
    iso->ComputeScalarsOff();
    iso->InterpolateAttributesOff();
    updateWithProgress(iso, progress, 0.0, 0.35);
    vtkPolyData* surface = iso->GetOutput();
    rep.trianglesExtracted = std::size_t(surface->GetNumberOfPolys());
    if (rep.trianglesExtracted == 0)
        throw std::runtime_error("extractSurface: the isosurface at " + std::to_string(settings.isovalue) +
                                 " has no triangles");
    const bool flip = orientationVote(surface, ImageSampler(image)) < 0.0;
    rep.msIsosurface = msSince(t0);

    // ---- smoothing (not in the dissertation: see ExtractionSettings)
    t0 = Clock::now();
    vtkNew<vtkWindowedSincPolyDataFilter> smooth; // owns `surface` from here when used
    if (settings.smoothingIterations > 0) {
        smooth->SetInputData(surface);
        smooth->SetNumberOfIterations(settings.smoothingIterations);
        smooth->SetPassBand(settings.smoothingPassBand);
        smooth->NormalizeCoordinatesOn(); // numerically stable for any extent
        smooth->BoundarySmoothingOff();   // openings at the volume's faces stay put
        smooth->FeatureEdgeSmoothingOff();
        smooth->NonManifoldSmoothingOn();
        updateWithProgress(smooth, progress, 0.35, 0.45);
        vtkPolyData* smoothed = smooth->GetOutput();
        // Vertices on the volume's faces stay exactly where the isosurface put them: the
        // openings there are recognised by position (VolumeFaces) and must not be capped.
        const VolumeFaces faces(image);
        vtkPoints* before = surface->GetPoints();
        vtkPoints* after = smoothed->GetPoints();
        for (vtkIdType i = 0; i < before->GetNumberOfPoints(); ++i) {
            double x[3];
            before->GetPoint(i, x);
            if (faces.faceMask(sph::Vec3{float(x[0]), float(x[1]), float(x[2])}) == 0) continue;
            after->SetPoint(i, x);
        }
        surface = smoothed;
    }
    rep.msSmoothing = msSince(t0);

    // ---- decimation (3.2)
    t0 = Clock::now();
    sph::TriangleMesh mesh;
    if (settings.decimation > 0.0) {
        vtkNew<vtkDecimatePro> decimate;
        decimate->SetInputData(surface);
        decimate->SetTargetReduction(settings.decimation);
        decimate->PreserveTopologyOn();
        decimate->SplittingOff();
        decimate->BoundaryVertexDeletionOff();
        decimate->PreSplitMeshOff();
        decimate->SetFeatureAngle(settings.featureAngleDeg);
        updateWithProgress(decimate, progress, 0.45, 0.85);
        mesh = toTriangleMesh(decimate->GetOutput());
    } else {
        mesh = toTriangleMesh(surface);
    }
    rep.duplicateTrianglesRemoved = removeDuplicateTriangles(mesh);
    compactVertices(mesh);
    if (flip)
        for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
    rep.trianglesAfterDecimation = mesh.triangles.size();
    rep.msDecimation = msSince(t0);
    if (progress) progress(0.85);

    // ---- noise removal (3.3)
    t0 = Clock::now();
    if (settings.noiseBoxMm > 0.0) {
        const std::function<void(double)> stage = [&progress](double f) {
            if (progress) progress(0.85 + 0.12 * f);
        };
        rep.trianglesRemovedAsNoise = removeNoise(mesh, settings.noiseBoxMm, &rep.structuresRemovedAsNoise, stage);
    }
    rep.msNoiseRemoval = msSince(t0);

    // ---- boundary edges and hole capping
    t0 = Clock::now();
    const VolumeFaces faces(image);
    {
        const EdgeTable table = buildEdgeTable(mesh);
        const std::vector<Edge> edges = boundaryEdges(table);
        if (settings.capHoles && !edges.empty()) {
            HoleCapper capper(mesh, table);
            for (const BoundaryLoop& loop : findBoundaryLoops(edges, mesh.vertices.size())) {
                const bool onFaces = std::all_of(loop.edges.begin(), loop.edges.end(),
                                                 [&](std::size_t e) { return faces.edgeOnFace(mesh, edges[e]); });
                if (onFaces) continue;
                std::string why;
                if (loop.simple && capper.cap(loop, why)) ++rep.holesCapped;
                else ++rep.holesLeftOpen;
            }
            capper.addCapsTo(mesh);
        }
    }
    const EdgeTable finalTable = buildEdgeTable(mesh);
    const std::vector<Edge> finalEdges = boundaryEdges(finalTable);
    rep.nonManifoldEdges = std::size_t(std::count_if(finalTable.edges.begin(), finalTable.edges.end(),
                                                     [](const EdgeTable::Entry& e) { return e.useCount > 2; }));
    rep.boundaryEdges = finalEdges.size();
    rep.boundaryEdgesOffVolumeFaces = std::size_t(
        std::count_if(finalEdges.begin(), finalEdges.end(), [&](const Edge& e) { return !faces.edgeOnFace(mesh, e); }));
    rep.msCapping = msSince(t0);

    // ---- back to world coordinates
    if (rotated) {
        double origin[3];
        image->GetOrigin(origin);
        for (sph::Vec3& p : mesh.vertices) {
            const double d[3] = {p.x - origin[0], p.y - origin[1], p.z - origin[2]};
            double w[3];
            for (int r = 0; r < 3; ++r)
                w[r] = origin[r] + direction[3 * r] * d[0] + direction[3 * r + 1] * d[1] + direction[3 * r + 2] * d[2];
            p = {float(w[0]), float(w[1]), float(w[2])};
        }
        const double det = direction[0] * (direction[4] * direction[8] - direction[5] * direction[7]) -
                           direction[1] * (direction[3] * direction[8] - direction[5] * direction[6]) +
                           direction[2] * (direction[3] * direction[7] - direction[4] * direction[6]);
        if (det < 0.0)
            for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
    }
    if (progress) progress(1.0);
    return mesh;
}

sph::TriangleMesh extractSurface(const Volume& volume, const ExtractionSettings& settings, ExtractionReport* report,
                                 std::function<void(double)> progress) {
    if (volume.nx < 2 || volume.ny < 2 || volume.nz < 2)
        throw std::invalid_argument("extractSurface: the volume must have at least 2 samples along each axis, got " +
                                    std::to_string(volume.nx) + " x " + std::to_string(volume.ny) + " x " +
                                    std::to_string(volume.nz));
    if (volume.values.size() != volume.voxelCount())
        throw std::invalid_argument("extractSurface: the volume has " + std::to_string(volume.values.size()) +
                                    " values for " + std::to_string(volume.voxelCount()) + " voxels");
    vtkNew<vtkFloatArray> values;
    values->SetName("intensity");
    values->SetNumberOfTuples(vtkIdType(volume.values.size()));
    std::copy(volume.values.begin(), volume.values.end(), values->GetPointer(0));
    vtkNew<vtkImageData> image;
    image->SetDimensions(volume.nx, volume.ny, volume.nz);
    image->SetOrigin(volume.origin.x, volume.origin.y, volume.origin.z);
    image->SetSpacing(volume.spacing.x, volume.spacing.y, volume.spacing.z);
    image->GetPointData()->SetScalars(values);
    return extractSurface(image, settings, report, std::move(progress));
}

} // namespace atrium::heart
