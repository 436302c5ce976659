// Exactness of WallDistanceField's scatter: every grid node against the brute-force
// minimum (smooth walls with saddles, folds, thin cells, turned-over slivers), builds
// independent of the thread count, rebuilds and restored snapshots equal to fresh builds
// bit for bit, and bad input refused with a message.

#include "sim/sph/TriangleMesh.h"
#include "sim/sph/WallDistanceField.h"
#include "sim/sph/test/WallFieldTestSupport.h"

#include <gtest/gtest.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

using namespace atrium::sph;
using atrium::sph::test::append;
using atrium::sph::test::bruteDistance;
using atrium::sph::test::cells;
using atrium::sph::test::insideByWinding;
using atrium::sph::test::kPi;
using atrium::sph::test::makeBox;

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
