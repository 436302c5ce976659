// Points on the beating wall (3D labels of narratives): picking by ray, and following
// a point while the wall moves and switches connectivity, without drift over beats.

#include "sim/heart/HeartPipeline.h"
#include "widgets/view/WallAnchor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numbers>

using atrium::narrative::Vec3;
using atrium::widgets::WallAnchor;
using atrium::widgets::intersectWall;
using atrium::widgets::wallCrossings;

namespace {

constexpr double kPi = std::numbers::pi;

/// A UV sphere of radius r: its vertices, and its quads split along one diagonal or
/// the other (two connectivities over the same vertices, as the heart switches meshes).
struct Sphere {
    std::vector<float> vertices;
    std::vector<std::uint32_t> diagonalA, diagonalB;
};

Sphere sphere(double r, int rings = 24, int segments = 48) {
    Sphere s;
    for (int i = 0; i <= rings; ++i)
        for (int j = 0; j < segments; ++j) {
            const double theta = kPi * i / rings, phi = 2 * kPi * j / segments;
            s.vertices.insert(s.vertices.end(), {float(r * std::sin(theta) * std::cos(phi)), float(r * std::sin(theta) * std::sin(phi)),
                                                 float(r * std::cos(theta))});
        }
    auto at = [&](int i, int j) { return std::uint32_t(i * segments + (j % segments)); };
    for (int i = 0; i < rings; ++i)
        for (int j = 0; j < segments; ++j) {
            const std::uint32_t a = at(i, j), b = at(i, j + 1), c = at(i + 1, j), d = at(i + 1, j + 1);
            s.diagonalA.insert(s.diagonalA.end(), {a, c, d, a, d, b});
            s.diagonalB.insert(s.diagonalB.end(), {a, c, b, b, c, d});
        }
    return s;
}

double radiusAt(double cycle) { return 20.0 + 5.0 * std::sin(2 * kPi * cycle); }

} // namespace

TEST(WallAnchor, SightLinesCountTheWallsTheyCross) {
    // The chamber labels' occlusion (ViewAnnotations::labelBehindWall): a point inside a
    // closed surface is seen from outside through one crossing, through the whole
    // surface by two, from inside by none. Off the sphere's vertices and edges.
    const Sphere s = sphere(20.0);
    const Vec3 eye{1.3, -100, 0.7};
    EXPECT_EQ(wallCrossings(s.vertices, s.diagonalA, eye, {1.3, 0, 0.7}), 1u) << "inside, seen from outside";
    EXPECT_EQ(wallCrossings(s.vertices, s.diagonalA, eye, {1.3, 100, 0.7}), 2u) << "behind the sphere";
    EXPECT_EQ(wallCrossings(s.vertices, s.diagonalA, eye, {1.3, -50, 0.7}), 0u) << "in front of it";
    EXPECT_EQ(wallCrossings(s.vertices, s.diagonalB, {0.3, 0.2, 0.1}, {1.3, 5, 0.7}), 0u) << "both inside";
    EXPECT_EQ(wallCrossings({}, {}, eye, {0, 0, 0}), 0u);
    EXPECT_EQ(wallCrossings(s.vertices, {0, 1, 99999}, eye, {0, 0, 0}), 0u) << "index out of range";
}

TEST(WallAnchor, PickFindsTheNearestWallAlongTheRay) {
    const Sphere s = sphere(20.0);
    const auto hit = intersectWall(s.vertices, s.diagonalA, {0, -100, 0}, {0, 1, 0});
    ASSERT_TRUE(hit);
    EXPECT_NEAR(hit->y, -20.0, 0.3); // the near side, not the far one (the mesh is a polyhedron)
    EXPECT_NEAR(hit->x, 0.0, 1e-9);
    EXPECT_FALSE(intersectWall(s.vertices, s.diagonalA, {0, -100, 0}, {0, -1, 0})) << "behind the camera";
    EXPECT_FALSE(intersectWall(s.vertices, s.diagonalA, {0, -100, 50}, {0, 1, 0})) << "above the sphere";
    EXPECT_FALSE(intersectWall({}, {}, {0, 0, 0}, {0, 1, 0}));
    EXPECT_FALSE(intersectWall(s.vertices, {0, 1, 99999}, {0, -100, 0}, {0, 1, 0})) << "index out of range";
}

TEST(WallAnchor, FollowsTheBeatingWallWithoutDrift) {
    // The label's point, picked on the sphere at cycle 0, 30 degrees above the equator.
    const Sphere rest = sphere(radiusAt(0.0));
    const Vec3 direction{std::cos(kPi / 6) * std::cos(0.3), std::cos(kPi / 6) * std::sin(0.3), std::sin(kPi / 6)};
    const auto picked = intersectWall(rest.vertices, rest.diagonalA, direction * 100.0, direction * -1.0);
    ASSERT_TRUE(picked);
    WallAnchor anchor(*picked);
    std::uint64_t topology = 0;
    std::optional<Vec3> startOfBeat;
    bool lastWasA = true;
    for (int frame = 0; frame <= 3 * 100; ++frame) {
        const double cycle = frame / 100.0;
        const double phase = cycle - std::floor(cycle);
        const bool useA = phase < 0.5;
        if (useA != lastWasA || frame == 0) ++topology;
        lastWasA = useA;
        const Sphere s = sphere(radiusAt(cycle));
        const Vec3 p = anchor.follow(s.vertices, useA ? s.diagonalA : s.diagonalB, topology);
        // On the wall: the sphere mesh lies within 0.3 mm of the true sphere here...
        EXPECT_NEAR(length(p), radiusAt(cycle), 0.3) << "frame " << frame;
        // ...and the point keeps its place on it (it moves radially as the wall does).
        EXPECT_LT(std::acos(std::min(1.0, dot(normalized(p), direction))), 0.02) << "frame " << frame;
        if (frame % 100 == 0) {
            if (startOfBeat) {
                EXPECT_NEAR(length(p - *startOfBeat), 0.0, 1e-9) << "drifted over a beat, frame " << frame;
            }
            startOfBeat = p;
        }
    }
    EXPECT_EQ(anchor.bindings(), 2u) << "one binding per connectivity";
}

// The real moving heart (the adult phantom, interpolated over its cycle with the
// connectivity switching half way between phases): a label glued to the LV free wall
// stays on the wall in every frame, moves with it, and after each beat is back where
// it was, seen by a fixed camera within 2 px (Atrium issue 12: "a 3D label stays within
// 2 px of its projected point over a beat").
TEST(WallAnchor, StaysOnTheBeatingPhantomWall) {
    using namespace atrium;
    heart::PipelineSettings settings = heart::PipelineSettings::forBlood();
    settings.cacheDirectory = std::filesystem::path(ATRIUM_TEST_CACHE_DIR);
    const heart::MovingHeartMesh heart = heart::loadHeart(heart::HeartSource::fromPreset("adult"), settings);
    sph::TriangleMesh mesh;
    std::vector<sph::Vec3> velocity;
    auto wallAt = [&](double cycle, std::vector<float>& v, std::vector<std::uint32_t>& t) {
        const int topology = heart.sample(cycle, 0.8, mesh, velocity);
        v.clear();
        t.clear();
        for (const sph::Vec3& p : mesh.vertices) v.insert(v.end(), {float(p.x), float(p.y), float(p.z)});
        for (const auto& tri : mesh.triangles) t.insert(t.end(), tri.begin(), tri.end());
        return std::uint64_t(topology);
    };
    // A camera 200 mm to the left of the ventricle, looking along +x; 720 px high, 40 degrees.
    const Vec3 eye{-200, 0, -40};
    const double focal = 360.0 / std::tan(20.0 * kPi / 180.0);
    auto project = [&](const Vec3& p) { return std::pair{640.0 + focal * (p.y - eye.y) / (p.x - eye.x), 360.0 - focal * (p.z - eye.z) / (p.x - eye.x)}; };

    std::vector<float> v;
    std::vector<std::uint32_t> t;
    wallAt(0.0, v, t);
    const auto picked = intersectWall(v, t, eye, {1, 0, 0});
    ASSERT_TRUE(picked);
    WallAnchor anchor(*picked);
    constexpr int kSamples = 120;
    std::vector<std::pair<double, double>> firstBeat;
    double travel = 0.0;
    for (int beat = 0; beat < 3; ++beat)
        for (int s = 0; s < kSamples; ++s) {
            const std::uint64_t topology = wallAt(double(s) / kSamples, v, t);
            const Vec3 p = anchor.follow(v, t, topology);
            // On the wall: the nearest point of the wall is where the label points.
            double nearest = 1e9;
            for (std::size_t k = 0; k < t.size(); k += 3) {
                const auto hit = intersectWall(v, {t[k], t[k + 1], t[k + 2]}, p - Vec3{1, 0, 0} * 0.05, {1, 0, 0});
                if (hit) nearest = std::min(nearest, length(*hit - p));
            }
            EXPECT_LT(nearest, 0.06) << "beat " << beat << " sample " << s;
            const auto px = project(p);
            if (beat == 0) {
                if (!firstBeat.empty()) travel = std::max(travel, std::hypot(px.first - firstBeat[0].first, px.second - firstBeat[0].second));
                firstBeat.push_back(px);
            } else {
                EXPECT_LT(std::hypot(px.first - firstBeat[std::size_t(s)].first, px.second - firstBeat[std::size_t(s)].second), 2.0)
                    << "drifted: beat " << beat << " sample " << s;
            }
        }
    EXPECT_GT(travel, 4.0) << "the label moves with the beating wall";
}
