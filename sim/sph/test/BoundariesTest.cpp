// Box container (elastic collision, Poyart 2016 3.5.2.1), planes and outlets.
#include "sim/sph/Boundaries.h"

#include <gtest/gtest.h>

#include <random>

using namespace atrium::sph;

TEST(BoxContainer, ReflectsWithRestitution) {
    const BoxContainer box{{{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}}, 0.5f};
    Vec3 p{0.5f, 0.5f, -0.1f}, v{0.f, 0.f, -2.f};
    EXPECT_TRUE(collideWithBox(box, p, v));
    EXPECT_FLOAT_EQ(p.z, 0.05f); // overshoot mirrored and scaled by e
    EXPECT_FLOAT_EQ(v.z, 1.f);   // normal velocity reversed and scaled by e
    EXPECT_FLOAT_EQ(v.x, 0.f);
}

TEST(BoxContainer, CornersEndInsideWhateverTheOvershoot) {
    const BoxContainer box{{{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}}, 1.f};
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(-3.f, 4.f);
    for (int i = 0; i < 10000; ++i) {
        Vec3 p{u(rng), u(rng), u(rng)}, v{u(rng), u(rng), u(rng)};
        collideWithBox(box, p, v);
        EXPECT_TRUE(box.bounds.contains(p)) << p.x << " " << p.y << " " << p.z;
    }
}

TEST(BoxContainer, ElasticCornerHitKeepsSpeed) {
    const BoxContainer box{{{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}}, 1.f};
    Vec3 p{1.1f, 1.05f, 0.5f}, v{1.f, 2.f, 0.f};
    collideWithBox(box, p, v);
    EXPECT_NEAR(p.x, 0.9f, 1e-6f);
    EXPECT_NEAR(p.y, 0.95f, 1e-6f);
    EXPECT_FLOAT_EQ(v.x, -1.f);
    EXPECT_FLOAT_EQ(v.y, -2.f);
}

TEST(BoundaryPlane, TwoSidedBlocksBothDirections) {
    BoundaryPlane wall{{0.f, 0.f, 0.f}, {1.f, 0.f, 0.f}, 0.f, PlaneKind::TwoSided, 0.f};
    for (float dir : {1.f, -1.f}) {
        Vec3 prev{-0.1f * dir, 0.f, 0.f}, p{0.1f * dir, 0.f, 0.f}, v{dir, 0.f, 0.f};
        EXPECT_TRUE(collideWithPlane(wall, prev, p, v));
        EXPECT_LT(p.x * dir, 0.f) << "stays on the side it came from";
        EXPECT_LE(v.x * dir, 0.f);
    }
}

TEST(BoundaryPlane, OneWayLetsFlowPassOnlyAlongTheNormal) {
    BoundaryPlane valve{{0.f, 0.f, 0.f}, {0.f, 0.f, 1.f}, 0.f, PlaneKind::OneWay, 0.f};
    Vec3 p{0.f, 0.f, 0.01f}, v{0.f, 0.f, 1.f};
    EXPECT_FALSE(collideWithPlane(valve, {0.f, 0.f, -0.01f}, p, v));
    EXPECT_FLOAT_EQ(p.z, 0.01f);
    Vec3 q{0.f, 0.f, -0.01f}, w{0.f, 0.f, -1.f};
    EXPECT_TRUE(collideWithPlane(valve, {0.f, 0.f, 0.01f}, q, w));
    EXPECT_GT(q.z, 0.f);
    EXPECT_GE(w.z, 0.f);
}

TEST(BoundaryPlane, DiscOnlyBlocksInsideItsRadius) {
    BoundaryPlane disc{{0.f, 0.f, 0.f}, {0.f, 0.f, 1.f}, 0.1f, PlaneKind::TwoSided, 0.5f};
    Vec3 outside{0.2f, 0.f, -0.01f}, v{0.f, 0.f, -1.f};
    EXPECT_FALSE(collideWithPlane(disc, {0.2f, 0.f, 0.01f}, outside, v));
    Vec3 inside{0.05f, 0.f, -0.01f};
    EXPECT_TRUE(collideWithPlane(disc, {0.05f, 0.f, 0.01f}, inside, v));
    EXPECT_GT(inside.z, 0.f);
}

TEST(BoundaryPlane, RepeatedContactNeverCrosses) {
    // A particle pressed against a two-sided plane for many steps stays on its side.
    BoundaryPlane wall{{0.f, 0.f, 0.f}, {0.f, 0.f, 1.f}, 0.f, PlaneKind::TwoSided, 0.f};
    Vec3 p{0.f, 0.f, 0.001f}, v{0.f, 0.f, 0.f};
    const float dt = 1e-3f;
    for (int i = 0; i < 1000; ++i) {
        v.z -= 9.81f * dt;
        const Vec3 prev = p;
        p += v * dt;
        collideWithPlane(wall, prev, p, v);
        ASSERT_GT(p.z, 0.f) << "step " << i;
    }
}

TEST(Outlet, SphereAndBoxContainment) {
    Outlet s;
    s.shape = OutletShape::Sphere;
    s.center = {1.f, 0.f, 0.f};
    s.radius = 0.5f;
    EXPECT_TRUE(s.contains({1.4f, 0.f, 0.f}));
    EXPECT_FALSE(s.contains({1.6f, 0.f, 0.f}));
    Outlet b;
    b.shape = OutletShape::Box;
    b.bounds = {{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}};
    EXPECT_TRUE(b.contains({0.5f, 0.5f, 0.5f}));
    EXPECT_FALSE(b.contains({1.5f, 0.5f, 0.5f}));
}

// A shut valve with a regurgitant orifice (BoundaryPlane's hole): blood crosses only
// through the hole and only the hole's way, moves through it at the hole's speed, and
// converges on it upstream at least as a point sink's flow does, Q / (2 pi r^2).
TEST(BoundaryPlane, AHoleLetsBloodThroughOnlyItsWayAndAtItsSpeed) {
    BoundaryPlane valve{{0.f, 0.f, 0.f}, {0.f, 0.f, 1.f}, 0.1f, PlaneKind::Closed, 0.f};
    valve.holeRadius = 0.01f;
    valve.holeSpeed = 5.f; // along the normal
    valve.holeDepth = 0.003f;
    valve.holeConvergence = 0.03f;
    // Through the hole, the hole's way: passes, carried at the hole's speed.
    Vec3 p{0.002f, 0.f, 0.001f}, v{0.f, 0.f, 1.f};
    EXPECT_FALSE(collideWithPlane(valve, {0.002f, 0.f, -0.001f}, p, v));
    EXPECT_FLOAT_EQ(p.z, 0.001f);
    EXPECT_FLOAT_EQ(v.z, 5.f);
    // A faster particle in the hole is held to the jet's speed too.
    Vec3 fast{0.f, 0.f, -0.001f}, vf{0.f, 0.f, 9.f};
    collideWithPlane(valve, {0.f, 0.f, -0.002f}, fast, vf);
    EXPECT_FLOAT_EQ(vf.z, 5.f);
    // Beside the hole the shut plane blocks.
    Vec3 beside{0.05f, 0.f, 0.001f}, vb{0.f, 0.f, 1.f};
    EXPECT_TRUE(collideWithPlane(valve, {0.05f, 0.f, -0.001f}, beside, vb));
    EXPECT_LT(beside.z, 0.f);
    // Back through the hole against its way: blocked.
    Vec3 back{0.002f, 0.f, -0.001f}, vk{0.f, 0.f, -1.f};
    EXPECT_TRUE(collideWithPlane(valve, {0.002f, 0.f, 0.001f}, back, vk));
    EXPECT_GT(back.z, 0.f);
    // Upstream, 2 cm from the hole's centre: drawn towards it at v R^2 / (2 r^2).
    Vec3 up{0.f, 0.f, -0.02f}, vu{0.f, 0.f, 0.f};
    collideWithPlane(valve, up - Vec3{0.f, 0.f, 0.001f}, up, vu);
    EXPECT_NEAR(vu.z, 5.f * 0.01f * 0.01f / (2.f * 0.02f * 0.02f), 1e-5f);
    // Beyond the convergence, and downstream, nothing is drawn.
    Vec3 far{0.f, 0.f, -0.05f}, vfar{0.f, 0.f, 0.f};
    collideWithPlane(valve, far, far, vfar);
    EXPECT_FLOAT_EQ(vfar.z, 0.f);
    Vec3 down{0.f, 0.02f, 0.01f}, vd{0.f, 0.f, 0.f};
    collideWithPlane(valve, down, down, vd);
    EXPECT_FLOAT_EQ(vd.z, 0.f);
}
