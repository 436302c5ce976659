#include "sim/heart/MeshSeries.h"
#include "sim/heart/VtkMessageLog.h"

#include "sim/heart/MeshConversion.h"
#include "sim/heart/IsolatedVtkReaders.h"
#include "sim/heart/MeshFileReaders.h"
#include "sim/heart/VtkMessageRouting.h"
#include "io/AtomicFile.h"
#include "sim/heart/SurfaceExtraction.h"

#include <vtkAlgorithm.h>
#include <vtkCellArray.h>
#include <vtkCommand.h>
#include <vtkDataSet.h>
#include <vtkExecutive.h>
#include <vtkCellType.h>
#include <vtkFloatArray.h>
#include <vtkIdTypeArray.h>
#include <vtkGeometryFilter.h>
#include <vtkIdList.h>
#include <vtkNew.h>
#include <vtkOBJWriter.h>
#include <vtkPLYWriter.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolyDataWriter.h>
#include <vtkSTLWriter.h>
#include <vtkSmartPointer.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPolyDataWriter.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>
#include <span>
#include <system_error>
#include <unordered_map>
#include <utility>

namespace atrium::heart {

namespace fs = std::filesystem;

std::size_t MeshSeries::holesCapped() const {
    std::size_t n = 0;
    for (const MeshReadReport& r : reports) n += r.cleaning.holesCapped;
    return n;
}

namespace {

using Triangle = std::array<std::uint32_t, 3>;
constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

std::string lowerExtension(const fs::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return ext;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

void requireReadableFile(const fs::path& file) {
    if (const std::string why = unreadableFileReason(file, "mesh"); !why.empty()) throw MeshError(file, why);
}

std::string formatName(MeshFormat format) {
    switch (format) {
    case MeshFormat::VtkLegacy: return "VTK legacy (.vtk)";
    case MeshFormat::Vtp: return "VTK XML polydata (.vtp)";
    case MeshFormat::Vtu: return "VTK XML unstructured grid (.vtu)";
    case MeshFormat::Stl: return "STL";
    case MeshFormat::Obj: return "OBJ";
    case MeshFormat::Ply: return "PLY";
    }
    return "mesh";
}

/// The surface of any dataset as polygonal data, errors captured. An unstructured grid
/// of surface cells (triangles, quads, polygons: a surface mesh stored as a grid) keeps
/// its points and cells in their order; anything else goes through vtkGeometryFilter,
/// which VTK 9 runs on threads (vtkSMPTools) and whose output order varies from run to
/// run: the same file read twice gave its points in another order, and the blood in a
/// heart built from it beat differently.
vtkSmartPointer<vtkPolyData> surfaceOf(vtkDataSet* data, VtkMessageLog& log) {
    if (auto* poly = vtkPolyData::SafeDownCast(data)) return poly;
    if (auto* grid = vtkUnstructuredGrid::SafeDownCast(data); grid && grid->GetNumberOfCells() > 0) {
        bool surface = true;
        for (vtkIdType c = 0; c < grid->GetNumberOfCells() && surface; ++c) {
            const int type = grid->GetCellType(c);
            surface = type == VTK_TRIANGLE || type == VTK_QUAD || type == VTK_POLYGON;
        }
        if (surface) {
            auto poly = vtkSmartPointer<vtkPolyData>::New();
            poly->SetPoints(grid->GetPoints());
            vtkNew<vtkCellArray> polys;
            polys->AllocateEstimate(grid->GetNumberOfCells(), 3);
            vtkNew<vtkIdList> ids;
            for (vtkIdType c = 0; c < grid->GetNumberOfCells(); ++c) {
                grid->GetCellPoints(c, ids);
                polys->InsertNextCell(ids);
            }
            poly->SetPolys(polys);
            return poly;
        }
    }
    vtkNew<vtkGeometryFilter> geometry;
    log.watch(geometry);
    geometry->SetInputData(data);
    geometry->Update();
    return geometry->GetOutput();
}

vtkSmartPointer<vtkCellArray> cellArray(const CellList& cells) {
    vtkNew<vtkIdTypeArray> offsets, connectivity;
    offsets->SetNumberOfValues(vtkIdType(cells.offsets.size()));
    for (std::size_t i = 0; i < cells.offsets.size(); ++i) offsets->SetValue(vtkIdType(i), vtkIdType(cells.offsets[i]));
    connectivity->SetNumberOfValues(vtkIdType(cells.indices.size()));
    for (std::size_t i = 0; i < cells.indices.size(); ++i) connectivity->SetValue(vtkIdType(i), vtkIdType(cells.indices[i]));
    auto array = vtkSmartPointer<vtkCellArray>::New();
    array->SetData(offsets, connectivity);
    return array;
}

/// The surface of what Atrium's own readers found (MeshFileReaders.h): its polygons and
/// strips, or the surface of its unstructured grid.
vtkSmartPointer<vtkPolyData> surfaceOf(const MeshFileData& data, VtkMessageLog& log) {
    vtkNew<vtkFloatArray> coordinates;
    coordinates->SetNumberOfComponents(3);
    coordinates->SetNumberOfTuples(vtkIdType(data.points.size()));
    if (!data.points.empty())
        std::memcpy(coordinates->GetPointer(0), data.points.data(), data.points.size() * sizeof(sph::Vec3));
    vtkNew<vtkPoints> points;
    points->SetData(coordinates);
    if (data.unstructuredGrid) {
        vtkNew<vtkUnsignedCharArray> types;
        types->SetNumberOfValues(vtkIdType(data.cellTypes.size()));
        for (std::size_t i = 0; i < data.cellTypes.size(); ++i) types->SetValue(vtkIdType(i), data.cellTypes[i]);
        vtkNew<vtkUnstructuredGrid> grid;
        grid->SetPoints(points);
        grid->SetCells(types, cellArray(data.volumeCells));
        return surfaceOf(grid, log);
    }
    auto poly = vtkSmartPointer<vtkPolyData>::New();
    poly->SetPoints(points);
    poly->SetPolys(cellArray(data.polygons));
    if (data.strips.size() > 0) poly->SetStrips(cellArray(data.strips));
    return poly;
}

/// Reads the file's polygonal surface: PLY, OBJ, STL and VTK legacy files with Atrium's
/// own readers, VTK XML files with VTK's after checkVtkXmlFile; VTK's messages go to
/// `log`. Returns null when the reader produced nothing.
vtkSmartPointer<vtkPolyData> readSurface(const fs::path& file, MeshFormat format, VtkMessageLog& log,
                                         std::size_t& droppedCells) {
    const auto checkXml = [&](const char* type) {
        try {
            checkVtkXmlFile(file, type);
        } catch (const std::runtime_error& e) {
            throw MeshError(file, e.what());
        }
    };
    switch (format) {
    case MeshFormat::VtkLegacy:
    case MeshFormat::Stl:
    case MeshFormat::Obj:
    case MeshFormat::Ply: {
        const MeshFileData data = readMeshFileData(file);
        droppedCells = data.droppedCells;
        return surfaceOf(data, log);
    }
    case MeshFormat::Vtp:
    case MeshFormat::Vtu: {
        const bool grid = format == MeshFormat::Vtu;
        checkXml(grid ? "UnstructuredGrid" : "PolyData");
        MeshFileData data = readVtkXmlMeshIsolated(file, grid, log.isolatedMessages);
        droppedCells = data.droppedCells;
        return surfaceOf(data, log);
    }
    }
    return nullptr;
}

/// A file as read: the triangle mesh (point ids kept) and its surface cells as VTK
/// listed them, which decide whether two files share their topology (polygons are
/// triangulated by position, so the triangles alone could differ between phases of one
/// moving polygon mesh).
struct RawMesh {
    sph::TriangleMesh mesh;
    std::vector<vtkIdType> cells;
};

void appendCells(vtkCellArray* cells, vtkIdType marker, std::vector<vtkIdType>& out) {
    if (cells == nullptr || cells->GetNumberOfCells() == 0) return;
    out.push_back(marker);
    vtkIdType n = 0;
    const vtkIdType* ids = nullptr;
    for (cells->InitTraversal(); cells->GetNextCell(n, ids);) {
        out.push_back(n);
        out.insert(out.end(), ids, ids + n);
    }
}

RawMesh readRaw(const fs::path& file, MeshReadReport* report) {
    const VtkFileContext context(file);
    const MeshFormat format = meshFormatFor(file);
    requireReadableFile(file);
    vtkNew<VtkMessageLog> log;
    std::size_t droppedByReader = 0;
    vtkSmartPointer<vtkPolyData> surface = readSurface(file, format, *log, droppedByReader);
    if (surface == nullptr || surface->GetNumberOfPoints() == 0) {
        if (log->failed()) throw MeshError(file, "unreadable " + formatName(format) + " file: " + log->firstError());
        throw MeshError(file, "empty mesh: the file holds no points");
    }
    RawMesh raw;
    std::size_t dropped = 0;
    try {
        raw.mesh = toTriangleMesh(surface, &dropped);
        dropped += droppedByReader;
    } catch (const std::exception& e) {
        throw MeshError(file, std::string("unusable mesh: ") + e.what());
    }
    if (raw.mesh.triangles.empty()) {
        std::string why = "no triangles: " + std::to_string(raw.mesh.vertices.size()) + " points and " +
                          std::to_string(dropped) + " cells that are not surfaces (vertices, lines, ...)";
        if (log->failed()) why += "; VTK: " + log->firstError();
        throw MeshError(file, why);
    }
    raw.cells.push_back(vtkIdType(raw.mesh.vertices.size()));
    appendCells(surface->GetPolys(), -1, raw.cells);
    appendCells(surface->GetStrips(), -2, raw.cells);
    if (report) {
        report->pointsRead = raw.mesh.vertices.size();
        report->trianglesRead = raw.mesh.triangles.size();
        report->cellsDropped = dropped;
        report->vtkMessages = log->all();
    }
    return raw;
}

// ---------------------------------------------------------------------------------------
// Cleaning, planned on one mesh and applicable to every phase of a fixed-topology series.

struct CleanPlan {
    std::vector<std::uint32_t> source; ///< new vertex -> old vertex
    std::vector<Triangle> triangles;   ///< in new indices
    MeshCleanReport report;
};

std::vector<sph::Vec3> applySource(const std::vector<std::uint32_t>& source, const std::vector<sph::Vec3>& vertices) {
    std::vector<sph::Vec3> out(source.size());
    for (std::size_t i = 0; i < source.size(); ++i) out[i] = vertices[source[i]];
    return out;
}

/// rep[i]: the point that point i merges into, the lowest-numbered earlier point that
/// stays and lies within `tolerance` of it in every frame; rep[i] == i for a point that
/// stays. Only points on open edges (edges of one triangle: the seams of a mesh stored as
/// separate pieces or as a triangle soup) take part; the points of a closed surface are
/// never merged, however close (isosurfaces and decimation leave distinct vertices a few
/// micrometres apart, and merging those would pinch the surface). Tolerance 0 (or one too
/// small for the coordinates) merges identical points only.
std::vector<std::uint32_t> mergeMap(std::span<const sph::TriangleMesh* const> frames, double tolerance) {
    const std::vector<sph::Vec3>& x = frames[0]->vertices;
    const std::size_t n = x.size();
    std::vector<std::uint32_t> rep(n);
    for (std::size_t i = 0; i < n; ++i) rep[i] = std::uint32_t(i);
    if (n == 0) return rep;
    std::vector<std::uint8_t> onSeam(n, 0);
    {
        // Open edges of the distinct triangles (a repeated triangle does not close an edge).
        sph::TriangleMesh distinct;
        distinct.vertices = x;
        std::vector<std::array<std::uint32_t, 3>> seen;
        seen.reserve(frames[0]->triangles.size());
        for (const Triangle& t : frames[0]->triangles) {
            std::array<std::uint32_t, 3> key = t;
            std::sort(key.begin(), key.end());
            seen.push_back(key);
        }
        std::sort(seen.begin(), seen.end());
        seen.erase(std::unique(seen.begin(), seen.end()), seen.end());
        distinct.triangles = std::move(seen);
        for (const Edge& e : boundaryEdges(distinct)) onSeam[e[0]] = onSeam[e[1]] = 1;
    }

    double extent = 0.0;
    for (const sph::Vec3& p : x) extent = std::max({extent, double(std::fabs(p.x)), double(std::fabs(p.y)), double(std::fabs(p.z))});
    const bool exact = !(tolerance > 0.0) || extent / tolerance > 1e15;
    const double tol2 = exact ? 0.0 : tolerance * tolerance;
    const auto coincide = [&](std::uint32_t a, std::uint32_t b) {
        for (const sph::TriangleMesh* f : frames) {
            const sph::Vec3 d = f->vertices[a] - f->vertices[b];
            const double d2 = double(d.x) * d.x + double(d.y) * d.y + double(d.z) * d.z;
            if (exact ? d2 != 0.0 : d2 > tol2) return false;
        }
        return true;
    };

    struct Key {
        std::int64_t i, j, k;
        bool operator==(const Key&) const = default;
    };
    struct KeyHash {
        std::size_t operator()(const Key& key) const {
            std::uint64_t h = 1469598103934665603ull;
            for (const std::int64_t v : {key.i, key.j, key.k}) {
                h ^= std::uint64_t(v);
                h *= 1099511628211ull;
                h ^= h >> 29;
            }
            return std::size_t(h);
        }
    };
    const double cell = exact ? 1.0 : tolerance;
    const auto keyOf = [&](const sph::Vec3& p) {
        if (exact) {
            // Identical coordinates (with -0 == +0) share a key.
            const auto bits = [](float v) {
                if (v == 0.f) v = 0.f;
                std::uint32_t b;
                std::memcpy(&b, &v, sizeof b);
                return std::int64_t(b);
            };
            return Key{bits(p.x), bits(p.y), bits(p.z)};
        }
        return Key{std::int64_t(std::floor(double(p.x) / cell)), std::int64_t(std::floor(double(p.y) / cell)),
                   std::int64_t(std::floor(double(p.z) / cell))};
    };
    std::unordered_map<Key, std::vector<std::uint32_t>, KeyHash> grid;
    grid.reserve(n);
    const int reach = exact ? 0 : 1;
    for (std::size_t i = 0; i < n; ++i) {
        if (!onSeam[i]) continue;
        const Key key = keyOf(x[i]);
        std::uint32_t best = kNone;
        for (int di = -reach; di <= reach; ++di)
            for (int dj = -reach; dj <= reach; ++dj)
                for (int dk = -reach; dk <= reach; ++dk) {
                    const auto it = grid.find(Key{key.i + di, key.j + dj, key.k + dk});
                    if (it == grid.end()) continue;
                    for (const std::uint32_t r : it->second)
                        if (r < best && coincide(std::uint32_t(i), r)) best = r;
                }
        if (best != kNone) rep[i] = best;
        else grid[key].push_back(std::uint32_t(i));
    }
    return rep;
}

/// Flips triangles so that every edge shared by two triangles is run in opposite
/// directions (breadth-first over manifold edges from the first triangle of each piece,
/// which keeps its winding). Returns the flip of each triangle.
std::vector<std::uint8_t> consistentWinding(const sph::TriangleMesh& mesh) {
    const EdgeTable table = buildEdgeTable(mesh);
    const std::size_t tc = mesh.triangles.size();
    std::vector<std::uint8_t> flip(tc, 0), seen(tc, 0);
    std::vector<std::uint32_t> queue;
    for (std::size_t seed = 0; seed < tc; ++seed) {
        if (seen[seed]) continue;
        seen[seed] = 1;
        queue.assign(1, std::uint32_t(seed));
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const std::uint32_t t = queue[q];
            for (const std::uint32_t e : table.triangleEdges[t]) {
                const EdgeTable::Entry& entry = table.edges[e];
                if (entry.useCount != 2) continue;
                const std::uint32_t u0 = entry.firstUse, u1 = entry.firstUse + 1;
                const bool tIsFirst = table.useTriangle[u0] == t;
                const std::uint32_t mine = tIsFirst ? u0 : u1, other = tIsFirst ? u1 : u0;
                const std::uint32_t u = table.useTriangle[other];
                if (u == t || seen[u]) continue;
                // Consistent when (forward_t ^ flip_t) != (forward_u ^ flip_u).
                flip[u] = std::uint8_t(table.useForward[other] ^ table.useForward[mine] ^ flip[t] ^ 1u);
                seen[u] = 1;
                queue.push_back(u);
            }
        }
    }
    return flip;
}

double signedVolume(const sph::TriangleMesh& mesh, std::span<const std::uint32_t> triangles) {
    double v = 0.0;
    for (const std::uint32_t t : triangles) {
        const auto& tri = mesh.triangles[t];
        const sph::Vec3 a = mesh.vertices[tri[0]], b = mesh.vertices[tri[1]], c = mesh.vertices[tri[2]];
        v += (double(a.x) * (double(b.y) * c.z - double(b.z) * c.y) - double(a.y) * (double(b.x) * c.z - double(b.z) * c.x) +
              double(a.z) * (double(b.x) * c.y - double(b.y) * c.x)) /
             6.0;
    }
    return v;
}

/// Plans the cleaning of frames[0]; every frame must have frames[0]'s vertex count and
/// triangles. Throws std::runtime_error (capHoles) when a hole cannot be capped.
CleanPlan planCleaning(std::span<const sph::TriangleMesh* const> frames, const MeshCleaning& cleaning) {
    if (!(cleaning.mergeToleranceMm >= 0.0) || !std::isfinite(cleaning.mergeToleranceMm))
        throw std::invalid_argument("mesh cleaning: the merge tolerance must be finite and >= 0 mm, got " +
                                    std::to_string(cleaning.mergeToleranceMm));
    if (cleaning.capHoles && !(cleaning.maxHoleDiameterMm > 0.0))
        throw std::invalid_argument("mesh cleaning: the largest hole diameter must be positive, got " +
                                    std::to_string(cleaning.maxHoleDiameterMm));
    const sph::TriangleMesh& mesh = *frames[0];
    const std::size_t n = mesh.vertices.size();
    CleanPlan plan;
    MeshCleanReport& rep = plan.report;

    // 1. Merge coincident points.
    const std::vector<std::uint32_t> merged = mergeMap(frames, cleaning.mergeToleranceMm);
    for (std::size_t i = 0; i < n; ++i) rep.pointsMerged += merged[i] != i ? 1 : 0;

    // 2. Collapsed and duplicated triangles.
    std::vector<Triangle> tris;
    tris.reserve(mesh.triangles.size());
    for (const Triangle& t : mesh.triangles) {
        const Triangle m{merged[t[0]], merged[t[1]], merged[t[2]]};
        if (m[0] == m[1] || m[1] == m[2] || m[0] == m[2]) ++rep.degenerateTrianglesRemoved;
        else tris.push_back(m);
    }
    {
        // Group by vertex set; the winding parity tells a repeat from an opposite copy.
        struct Entry {
            std::array<std::uint32_t, 3> sorted;
            bool even;
            std::uint32_t index;
        };
        std::vector<Entry> entries(tris.size());
        for (std::size_t t = 0; t < tris.size(); ++t) {
            std::array<std::uint32_t, 3> s = tris[t];
            std::sort(s.begin(), s.end());
            // Even: (a, b, c) is a rotation of the ascending order.
            const Triangle& o = tris[t];
            const bool even = (o[0] == s[0] && o[1] == s[1]) || (o[1] == s[0] && o[2] == s[1]) ||
                              (o[2] == s[0] && o[0] == s[1]);
            entries[t] = {s, even, std::uint32_t(t)};
        }
        std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
            return a.sorted != b.sorted ? a.sorted < b.sorted : a.index < b.index;
        });
        std::vector<std::uint8_t> keep(tris.size(), 1);
        for (std::size_t g = 0; g < entries.size();) {
            std::size_t end = g + 1;
            while (end < entries.size() && entries[end].sorted == entries[g].sorted) ++end;
            if (end - g > 1) {
                bool mixed = false;
                for (std::size_t q = g + 1; q < end; ++q) mixed |= entries[q].even != entries[g].even;
                for (std::size_t q = mixed ? g : g + 1; q < end; ++q) {
                    keep[entries[q].index] = 0;
                    ++rep.duplicateTrianglesRemoved;
                }
            }
            g = end;
        }
        std::size_t w = 0;
        for (std::size_t t = 0; t < tris.size(); ++t)
            if (keep[t]) tris[w++] = tris[t];
        tris.resize(w);
    }

    // 3. Drop unused points, keeping the order of the others.
    std::vector<std::uint32_t> newIndex(n, kNone);
    for (const Triangle& t : tris)
        for (const std::uint32_t v : t) newIndex[v] = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (merged[i] != i) continue;
        if (newIndex[i] == kNone) {
            ++rep.unusedPointsRemoved;
            continue;
        }
        newIndex[i] = std::uint32_t(plan.source.size());
        plan.source.push_back(std::uint32_t(i));
    }
    for (Triangle& t : tris)
        for (std::uint32_t& v : t) v = newIndex[v];

    sph::TriangleMesh work;
    work.vertices = applySource(plan.source, mesh.vertices);
    work.triangles = std::move(tris);
    const std::size_t original = work.triangles.size();
    const std::vector<Triangle> before = work.triangles;

    // 4. Consistent winding, then holes, then every closed piece outward.
    if (!work.triangles.empty()) {
        const std::vector<std::uint8_t> flip = consistentWinding(work);
        for (std::size_t t = 0; t < work.triangles.size(); ++t)
            if (flip[t]) std::swap(work.triangles[t][1], work.triangles[t][2]);
    }
    if (cleaning.capHoles) rep.holesCapped = capHoles(work, cleaning.maxHoleDiameterMm);
    if (!work.triangles.empty()) {
        const Components pieces = connectedComponents(work);
        std::vector<std::uint8_t> closed(pieces.count, 1);
        const EdgeTable table = buildEdgeTable(work);
        for (const EdgeTable::Entry& e : table.edges)
            if (e.useCount != 2)
                for (std::uint32_t u = e.firstUse; u < e.firstUse + e.useCount; ++u)
                    closed[pieces.triangleComponent[table.useTriangle[u]]] = 0;
        std::vector<std::vector<std::uint32_t>> members(pieces.count);
        for (std::size_t t = 0; t < work.triangles.size(); ++t)
            members[pieces.triangleComponent[t]].push_back(std::uint32_t(t));
        for (std::size_t c = 0; c < pieces.count; ++c)
            if (closed[c] && signedVolume(work, members[c]) < 0.0)
                for (const std::uint32_t t : members[c]) std::swap(work.triangles[t][1], work.triangles[t][2]);
    }
    for (std::size_t t = 0; t < original; ++t) rep.trianglesReoriented += work.triangles[t] != before[t] ? 1 : 0;
    rep.boundaryEdges = boundaryEdges(work).size();
    rep.nonManifoldEdges = nonManifoldEdgeCount(work);
    plan.triangles = std::move(work.triangles);
    return plan;
}

sph::TriangleMesh applyPlan(const CleanPlan& plan, const sph::TriangleMesh& mesh) {
    sph::TriangleMesh out;
    out.vertices = applySource(plan.source, mesh.vertices);
    out.triangles = plan.triangles;
    return out;
}

std::string withoutPathPrefix(const VolumeError& e) {
    const std::string what = e.what();
    const std::string prefix = e.file().string() + ": ";
    return what.compare(0, prefix.size(), prefix) == 0 ? what.substr(prefix.size()) : what;
}

} // namespace

const std::vector<std::string>& meshExtensions() {
    static const std::vector<std::string> list{".vtk", ".vtp", ".vtu", ".stl", ".obj", ".ply"};
    return list;
}

MeshFormat meshFormatFor(const fs::path& file) {
    const std::string ext = lowerExtension(file);
    if (ext == ".vtk") return MeshFormat::VtkLegacy;
    if (ext == ".vtp") return MeshFormat::Vtp;
    if (ext == ".vtu") return MeshFormat::Vtu;
    if (ext == ".stl") return MeshFormat::Stl;
    if (ext == ".obj") return MeshFormat::Obj;
    if (ext == ".ply") return MeshFormat::Ply;
    throw MeshError(file, "unknown mesh extension '" + file.extension().string() + "' (expected one of " +
                              joined(meshExtensions()) + ")");
}

MeshCleanReport cleanMesh(sph::TriangleMesh& mesh, const MeshCleaning& cleaning) {
    for (const Triangle& t : mesh.triangles)
        for (const std::uint32_t v : t)
            if (v >= mesh.vertices.size())
                throw std::invalid_argument("cleanMesh: a triangle refers to vertex " + std::to_string(v) + " of " +
                                            std::to_string(mesh.vertices.size()));
    const sph::TriangleMesh* frames[] = {&mesh};
    CleanPlan plan = planCleaning(frames, cleaning);
    mesh = applyPlan(plan, mesh);
    return plan.report;
}

sph::TriangleMesh readMeshFile(const fs::path& file, MeshReadReport* report) {
    return readRaw(file, report).mesh;
}

sph::TriangleMesh readMesh(const fs::path& file, const MeshCleaning& cleaning, MeshReadReport* report) {
    MeshReadReport local;
    sph::TriangleMesh mesh = readMeshFile(file, &local);
    try {
        local.cleaning = cleanMesh(mesh, cleaning);
    } catch (const std::invalid_argument&) {
        throw;
    } catch (const std::exception& e) {
        throw MeshError(file, std::string("open mesh that cannot be closed: ") + e.what());
    }
    if (mesh.triangles.empty()) throw MeshError(file, "no triangles left after removing degenerate ones");
    if (report) *report = std::move(local);
    return mesh;
}

void writeMesh(const sph::TriangleMesh& mesh, const fs::path& file) {
    const VtkFileContext context(file);
    const MeshFormat format = meshFormatFor(file);
    if (mesh.vertices.empty() || mesh.triangles.empty()) throw MeshError(file, "refusing to write an empty mesh");
    vtkSmartPointer<vtkPolyData> poly;
    try {
        poly = toPolyData(mesh);
    } catch (const std::exception& e) {
        throw MeshError(file, std::string("cannot convert the mesh: ") + e.what());
    }
    std::optional<io::AtomicFile> atomic;
    try {
        atomic.emplace(file);
    } catch (const io::WriteError& e) {
        throw MeshError(file, e.why());
    }
    const std::string name = atomic->temporary().string();
    vtkNew<VtkMessageLog> log;
    // Every writer takes the mesh and the file name; formats differ in their options.
    const auto write = [&](auto writer, auto&& configure) {
        log->watch(writer);
        writer->SetInputData(poly);
        writer->SetFileName(name.c_str());
        configure(writer.Get());
        return writer->Write();
    };
    const auto binary = [](auto* w) { w->SetFileTypeToBinary(); };
    int ok = 0;
    switch (format) {
    case MeshFormat::VtkLegacy: ok = write(vtkSmartPointer<vtkPolyDataWriter>::New(), binary); break;
    case MeshFormat::Vtp:
        ok = write(vtkSmartPointer<vtkXMLPolyDataWriter>::New(), [](vtkXMLPolyDataWriter* w) {
            w->SetDataModeToAppended();
            w->EncodeAppendedDataOff();
        });
        break;
    case MeshFormat::Vtu: throw MeshError(file, ".vtu is read only (write .vtp for a surface mesh)");
    case MeshFormat::Stl: ok = write(vtkSmartPointer<vtkSTLWriter>::New(), binary); break;
    case MeshFormat::Obj: ok = write(vtkSmartPointer<vtkOBJWriter>::New(), [](vtkOBJWriter*) {}); break;
    case MeshFormat::Ply: ok = write(vtkSmartPointer<vtkPLYWriter>::New(), binary); break;
    }
    if (ok != 1 || log->failed())
        throw MeshError(file, "cannot write the " + formatName(format) + " file: " +
                                  (log->failed() ? log->firstError() : std::string("writer failed")));
    try {
        atomic->commit(1, format == MeshFormat::Vtp ? "</VTKFile>\n" : "");
    } catch (const io::WriteError& e) {
        throw MeshError(file, e.why());
    }
}

std::vector<fs::path> writeMeshSeries(const std::vector<sph::TriangleMesh>& phases, const std::string& pattern) {
    std::string first;
    try {
        first = formatSeriesPattern(pattern, 0);
    } catch (const std::invalid_argument& e) {
        throw MeshError(pattern, e.what());
    }
    meshFormatFor(first);
    if (phases.empty()) throw MeshError(pattern, "the series holds no phase to write");
    std::vector<fs::path> written;
    for (std::size_t k = 0; k < phases.size(); ++k) {
        const fs::path file = formatSeriesPattern(pattern, int(k));
        writeMesh(phases[k], file);
        written.push_back(file);
    }
    return written;
}

std::vector<fs::path> resolveMeshFrames(const std::string& source, int expectedCount) {
    std::vector<fs::path> files;
    std::error_code ec;
    if (!source.empty() && source.find('%') == std::string::npos && fs::is_regular_file(source, ec)) {
        meshFormatFor(source);
        files.push_back(source);
        if (expectedCount > 0 && expectedCount != 1)
            throw MeshError(source, "1 frame given, expected " + std::to_string(expectedCount));
        return files;
    }
    try {
        files = resolveSeriesFrames(source, meshExtensions(), expectedCount);
    } catch (const VolumeError& e) {
        throw MeshError(e.file(), withoutPathPrefix(e));
    }
    for (const fs::path& file : files) meshFormatFor(file);
    return files;
}

MeshSeries readMeshSeries(const std::string& source, const MeshSeriesOptions& options) {
    if (!(options.cycleSeconds > 0.0) || !std::isfinite(options.cycleSeconds))
        throw std::invalid_argument("readMeshSeries: the cycle duration must be positive, got " +
                                    std::to_string(options.cycleSeconds) + " s");
    MeshSeries series;
    series.cycleSeconds = options.cycleSeconds;
    series.files = resolveMeshFrames(source, options.expectedPhases);

    const std::size_t count = series.files.size();
    std::vector<RawMesh> raw(count);
    series.reports.resize(count);
    for (std::size_t k = 0; k < count; ++k) {
        raw[k] = readRaw(series.files[k], &series.reports[k]);
        if (options.progress) options.progress(0.9 * double(k + 1) / double(count));
    }
    series.fixedTopology = std::all_of(raw.begin(), raw.end(), [&](const RawMesh& r) {
        return r.cells == raw[0].cells && r.mesh.vertices.size() == raw[0].mesh.vertices.size() &&
               r.mesh.triangles.size() == raw[0].mesh.triangles.size();
    });

    series.phases.resize(count);
    if (series.fixedTopology) {
        // One plan for all: decided on phase 0 (merges only where points coincide in every
        // phase), so that the phases keep sharing their triangles.
        std::vector<const sph::TriangleMesh*> frames(count);
        for (std::size_t k = 0; k < count; ++k) {
            frames[k] = &raw[k].mesh;
            // Polygons are triangulated by position; phase 0's triangulation holds for all.
            raw[k].mesh.triangles = raw[0].mesh.triangles;
        }
        CleanPlan plan;
        try {
            plan = planCleaning(frames, options.cleaning);
        } catch (const std::invalid_argument&) {
            throw;
        } catch (const std::exception& e) {
            throw MeshError(series.files[0], std::string("open mesh that cannot be closed: ") + e.what());
        }
        for (std::size_t k = 0; k < count; ++k) {
            series.phases[k] = applyPlan(plan, raw[k].mesh);
            series.reports[k].cleaning = plan.report;
        }
    } else {
        for (std::size_t k = 0; k < count; ++k) {
            try {
                series.reports[k].cleaning = cleanMesh(raw[k].mesh, options.cleaning);
            } catch (const std::invalid_argument&) {
                throw;
            } catch (const std::exception& e) {
                throw MeshError(series.files[k], std::string("open mesh that cannot be closed: ") + e.what());
            }
            series.phases[k] = std::move(raw[k].mesh);
        }
    }
    for (std::size_t k = 0; k < count; ++k)
        if (series.phases[k].triangles.empty())
            throw MeshError(series.files[k], "no triangles left after removing degenerate ones");
    if (options.progress) options.progress(1.0);
    return series;
}

} // namespace atrium::heart
