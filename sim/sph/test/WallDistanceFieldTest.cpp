// Tests of TriangleMesh (icosphere, volume) and WallDistanceField (signed distance,
// normals, wall velocity, thin-feature exact path, collision with margin, rebuilds).

#include "sim/sph/TriangleMesh.h"
#include "sim/sph/WallDistanceField.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

using namespace atrium::sph;

constexpr double kPi = 3.14159265358979323846;

Vec3 randomDirection(std::mt19937& rng) {
    std::normal_distribution<float> g(0.f, 1.f);
    for (;;) {
        const Vec3 v{g(rng), g(rng), g(rng)};
        if (lengthSquared(v) > 1e-6f) return normalized(v);
    }
}

/// Closed box with outward counter-clockwise triangles.
TriangleMesh makeBox(Vec3 lo, Vec3 hi) {
    TriangleMesh m;
    for (int i = 0; i < 8; ++i)
        m.vertices.push_back({(i & 1) ? hi.x : lo.x, (i & 2) ? hi.y : lo.y, (i & 4) ? hi.z : lo.z});
    const std::uint32_t q[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
    for (const auto& f : q) {
        m.triangles.push_back({f[0], f[1], f[2]});
        m.triangles.push_back({f[0], f[2], f[3]});
    }
    return m;
}

void append(TriangleMesh& dst, const TriangleMesh& src, bool flip = false) {
    const auto offset = std::uint32_t(dst.vertices.size());
    dst.vertices.insert(dst.vertices.end(), src.vertices.begin(), src.vertices.end());
    for (auto t : src.triangles) {
        if (flip) std::swap(t[1], t[2]);
        dst.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
    }
}

/// Independent reference: unsigned distance by brute force over all triangles and the
/// inside test by the generalised winding number (solid angles, Van Oosterom-Strackee).
double bruteDistance(const TriangleMesh& m, Vec3 p) {
    double best = 1e30;
    for (const auto& t : m.triangles) {
        const auto c = closestPointOnTriangle(p, m.vertices[t[0]], m.vertices[t[1]], m.vertices[t[2]]);
        best = std::min(best, double(length(p - c.point)));
    }
    return best;
}
bool insideByWinding(const TriangleMesh& m, Vec3 p) {
    double total = 0.0;
    for (const auto& t : m.triangles) {
        double a[3], b[3], c[3];
        const Vec3 va = m.vertices[t[0]] - p, vb = m.vertices[t[1]] - p, vc = m.vertices[t[2]] - p;
        a[0] = va.x; a[1] = va.y; a[2] = va.z;
        b[0] = vb.x; b[1] = vb.y; b[2] = vb.z;
        c[0] = vc.x; c[1] = vc.y; c[2] = vc.z;
        auto len = [](const double* v) { return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]); };
        auto dt = [](const double* u, const double* v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; };
        const double det = a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                           a[2] * (b[0] * c[1] - b[1] * c[0]);
        const double la = len(a), lb = len(b), lc = len(c);
        const double den = la * lb * lc + dt(a, b) * lc + dt(b, c) * la + dt(c, a) * lb;
        total += 2.0 * std::atan2(det, den);
    }
    return total / (4.0 * kPi) > 0.5;
}

WallDistanceField::Settings cells(float h) {
    WallDistanceField::Settings s;
    s.cellSize = h;
    return s;
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

// ---------------------------------------------------------------- exactness of the scatter

/// Closed torus (major radius R, minor r), nu x nv quads, outward counter-clockwise: its
/// inner half has saddle vertices.
TriangleMesh makeTorus(float R, float r, int nu, int nv) {
    TriangleMesh m;
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            const float u = float(2.0 * kPi * i / nu), w = float(2.0 * kPi * j / nv);
            m.vertices.push_back({(R + r * std::cos(w)) * std::cos(u), (R + r * std::cos(w)) * std::sin(u), r * std::sin(w)});
        }
    auto id = [&](int i, int j) { return std::uint32_t((i % nu) * nv + j % nv); };
    for (int i = 0; i < nu; ++i)
        for (int j = 0; j < nv; ++j) {
            m.triangles.push_back({id(i, j), id(i + 1, j), id(i + 1, j + 1)});
            m.triangles.push_back({id(i, j), id(i + 1, j + 1), id(i, j + 1)});
        }
    return m;
}

/// Rotates about x then y and shifts.
TriangleMesh transformed(TriangleMesh m, float ax, float ay, Vec3 shift) {
    for (Vec3& v : m.vertices) {
        const Vec3 q{v.x, v.y * std::cos(ax) - v.z * std::sin(ax), v.y * std::sin(ax) + v.z * std::cos(ax)};
        v = Vec3{q.x * std::cos(ay) + q.z * std::sin(ay), q.y, -q.x * std::sin(ay) + q.z * std::cos(ay)} + shift;
    }
    return m;
}

std::vector<Vec3> randomVelocities(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-0.5f, 0.5f);
    std::vector<Vec3> v(n);
    for (Vec3& x : v) x = {u(rng), u(rng), u(rng)};
    return v;
}

/// The documented rule, by brute force at every grid node: among all triangles closer
/// than the band, the minimum of (squared distance, triangle index); phi and the wall
/// velocity then come from that triangle, and nodes with none are +-band with zero
/// velocity. Checked bit for bit. (Triangles are bucketed by 4^3-node blocks only to
/// keep the test fast; a triangle farther than the band cannot matter.)
/// Band nodes hold the brute-force minimum distance (bit for bit) and its triangle's
/// wall velocity; their sign is inside/outside by the winding number (closed meshes;
/// an open one has no inside, so only magnitudes are compared), except on the surface.
void expectNodesMatchBruteForce(const TriangleMesh& m, const std::vector<Vec3>* velocities,
                                const WallDistanceField::Settings& s, bool closed = true) {
    WallDistanceField field;
    field.build(m, velocities, s);
    const WallFieldView v = field.view();
    const float h = v.cellSize, band = v.band;
    constexpr int kB = 4;
    const int bx = (v.nx + kB - 1) / kB, by = (v.ny + kB - 1) / kB, bz = (v.nz + kB - 1) / kB;
    std::vector<std::vector<std::uint32_t>> bucket(std::size_t(bx) * by * bz);
    std::vector<Vec3> boxLo(m.triangles.size()), boxHi(m.triangles.size());
    for (std::uint32_t t = 0; t < m.triangles.size(); ++t) {
        const auto& tri = m.triangles[t];
        const Vec3 a = m.vertices[tri[0]], b = m.vertices[tri[1]], c = m.vertices[tri[2]];
        boxLo[t] = componentMin(a, componentMin(b, c));
        boxHi[t] = componentMax(a, componentMax(b, c));
        int lo[3], hi[3];
        const int dims[3] = {bx, by, bz};
        for (int ax = 0; ax < 3; ++ax) {
            lo[ax] = std::max(0, int(std::floor((boxLo[t][ax] - band - v.origin[ax]) / h)) - 1) / kB;
            hi[ax] = std::min(dims[ax] - 1, (int(std::floor((boxHi[t][ax] + band - v.origin[ax]) / h)) + 2) / kB);
        }
        for (int k = lo[2]; k <= hi[2]; ++k)
            for (int j = lo[1]; j <= hi[1]; ++j)
                for (int i = lo[0]; i <= hi[0]; ++i) bucket[std::size_t(i) + std::size_t(bx) * (j + std::size_t(by) * k)].push_back(t);
    }
    std::size_t inBand = 0;
    for (int k = 0; k < v.nz; ++k)
        for (int j = 0; j < v.ny; ++j)
            for (int i = 0; i < v.nx; ++i) {
                const std::size_t n = std::size_t(i) + std::size_t(v.nx) * (std::size_t(j) + std::size_t(v.ny) * k);
                const Vec3 p{v.origin.x + float(i) * h, v.origin.y + float(j) * h, v.origin.z + float(k) * h};
                std::uint64_t best = ~std::uint64_t(0);
                for (std::uint32_t t : bucket[std::size_t(i / kB) + std::size_t(bx) * (j / kB + std::size_t(by) * (k / kB))]) {
                    const Vec3 gap = componentMax(boxLo[t] - p, componentMax(p - boxHi[t], Vec3{}));
                    if (lengthSquared(gap) > 1.0001f * band * band) continue;
                    const auto& tri = m.triangles[t];
                    const float d2 = lengthSquared(
                        p - closestPointOnTriangle(p, m.vertices[tri[0]], m.vertices[tri[1]], m.vertices[tri[2]]).point);
                    if (d2 < band * band)
                        best = std::min(best, (std::uint64_t(std::bit_cast<std::uint32_t>(d2)) << 32) | t);
                }
                float magnitude = band;
                Vec3 velocity{};
                if (best != ~std::uint64_t(0)) {
                    ++inBand;
                    const WallClosest c = v.closestOnTriangle(p, std::uint32_t(best & 0xffffffffu));
                    magnitude = std::min(c.distance, band);
                    velocity = c.velocity;
                    if (closed && c.distance > 1e-5f * h) {
                        ASSERT_EQ(v.phi[n] < 0.f, insideByWinding(m, p))
                            << "node " << i << "," << j << "," << k << ": phi " << v.phi[n];
                    }
                } // off band: the sign comes from the crossing parity (tested elsewhere)
                ASSERT_EQ(std::bit_cast<std::uint32_t>(std::fabs(v.phi[n])), std::bit_cast<std::uint32_t>(magnitude))
                    << "node " << i << "," << j << "," << k << ": phi " << v.phi[n] << " expected +-" << magnitude;
                ASSERT_EQ(v.wallVelocity[n], velocity) << "node " << i << "," << j << "," << k;
            }
    EXPECT_GT(inBand, 1000u);
}

TEST(WallDistanceField, EveryNodeMatchesTheBruteForceMinimum) {
    // Smooth walls of triangles smaller than a cell (the restricted per-triangle scan)
    // including saddle vertices; a coarser rotated sphere; a bumpy, folded mesh (most
    // triangles take the wide scan); sharp boxes with a thin gap and a thin slab.
    WallDistanceField::Settings fine = cells(0.004f);
    const TriangleMesh torus = transformed(makeTorus(0.05f, 0.02f, 128, 48), 0.3f, 0.2f, {0.01f, -0.02f, 0.003f});
    const std::vector<Vec3> torusVel = randomVelocities(torus.vertices.size(), 1);
    expectNodesMatchBruteForce(torus, &torusVel, fine);
    expectNodesMatchBruteForce(makeTorus(0.05f, 0.015f, 48, 16), nullptr, cells(0.003f));
    const TriangleMesh sphere = transformed(TriangleMesh::icosphere({}, 0.05f, 4), 0.7f, 1.1f, {0.2f, 0.1f, -0.3f});
    expectNodesMatchBruteForce(sphere, nullptr, cells(0.003f));

    TriangleMesh bumpy = TriangleMesh::icosphere({0.f, 0.f, 0.f}, 0.04f, 3);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> jitter(0.75f, 1.25f);
    for (Vec3& x : bumpy.vertices) x *= jitter(rng);
    const std::vector<Vec3> bumpyVel = randomVelocities(bumpy.vertices.size(), 2);
    expectNodesMatchBruteForce(bumpy, &bumpyVel, cells(0.003f));

    TriangleMesh boxes = makeBox({0.f, 0.f, 0.f}, {0.5f, 1.f, 1.f});
    append(boxes, makeBox({0.515f, 0.f, 0.f}, {1.015f, 1.f, 1.f}));
    expectNodesMatchBruteForce(transformed(boxes, 0.2f, 0.4f, {}), nullptr, cells(0.05f));
    expectNodesMatchBruteForce(makeBox({0.f, 0.f, 0.f}, {1.f, 1.f, 0.015f}), nullptr, cells(0.05f));
    // An open cap (boundary edges and vertices), with a zero-area and a sliver triangle.
    TriangleMesh cap;
    const TriangleMesh full = TriangleMesh::icosphere({}, 0.05f, 3);
    cap.vertices = full.vertices;
    for (const auto& t : full.triangles)
        if (full.vertices[t[0]].z > -0.02f && full.vertices[t[1]].z > -0.02f && full.vertices[t[2]].z > -0.02f)
            cap.triangles.push_back(t);
    cap.triangles.push_back({0, 1, 1});
    cap.vertices.push_back(cap.vertices[cap.triangles[5][0]] * 0.99999f + cap.vertices[cap.triangles[5][1]] * 0.00001f);
    cap.triangles.push_back({cap.triangles[5][0], std::uint32_t(cap.vertices.size() - 1), cap.triangles[5][1]});
    const std::vector<Vec3> capVel = randomVelocities(cap.vertices.size(), 5);
    expectNodesMatchBruteForce(cap, &capVel, cells(0.003f), false);
    // Axis-aligned box with grid nodes exactly on its face planes; ties between the two
    // triangles at an edge must go to the lower index (seen in the velocity).
    const TriangleMesh box = makeBox({0.f, 0.f, 0.f}, {0.1f, 0.07f, 0.05f});
    const std::vector<Vec3> boxVel = randomVelocities(box.vertices.size(), 4);
    expectNodesMatchBruteForce(box, &boxVel, cells(0.0035f));
}

/// A sphere whose triangles (a, b, c), one in 37, are split at a point just across
/// their edge ab, so (a, b, m) is turned over and (b, c, m), (c, a, m) overlap the
/// neighbour: the small folds a moving wall makes.
TriangleMesh sphereWithTurnedOverSlivers() {
    TriangleMesh m = TriangleMesh::icosphere({}, 0.05f, 3);
    const std::size_t original = m.triangles.size();
    for (std::size_t t = 0; t < original; t += 37) {
        const auto [a, b, c] = m.triangles[t];
        const Vec3 mid = (m.vertices[a] + m.vertices[b]) * 0.5f;
        const Vec3 across = mid + (mid - m.vertices[c]) * 0.08f;
        const std::uint32_t k = std::uint32_t(m.vertices.size());
        m.vertices.push_back(across);
        m.triangles[t] = {a, b, k};
        m.triangles.push_back({b, c, k});
        m.triangles.push_back({c, a, k});
    }
    return m;
}

TEST(WallDistanceField, TurnedOverSliversKeepTheSignsRight) {
    // Around the folds the normals cancel or point the wrong way; the inside must still
    // be right at every node of the grid (crossing parity, not the closest feature's
    // pseudo-normal).
    const TriangleMesh m = sphereWithTurnedOverSlivers();
    WallDistanceField field;
    field.build(m, nullptr, cells(0.005f));
    const WallFieldView v = field.view();
    int checked = 0;
    for (int k = 0; k < v.nz; ++k)
        for (int j = 0; j < v.ny; ++j)
            for (int i = 0; i < v.nx; ++i) {
                const Vec3 p = v.origin + Vec3{float(i), float(j), float(k)} * v.cellSize;
                if (bruteDistance(m, p) < 1e-4) continue; // on the surface or in the fold
                const float phi = v.phi[std::size_t(i) + std::size_t(v.nx) * (std::size_t(j) + std::size_t(v.ny) * k)];
                ASSERT_EQ(phi < 0.f, insideByWinding(m, p)) << "node " << i << "," << j << "," << k;
                ++checked;
            }
    EXPECT_GT(checked, 10000);
}

TEST(WallDistanceField, TurnedOverSliversKeepTheSignsRightInThinCells) {
    // The same folds as above, queried between the nodes: a turned-over sliver makes
    // the cells around it "thin" (their corners see faces more than 90 degrees apart),
    // and there the exact query took its sign from the closest feature's pseudo-normal,
    // which points the wrong way - points of the blood up to 6 mm from the wall of the
    // adult phantom came out "outside" and were thrown a margin further in. The sign
    // of every point of a thin cell must be the winding number's.
    const TriangleMesh m = sphereWithTurnedOverSlivers();
    WallDistanceField field;
    field.build(m, nullptr, cells(0.005f));
    ASSERT_GT(field.thinCellCount(), 0u);
    const WallFieldView v = field.view();
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    int checked = 0;
    for (std::uint32_t cell = 0; cell < v.cellCount; ++cell) {
        if (v.cellTriangleStart[cell + 1] == v.cellTriangleStart[cell]) continue;
        const std::uint32_t cx = std::uint32_t(v.nx - 1), cy = std::uint32_t(v.ny - 1);
        const Vec3 corner = v.origin + Vec3{float(cell % cx), float((cell / cx) % cy), float(cell / (cx * cy))} * v.cellSize;
        for (int n = 0; n < 8; ++n) {
            const Vec3 p = corner + Vec3{u(rng), u(rng), u(rng)} * v.cellSize;
            if (bruteDistance(m, p) < 1e-5) continue; // on the surface or in the fold
            Vec3 normal, wall;
            const float phi = v.sample(p, normal, wall);
            ASSERT_EQ(phi < 0.f, insideByWinding(m, p)) << "cell " << cell << " phi " << phi;
            ++checked;
        }
    }
    EXPECT_GT(checked, 1000);
}

TEST(WallDistanceField, BuildIsIndependentOfTheThreadCount) {
    TriangleMesh bumpy = TriangleMesh::icosphere({0.f, 0.f, 0.f}, 0.04f, 4);
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> jitter(0.9f, 1.1f);
    for (Vec3& x : bumpy.vertices) x *= jitter(rng);
    TriangleMesh slab = makeBox({0.f, 0.f, 0.f}, {1.f, 1.f, 0.015f});
    append(slab, makeBox({0.f, 0.f, 0.02f}, {1.f, 1.f, 0.3f}));
    const TriangleMesh torus = makeTorus(0.05f, 0.02f, 160, 64);
    struct Case {
        const TriangleMesh* mesh;
        float h;
    };
    for (const Case& c : {Case{&bumpy, 0.002f}, Case{&slab, 0.05f}, Case{&torus, 0.002f}}) {
        const std::vector<Vec3> vel = randomVelocities(c.mesh->vertices.size(), 3);
        auto buildWith = [&](std::size_t threads) {
            const tbb::global_control limit(tbb::global_control::max_allowed_parallelism, threads);
            auto f = std::make_unique<WallDistanceField>();
            f->build(*c.mesh, &vel, cells(c.h));
            return f;
        };
        const auto one = buildWith(1), many = buildWith(4);
        const WallFieldView a = one->view(), b = many->view();
        ASSERT_EQ(a.nodeCount, b.nodeCount);
        ASSERT_EQ(a.cellCount, b.cellCount);
        EXPECT_EQ(std::memcmp(a.phi, b.phi, a.nodeCount * sizeof(float)), 0);
        EXPECT_EQ(std::memcmp(a.wallVelocity, b.wallVelocity, a.nodeCount * sizeof(Vec3)), 0);
        EXPECT_EQ(std::memcmp(a.cellTriangleStart, b.cellTriangleStart, (a.cellCount + 1) * sizeof(std::uint32_t)), 0);
        ASSERT_EQ(a.cellTriangleCount, b.cellTriangleCount);
        if (a.cellTriangleCount > 0) {
            EXPECT_EQ(std::memcmp(a.cellTriangles, b.cellTriangles, a.cellTriangleCount * sizeof(std::uint32_t)), 0);
        }
        EXPECT_EQ(one->thinCellCount(), many->thinCellCount());
        if (c.mesh == &slab) {
            EXPECT_GT(one->thinCellCount(), 0u);
        }
    }
}

/// A wall and the cell size of its field.
struct Frame {
    TriangleMesh mesh;
    float h;
};

/// Every array of two fields' views is the same, bit for bit.
void expectSameField(const WallDistanceField& got, const WallDistanceField& want, const std::string& what) {
    const WallFieldView a = got.view(), b = want.view();
    ASSERT_EQ(a.nx, b.nx) << what;
    ASSERT_EQ(a.ny, b.ny) << what;
    ASSERT_EQ(a.nz, b.nz) << what;
    ASSERT_EQ(a.nodeCount, b.nodeCount) << what;
    ASSERT_EQ(a.cellCount, b.cellCount) << what;
    EXPECT_EQ(a.origin.x, b.origin.x) << what;
    EXPECT_EQ(a.band, b.band) << what;
    EXPECT_EQ(std::memcmp(a.phi, b.phi, a.nodeCount * sizeof(float)), 0) << what;
    EXPECT_EQ(std::memcmp(a.wallVelocity, b.wallVelocity, a.nodeCount * sizeof(Vec3)), 0) << what;
    EXPECT_EQ(std::memcmp(a.cellTriangleStart, b.cellTriangleStart, (a.cellCount + 1) * sizeof(std::uint32_t)), 0) << what;
    ASSERT_EQ(a.cellTriangleCount, b.cellTriangleCount) << what;
    if (a.cellTriangleCount > 0) {
        EXPECT_EQ(std::memcmp(a.cellTriangles, b.cellTriangles, a.cellTriangleCount * sizeof(std::uint32_t)), 0) << what;
    }
    ASSERT_EQ(a.vertexCount, b.vertexCount) << what;
    ASSERT_EQ(a.triangleCount, b.triangleCount) << what;
    EXPECT_EQ(std::memcmp(a.vertices, b.vertices, a.vertexCount * sizeof(Vec3)), 0) << what;
    EXPECT_EQ(std::memcmp(a.vertexVelocities, b.vertexVelocities, a.vertexCount * sizeof(Vec3)), 0) << what;
    EXPECT_EQ(std::memcmp(a.vertexNormals, b.vertexNormals, a.vertexCount * sizeof(Vec3)), 0) << what;
    EXPECT_EQ(std::memcmp(a.faceNormals, b.faceNormals, a.triangleCount * sizeof(Vec3)), 0) << what;
    EXPECT_EQ(std::memcmp(a.edgeNormals, b.edgeNormals, 3 * a.triangleCount * sizeof(Vec3)), 0) << what;
    EXPECT_EQ(std::memcmp(a.triangleBalls, b.triangleBalls, 4 * a.triangleCount * sizeof(float)), 0) << what;
    EXPECT_EQ(got.thinCellCount(), want.thinCellCount()) << what;
}

TEST(WallDistanceField, RebuildingOneFieldEqualsFreshBuilds) {
    // A beating, translating wall (the grid grows and shrinks between builds), a switch to
    // a thin slab (thin cells) and back, and a new triangulation: the reused field must
    // give exactly what a fresh one gives.
    const TriangleMesh base = TriangleMesh::icosphere({}, 0.05f, 4);
    std::vector<Frame> frames;
    for (int f = 0; f < 5; ++f) {
        TriangleMesh m = base;
        const float scale = 1.f + 0.12f * std::sin(1.3f * float(f));
        for (Vec3& x : m.vertices) x = x * scale + Vec3{0.002f * float(f), 0.f, -0.001f * float(f)};
        frames.push_back({m, 0.0025f});
    }
    frames.push_back({makeBox({0.f, 0.f, 0.f}, {1.f, 1.f, 0.015f}), 0.05f});
    frames.push_back({frames[2].mesh, 0.0025f});
    frames.push_back({TriangleMesh::icosphere({0.01f, 0.f, 0.f}, 0.04f, 3), 0.0025f});
    WallDistanceField reused;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        const std::vector<Vec3> vel = randomVelocities(frames[f].mesh.vertices.size(), unsigned(f));
        reused.build(frames[f].mesh, &vel, cells(frames[f].h));
        WallDistanceField fresh;
        fresh.build(frames[f].mesh, &vel, cells(frames[f].h));
        expectSameField(reused, fresh, "frame " + std::to_string(f));
    }
}

TEST(WallDistanceField, RestoredSnapshotsEqualFreshBuilds) {
    // Snapshots of a pulsing sphere and of a thin slab (thin cells), restored in turn into
    // one field between builds of other meshes (grids of other sizes): each restore must
    // give exactly the field built from that mesh, and a build after a restore exactly
    // a fresh build.
    const TriangleMesh base = TriangleMesh::icosphere({}, 0.05f, 4);
    std::vector<Frame> frames;
    for (int f = 0; f < 3; ++f) {
        TriangleMesh m = base;
        for (Vec3& x : m.vertices) x = x * (1.f + 0.15f * float(f)) + Vec3{0.003f * float(f), 0.f, 0.f};
        frames.push_back({m, 0.0025f});
    }
    frames.push_back({makeBox({0.f, 0.f, 0.f}, {0.2f, 0.2f, 0.006f}), 0.004f});
    std::vector<std::vector<Vec3>> velocities;
    std::vector<WallDistanceField::Snapshot> snapshots;
    for (std::size_t f = 0; f < frames.size(); ++f) {
        velocities.push_back(randomVelocities(frames[f].mesh.vertices.size(), unsigned(f)));
        WallDistanceField field;
        field.build(frames[f].mesh, &velocities[f], cells(frames[f].h));
        snapshots.push_back(field.snapshot());
        // Compact where most of the grid is off the band (not so for the slab).
        if (f < 3) {
            EXPECT_LT(snapshots.back().bytes(), field.bytes() / 2) << "frame " << f;
        }
    }
    EXPECT_GT(snapshots.back().thinCellCount, 0u) << "the slab should have thin cells";

    WallDistanceField reused;
    const std::size_t order[] = {2, 0, 3, 1, 2, 3};
    for (std::size_t step = 0; step < std::size(order); ++step) {
        const std::size_t f = order[step];
        WallDistanceField fresh;
        fresh.build(frames[f].mesh, &velocities[f], cells(frames[f].h));
        reused.restore(snapshots[f]);
        expectSameField(reused, fresh, "restore of frame " + std::to_string(f) + " at step " + std::to_string(step));
        // A build over the restored field (another frame) is a fresh build too.
        const std::size_t g = order[(step + 1) % std::size(order)];
        WallDistanceField freshG;
        freshG.build(frames[g].mesh, &velocities[g], cells(frames[g].h));
        WallDistanceField rebuilt;
        rebuilt.restore(snapshots[f]);
        rebuilt.build(frames[g].mesh, &velocities[g], cells(frames[g].h));
        expectSameField(rebuilt, freshG, "build of frame " + std::to_string(g) + " after restoring " + std::to_string(f));
    }
    EXPECT_THROW(WallDistanceField().snapshot(), std::logic_error);
}

// ---------------------------------------------------------------- input validation

TEST(WallDistanceField, RejectsBadInputWithAMessage) {
    auto expectThrow = [](auto&& f, const std::string& fragment) {
        try {
            f();
            ADD_FAILURE() << "no exception; expected one mentioning '" << fragment << "'";
        } catch (const std::invalid_argument& e) {
            EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
        }
    };
    const TriangleMesh sphere = TriangleMesh::icosphere({}, 0.05f, 2);
    WallDistanceField field;
    field.build(sphere, nullptr, cells(0.005f));
    const float before = field.signedDistance({0.01f, 0.f, 0.f});

    expectThrow([&] { field.build(TriangleMesh{}, nullptr, cells(0.005f)); }, "empty");
    TriangleMesh bad = sphere;
    bad.triangles[7][1] = std::uint32_t(bad.vertices.size());
    expectThrow([&] { field.build(bad, nullptr, cells(0.005f)); }, "triangle 7");
    bad = sphere;
    bad.vertices[3].y = NAN;
    expectThrow([&] { field.build(bad, nullptr, cells(0.005f)); }, "vertex 3");
    expectThrow([&] { field.build(sphere, nullptr, cells(0.f)); }, "cell size");
    expectThrow([&] { field.build(sphere, nullptr, cells(-1.f)); }, "cell size");
    expectThrow([&] { field.build(sphere, nullptr, cells(1e-5f)); }, "64M");
    const std::vector<Vec3> few(3);
    expectThrow([&] { field.build(sphere, &few, cells(0.005f)); }, "vertex velocities");
    WallDistanceField::Settings s = cells(0.005f);
    s.band = 0.005f;
    expectThrow([&] { field.build(sphere, nullptr, s); }, "band");
    s = cells(0.005f);
    s.paddingCells = 0;
    expectThrow([&] { field.build(sphere, nullptr, s); }, "paddingCells");

    // A failed build leaves the previous field in place.
    EXPECT_EQ(field.signedDistance({0.01f, 0.f, 0.f}), before);
    EXPECT_THROW(WallDistanceField{}.signedDistance({}), std::logic_error);
    EXPECT_TRUE(WallDistanceField{}.empty());
    EXPECT_FALSE(WallDistanceField{}.view().valid());
}

} // namespace
