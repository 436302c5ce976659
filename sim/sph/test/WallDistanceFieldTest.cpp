// Tests of TriangleMesh (icosphere, volume) and WallDistanceField (signed distance,
// normals, wall velocity, thin-feature exact path, collision with margin, rebuilds). The
// scatter's exactness node by node, determinism and bad input: WallDistanceFieldExactnessTest.cpp.

#include "sim/sph/TriangleMesh.h"
#include "sim/sph/WallDistanceField.h"
#include "sim/sph/test/WallFieldTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>
#include <vector>

namespace {

using namespace atrium::sph;
using atrium::sph::test::append;
using atrium::sph::test::bruteDistance;
using atrium::sph::test::cells;
using atrium::sph::test::insideByWinding;
using atrium::sph::test::kPi;
using atrium::sph::test::makeBox;

Vec3 randomDirection(std::mt19937& rng) {
    std::normal_distribution<float> g(0.f, 1.f);
    for (;;) {
        const Vec3 v{g(rng), g(rng), g(rng)};
        if (lengthSquared(v) > 1e-6f) return normalized(v);
    }
}

// ---------------------------------------------------------------- TriangleMesh

TEST(TriangleMesh, IcosphereCountsRadiusWindingAndVolume) {
    const Vec3 c{0.1f, -0.2f, 0.3f};
    const float r = 0.05f;
    double previousVolume = 0.0;
    for (int s = 0; s <= 4; ++s) {
        const TriangleMesh m = TriangleMesh::icosphere(c, r, s);
        const std::size_t f = std::size_t(1) << (2 * s);
        ASSERT_EQ(m.vertices.size(), 10 * f + 2) << "subdivisions " << s;
        ASSERT_EQ(m.triangles.size(), 20 * f) << "subdivisions " << s;
        for (const Vec3& v : m.vertices) EXPECT_NEAR(length(v - c), r, 1e-6f);
        // Closed and consistently wound: every directed edge appears once and its
        // reverse once; every face normal points away from the centre.
        std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
        for (const auto& t : m.triangles) {
            for (int e = 0; e < 3; ++e) ++directed[{t[e], t[(e + 1) % 3]}];
            const Vec3 a = m.vertices[t[0]], b = m.vertices[t[1]], cc = m.vertices[t[2]];
            EXPECT_GT(dot(cross(b - a, cc - a), (a + b + cc) / 3.f - c), 0.f);
        }
        for (const auto& [edge, count] : directed) {
            EXPECT_EQ(count, 1);
            EXPECT_EQ(directed.count({edge.second, edge.first}), 1u);
        }
        const double volume = m.enclosedVolume();
        EXPECT_GT(volume, previousVolume); // converges from below (inscribed)
        previousVolume = volume;
    }
    const double exact = 4.0 / 3.0 * kPi * double(r) * r * r;
    EXPECT_LT(previousVolume, exact);
    EXPECT_NEAR(previousVolume / exact, 1.0, 0.01);

    const Aabb b = TriangleMesh::icosphere(c, r, 3).bounds();
    EXPECT_NEAR(b.lo.x, c.x - r, 1e-6f);
    EXPECT_NEAR(b.hi.z, c.z + r, 1e-6f);
}

TEST(TriangleMesh, VolumeSignFollowsWindingAndBoxIsExact) {
    TriangleMesh box = makeBox({1.f, 2.f, 3.f}, {1.5f, 2.25f, 3.1f});
    EXPECT_NEAR(box.enclosedVolume(), 0.5 * 0.25 * 0.1, 1e-7);
    for (auto& t : box.triangles) std::swap(t[1], t[2]);
    EXPECT_NEAR(box.enclosedVolume(), -0.5 * 0.25 * 0.1, 1e-7);
    EXPECT_EQ(TriangleMesh{}.enclosedVolume(), 0.0);
}

TEST(TriangleMesh, IcosphereRejectsBadArguments) {
    EXPECT_THROW(TriangleMesh::icosphere({}, 0.f, 2), std::invalid_argument);
    EXPECT_THROW(TriangleMesh::icosphere({}, 1.f, -1), std::invalid_argument);
    EXPECT_THROW(TriangleMesh::icosphere({}, 1.f, 9), std::invalid_argument);
}

/// The lattice points inside `m` by the winding number, point by point (the slow,
/// independent way), those `accept` takes.
std::size_t insideByWindingOnLattice(const TriangleMesh& m, float step, const std::function<bool(Vec3)>& accept) {
    const Aabb b = m.bounds();
    std::size_t n = 0;
    for (float z = b.lo.z + 0.5f * step; z <= b.hi.z; z += step)
        for (float y = b.lo.y + 0.5f * step; y <= b.hi.y; y += step)
            for (float x = b.lo.x + 0.5f * step; x <= b.hi.x; x += step)
                if (insideByWinding(m, {x, y, z}) && accept({x, y, z})) ++n;
    return n;
}

TEST(TriangleMesh, LatticePointsInsideByRowParityMatchTheWindingNumber) {
    const auto all = [](Vec3) { return true; };
    // A sphere (no lattice row meets an edge), its half on one side of a plane (the filter),
    // and a cube (below).
    const TriangleMesh sphere = TriangleMesh::icosphere({0.1f, -0.2f, 0.3f}, 0.05f, 3);
    const float step = 0.004f;
    const std::size_t inSphere = sphere.countLatticePointsInside(step, all);
    EXPECT_EQ(inSphere, insideByWindingOnLattice(sphere, step, all));
    EXPECT_NEAR(double(inSphere) * step * step * step / sphere.enclosedVolume(), 1.0, 0.03);
    const auto west = [](Vec3 p) { return p.x < 0.1f; };
    EXPECT_EQ(sphere.countLatticePointsInside(step, west), insideByWindingOnLattice(sphere, step, west));

    // The unit cube's lattice rows at 1/8, 3/8, ... run through its faces' diagonals.
    const TriangleMesh cube = makeBox({0.f, 0.f, 0.f}, {1.f, 1.f, 1.f});
    EXPECT_EQ(cube.countLatticePointsInside(0.25f, all), 64u);
}

TEST(TriangleMesh, LatticeCountRefusesAnOpenMeshAndABadStep) {
    TriangleMesh open = TriangleMesh::icosphere({}, 1.f, 2);
    open.triangles.pop_back();
    EXPECT_THROW(open.countLatticePointsInside(0.05f, [](Vec3) { return true; }), std::runtime_error);
    EXPECT_THROW(open.countLatticePointsInside(0.f, [](Vec3) { return true; }), std::invalid_argument);
    EXPECT_EQ(TriangleMesh{}.countLatticePointsInside(0.1f, [](Vec3) { return true; }), 0u);
}

// ---------------------------------------------------------------- sphere field

struct SphereField : ::testing::Test {
    const Vec3 c{0.1f, -0.2f, 0.3f};
    const float r = 0.05f;
    const float h = 0.0025f;
    TriangleMesh mesh = TriangleMesh::icosphere(c, r, 5);
    WallDistanceField field;
    void SetUp() override { field.build(mesh, nullptr, cells(h)); }
    float exact(Vec3 p) const { return length(p - c) - r; }
};

TEST_F(SphereField, ExactInsideTheBand) {
    ASSERT_FALSE(field.empty());
    EXPECT_FLOAT_EQ(field.band(), 3.f * h);
    EXPECT_GT(field.bytes(), 0u);
    const WallFieldView v = field.view();
    ASSERT_TRUE(v.valid());
    EXPECT_EQ(v.nodeCount, std::uint32_t(v.nx * v.ny * v.nz));
    EXPECT_EQ(field.thinCellCount(), 0u); // a smooth sphere much larger than a cell

    // Chord error of 20480 triangles on r = 5 cm is < 1e-5 m; trilinear error of the
    // sphere's distance ~ h^2 / r. Checked where all 8 cell corners are in the band
    // (|d| <= band - sqrt(3) h), which covers the collision margin.
    const float tol = 1e-5f + 0.5f * h * h / r;
    const float reach = field.band() - 1.75f * h;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> offset(-reach, reach);
    float worst = 0.f;
    for (int n = 0; n < 20000; ++n) {
        const Vec3 p = c + randomDirection(rng) * (r + offset(rng));
        worst = std::max(worst, std::fabs(v.signedDistance(p) - exact(p)));
    }
    EXPECT_LT(worst, tol);
    // At the nodes themselves the value is the exact distance to the mesh.
    for (std::uint32_t n = 0; n < v.nodeCount; n += 37) {
        const int i = int(n % std::uint32_t(v.nx)), j = int((n / std::uint32_t(v.nx)) % std::uint32_t(v.ny)),
                  k = int(n / std::uint32_t(v.nx * v.ny));
        const Vec3 p = v.origin + Vec3{float(i), float(j), float(k)} * h;
        if (std::fabs(exact(p)) < 0.9f * field.band()) {
            EXPECT_NEAR(v.phi[n], exact(p), 2e-5f);
        }
    }
}

TEST_F(SphereField, SignIsCorrectEverywhereInTheGrid) {
    const WallFieldView v = field.view();
    const float band = field.band();
    int checked = 0;
    for (int k = 0; k < v.nz; ++k)
        for (int j = 0; j < v.ny; ++j)
            for (int i = 0; i < v.nx; ++i) {
                const Vec3 p = v.origin + Vec3{float(i), float(j), float(k)} * h;
                const float phi = v.phi[std::size_t(i) + std::size_t(v.nx) * (std::size_t(j) + std::size_t(v.ny) * k)];
                const float d = exact(p);
                if (std::fabs(d) > 2e-5f) {
                    ASSERT_EQ(phi < 0.f, d < 0.f) << "node " << i << "," << j << "," << k << " d=" << d;
                    ++checked;
                }
                if (std::fabs(d) > band + 2e-5f) {
                    ASSERT_EQ(std::fabs(phi), band);
                }
            }
    EXPECT_GT(checked, 100000);
    EXPECT_FLOAT_EQ(field.signedDistance(c), -band);                     // far inside
    EXPECT_FLOAT_EQ(field.signedDistance(c + Vec3{0.f, 0.f, r + 2.5f * band}), band); // far outside, in grid
    Vec3 n{1.f, 1.f, 1.f}, w{1.f, 1.f, 1.f};
    EXPECT_FLOAT_EQ(v.sample(c + Vec3{1.f, 0.f, 0.f}, n, w), band); // outside the grid
    EXPECT_EQ(n, Vec3{});
    EXPECT_EQ(w, Vec3{});
    const Aabb b = field.bounds();
    EXPECT_LE(b.lo.x, c.x - r - 3.f * h + 1e-6f);
    EXPECT_GE(b.hi.y, c.y + r + 3.f * h - 1e-6f);
}

TEST_F(SphereField, NormalIsRadialAndOutward) {
    const WallFieldView v = field.view();
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> offset(-0.7f * field.band(), 0.7f * field.band());
    float worstDot = 1.f;
    for (int n = 0; n < 5000; ++n) {
        const Vec3 dir = randomDirection(rng);
        Vec3 normal, wall;
        v.sample(c + dir * (r + offset(rng)), normal, wall);
        EXPECT_NEAR(length(normal), 1.f, 1e-4f);
        EXPECT_EQ(wall, Vec3{}); // static wall
        worstDot = std::min(worstDot, dot(normal, dir));
    }
    EXPECT_GT(worstDot, 0.995f);
}

TEST_F(SphereField, CollisionWithMargin) {
    const WallFieldView v = field.view();
    const float margin = 0.4f * h, e = 0.5f;
    const Vec3 dir = normalized(Vec3{0.3f, -0.5f, 0.8f});
    const Vec3 tangent = normalized(cross(dir, Vec3{1.f, 0.f, 0.f}));

    // Just outside, moving out: pushed to margin inside, normal velocity reflected.
    Vec3 p = c + dir * (r + 0.3f * h);
    Vec3 vel = dir * 1.f + tangent * 0.5f;
    ASSERT_EQ(collideWithWall(v, margin, e, p, vel), WallHit::Pushed);
    EXPECT_NEAR(exact(p), -margin, 0.02f * h);
    EXPECT_NEAR(v.signedDistance(p), -margin, 0.02f * h);
    EXPECT_NEAR(dot(vel, dir), -e * 1.f, 0.01f);
    EXPECT_NEAR(dot(vel, tangent), 0.5f, 0.03f);

    // Inside within the margin, moving inward: moved to the margin, velocity kept.
    p = c + dir * (r - 0.1f * h);
    vel = -dir * 2.f;
    ASSERT_EQ(collideWithWall(v, margin, e, p, vel), WallHit::Pushed);
    EXPECT_NEAR(exact(p), -margin, 0.02f * h);
    EXPECT_NEAR(length(vel + dir * 2.f), 0.f, 1e-3f);

    // Inside beyond the margin, and far inside: untouched.
    for (float depth : {0.5f * r, 1.5f * h}) {
        const Vec3 p0 = c + dir * (r - depth), v0 = dir * 3.f;
        p = p0;
        vel = v0;
        EXPECT_EQ(collideWithWall(v, margin, e, p, vel), WallHit::None) << depth;
        EXPECT_EQ(p, p0);
        EXPECT_EQ(vel, v0);
    }

    // Outside beyond the band (in the grid or past it): leaked, untouched.
    for (float dist : {field.band() * 1.5f, 1.f}) {
        const Vec3 p0 = c + dir * (r + dist), v0 = dir;
        p = p0;
        vel = v0;
        EXPECT_EQ(collideWithWall(v, margin, e, p, vel), WallHit::Leaked) << dist;
        EXPECT_EQ(p, p0);
        EXPECT_EQ(vel, v0);
    }
}

TEST_F(SphereField, MovingWallPushesFluid) {
    // A contracting sphere (vertices moving inward at 0.2 m/s) drives a resting particle
    // near the wall inward: relative velocity 0.2 outward is reflected with e.
    const float speed = 0.2f, e = 0.5f, margin = 0.4f * h;
    std::vector<Vec3> velocities;
    for (const Vec3& x : mesh.vertices) velocities.push_back(normalized(x - c) * -speed);
    field.build(mesh, &velocities, cells(h));
    const WallFieldView v = field.view();
    const Vec3 dir = normalized(Vec3{-0.6f, 0.2f, 0.1f});

    Vec3 normal, wall;
    v.sample(c + dir * r, normal, wall);
    EXPECT_NEAR(length(wall + dir * speed), 0.f, 0.01f * speed);

    Vec3 p = c + dir * (r - 0.2f * h), vel{};
    ASSERT_EQ(collideWithWall(v, margin, e, p, vel), WallHit::Pushed);
    EXPECT_NEAR(dot(vel, dir), -(1.f + e) * speed, 0.01f);
    EXPECT_NEAR(exact(p), -margin, 0.02f * h);

    // Expanding instead: the wall moves away from a resting particle, which keeps its
    // (zero) velocity and is only moved to the margin.
    for (Vec3& w : velocities) w = -w;
    field.build(mesh, &velocities, cells(h));
    p = c + dir * (r - 0.2f * h);
    vel = Vec3{};
    ASSERT_EQ(collideWithWall(field.view(), margin, e, p, vel), WallHit::Pushed);
    EXPECT_EQ(vel, Vec3{});
}

TEST_F(SphereField, PoseAgeAdvancesTheWallByItsVelocity) {
    // An expanding sphere (radial 0.3 m/s), built at its pose and queried 2 ms later:
    // the wall reads 0.6 mm (a quarter cell) farther out, as the field rebuilt for the
    // grown sphere does, without a rebuild; the normal and velocity stay those of the pose.
    const float speed = 0.3f, age = 0.002f;
    std::vector<Vec3> velocities;
    for (const Vec3& x : mesh.vertices) velocities.push_back(normalized(x - c) * speed);
    field.build(mesh, &velocities, cells(h));
    WallFieldView v = field.view();
    EXPECT_EQ(v.poseAge, 0.f);
    v.poseAge = age;
    WallDistanceField grown;
    TriangleMesh later = mesh;
    for (Vec3& x : later.vertices) x = c + normalized(x - c) * (r + speed * age);
    grown.build(later, nullptr, cells(h));
    std::mt19937 rng(9);
    const float reach = field.band() - 1.75f * h; // as in the rebuild test below
    std::uniform_real_distribution<float> offset(-reach, reach);
    float worstRebuilt = 0.f;
    for (int n = 0; n < 500; ++n) {
        const Vec3 p = c + randomDirection(rng) * (r + offset(rng));
        Vec3 normal, wall;
        const float phi = v.sample(p, normal, wall);
        // The trilinear field's own error (as in the rebuild test below), and the rebuild's.
        ASSERT_NEAR(phi, length(p - c) - r - speed * age, 1e-5f + 0.5f * h * h / r);
        worstRebuilt = std::max(worstRebuilt, std::fabs(phi - grown.signedDistance(p)));
        ASSERT_NEAR(dot(wall, normalized(p - c)), speed, 0.01f * speed);
    }
    EXPECT_LT(worstRebuilt, 0.1f * speed * age) << "the advanced field against the rebuilt one (measured 0.023 mm)";
    // Far inside and outside the grid nothing moves past the band.
    EXPECT_FLOAT_EQ(v.signedDistance(c), -field.band());
    EXPECT_FLOAT_EQ(v.signedDistance(c + Vec3{1.f, 0.f, 0.f}), field.band());
}

TEST(WallDistanceField, PoseAgeAdvancesThinCellsToo) {
    // A slab thinner than a cell (exact path) whose top face rises at 1 m/s.
    const float h = 0.05f, t = 0.3f * h;
    const TriangleMesh slab = makeBox({0.f, 0.f, 0.f}, {1.f, 1.f, t});
    std::vector<Vec3> velocities;
    for (const Vec3& x : slab.vertices) velocities.push_back(Vec3{0.f, 0.f, x.z > 0.5f * t ? 1.f : 0.f});
    WallDistanceField field;
    field.build(slab, &velocities, cells(h));
    ASSERT_GT(field.thinCellCount(), 0u);
    WallFieldView v = field.view();
    v.poseAge = 0.001f; // the top face 1 mm higher
    const Vec3 mid{0.537f, 0.412f, 0.5f * t};
    EXPECT_NEAR(v.signedDistance(mid + Vec3{0.f, 0.f, 0.2f * t}), -0.3f * t - 0.001f, 1e-6f);
    EXPECT_NEAR(v.signedDistance(mid - Vec3{0.f, 0.f, 0.4f * t}), -0.1f * t, 1e-6f) << "the bottom face stays";
}

TEST_F(SphereField, RebuildFollowsTheMovedMeshAndIsDeterministic) {
    const std::vector<float> before(field.view().phi, field.view().phi + field.view().nodeCount);
    field.build(mesh, nullptr, cells(h));
    ASSERT_EQ(field.view().nodeCount, before.size());
    EXPECT_EQ(std::memcmp(before.data(), field.view().phi, before.size() * sizeof(float)), 0);

    const Vec3 shift{0.013f, -0.007f, 0.021f};
    TriangleMesh moved = mesh;
    for (Vec3& x : moved.vertices) x += shift;
    field.build(moved, nullptr, cells(h));
    const WallFieldView v = field.view();
    std::mt19937 rng(3);
    const float reach = field.band() - 1.75f * h;
    std::uniform_real_distribution<float> offset(-reach, reach);
    for (int n = 0; n < 2000; ++n) {
        const Vec3 p = c + shift + randomDirection(rng) * (r + offset(rng));
        ASSERT_NEAR(v.signedDistance(p), length(p - c - shift) - r, 1e-5f + 0.5f * h * h / r);
    }
    EXPECT_FLOAT_EQ(field.signedDistance(c + shift), -field.band());
    EXPECT_NEAR(field.bounds().lo.z, c.z + shift.z - r - 3.f * h, 1e-5f);

    // A different triangulation (topology cache invalidated) still gives the sphere.
    field.build(TriangleMesh::icosphere(c, r, 3), nullptr, cells(h));
    EXPECT_NEAR(field.signedDistance(c + Vec3{r + h, 0.f, 0.f}), h, 2e-4f);
}

// ---------------------------------------------------------------- exact path vs reference

TEST(WallDistanceField, MatchesBruteForceOnABumpyMeshEverywhereExact) {
    // A star-shaped, folded closed mesh with triangles about a cell in size; every cell
    // with a corner in the band uses the exact path (thinNormalDot > 1).
    TriangleMesh m = TriangleMesh::icosphere({0.f, 0.f, 0.f}, 0.04f, 2);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> jitter(0.75f, 1.25f);
    for (Vec3& x : m.vertices) x *= jitter(rng);
    const float h = 0.005f;

    WallDistanceField::Settings s = cells(h);
    s.thinNormalDot = 2.f;
    WallDistanceField exactField;
    exactField.build(m, nullptr, s);
    EXPECT_GT(exactField.thinCellCount(), 1000u);
    const WallFieldView v = exactField.view();

    std::uniform_real_distribution<float> coord(-0.06f, 0.06f);
    int inBand = 0;
    for (int n = 0; n < 3000; ++n) {
        const Vec3 p{coord(rng), coord(rng), coord(rng)};
        const double d = bruteDistance(m, p);
        const bool inside = insideByWinding(m, p);
        const float phi = v.signedDistance(p);
        if (d < 0.8 * exactField.band()) {
            ++inBand;
            ASSERT_NEAR(std::fabs(phi), d, 1e-6) << p.x << "," << p.y << "," << p.z;
        }
        if (d > 1e-5) {
            ASSERT_EQ(phi < 0.f, inside) << p.x << "," << p.y << "," << p.z << " d=" << d;
        }
    }
    EXPECT_GT(inBand, 300);

    // The default (trilinear except in thin cells) field agrees in sign everywhere
    // farther than a cell from the surface, and its nodes hold exact values.
    WallDistanceField field;
    field.build(m, nullptr, cells(h));
    EXPECT_LT(field.thinCellCount(), exactField.thinCellCount());
    const WallFieldView f = field.view();
    for (int n = 0; n < 3000; ++n) {
        const Vec3 p{coord(rng), coord(rng), coord(rng)};
        const double d = bruteDistance(m, p);
        if (d > h) {
            ASSERT_EQ(f.signedDistance(p) < 0.f, insideByWinding(m, p));
        }
    }
    for (int k = 0; k < f.nz; k += 2)
        for (int i = 0; i < f.nx; i += 2) {
            const int j = f.ny / 2;
            const Vec3 p = f.origin + Vec3{float(i), float(j), float(k)} * h;
            const double d = bruteDistance(m, p);
            const float phi = f.phi[std::size_t(i) + std::size_t(f.nx) * (std::size_t(j) + std::size_t(f.ny) * k)];
            if (d < 0.9 * field.band()) {
                ASSERT_NEAR(std::fabs(phi), d, 1e-6);
            }
            if (d > 1e-5) {
                ASSERT_EQ(phi < 0.f, insideByWinding(m, p));
            }
        }
}

// ---------------------------------------------------------------- thin features

TEST(WallDistanceField, ThinSlabUsesTheExactPath) {
    const float h = 0.05f, t = 0.3f * h;
    const TriangleMesh slab = makeBox({0.f, 0.f, 0.f}, {1.f, 1.f, t});
    const Vec3 mid{0.537f, 0.412f, 0.5f * t};

    // Trilinear alone: every node is outside the slab, so its interior reads outside.
    WallDistanceField::Settings off = cells(h);
    off.thinNormalDot = -2.f;
    WallDistanceField plain;
    plain.build(slab, nullptr, off);
    EXPECT_EQ(plain.thinCellCount(), 0u);
    EXPECT_GT(plain.signedDistance(mid), 0.f);

    WallDistanceField field;
    field.build(slab, nullptr, cells(h));
    EXPECT_GT(field.thinCellCount(), 0u);
    const WallFieldView v = field.view();
    EXPECT_NEAR(v.signedDistance(mid), -0.5f * t, 1e-6f);
    EXPECT_NEAR(v.signedDistance(mid + Vec3{0.f, 0.f, 0.2f * t}), -0.3f * t, 1e-6f);
    Vec3 n, w;
    EXPECT_NEAR(v.sample(mid + Vec3{0.f, 0.f, t}, n, w), 0.5f * t, 1e-6f); // above: +z
    EXPECT_NEAR(n.z, 1.f, 1e-5f);
    EXPECT_NEAR(v.sample(mid - Vec3{0.f, 0.f, 0.4f * t}, n, w), -0.1f * t, 1e-6f); // inside, nearer the bottom
    EXPECT_NEAR(n.z, -1.f, 1e-5f);

    // Collision inside the slab: a particle beyond the mid-plane is pushed back to the
    // margin below the top face instead of being called outside.
    Vec3 p = mid + Vec3{0.f, 0.f, 0.45f * t}, vel{0.f, 0.f, 1.f};
    ASSERT_EQ(collideWithWall(v, 0.1f * t, 0.f, p, vel), WallHit::Pushed);
    EXPECT_NEAR(p.z, 0.9f * t, 1e-6f);
    EXPECT_NEAR(vel.z, 0.f, 1e-6f);
}

TEST(WallDistanceField, ThinGapBetweenChambersStaysOutside) {
    // Two fluid chambers separated by a septum gap of 0.3 cells: the gap is outside.
    const float h = 0.05f, g = 0.3f * h;
    TriangleMesh m = makeBox({0.f, 0.f, 0.f}, {0.5f, 1.f, 1.f});
    append(m, makeBox({0.5f + g, 0.f, 0.f}, {1.f + g, 1.f, 1.f}));
    const Vec3 gap{0.5f + 0.5f * g, 0.37f, 0.61f};

    WallDistanceField::Settings off = cells(h);
    off.thinNormalDot = -2.f;
    WallDistanceField plain;
    plain.build(m, nullptr, off);
    EXPECT_LT(plain.signedDistance(gap), 0.f); // trilinear alone lets fluid through

    WallDistanceField field;
    field.build(m, nullptr, cells(h));
    EXPECT_NEAR(field.signedDistance(gap), 0.5f * g, 1e-6f);
    EXPECT_FLOAT_EQ(field.signedDistance({0.25f, 0.5f, 0.5f}), -field.band());
    EXPECT_FLOAT_EQ(field.signedDistance({0.75f + g, 0.5f, 0.5f}), -field.band());

    // A particle that slipped into the gap is pushed back into the chamber it is
    // nearer to (the left one).
    Vec3 p = gap - Vec3{0.1f * g, 0.f, 0.f}, vel{1.f, 0.f, 0.f};
    ASSERT_EQ(collideWithWall(field.view(), 0.2f * h, 0.5f, p, vel), WallHit::Pushed);
    EXPECT_NEAR(p.x, 0.5f - 0.2f * h, 1e-5f);
    EXPECT_NEAR(vel.x, -0.5f, 1e-5f);
}

TEST(WallDistanceField, NestedShellHasAnOutsideCavity) {
    // Fluid between two spheres (inner one wound inward): the cavity inside the inner
    // sphere is outside the fluid region although no path from the grid border reaches it.
    TriangleMesh m = TriangleMesh::icosphere({}, 0.05f, 3);
    append(m, TriangleMesh::icosphere({}, 0.02f, 3), /*flip=*/true);
    WallDistanceField field;
    field.build(m, nullptr, cells(0.002f));
    EXPECT_FLOAT_EQ(field.signedDistance({}), field.band());
    EXPECT_FLOAT_EQ(field.signedDistance({0.035f, 0.f, 0.f}), -field.band());
    EXPECT_NEAR(field.signedDistance({0.f, 0.047f, 0.f}), -0.003f, 2e-4f);
    EXPECT_NEAR(field.signedDistance({0.f, 0.f, -0.018f}), 0.002f, 2e-4f);
}

} // namespace
