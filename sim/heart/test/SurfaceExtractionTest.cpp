// Volume -> surface: isosurface, decimation, box-bounded noise removal, hole capping
// (Poyart 2016, 3.1-3.3), and the mesh conversion/statistics helpers.

#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"

#include <gtest/gtest.h>

#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkShortArray.h>
#include <vtkSmartPointer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iostream>
#include <map>
#include <numbers>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using atrium::sph::TriangleMesh;
using atrium::sph::Vec3;
namespace heart = atrium::heart;

constexpr double kPi = 3.14159265358979323846;

/// Contrast-CT-like intensity for a signed distance d (> 0 inside the blood): blood 300,
/// wall 100, a smooth 3 mm transition; the 200 isosurface is the d = 0 surface.
double contrast(double d) { return 200.0 + 100.0 * std::tanh(d / 1.5); }

template <class F>
vtkSmartPointer<vtkImageData> makeImage(std::array<int, 3> n, std::array<double, 3> origin,
                                        std::array<double, 3> spacing, F&& field) {
    auto image = vtkSmartPointer<vtkImageData>::New();
    image->SetDimensions(n[0], n[1], n[2]);
    image->SetOrigin(origin[0], origin[1], origin[2]);
    image->SetSpacing(spacing[0], spacing[1], spacing[2]);
    vtkNew<vtkFloatArray> values;
    values->SetNumberOfTuples(vtkIdType(n[0]) * n[1] * n[2]);
    float* out = values->GetPointer(0);
    for (int k = 0; k < n[2]; ++k)
        for (int j = 0; j < n[1]; ++j)
            for (int i = 0; i < n[0]; ++i)
                *out++ = float(field(origin[0] + i * spacing[0], origin[1] + j * spacing[1], origin[2] + k * spacing[2]));
    image->GetPointData()->SetScalars(values);
    return image;
}

double sphereDistance(double x, double y, double z, const std::array<double, 3>& c, double r) {
    return r - std::sqrt((x - c[0]) * (x - c[0]) + (y - c[1]) * (y - c[1]) + (z - c[2]) * (z - c[2]));
}

void append(TriangleMesh& into, const TriangleMesh& part) {
    const auto offset = std::uint32_t(into.vertices.size());
    into.vertices.insert(into.vertices.end(), part.vertices.begin(), part.vertices.end());
    for (auto t : part.triangles) into.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
}

/// Open tube around the z axis: `sides` around, `rings` rings from z = 0 to
/// z = length + wave * sin(2 theta); triangles face outwards.
TriangleMesh makeTube(Vec3 base, float radius, float length, int sides, int rings, float wave = 0.f) {
    TriangleMesh mesh;
    for (int k = 0; k < rings; ++k)
        for (int i = 0; i < sides; ++i) {
            const double theta = 2.0 * kPi * i / sides;
            const double top = length + wave * std::sin(2.0 * theta);
            mesh.vertices.push_back({base.x + float(radius * std::cos(theta)), base.y + float(radius * std::sin(theta)),
                                     base.z + float(top * k / (rings - 1))});
        }
    for (int k = 0; k + 1 < rings; ++k)
        for (int i = 0; i < sides; ++i) {
            const auto a = std::uint32_t(k * sides + i), b = std::uint32_t(k * sides + (i + 1) % sides);
            const auto c = b + std::uint32_t(sides), d = a + std::uint32_t(sides);
            mesh.triangles.push_back({a, b, c});
            mesh.triangles.push_back({a, c, d});
        }
    return mesh;
}

bool hasUnusedVertices(const TriangleMesh& mesh) {
    std::vector<char> used(mesh.vertices.size(), 0);
    for (const auto& t : mesh.triangles)
        for (auto v : t) used[v] = 1;
    return std::find(used.begin(), used.end(), 0) != used.end();
}

double sphereVolume(double r) { return 4.0 / 3.0 * kPi * r * r * r; }

/// Extraction at the 200 isosurface of `contrast` (the blood/wall interface), with the
/// given decimation and noise box (the library's defaults unless given).
heart::ExtractionSettings isoSettings(double decimation = heart::ExtractionSettings{}.decimation,
                                      double noiseBoxMm = heart::ExtractionSettings{}.noiseBoxMm) {
    heart::ExtractionSettings settings;
    settings.isovalue = 200.f;
    settings.decimation = decimation;
    settings.noiseBoxMm = noiseBoxMm;
    return settings;
}

const std::array<double, 3> kSphereCentre{31.7, 32.3, 31.9};
constexpr double kSphereRadius = 20.0;

/// How much neighbouring faces turn across the mesh's manifold edges (degrees).
struct NormalTurn {
    double meanDeg = 0.0;
    std::size_t over60 = 0;  ///< edges where the faces turn by more than 60 degrees
    std::size_t folded = 0;  ///< more than 150 degrees: a folded-over triangle
};

NormalTurn normalTurn(const TriangleMesh& m) {
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> edgeFaces;
    for (std::size_t t = 0; t < m.triangles.size(); ++t)
        for (int e = 0; e < 3; ++e) {
            const std::uint32_t u = m.triangles[t][e], v = m.triangles[t][(e + 1) % 3];
            edgeFaces[{std::min(u, v), std::max(u, v)}].push_back(t);
        }
    const auto normal = [&](std::size_t t) {
        const Vec3 a = m.vertices[m.triangles[t][0]], b = m.vertices[m.triangles[t][1]], c = m.vertices[m.triangles[t][2]];
        return atrium::sph::normalized(atrium::sph::cross(b - a, c - a));
    };
    NormalTurn r;
    std::size_t edges = 0;
    for (const auto& [edge, faces] : edgeFaces) {
        if (faces.size() != 2) continue;
        const double cosine = std::clamp(double(atrium::sph::dot(normal(faces[0]), normal(faces[1]))), -1.0, 1.0);
        const double deg = std::acos(cosine) * 180.0 / std::numbers::pi;
        r.meanDeg += deg;
        r.over60 += deg > 60.0 ? 1 : 0;
        r.folded += deg > 150.0 ? 1 : 0;
        ++edges;
    }
    r.meanDeg /= double(std::max<std::size_t>(edges, 1));
    return r;
}

vtkSmartPointer<vtkImageData> sphereImage() {
    return makeImage({64, 64, 64}, {0, 0, 0}, {1, 1, 1}, [](double x, double y, double z) {
        return contrast(sphereDistance(x, y, z, kSphereCentre, kSphereRadius));
    });
}

/// The sphere with voxel noise of 15 % of the blood/wall contrast.
vtkSmartPointer<vtkImageData> noisySphereImage() {
    std::mt19937 rng(11);
    std::normal_distribution<double> noise(0.0, 15.0);
    return makeImage({64, 64, 64}, {0, 0, 0}, {1, 1, 1}, [&](double x, double y, double z) {
        return contrast(sphereDistance(x, y, z, kSphereCentre, kSphereRadius)) + noise(rng);
    });
}

void printAngles(const char* what, const heart::AngleStats& a) {
    std::cout << "[ angles   ] " << what << ": min " << a.minDeg << " deg, 1st percentile " << a.p01Deg
              << " deg, mean " << a.meanDeg << " deg\n";
}

// ---------------------------------------------------------------------------------------
// Mesh conversion and statistics

TEST(MeshConversion, RoundTripKeepsVerticesAndTriangles) {
    const TriangleMesh sphere = TriangleMesh::icosphere({1.f, 2.f, 3.f}, 5.f, 2);
    const auto poly = heart::toPolyData(sphere);
    ASSERT_EQ(poly->GetNumberOfPoints(), vtkIdType(sphere.vertices.size()));
    ASSERT_EQ(poly->GetNumberOfPolys(), vtkIdType(sphere.triangles.size()));
    std::size_t dropped = 99;
    const TriangleMesh back = heart::toTriangleMesh(poly, &dropped);
    EXPECT_EQ(dropped, 0u);
    EXPECT_EQ(back.vertices, sphere.vertices);
    EXPECT_EQ(back.triangles, sphere.triangles);
}

TEST(MeshConversion, TriangulatesPolygonsAndStripsAndCountsDroppedCells) {
    vtkNew<vtkPoints> points;
    // 0-3: unit square in z = 0 (counter-clockwise from +z); 4-8: concave pentagon in z = 1;
    // 9-12: a strip in z = 2; 13: a point no cell uses (must keep its index).
    const double p[14][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0, 0, 1}, {4, 0, 1}, {4, 3, 1},
                             {2, 1, 1}, {0, 3, 1}, {0, 0, 2}, {0, 1, 2}, {1, 0, 2}, {1, 1, 2}, {9, 9, 9}};
    for (const auto& q : p) points->InsertNextPoint(q);
    vtkNew<vtkCellArray> polys, strips, lines, verts;
    const vtkIdType quad[4] = {0, 1, 2, 3}, pentagon[5] = {4, 5, 6, 7, 8}, strip[4] = {9, 11, 10, 12}, line[2] = {0, 2},
                    vert[1] = {13};
    polys->InsertNextCell(4, quad);
    polys->InsertNextCell(5, pentagon);
    strips->InsertNextCell(4, strip);
    lines->InsertNextCell(2, line);
    verts->InsertNextCell(1, vert);
    vtkNew<vtkPolyData> data;
    data->SetPoints(points);
    data->SetPolys(polys);
    data->SetStrips(strips);
    data->SetLines(lines);
    data->SetVerts(verts);

    std::size_t dropped = 0;
    const TriangleMesh mesh = heart::toTriangleMesh(data, &dropped);
    EXPECT_EQ(dropped, 2u);  // the line and the vertex
    ASSERT_EQ(mesh.vertices.size(), 14u);
    EXPECT_EQ(mesh.vertices[13], (Vec3{9.f, 9.f, 9.f}));
    ASSERT_EQ(mesh.triangles.size(), 2u + 3u + 2u);
    // Quad and pentagon keep their winding (+z normals) and cover their areas exactly.
    double quadArea = 0.0, pentagonArea = 0.0;
    for (std::size_t t = 0; t < 5; ++t) {
        const auto& tri = mesh.triangles[t];
        const Vec3 n = cross(mesh.vertices[tri[1]] - mesh.vertices[tri[0]], mesh.vertices[tri[2]] - mesh.vertices[tri[0]]);
        EXPECT_GT(n.z, 0.f) << "triangle " << t << " flipped";
        (t < 2 ? quadArea : pentagonArea) += 0.5 * n.z;
    }
    EXPECT_NEAR(quadArea, 1.0, 1e-6);
    EXPECT_NEAR(pentagonArea, 12.0 - 0.5 * 2 * 2 - 0.5 * 2 * 2, 1e-6);  // 4x3 box minus the notch
    // The strip's two triangles are consistently oriented (their shared edge runs both ways).
    TriangleMesh stripOnly;
    stripOnly.vertices = mesh.vertices;
    stripOnly.triangles.assign(mesh.triangles.begin() + 5, mesh.triangles.end());
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(stripOnly), 0u);
    EXPECT_EQ(heart::boundaryEdges(stripOnly).size(), 4u);

    EXPECT_THROW(heart::toTriangleMesh(nullptr), std::invalid_argument);
}

TEST(MeshStatistics, BoundaryNonManifoldOrientationAndComponents) {
    const TriangleMesh closed = TriangleMesh::icosphere({0, 0, 0}, 1.f, 2);
    EXPECT_TRUE(heart::boundaryEdges(closed).empty());
    EXPECT_EQ(heart::nonManifoldEdgeCount(closed), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(closed), 0u);

    TriangleMesh open = closed;
    open.triangles.pop_back();
    const auto edges = heart::boundaryEdges(open);
    ASSERT_EQ(edges.size(), 3u);
    // Directed as the remaining triangles run them: the removed triangle ran them backwards.
    const auto removed = closed.triangles.back();
    for (const auto& e : edges) {
        bool reversedInRemoved = false;
        for (int k = 0; k < 3; ++k) reversedInRemoved |= removed[k] == e[1] && removed[(k + 1) % 3] == e[0];
        EXPECT_TRUE(reversedInRemoved);
    }

    TriangleMesh flipped = closed;
    std::swap(flipped.triangles[0][1], flipped.triangles[0][2]);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(flipped), 3u);

    TriangleMesh fin = closed;  // a third triangle on an existing edge
    fin.vertices.push_back({5.f, 5.f, 5.f});
    fin.triangles.push_back({closed.triangles[0][0], closed.triangles[0][1], std::uint32_t(fin.vertices.size() - 1)});
    EXPECT_EQ(heart::nonManifoldEdgeCount(fin), 1u);

    TriangleMesh two = closed;
    append(two, TriangleMesh::icosphere({5, 0, 0}, 1.f, 1));
    two.vertices.push_back({100.f, 0.f, 0.f});  // unused vertex: no component of its own
    const heart::Components c = heart::connectedComponents(two);
    ASSERT_EQ(c.count, 2u);
    EXPECT_EQ(c.trianglesPerComponent[0], closed.triangles.size());
    EXPECT_EQ(c.trianglesPerComponent[1], 80u);
    EXPECT_EQ(c.triangleComponent.front(), 0u);
    EXPECT_EQ(c.triangleComponent.back(), 1u);

    const auto map = heart::compactVertices(two);
    EXPECT_EQ(two.vertices.size(), closed.vertices.size() + 42u);
    EXPECT_EQ(map.back(), UINT32_MAX);
    EXPECT_FALSE(hasUnusedVertices(two));
}

TEST(MeshStatistics, MinimumAnglesOfKnownTriangles) {
    TriangleMesh mesh;
    mesh.vertices = {{0, 0, 0}, {1, 0, 0}, {0.5f, float(std::sqrt(3.0) / 2), 0}, {0, 1, 0}, {2, 0, 0}};
    mesh.triangles = {{0, 1, 2}};  // equilateral
    heart::AngleStats a = heart::minimumAngles(mesh);
    EXPECT_NEAR(a.minDeg, 60.0, 1e-4);
    EXPECT_NEAR(a.meanDeg, 60.0, 1e-4);
    mesh.triangles.push_back({0, 1, 3});  // right isosceles: 45
    mesh.triangles.push_back({0, 1, 4});  // collinear: 0
    a = heart::minimumAngles(mesh);
    EXPECT_NEAR(a.minDeg, 0.0, 1e-9);
    EXPECT_NEAR(a.p01Deg, 0.0, 1e-9);
    EXPECT_NEAR(a.meanDeg, (60.0 + 45.0 + 0.0) / 3.0, 1e-4);
    EXPECT_EQ(heart::minimumAngles(TriangleMesh{}).minDeg, 0.0);
}

// ---------------------------------------------------------------------------------------
// Extraction

TEST(SurfaceExtraction, SphereIsClosedOutwardAndAccurate) {
    const auto image = sphereImage();
    heart::ExtractionSettings settings = isoSettings(0.0);
    settings.smoothingIterations = 0; // the raw isosurface
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    ASSERT_GT(mesh.triangles.size(), 1000u);
    EXPECT_EQ(report.trianglesExtracted, mesh.triangles.size());
    EXPECT_EQ(report.trianglesAfterDecimation, mesh.triangles.size());
    EXPECT_EQ(report.boundaryEdges, 0u);
    EXPECT_EQ(report.boundaryEdgesOffVolumeFaces, 0u);
    EXPECT_EQ(report.holesCapped, 0u);
    EXPECT_TRUE(heart::boundaryEdges(mesh).empty());
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::connectedComponents(mesh).count, 1u);
    EXPECT_FALSE(hasUnusedVertices(mesh));
    const double volume = mesh.enclosedVolume();
    EXPECT_GT(volume, 0.0) << "normals must point out of the bright blood region";
    EXPECT_NEAR(volume / sphereVolume(kSphereRadius), 1.0, 0.02);
    // Every vertex on the sphere (the field is smooth; linear interpolation is close).
    for (const Vec3& v : mesh.vertices)
        ASSERT_NEAR(sphereDistance(v.x, v.y, v.z, kSphereCentre, kSphereRadius), 0.0, 0.05);
    printAngles("sphere, raw isosurface", heart::minimumAngles(mesh));
}

TEST(SurfaceExtraction, DecimationKeepsTopologyAndVolume) {
    const auto image = sphereImage();
    const heart::ExtractionSettings settings = isoSettings(0.8);
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    const double reached = 1.0 - double(report.trianglesAfterDecimation) / double(report.trianglesExtracted);
    std::cout << "[ decimate ] " << report.trianglesExtracted << " -> " << report.trianglesAfterDecimation
              << " triangles (reduction " << reached << ", target 0.8)\n";
    EXPECT_NEAR(reached, 0.8, 0.03);
    EXPECT_EQ(mesh.triangles.size(), report.trianglesAfterDecimation);
    EXPECT_EQ(report.boundaryEdges, 0u);
    EXPECT_TRUE(heart::boundaryEdges(mesh).empty());
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::connectedComponents(mesh).count, 1u);
    EXPECT_FALSE(hasUnusedVertices(mesh));
    const double volume = mesh.enclosedVolume();
    EXPECT_GT(volume, 0.0);
    EXPECT_NEAR(volume / sphereVolume(kSphereRadius), 1.0, 0.02);
    const heart::AngleStats angles = heart::minimumAngles(mesh);
    printAngles("sphere, decimated 0.8", angles);
    EXPECT_GT(angles.minDeg, 0.0) << "decimation left a degenerate triangle";
    EXPECT_GT(angles.meanDeg, 20.0);
}

TEST(SurfaceExtraction, SmoothingFlattensVoxelNoiseAndKeepsTheVolume) {
    // The same noisy scan with and without smoothing: after smoothing and decimation the
    // vertices lie closer to the true sphere, neighbouring faces turn less, and the
    // volume is kept.
    const auto image = noisySphereImage();
    heart::ExtractionSettings raw = isoSettings();
    raw.smoothingIterations = 0;
    const heart::ExtractionSettings smoothed = isoSettings();
    ASSERT_GT(smoothed.smoothingIterations, 0) << "smoothing is on by default";
    heart::ExtractionReport rawReport, smoothReport;
    const TriangleMesh a = heart::extractSurface(image, raw, &rawReport);
    const TriangleMesh b = heart::extractSurface(image, smoothed, &smoothReport);
    const auto vertexError = [](const TriangleMesh& m) {
        double sum = 0.0;
        for (const Vec3& v : m.vertices) sum += std::abs(sphereDistance(v.x, v.y, v.z, kSphereCentre, kSphereRadius));
        return sum / double(m.vertices.size());
    };
    const NormalTurn turnA = normalTurn(a), turnB = normalTurn(b);
    std::cout << "[ smooth   ] noisy sphere: mean vertex error " << vertexError(a) << " -> " << vertexError(b)
              << " mm; neighbouring faces turn " << turnA.meanDeg << " -> " << turnB.meanDeg << " deg (mean), "
              << turnA.over60 << " -> " << turnB.over60 << " edges over 60 deg, " << turnA.folded << " -> "
              << turnB.folded << " over 150; smoothing " << smoothReport.msSmoothing << " ms\n";
    EXPECT_LT(vertexError(b), 0.5 * vertexError(a));
    EXPECT_LT(turnB.meanDeg, 0.5 * turnA.meanDeg);
    EXPECT_LT(turnB.over60, turnA.over60 / 4 + 1);
    // Windowed-sinc smoothing can turn a few of the noise's tiny triangles over, and so
    // can decimation (2 folded edges unsmoothed, 4 smoothed, of ~12k here): a handful.
    EXPECT_LE(turnB.folded, 10u);
    EXPECT_EQ(smoothReport.boundaryEdges, 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(b), 0u);
    EXPECT_NEAR(b.enclosedVolume() / sphereVolume(kSphereRadius), 1.0, 0.02);
}

TEST(SurfaceExtraction, SmoothingSettingsAreChecked) {
    const auto image = sphereImage();
    heart::ExtractionSettings s = isoSettings();
    s.smoothingIterations = -1;
    EXPECT_THROW(heart::extractSurface(image, s), std::invalid_argument);
    s = isoSettings();
    s.smoothingPassBand = 0.0;
    EXPECT_THROW(heart::extractSurface(image, s), std::invalid_argument);
}

TEST(SurfaceExtraction, DecimationReachesItsTargetOnANoisyScan) {
    // Voxel noise of 15 % of the blood/wall contrast: VTK's default feature angle (15
    // degrees) keeps so many corners that decimation stalls; the default of 30 does not.
    // Unsmoothed: smoothing removes most of the noise that stalls it.
    const auto image = noisySphereImage();
    heart::ExtractionSettings settings = isoSettings();
    settings.smoothingIterations = 0;
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    const double reached = 1.0 - double(report.trianglesAfterDecimation) / double(report.trianglesExtracted);
    heart::ExtractionSettings vtkDefault = settings;
    vtkDefault.featureAngleDeg = 15.0;
    heart::ExtractionReport stalled;
    heart::extractSurface(image, vtkDefault, &stalled);
    const double reachedAt15 = 1.0 - double(stalled.trianglesAfterDecimation) / double(stalled.trianglesExtracted);
    std::cout << "[ decimate ] noisy sphere, target 0.8: reduction " << reached << " at 30 degrees, " << reachedAt15
              << " at 15 degrees; duplicate triangles removed " << report.duplicateTrianglesRemoved << "\n";
    EXPECT_GT(reached, 0.75);
    EXPECT_LT(reachedAt15, 0.7);
    EXPECT_EQ(report.nonManifoldEdges, 0u);
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(mesh), 0u);
    EXPECT_EQ(report.boundaryEdges, 0u);
    EXPECT_NEAR(mesh.enclosedVolume() / sphereVolume(kSphereRadius), 1.0, 0.02);
}

TEST(SurfaceExtraction, IntegerScanWithVoxelsExactlyAtTheIsovalue) {
    // Integer intensities (as CT's Hounsfield units) and an integer isovalue: many voxels
    // sit exactly on it. They count as inside, and no zero-area triangle may appear.
    auto image = vtkSmartPointer<vtkImageData>::New();
    image->SetDimensions(48, 48, 48);
    vtkNew<vtkShortArray> values;
    values->SetNumberOfTuples(48 * 48 * 48);
    short* out = values->GetPointer(0);
    std::size_t atIso = 0;
    for (int k = 0; k < 48; ++k)
        for (int j = 0; j < 48; ++j)
            for (int i = 0; i < 48; ++i) {
                *out = short(std::lround(contrast(sphereDistance(i, j, k, {23.6, 24.2, 23.9}, 15.0))));
                atIso += *out++ == 200 ? 1 : 0;
            }
    image->GetPointData()->SetScalars(values);
    ASSERT_GT(atIso, 20u);
    heart::ExtractionSettings settings = isoSettings(0.0);
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    EXPECT_EQ(report.isovalueUsed, 199.5);
    const heart::AngleStats angles = heart::minimumAngles(mesh);
    printAngles("integer scan, raw isosurface", angles);
    EXPECT_GT(angles.minDeg, 0.0);
    EXPECT_TRUE(heart::boundaryEdges(mesh).empty());
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_NEAR(mesh.enclosedVolume() / sphereVolume(15.0), 1.0, 0.02);

    settings.isovalue = 199.75f;  // no voxel there: used as given
    heart::extractSurface(image, settings, &report);
    EXPECT_EQ(report.isovalueUsed, 199.75);
}

TEST(SurfaceExtraction, DarkRegionInBrightBloodFacesInwards) {
    // Inverted contrast: the blood surrounds a dark sphere. The surface must face the
    // dark side, so the closed sphere's enclosed volume comes out negative.
    const auto image = makeImage({48, 48, 48}, {0, 0, 0}, {1, 1, 1}, [](double x, double y, double z) {
        return contrast(-sphereDistance(x, y, z, {23.6, 24.1, 23.3}, 12.0));
    });
    const heart::ExtractionSettings settings = isoSettings();
    const TriangleMesh mesh = heart::extractSurface(image, settings);
    EXPECT_TRUE(heart::boundaryEdges(mesh).empty());
    EXPECT_NEAR(-mesh.enclosedVolume() / sphereVolume(12.0), 1.0, 0.02);
}

TEST(SurfaceExtraction, AnisotropicEllipsoidWithOffsetOrigin) {
    const double a = 24, b = 18, c = 14;
    const auto image = makeImage({76, 51, 33}, {-30, -25, -20}, {0.8, 1.0, 1.25}, [&](double x, double y, double z) {
        const double r = std::sqrt((x - 0.3) * (x - 0.3) / (a * a) + (y + 0.2) * (y + 0.2) / (b * b) +
                                   (z - 0.1) * (z - 0.1) / (c * c));
        return contrast((1.0 - r) * c);
    });
    const heart::ExtractionSettings settings = isoSettings(0.7);
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    EXPECT_EQ(report.boundaryEdges, 0u);
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_NEAR(mesh.enclosedVolume() / (4.0 / 3.0 * kPi * a * b * c), 1.0, 0.02);
    const auto box = mesh.bounds();
    EXPECT_NEAR(box.lo.x, 0.3 - a, 0.3);
    EXPECT_NEAR(box.hi.y, -0.2 + b, 0.3);
    EXPECT_NEAR(box.hi.z, 0.1 + c, 0.3);
}

TEST(SurfaceExtraction, DirectionMatrixIsHonoured) {
    // Sphere at index-frame offset (24, 20, 22) mm from the origin; the direction matrix
    // maps that offset into the world.
    const std::array<double, 3> origin{10, 20, 30};
    const auto image = makeImage({48, 48, 48}, origin, {1, 1, 1}, [&](double x, double y, double z) {
        return contrast(sphereDistance(x, y, z, {origin[0] + 24, origin[1] + 20, origin[2] + 22}, 12.0));
    });
    struct Case {
        const char* name;
        double m[9];
    };
    const Case cases[] = {{"rotation about z", {0, -1, 0, 1, 0, 0, 0, 0, 1}},
                          {"mirror in x", {-1, 0, 0, 0, 1, 0, 0, 0, 1}}};
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        image->SetDirectionMatrix(c.m);
        const heart::ExtractionSettings settings = isoSettings();
        const TriangleMesh mesh = heart::extractSurface(image, settings);
        const auto box = mesh.bounds();
        const double offset[3] = {24, 20, 22};
        for (int r = 0; r < 3; ++r) {
            const double expected = origin[r] + c.m[3 * r] * offset[0] + c.m[3 * r + 1] * offset[1] + c.m[3 * r + 2] * offset[2];
            EXPECT_NEAR(0.5 * (box.lo[r] + box.hi[r]), expected, 0.1) << "axis " << r;
        }
        EXPECT_NEAR(mesh.enclosedVolume() / sphereVolume(12.0), 1.0, 0.02);
    }
}

TEST(SurfaceExtraction, BlobCutByVolumeFacesHasBoundaryOnlyOnFaces) {
    // A sphere centred near the corner x = y = 0: the volume's faces cut it open.
    const auto image = makeImage({40, 40, 40}, {0, 0, 0}, {1, 1, 1}, [](double x, double y, double z) {
        return contrast(sphereDistance(x, y, z, {3.2, 6.7, 20.4}, 14.0));
    });
    const heart::ExtractionSettings settings = isoSettings(0.8, 4.0);
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    const auto edges = heart::boundaryEdges(mesh);
    EXPECT_GT(edges.size(), 20u);
    EXPECT_EQ(report.boundaryEdges, edges.size());
    EXPECT_EQ(report.boundaryEdgesOffVolumeFaces, 0u);
    EXPECT_EQ(report.holesCapped, 0u) << "openings at the volume's faces are not capped";
    EXPECT_EQ(report.holesLeftOpen, 0u);
    EXPECT_EQ(report.trianglesRemovedAsNoise, 0u);
    bool onX = false, onY = false;
    for (const auto& e : edges) {
        const Vec3 p = mesh.vertices[e[0]], q = mesh.vertices[e[1]];
        const bool x0 = p.x == 0.f && q.x == 0.f, y0 = p.y == 0.f && q.y == 0.f;
        ASSERT_TRUE(x0 || y0) << "boundary edge off the volume's faces at " << p.x << ", " << p.y << ", " << p.z;
        onX |= x0;
        onY |= y0;
    }
    EXPECT_TRUE(onX && onY);
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(mesh), 0u);
}

TEST(SurfaceExtraction, NoiseBlobsAreRemovedDuringExtraction) {
    // A chamber, a thin vessel longer than the box, a blob larger than the box, and small
    // bright specks in the wall (contrast noise) that the isosurface turns into islands.
    const std::array<double, 3> chamber{30.4, 32.3, 31.8};
    const std::vector<std::array<double, 3>> specks = {{8, 8, 8}, {8, 56, 10}, {55, 8, 50}, {56, 50, 9}, {9, 30, 56}};
    const auto image = makeImage({64, 64, 64}, {0, 0, 0}, {1, 1, 1}, [&](double x, double y, double z) {
        double d = sphereDistance(x, y, z, chamber, 14.0);
        // vessel: radius 1.5 mm, along z from z = 20 to z = 44 at (56, 30)
        const double radial = std::hypot(x - 56.0, y - 30.0);
        d = std::max(d, std::min(1.5 - radial, std::min(z - 20.0, 44.0 - z)));
        d = std::max(d, sphereDistance(x, y, z, {10, 32, 32}, 4.5));  // 9 mm blob
        for (const auto& s : specks) d = std::max(d, sphereDistance(x, y, z, s, 1.2));
        return contrast(d);
    });
    const heart::ExtractionSettings settings = isoSettings(0.5, 6.0);
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    EXPECT_EQ(report.structuresRemovedAsNoise, specks.size());
    EXPECT_GT(report.trianglesRemovedAsNoise, 0u);
    EXPECT_EQ(mesh.triangles.size(), report.trianglesAfterDecimation - report.trianglesRemovedAsNoise);
    const heart::Components c = heart::connectedComponents(mesh);
    EXPECT_EQ(c.count, 3u) << "chamber, vessel and the 9 mm blob stay";
    EXPECT_EQ(report.boundaryEdges, 0u);
    EXPECT_FALSE(hasUnusedVertices(mesh));
    const auto box = mesh.bounds();
    EXPECT_GT(box.hi.x, 57.0f);  // the vessel is still there
}

TEST(SurfaceExtraction, VolumeOverloadMatchesImageData) {
    heart::Volume volume;
    volume.nx = 40;
    volume.ny = 36;
    volume.nz = 32;
    volume.origin = {-5.f, 2.f, 1.f};
    volume.spacing = {1.f, 1.1f, 1.2f};
    volume.values.resize(volume.voxelCount());
    const std::array<double, 3> centre{14.3, 21.0, 19.6};
    for (int k = 0; k < volume.nz; ++k)
        for (int j = 0; j < volume.ny; ++j)
            for (int i = 0; i < volume.nx; ++i) {
                const Vec3 p = volume.position(i, j, k);
                volume.at(i, j, k) = float(contrast(sphereDistance(p.x, p.y, p.z, centre, 11.0)));
            }
    const auto image = makeImage({40, 36, 32}, {-5, 2, 1}, {1.0, double(1.1f), double(1.2f)},
                                 [&](double x, double y, double z) { return contrast(sphereDistance(x, y, z, centre, 11.0)); });
    const heart::ExtractionSettings settings = isoSettings(0.0);
    const TriangleMesh fromVolume = heart::extractSurface(volume, settings);
    const TriangleMesh fromImage = heart::extractSurface(image, settings);
    EXPECT_EQ(fromVolume.triangles.size(), fromImage.triangles.size());
    EXPECT_NEAR(fromVolume.enclosedVolume(), fromImage.enclosedVolume(), 1e-3 * fromImage.enclosedVolume());
    EXPECT_NEAR(fromVolume.enclosedVolume() / sphereVolume(11.0), 1.0, 0.02);

    heart::Volume bad = volume;
    bad.values.pop_back();
    EXPECT_THROW(heart::extractSurface(bad, settings), std::invalid_argument);
}

TEST(SurfaceExtraction, ProgressCancellationAndErrors) {
    const auto image = sphereImage();
    const heart::ExtractionSettings settings = isoSettings(heart::ExtractionSettings{}.decimation, 3.0);
    std::vector<double> seen;
    heart::extractSurface(image, settings, nullptr, [&seen](double f) { seen.push_back(f); });
    ASSERT_GE(seen.size(), 4u);
    EXPECT_EQ(seen.front(), 0.0);
    EXPECT_EQ(seen.back(), 1.0);
    EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));

    struct Cancelled {};
    EXPECT_THROW(heart::extractSurface(image, settings, nullptr,
                                       [](double f) {
                                           if (f > 0.4) throw Cancelled{};
                                       }),
                 Cancelled);

    heart::ExtractionSettings outside = settings;
    outside.isovalue = 1000.f;
    try {
        heart::extractSurface(image, outside);
        FAIL() << "an isovalue above every voxel must be refused";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("outside the volume's intensity range"), std::string::npos) << e.what();
    }
    EXPECT_THROW(heart::extractSurface(static_cast<vtkImageData*>(nullptr), settings), std::invalid_argument);
    heart::ExtractionSettings badDecimation = settings;
    badDecimation.decimation = 1.0;
    EXPECT_THROW(heart::extractSurface(image, badDecimation), std::invalid_argument);
    vtkNew<vtkImageData> noScalars;
    noScalars->SetDimensions(4, 4, 4);
    EXPECT_THROW(heart::extractSurface(noScalars, settings), std::invalid_argument);
}

TEST(SurfaceExtraction, HeartSized128Volume) {
    // A 128^3, 1 mm left-heart-like phantom: ventricle + atrium + an aorta leaving
    // through the top face, mild voxel noise and bright specks in the background.
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0.0, 5.0);
    std::uniform_real_distribution<double> where(6.0, 121.0);
    auto heartDistance = [](double x, double y, double z) {
        const double r = std::sqrt((x - 64) * (x - 64) / (22.0 * 22.0) + (y - 60) * (y - 60) / (20.0 * 20.0) +
                                   (z - 48) * (z - 48) / (34.0 * 34.0));
        double d = (1.0 - r) * 20.0;                                  // ventricle
        d = std::max(d, sphereDistance(x, y, z, {60, 64, 92}, 18.0));  // atrium
        const double radial = std::hypot(x - 80.0, y - 58.0);
        d = std::max(d, std::min(10.0 - radial, z - 60.0));           // aorta, open at z = 127
        return d;
    };
    std::vector<std::array<double, 3>> specks;
    while (specks.size() < 40) {
        const std::array<double, 3> s{where(rng), where(rng), where(rng)};
        bool farEnough = heartDistance(s[0], s[1], s[2]) < -10.0;
        for (const auto& o : specks)
            farEnough = farEnough && std::hypot(s[0] - o[0], s[1] - o[1], s[2] - o[2]) > 10.0;
        if (farEnough) specks.push_back(s);
    }
    const auto image = makeImage({128, 128, 128}, {0, 0, 0}, {1, 1, 1}, [&](double x, double y, double z) {
        double d = heartDistance(x, y, z);
        for (const auto& s : specks)
            if (std::abs(x - s[0]) < 4 && std::abs(y - s[1]) < 4 && std::abs(z - s[2]) < 4)
                d = std::max(d, sphereDistance(x, y, z, s, 1.3));
        return contrast(d) + noise(rng);
    });
    const heart::ExtractionSettings settings = isoSettings(0.8, 6.0);
    heart::ExtractionReport report;
    const TriangleMesh mesh = heart::extractSurface(image, settings, &report);
    std::cout << "[ timing   ] 128^3: isosurface " << report.msIsosurface << " ms (" << report.trianglesExtracted
              << " triangles), smoothing " << report.msSmoothing << " ms, decimation " << report.msDecimation
              << " ms (" << report.trianglesAfterDecimation
              << "), noise removal " << report.msNoiseRemoval << " ms (" << report.trianglesRemovedAsNoise
              << " triangles in " << report.structuresRemovedAsNoise << " structures), boundary+caps "
              << report.msCapping << " ms; duplicate triangles removed after decimation: "
              << report.duplicateTrianglesRemoved << "\n";
    EXPECT_EQ(report.structuresRemovedAsNoise, specks.size());
    EXPECT_EQ(heart::connectedComponents(mesh).count, 1u);
    EXPECT_EQ(report.nonManifoldEdges, 0u);
    EXPECT_GT(report.boundaryEdges, 0u) << "the aorta leaves through the top face";
    EXPECT_EQ(report.boundaryEdgesOffVolumeFaces, 0u);
    EXPECT_EQ(heart::nonManifoldEdgeCount(mesh), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(mesh), 0u);
    const heart::AngleStats angles = heart::minimumAngles(mesh);
    printAngles("128^3 heart, decimated 0.8", angles);
    EXPECT_GT(angles.minDeg, 0.0);
}

// ---------------------------------------------------------------------------------------
// Box-bounded noise removal

const heart::NoiseSearch kSearches[] = {heart::NoiseSearch::PrunedByPiece, heart::NoiseSearch::EveryVertex};
const char* searchName(heart::NoiseSearch s) {
    return s == heart::NoiseSearch::PrunedByPiece ? "pruned by piece" : "every vertex";
}

TEST(NoiseRemoval, RemovesSmallIslandsKeepsLargerAndThinStructures) {
    for (const heart::NoiseSearch search : kSearches) {
        SCOPED_TRACE(searchName(search));
        TriangleMesh mesh = TriangleMesh::icosphere({0, 0, 0}, 20.f, 4);  // the heart: 5120 triangles
        const std::vector<Vec3> islands = {{40, 0, 0}, {40, 10, 0}, {-40, 0, 0}, {0, 40, 0}, {0, 0, 40}};
        for (const Vec3& c : islands) append(mesh, TriangleMesh::icosphere(c, 1.f, 2));  // 2 mm wide
        append(mesh, TriangleMesh::icosphere({0, -40, 0}, 4.f, 2));                      // 8 mm: larger than the box
        TriangleMesh rod = makeTube({30, 30, -6}, 0.3f, 12.f, 6, 13);                    // thin, 12 mm long
        ASSERT_EQ(heart::capHoles(rod, 1.0), 2u);
        append(mesh, rod);
        const std::size_t before = mesh.triangles.size();
        const std::size_t keptVertices = mesh.vertices.size() - islands.size() * 162;

        std::size_t structures = 0;
        const std::size_t removed = heart::removeNoise(mesh, 5.0, &structures, {}, search);
        EXPECT_EQ(structures, islands.size());
        EXPECT_EQ(removed, islands.size() * 320);
        EXPECT_EQ(mesh.triangles.size(), before - removed);
        EXPECT_EQ(mesh.vertices.size(), keptVertices);
        EXPECT_FALSE(hasUnusedVertices(mesh));
        const heart::Components c = heart::connectedComponents(mesh);
        ASSERT_EQ(c.count, 3u);
        EXPECT_EQ(c.trianglesPerComponent[0], 5120u);
        EXPECT_EQ(c.trianglesPerComponent[1], 320u);
        EXPECT_EQ(c.trianglesPerComponent[2], rod.triangles.size());
        EXPECT_TRUE(heart::boundaryEdges(mesh).empty());
        EXPECT_GT(mesh.enclosedVolume(), 0.0);

        // Idempotent; a box larger than everything removes everything.
        EXPECT_EQ(heart::removeNoise(mesh, 5.0, nullptr, {}, search), 0u);
        const std::size_t remaining = mesh.triangles.size();
        EXPECT_EQ(heart::removeNoise(mesh, 100.0, &structures, {}, search), remaining);
        EXPECT_EQ(structures, 3u);
        EXPECT_TRUE(mesh.vertices.empty());
        EXPECT_THROW(heart::removeNoise(mesh, 0.0), std::invalid_argument);
    }
}

/// A flat sheet in z = 0 over [-5, 5]^2 whose middle [-1, 1]^2 is an 8-triangle fan
/// around the origin. The ring around the fan touches the box [-1, 1]^3 (centred on the
/// fan's centre) only through the fan's rim edges, which lie exactly on faces of the box.
TEST(NoiseRemoval, TriangleTouchingTheBoxByAnEdgeIsKeptByCondition2) {
    auto sheet = [](bool detachFan) {
        TriangleMesh m;
        const float rim[8][2] = {{1, 0}, {1, 1}, {0, 1}, {-1, 1}, {-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
        m.vertices.push_back({0, 0, 0});
        for (const auto& r : rim) m.vertices.push_back({r[0], r[1], 0});          // 1..8: fan rim
        for (const auto& r : rim) m.vertices.push_back({5 * r[0], 5 * r[1], 0});  // 9..16: outer
        std::uint32_t ringRim = 1;
        if (detachFan) {  // the ring gets its own copy of the rim: the fan becomes an island
            ringRim = std::uint32_t(m.vertices.size());
            for (const auto& r : rim) m.vertices.push_back({r[0], r[1], 0});
        }
        for (std::uint32_t i = 0; i < 8; ++i) {
            const std::uint32_t j = (i + 1) % 8;
            m.triangles.push_back({0, 1 + i, 1 + j});
            m.triangles.push_back({ringRim + i, 9 + i, 9 + j});
            m.triangles.push_back({ringRim + i, 9 + j, ringRim + j});
        }
        return m;
    };
    for (const heart::NoiseSearch search : kSearches) {
        SCOPED_TRACE(searchName(search));
        TriangleMesh attached = sheet(false);
        ASSERT_EQ(heart::nonManifoldEdgeCount(attached), 0u);
        const std::size_t n = attached.triangles.size();
        EXPECT_EQ(heart::removeNoise(attached, 2.0, nullptr, {}, search), 0u)
            << "the fan belongs to the sheet through its rim edges";
        EXPECT_EQ(attached.triangles.size(), n);

        // Same box, same set S (the fan): only condition 2 tells the two cases apart.
        TriangleMesh detached = sheet(true);
        std::size_t structures = 0;
        EXPECT_EQ(heart::removeNoise(detached, 2.0, &structures, {}, search), 8u);
        EXPECT_EQ(structures, 1u);
        EXPECT_EQ(detached.triangles.size(), n - 8);
        EXPECT_FALSE(hasUnusedVertices(detached));
    }
}

/// A tent dipping from a large plate in z = 1 down to the origin; the plate's triangles
/// around the tent lie exactly in the top face of the box [-1, 1]^3 centred on the apex.
TEST(NoiseRemoval, TriangleLyingOnABoxFaceIsKeptByCondition2) {
    auto tentAndPlate = [](bool detachTent) {
        TriangleMesh m;
        m.vertices = {{0, 0, 0},                                                   // 0 apex
                      {-0.5f, -0.5f, 1}, {0.5f, -0.5f, 1}, {0, 0.5f, 1},           // 1-3 tent base
                      {-0.9f, -0.9f, 1}, {0.9f, -0.9f, 1}, {0.9f, 0.9f, 1}, {-0.9f, 0.9f, 1},  // 4-7 in the face
                      {-5, -5, 1}, {5, -5, 1}, {5, 5, 1}, {-5, 5, 1}};             // 8-11 outside
        std::uint32_t a = 1, b = 2, d = 3;
        if (detachTent) {
            a = std::uint32_t(m.vertices.size());
            m.vertices.push_back(m.vertices[1]);
            m.vertices.push_back(m.vertices[2]);
            m.vertices.push_back(m.vertices[3]);
            b = a + 1;
            d = a + 2;
        }
        m.triangles = {{0, a, b}, {0, b, d}, {0, d, a}};                           // tent
        m.triangles.insert(m.triangles.end(), {{1, 5, 4}, {1, 2, 5}, {2, 6, 5}, {2, 3, 6},  // plate inside the face
                                               {3, 7, 6}, {3, 1, 7}, {1, 4, 7}});
        for (std::uint32_t i = 0; i < 4; ++i) {                                    // plate outside the box
            const std::uint32_t j = (i + 1) % 4;
            m.triangles.push_back({4 + i, 8 + j, 8 + i});
            m.triangles.push_back({4 + i, 4 + j, 8 + j});
        }
        return m;
    };
    for (const heart::NoiseSearch search : kSearches) {
        SCOPED_TRACE(searchName(search));
        TriangleMesh attached = tentAndPlate(false);
        ASSERT_EQ(heart::nonManifoldEdgeCount(attached), 0u);
        const std::size_t n = attached.triangles.size();
        EXPECT_EQ(heart::removeNoise(attached, 2.0, nullptr, {}, search), 0u);
        EXPECT_EQ(attached.triangles.size(), n);

        TriangleMesh detached = tentAndPlate(true);
        std::size_t structures = 0;
        EXPECT_EQ(heart::removeNoise(detached, 2.0, &structures, {}, search), 3u);
        EXPECT_EQ(structures, 1u);
    }
}

// ---------------------------------------------------------------------------------------
// Hole capping

TEST(CapHoles, ClosesAVentricleLikeCupOpenAtTheTop) {
    const TriangleMesh sphere = TriangleMesh::icosphere({0, 0, 0}, 10.f, 3);
    TriangleMesh cup;
    cup.vertices = sphere.vertices;
    for (const auto& t : sphere.triangles)
        if (sphere.vertices[t[0]].z + sphere.vertices[t[1]].z + sphere.vertices[t[2]].z < 3 * 6.f)
            cup.triangles.push_back(t);
    heart::compactVertices(cup);
    const std::size_t openEdges = heart::boundaryEdges(cup).size();
    ASSERT_GT(openEdges, 10u);
    const std::size_t before = cup.triangles.size();

    EXPECT_EQ(heart::capHoles(cup, 30.0), 1u);
    EXPECT_EQ(cup.triangles.size(), before + openEdges - 2);
    EXPECT_TRUE(heart::boundaryEdges(cup).empty());
    EXPECT_EQ(heart::nonManifoldEdgeCount(cup), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(cup), 0u);
    // Roughly a sphere minus a cap of height ~4: positive and below the sphere's volume.
    const double v = cup.enclosedVolume();
    EXPECT_GT(v, 0.8 * sphereVolume(10.0));
    EXPECT_LT(v, sphereVolume(10.0));
    TriangleMesh capOnly;
    capOnly.vertices = cup.vertices;
    capOnly.triangles.assign(cup.triangles.begin() + std::ptrdiff_t(before), cup.triangles.end());
    const heart::AngleStats capAngles = heart::minimumAngles(capOnly);
    printAngles("cup cap", capAngles);
    EXPECT_GT(capAngles.minDeg, 1.0);
    EXPECT_EQ(heart::capHoles(cup, 30.0), 0u) << "a closed mesh has nothing to cap";
}

TEST(CapHoles, ClosesBothEndsOfATubeWithAWavyRim) {
    TriangleMesh tube = makeTube({0, 0, 0}, 5.f, 20.f, 32, 11, 2.f);
    ASSERT_EQ(heart::boundaryEdges(tube).size(), 64u);
    EXPECT_EQ(heart::capHoles(tube, 12.0), 2u);
    EXPECT_TRUE(heart::boundaryEdges(tube).empty());
    EXPECT_EQ(heart::nonManifoldEdgeCount(tube), 0u);
    EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(tube), 0u);
    // The caps interpolate the wavy rim (heights 18..22 mm) over the 32-gon.
    const double polygonArea = 0.5 * 32 * 25.0 * std::sin(2.0 * kPi / 32);
    EXPECT_GT(tube.enclosedVolume(), polygonArea * 18.0);
    EXPECT_LT(tube.enclosedVolume(), polygonArea * 22.0);
}

TEST(CapHoles, RefusesWhatItCannotCloseWithAClearMessage) {
    TriangleMesh tube = makeTube({0, 0, 0}, 15.f, 20.f, 24, 5);
    const TriangleMesh original = tube;
    try {
        heart::capHoles(tube, 20.0);
        FAIL() << "a 30 mm hole is wider than 20 mm";
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("wider than the limit of 20 mm"), std::string::npos) << what;
        EXPECT_NE(what.find("24 boundary edges"), std::string::npos) << what;
    }
    EXPECT_EQ(tube.triangles, original.triangles) << "a refused mesh is left unchanged";

    // Two triangles touching at one vertex: that vertex is on two holes at once.
    TriangleMesh bowtie;
    bowtie.vertices = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {-1, 0, 0}, {-1, -1, 0}};
    bowtie.triangles = {{0, 1, 2}, {0, 3, 4}};
    try {
        heart::capHoles(bowtie, 100.0);
        FAIL() << "a non-simple boundary must be refused";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("not a simple loop"), std::string::npos) << e.what();
    }

    // A boundary that crosses itself in its mean plane: a strip twisted into a figure 8.
    TriangleMesh twisted;
    const int n = 24;
    for (int i = 0; i < n; ++i) {
        const double t = 2.0 * kPi * i / n;
        const Vec3 centre{float(10 * std::sin(t)), float(5 * std::sin(2 * t)), 0.f};
        twisted.vertices.push_back(centre + Vec3{0, 0, -0.5f});
        twisted.vertices.push_back(centre + Vec3{0, 0, 0.5f});
    }
    for (int i = 0; i < n; ++i) {
        const auto a = std::uint32_t(2 * i), b = std::uint32_t(2 * ((i + 1) % n));
        twisted.triangles.push_back({a, b, b + 1});
        twisted.triangles.push_back({a, b + 1, a + 1});
    }
    try {
        heart::capHoles(twisted, 100.0);
        FAIL() << "a self-crossing boundary must be refused";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find("cannot close hole"), std::string::npos) << e.what();
    }
    EXPECT_THROW(heart::capHoles(tube, 0.0), std::invalid_argument);
}

} // namespace
