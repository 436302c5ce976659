#include "sim/heart/MeshConversion.h"

#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkIdList.h>
#include <vtkIdTypeArray.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkPolygon.h>
#include <vtkTriangleStrip.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>

namespace atrium::heart {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

void checkIndices(const sph::TriangleMesh& mesh, const char* where) {
    const std::size_t n = mesh.vertices.size();
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
        for (std::uint32_t v : mesh.triangles[t])
            if (v >= n)
                throw std::invalid_argument(std::string(where) + ": triangle " + std::to_string(t) +
                                            " uses vertex " + std::to_string(v) + " but the mesh has " +
                                            std::to_string(n) + " vertices");
}

struct D3 {
    double x, y, z;
};
D3 toD3(sph::Vec3 v) { return {v.x, v.y, v.z}; }
D3 sub(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
double dotD(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
D3 crossD(D3 a, D3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double normD(D3 a) { return std::sqrt(dotD(a, a)); }

/// Smallest interior angle of a triangle in degrees; 0 when degenerate.
double smallestAngleDeg(const sph::Vec3& pa, const sph::Vec3& pb, const sph::Vec3& pc) {
    const D3 a = toD3(pa), b = toD3(pb), c = toD3(pc);
    const D3 corners[3][3] = {{a, b, c}, {b, c, a}, {c, a, b}};
    double smallest = 180.0;
    for (const auto& k : corners) {
        const D3 u = sub(k[1], k[0]), v = sub(k[2], k[0]);
        if (dotD(u, u) == 0.0 || dotD(v, v) == 0.0) return 0.0;
        const double angle = std::atan2(normD(crossD(u, v)), dotD(u, v)) * (180.0 / 3.14159265358979323846);
        smallest = std::min(smallest, angle);
    }
    return smallest;
}

} // namespace

sph::TriangleMesh toTriangleMesh(vtkPolyData* polyData, std::size_t* droppedCells) {
    if (polyData == nullptr) throw std::invalid_argument("toTriangleMesh: the polygonal data is null");
    sph::TriangleMesh mesh;
    std::size_t dropped = 0;
    const vtkIdType nPoints = polyData->GetNumberOfPoints();
    if (nPoints >= vtkIdType(kNone))
        throw std::runtime_error("toTriangleMesh: " + std::to_string(nPoints) +
                                 " points do not fit 32-bit vertex indices");
    mesh.vertices.resize(std::size_t(nPoints));
    for (vtkIdType i = 0; i < nPoints; ++i) {
        double p[3];
        polyData->GetPoint(i, p);
        if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]))
            throw std::runtime_error("point " + std::to_string(i) + " is not finite");
        mesh.vertices[std::size_t(i)] = {float(p[0]), float(p[1]), float(p[2])};
    }

    auto pushTriangle = [&](vtkIdType a, vtkIdType b, vtkIdType c) {
        mesh.triangles.push_back({std::uint32_t(a), std::uint32_t(b), std::uint32_t(c)});
    };
    std::size_t cell = 0; // for messages: cells counted over polygons, then strips
    auto requireInRange = [nPoints, &cell](vtkIdType n, const vtkIdType* ids, const char* kind) {
        for (vtkIdType k = 0; k < n; ++k)
            if (ids[k] < 0 || ids[k] >= nPoints)
                throw std::runtime_error(std::string(kind) + " " + std::to_string(cell) + " uses point " +
                                         std::to_string(ids[k]) + ", but there are " + std::to_string(nPoints) + " points");
        ++cell;
    };

    if (vtkCellArray* verts = polyData->GetVerts()) dropped += std::size_t(verts->GetNumberOfCells());
    if (vtkCellArray* lines = polyData->GetLines()) dropped += std::size_t(lines->GetNumberOfCells());

    if (vtkCellArray* polys = polyData->GetPolys()) {
        mesh.triangles.reserve(std::size_t(polys->GetNumberOfCells()));
        vtkNew<vtkPolygon> polygon;
        vtkNew<vtkIdList> triIds;
        vtkNew<vtkPoints> triPoints;
        vtkIdType n = 0;
        const vtkIdType* ids = nullptr;
        for (polys->InitTraversal(); polys->GetNextCell(n, ids);) {
            requireInRange(n, ids, "polygon");
            if (n < 3) {
                ++dropped;
                continue;
            }
            if (n == 3) {
                pushTriangle(ids[0], ids[1], ids[2]);
                continue;
            }
            // Newell normal of the polygon: each output triangle must turn the same way.
            D3 normal{0, 0, 0};
            for (vtkIdType k = 0; k < n; ++k) {
                const D3 p = toD3(mesh.vertices[std::size_t(ids[k])]);
                const D3 q = toD3(mesh.vertices[std::size_t(ids[(k + 1) % n])]);
                normal.x += (p.y - q.y) * (p.z + q.z);
                normal.y += (p.z - q.z) * (p.x + q.x);
                normal.z += (p.x - q.x) * (p.y + q.y);
            }
            polygon->Initialize(int(n), ids, polyData->GetPoints());
            triIds->Reset();
            triPoints->Reset();
            if (polygon->Triangulate(0, triIds, triPoints) == 0 || triIds->GetNumberOfIds() < 3 ||
                triIds->GetNumberOfIds() % 3 != 0) {
                ++dropped;
                continue;
            }
            for (vtkIdType k = 0; k + 2 < triIds->GetNumberOfIds(); k += 3) {
                vtkIdType a = triIds->GetId(k), b = triIds->GetId(k + 1), c = triIds->GetId(k + 2);
                const D3 pa = toD3(mesh.vertices[std::size_t(a)]);
                const D3 tn = crossD(sub(toD3(mesh.vertices[std::size_t(b)]), pa),
                                     sub(toD3(mesh.vertices[std::size_t(c)]), pa));
                if (dotD(tn, normal) < 0.0) std::swap(b, c);
                pushTriangle(a, b, c);
            }
        }
    }

    if (vtkCellArray* strips = polyData->GetStrips(); strips != nullptr && strips->GetNumberOfCells() > 0) {
        vtkNew<vtkCellArray> tris;
        vtkIdType n = 0;
        const vtkIdType* ids = nullptr;
        for (strips->InitTraversal(); strips->GetNextCell(n, ids);) {
            requireInRange(n, ids, "triangle strip");
            if (n < 3) {
                ++dropped;
                continue;
            }
            tris->Reset();
            vtkTriangleStrip::DecomposeStrip(int(n), ids, tris);
            vtkIdType m = 0;
            const vtkIdType* t = nullptr;
            for (tris->InitTraversal(); tris->GetNextCell(m, t);)
                if (m == 3) pushTriangle(t[0], t[1], t[2]);
        }
    }

    if (droppedCells != nullptr) *droppedCells = dropped;
    return mesh;
}

vtkSmartPointer<vtkPolyData> toPolyData(const sph::TriangleMesh& mesh) {
    checkIndices(mesh, "toPolyData");
    static_assert(sizeof(sph::Vec3) == 3 * sizeof(float), "Vec3 must be three packed floats");
    vtkNew<vtkFloatArray> coords;
    coords->SetNumberOfComponents(3);
    coords->SetNumberOfTuples(vtkIdType(mesh.vertices.size()));
    if (!mesh.vertices.empty())
        std::memcpy(coords->GetPointer(0), mesh.vertices.data(), mesh.vertices.size() * sizeof(sph::Vec3));
    vtkNew<vtkPoints> points;
    points->SetData(coords);

    vtkNew<vtkIdTypeArray> offsets;
    vtkNew<vtkIdTypeArray> connectivity;
    offsets->SetNumberOfValues(vtkIdType(mesh.triangles.size() + 1));
    connectivity->SetNumberOfValues(vtkIdType(3 * mesh.triangles.size()));
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
        offsets->SetValue(vtkIdType(t), vtkIdType(3 * t));
        for (int k = 0; k < 3; ++k) connectivity->SetValue(vtkIdType(3 * t + k), vtkIdType(mesh.triangles[t][k]));
    }
    offsets->SetValue(vtkIdType(mesh.triangles.size()), vtkIdType(3 * mesh.triangles.size()));
    vtkNew<vtkCellArray> cells;
    cells->SetData(offsets, connectivity);

    auto poly = vtkSmartPointer<vtkPolyData>::New();
    poly->SetPoints(points);
    poly->SetPolys(cells);
    return poly;
}

EdgeTable buildEdgeTable(const sph::TriangleMesh& mesh) {
    checkIndices(mesh, "buildEdgeTable");
    if (mesh.triangles.size() > std::size_t(kNone / 3))
        throw std::runtime_error("buildEdgeTable: too many triangles (" + std::to_string(mesh.triangles.size()) + ")");
    EdgeTable table;
    const std::size_t nt = mesh.triangles.size();
    // (edge key, use id = 3 * triangle + corner), sorted: equal edges become neighbours.
    std::vector<std::pair<std::uint64_t, std::uint32_t>> uses;
    uses.reserve(3 * nt);
    for (std::size_t t = 0; t < nt; ++t)
        for (int k = 0; k < 3; ++k) {
            const std::uint32_t a = mesh.triangles[t][k], b = mesh.triangles[t][(k + 1) % 3];
            if (a == b) continue; // degenerate triangle: no edge
            const std::uint64_t key = (std::uint64_t(std::min(a, b)) << 32) | std::max(a, b);
            uses.emplace_back(key, std::uint32_t(3 * t + k));
        }
    std::sort(uses.begin(), uses.end());

    table.triangleEdges.assign(nt, {kNone, kNone, kNone});
    table.useTriangle.resize(uses.size());
    table.useForward.resize(uses.size());
    for (std::size_t i = 0; i < uses.size();) {
        std::size_t j = i;
        while (j < uses.size() && uses[j].first == uses[i].first) ++j;
        EdgeTable::Entry e;
        e.a = std::uint32_t(uses[i].first >> 32);
        e.b = std::uint32_t(uses[i].first & 0xffffffffu);
        e.firstUse = std::uint32_t(i);
        e.useCount = std::uint32_t(j - i);
        const auto edgeIndex = std::uint32_t(table.edges.size());
        for (std::size_t u = i; u < j; ++u) {
            const std::uint32_t t = uses[u].second / 3, k = uses[u].second % 3;
            table.useTriangle[u] = t;
            table.useForward[u] = mesh.triangles[t][k] == e.a ? 1 : 0;
            table.triangleEdges[t][k] = edgeIndex;
        }
        table.edges.push_back(e);
        i = j;
    }
    return table;
}

std::vector<Edge> boundaryEdges(const sph::TriangleMesh& mesh) { return boundaryEdges(buildEdgeTable(mesh)); }

std::vector<Edge> boundaryEdges(const EdgeTable& table) {
    std::vector<Edge> out;
    for (const auto& e : table.edges)
        if (e.useCount == 1) {
            if (table.useForward[e.firstUse] != 0) out.push_back({e.a, e.b});
            else out.push_back({e.b, e.a});
        }
    return out;
}

std::size_t nonManifoldEdgeCount(const sph::TriangleMesh& mesh) {
    const EdgeTable table = buildEdgeTable(mesh);
    return std::size_t(std::count_if(table.edges.begin(), table.edges.end(),
                                     [](const EdgeTable::Entry& e) { return e.useCount > 2; }));
}

std::size_t inconsistentlyOrientedEdgeCount(const sph::TriangleMesh& mesh) {
    const EdgeTable table = buildEdgeTable(mesh);
    std::size_t n = 0;
    for (const auto& e : table.edges)
        if (e.useCount == 2 && table.useForward[e.firstUse] == table.useForward[e.firstUse + 1]) ++n;
    return n;
}

AngleStats minimumAngles(const sph::TriangleMesh& mesh) {
    checkIndices(mesh, "minimumAngles");
    AngleStats stats;
    if (mesh.triangles.empty()) return stats;
    std::vector<double> angles(mesh.triangles.size());
    double sum = 0.0;
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
        const auto& tri = mesh.triangles[t];
        angles[t] = smallestAngleDeg(mesh.vertices[tri[0]], mesh.vertices[tri[1]], mesh.vertices[tri[2]]);
        sum += angles[t];
    }
    stats.meanDeg = sum / double(angles.size());
    stats.minDeg = *std::min_element(angles.begin(), angles.end());
    const auto k = std::size_t(0.01 * double(angles.size() - 1));
    std::nth_element(angles.begin(), angles.begin() + std::ptrdiff_t(k), angles.end());
    stats.p01Deg = angles[k];
    return stats;
}

Components connectedComponents(const sph::TriangleMesh& mesh) {
    checkIndices(mesh, "connectedComponents");
    std::vector<std::uint32_t> parent(mesh.vertices.size());
    std::iota(parent.begin(), parent.end(), 0u);
    auto find = [&parent](std::uint32_t v) {
        while (parent[v] != v) {
            parent[v] = parent[parent[v]];
            v = parent[v];
        }
        return v;
    };
    for (const auto& t : mesh.triangles) {
        const std::uint32_t r0 = find(t[0]);
        for (int k = 1; k < 3; ++k) {
            const std::uint32_t r = find(t[k]);
            if (r != r0) parent[r] = r0;
        }
    }
    Components c;
    c.triangleComponent.resize(mesh.triangles.size());
    std::vector<std::uint32_t> label(mesh.vertices.size(), kNone);
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
        const std::uint32_t r = find(mesh.triangles[t][0]);
        if (label[r] == kNone) {
            label[r] = std::uint32_t(c.count++);
            c.trianglesPerComponent.push_back(0);
        }
        c.triangleComponent[t] = label[r];
        ++c.trianglesPerComponent[label[r]];
    }
    return c;
}

std::vector<std::uint32_t> compactVertices(sph::TriangleMesh& mesh) {
    checkIndices(mesh, "compactVertices");
    std::vector<std::uint32_t> map(mesh.vertices.size(), kNone);
    for (const auto& t : mesh.triangles)
        for (std::uint32_t v : t) map[v] = 0;
    std::uint32_t next = 0;
    for (std::size_t v = 0; v < map.size(); ++v)
        if (map[v] == 0) {
            map[v] = next;
            mesh.vertices[next++] = mesh.vertices[v];
        }
    mesh.vertices.resize(next);
    for (auto& t : mesh.triangles)
        for (std::uint32_t& v : t) v = map[v];
    return map;
}

} // namespace atrium::heart
