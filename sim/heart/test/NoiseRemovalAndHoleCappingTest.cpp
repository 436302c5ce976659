// Box-bounded noise removal (both searches, and the box's condition 2) and hole capping
// with its refusals, on meshes built by hand (Poyart 2016, 3.1-3.3; the extraction that
// runs them is in SurfaceExtractionTest.cpp).

#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/test/SurfaceExtractionTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
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
