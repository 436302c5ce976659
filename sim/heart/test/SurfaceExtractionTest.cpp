// Volume -> surface: isosurface, decimation, smoothing, noise removed while extracting,
// progress and errors (Poyart 2016, 3.1-3.3), and the mesh conversion/statistics helpers.
// Box-bounded noise removal and hole capping on their own: NoiseRemovalAndHoleCappingTest.cpp.

#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"
#include "sim/heart/test/SurfaceExtractionTestSupport.h"

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
#include <utility>
#include <vector>

namespace {

using atrium::sph::TriangleMesh;
using atrium::sph::Vec3;
namespace heart = atrium::heart;
using atrium::heart::test::append;
using atrium::heart::test::hasUnusedVertices;
using atrium::heart::test::kPi;
using atrium::heart::test::printAngles;
using atrium::heart::test::sphereVolume;

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

} // namespace
