// CPU/CUDA parity: the same scenes stepped with the same time steps on both backends
// must agree to float rounding (the GPU sums a cell's particles in another order and
// contracts into FMAs, so not bit for bit). Without a CUDA GPU every test is skipped
// with the reason (cudaBackendStatus()).
//
// Particles are matched by nearest position (the two backends order particles inside a
// cell differently), then positions, velocities and densities are compared, along with
// the particle counts (exactly) and aggregate statistics.
//
// Time steps are given explicitly and kept well below the CFL limit: the CUDA backend
// reports maxSpeed one step late, so a CFL-limited step would differ between backends.

#include "sim/sph/Backend.h"
#include "sim/sph/Seeding.h"
#include "sim/sph/Solver.h"
#include "sim/sph/test/ParticleComparison.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <unordered_map>
#include <vector>

using namespace atrium::sph;
using namespace atrium::sph::test;

#define ATRIUM_REQUIRE_CUDA() \
    if (!cudaBackendAvailable()) GTEST_SKIP() << "no CUDA GPU: " << cudaBackendStatus()

namespace {

constexpr float kSpacing = 0.01f;

Scene baseScene() {
    Scene s;
    s.name = "parity";
    s.parameters.particleSpacing = kSpacing;
    s.parameters.kernelRadius = 2.f * kSpacing;
    s.parameters.soundSpeed = 15.f;
    s.parameters.viscosity = 0.05f;
    return s;
}

/// A dam break: a 15 x 20 x 25 block (7500 particles) in a 0.4 x 0.2 x 0.3 m box.
Scene damScene() {
    Scene s = baseScene();
    s.container = BoxContainer{{{0.f, 0.f, 0.f}, {0.4f, 0.2f, 0.3f}}, 0.5f};
    s.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {0.15f, 0.2f, 0.25f}}, {}});
    return s;
}

/// A falling block crossing a one-way disc (valve) and split by a two-sided septum,
/// draining through a floor outlet and a sphere outlet, fed by an emitter.
Scene valveScene() {
    Scene s = baseScene();
    s.parameters.gravity = {0.f, 0.f, -30.f};
    s.container = BoxContainer{{{0.f, 0.f, 0.f}, {0.2f, 0.2f, 0.3f}}, 0.3f};
    s.fluidBlocks.push_back({{{0.f, 0.f, 0.04f}, {0.2f, 0.2f, 0.2f}}, {0.f, 0.f, -1.f}});
    s.planes.push_back({{0.1f, 0.1f, 0.1f}, {0.f, 0.f, -1.f}, 0.06f, PlaneKind::OneWay, 0.2f});
    s.planes.push_back({{0.1f, 0.1f, 0.f}, {1.f, 0.f, 0.f}, 0.f, PlaneKind::TwoSided, 0.5f});
    Outlet floor;
    floor.shape = OutletShape::Box;
    floor.bounds = {{0.f, 0.f, 0.f}, {0.2f, 0.2f, 0.05f}};
    s.outlets.push_back(floor);
    Outlet sink;
    sink.shape = OutletShape::Sphere;
    sink.center = {0.05f, 0.05f, 0.1f};
    sink.radius = 0.03f;
    s.outlets.push_back(sink);
    Emitter e;
    e.position = {0.1f, 0.1f, 0.27f};
    e.direction = {0.f, 0.f, -1.f};
    e.radius = 0.03f;
    e.speed = 2.f;
    s.emitters.push_back(e);
    return s;
}

/// Fluid sloshing inside a pulsing sphere (wall field rebuilt and uploaded every step,
/// the wall pushing at up to about 1 m/s).
Scene pulsingSphereScene() {
    Scene s = baseScene();
    s.parameters.gravity = {0.f, 0.f, -20.f};
    s.wall.kind = WallMeshSpec::Kind::Sphere;
    s.wall.center = {0.1f, 0.1f, 0.1f};
    s.wall.radius = 0.08f;
    s.wall.subdivisions = 3;
    s.wall.pulseAmplitude = 0.1f;
    s.wall.pulsePeriod = 0.05f;
    s.fluidBlocks.push_back({{{0.03f, 0.03f, 0.03f}, {0.17f, 0.17f, 0.12f}}, {0.3f, 0.f, 0.f}});
    return s;
}

/// Steps both backends `steps` times with `dt` and compares them.
void expectParity(const Scene& scene, int steps, float dt, bool profileCuda = false) {
    Solver cpu(scene, BackendKind::Cpu);
    Solver gpu(scene, BackendKind::Cuda);
    gpu.setProfiling(profileCuda);
    ASSERT_EQ(gpu.backendName(), "cuda");
    ASSERT_EQ(cpu.particleCount(), gpu.particleCount());
    ASSERT_GT(cpu.particleCount(), 0u);
    EXPECT_NEAR(gpu.restDensity(), cpu.restDensity(), 1e-5 * cpu.restDensity()) << "rest density (3.5.1)";

    ParticleAccounting beforeLast;
    for (int i = 0; i < steps; ++i) {
        if (i == steps - 1) beforeLast = cpu.accounting();
        cpu.step(dt);
        gpu.step(dt);
        ASSERT_EQ(cpu.lastTimeStep(), gpu.lastTimeStep()) << "step " << i << ": the test needs dt below CFL";
        ASSERT_EQ(cpu.particleCount(), gpu.particleCount()) << "after step " << i;
    }

    HostParticles a, b;
    cpu.read(FieldAll, a);
    gpu.read(FieldAll, b);
    ASSERT_EQ(a.position.size(), b.position.size());
    ASSERT_EQ(b.velocity.size(), b.position.size());
    ASSERT_EQ(b.density.size(), b.position.size());
    ASSERT_EQ(b.pressure.size(), b.position.size());

    expectParticleFieldsAgree(a, b, kSpacing);

    const SimulationStats sa = cpu.stats(), sb = gpu.stats();
    EXPECT_EQ(sa.particles, sb.particles);
    EXPECT_LE(relDiff(sa.kineticEnergy, sb.kineticEnergy), 1e-3) << "kinetic energy";
    EXPECT_LE(relDiff(sa.maxSpeed, sb.maxSpeed), 1e-2) << "max speed";
    EXPECT_NEAR(sa.meanDensityError, sb.meanDensityError, 1e-4);
    EXPECT_NEAR(sa.maxDensityError, sb.maxDensityError, 5e-3);

    // Accounting: exact for emission; removals lag one step on the GPU (StepOutput
    // arrives one step late), so the GPU has not yet counted the last step's removals.
    const ParticleAccounting& pa = cpu.accounting();
    const ParticleAccounting& pb = gpu.accounting();
    EXPECT_EQ(pa.seeded, pb.seeded);
    EXPECT_EQ(pa.emitted, pb.emitted);
    EXPECT_EQ(pb.removedByOutlets, beforeLast.removedByOutlets);
    EXPECT_EQ(pb.leaked, beforeLast.leaked);
}

/// A StepInput for hand-driven backends: unit box, grid of cells h, no boundaries.
StepInput unitBoxInput(float dt) {
    StepInput in;
    in.dt = dt;
    in.mass = 1000.f * kSpacing * kSpacing * kSpacing;
    in.restDensity = 1000.f;
    in.equationOfState = EquationOfState::Tait;
    in.eosStiffness = 1000.f * 15.f * 15.f / 7.f;
    in.maxPressure = 1e6f;
    in.viscosity = 0.05f;
    in.gravity = {0.f, 0.f, -9.81f};
    in.kernels = SphKernels::forRadius(2.f * kSpacing);
    in.grid.origin = {-0.02f, -0.02f, -0.02f};
    in.grid.cellSize = 2.f * kSpacing;
    in.grid.nx = in.grid.ny = in.grid.nz = 12;
    return in;
}

std::vector<Vec3> jitteredBlock(std::uint32_t seed) {
    std::vector<Vec3> pos = latticeInBox({{0.05f, 0.05f, 0.05f}, {0.15f, 0.15f, 0.15f}}, kSpacing);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> jitter(-0.002f, 0.002f);
    for (Vec3& p : pos) p += Vec3{jitter(rng), jitter(rng), jitter(rng)};
    return pos;
}

} // namespace

TEST(CudaBackend, ConstructsAndStaysWithin200BytesPerParticle) {
    ATRIUM_REQUIRE_CUDA();
    std::unique_ptr<Solver> gpu;
    ASSERT_NO_THROW(gpu = std::make_unique<Solver>(damScene(), BackendKind::Cuda));
    EXPECT_EQ(gpu->backendName(), "cuda");
    EXPECT_FALSE(gpu->deviceName().empty());
    EXPECT_EQ(gpu->particleCount(), 7500u);
    EXPECT_LE(gpu->bytesPerParticle(), 200u);
    EXPECT_GE(gpu->bytesPerParticle(), 64u) << "pos, vel and the reorder buffers alone take 64 B";
    ASSERT_NO_THROW(gpu->step(2e-4f));
    ASSERT_NO_THROW(gpu->synchronize());
    EXPECT_LE(gpu->bytesPerParticle(), 200u);
}

TEST(CudaBackend, RemovalAndAppendBookkeepingMatchesTheCpu) {
    ATRIUM_REQUIRE_CUDA();
    const std::unique_ptr<Backend> cpu = makeCpuBackend();
    const std::unique_ptr<Backend> gpu = makeCudaBackend();
    ASSERT_TRUE(gpu);
    const std::vector<Vec3> pos = jitteredBlock(7);
    const std::vector<Vec3> vel(pos.size(), Vec3{0.1f, 0.f, 0.f});
    for (Backend* b : {cpu.get(), gpu.get()}) b->setParticles(pos, vel);
    ASSERT_EQ(gpu->size(), pos.size());

    // Densities of an unmoved cloud: same positions, so matching is exact.
    const StepInput in = unitBoxInput(1e-4f);
    cpu->computeDensities(in);
    gpu->computeDensities(in);
    HostParticles a, b;
    cpu->download(FieldAll, a);
    gpu->download(FieldAll, b);
    ASSERT_EQ(a.position.size(), b.position.size());
    const Comparison c = compareParticles(a, b, kSpacing);
    EXPECT_EQ(c.unmatched, 0u);
    EXPECT_EQ(c.maxDistance, 0.0) << "computeDensities must not move particles";
    EXPECT_LE(c.maxDensityRel, 1e-5);

    // Removal: duplicates and out-of-range indices are ignored; removed particles
    // leave size() at once and download() at once, and the arrays at the next build.
    const std::vector<std::uint32_t> remove = {0, 0, 5, 17, 1u << 30};
    for (Backend* bk : {cpu.get(), gpu.get()}) bk->removeParticles(remove);
    EXPECT_EQ(cpu->size(), pos.size() - 3);
    EXPECT_EQ(gpu->size(), pos.size() - 3);
    gpu->download(FieldPosition | FieldDensity, b);
    EXPECT_EQ(b.position.size(), pos.size() - 3);
    EXPECT_EQ(b.density.size(), pos.size() - 3);

    // Appending after a removal (one lattice layer of 100 particles per call), then
    // growing past the first allocation.
    const auto layer = [](int k) {
        const float z = 0.17f + 0.01f * float(k);
        return latticeInBox({{0.05f, 0.05f, z}, {0.15f, 0.15f, z + kSpacing}}, kSpacing);
    };
    std::size_t expected = pos.size() - 3;
    for (int k = 0; k < 4; ++k) {
        const std::vector<Vec3> more = layer(k);
        const std::vector<Vec3> moreVel(more.size(), Vec3{});
        for (Backend* bk : {cpu.get(), gpu.get()}) bk->appendParticles(more, moreVel);
        expected += more.size();
        EXPECT_EQ(cpu->size(), expected);
        EXPECT_EQ(gpu->size(), expected);
    }

    for (int i = 0; i < 5; ++i) {
        cpu->step(in);
        gpu->step(in);
    }
    EXPECT_EQ(gpu->size(), expected);
    cpu->download(FieldAll, a);
    gpu->download(FieldAll, b);
    ASSERT_EQ(a.position.size(), expected);
    ASSERT_EQ(b.position.size(), expected);
    // Not the same particles were removed (index order differs inside cells), so only
    // the counts and the aggregates are compared here.
    EXPECT_LE(length(meanPosition(a) - meanPosition(b)), 2e-3f);
    EXPECT_LE(gpu->bytesPerParticle(), 200u);
}

TEST(CudaBackend, StepOutputLagsOneStepBehind) {
    ATRIUM_REQUIRE_CUDA();
    const std::unique_ptr<Backend> cpu = makeCpuBackend();
    const std::unique_ptr<Backend> gpu = makeCudaBackend();
    ASSERT_TRUE(gpu);
    const std::vector<Vec3> pos = jitteredBlock(11);
    const std::vector<Vec3> vel(pos.size(), Vec3{});
    cpu->setParticles(pos, vel);
    gpu->setParticles(pos, vel);
    const StepInput in = unitBoxInput(1e-4f);
    const StepOutput first = gpu->step(in);
    EXPECT_EQ(first.neighbourPairs, 0u) << "nothing to report before the first step completes";
    EXPECT_EQ(first.maxSpeed, 0.f);
    std::vector<StepOutput> ref;
    for (int i = 0; i < 4; ++i) ref.push_back(cpu->step(in));
    for (int i = 1; i < 4; ++i) {
        const StepOutput o = gpu->step(in); // reports step i - 1
        EXPECT_NEAR(double(o.neighbourPairs), double(ref[i - 1].neighbourPairs), 1e-3 * ref[i - 1].neighbourPairs)
            << "step " << i;
        EXPECT_NEAR(o.maxSpeed, ref[i - 1].maxSpeed, 1e-3f * ref[i - 1].maxSpeed + 1e-6f) << "step " << i;
        EXPECT_EQ(o.nonFinite, 0u);
        EXPECT_EQ(o.removedOutlets, 0u);
        EXPECT_EQ(o.removedLeaked, 0u);
    }
}

/// A duct between two open boundaries (OpenBoundaries.h): an inlet disc at 2 kPa with
/// an extrapolated velocity, a rectangular outlet at 0.5 kPa, on mirrored walls; the
/// fluid starts at 0.45 m/s so that within 70 steps of 2e-4 s a lattice layer enters
/// through the inlet (steps 44-46, new buffer particles behind it), one leaves through
/// the outlet and one passes the outlet buffer's far side (steps 60-66): 3,100 particles.
Scene openBoundaryScene() {
    Scene s = baseScene();
    s.parameters.gravity = {};
    s.parameters.wallPressure = WallPressure::Mirrored;
    s.container = BoxContainer{{{0.f, 0.f, 0.f}, {0.3f, 0.1f, 0.1f}}, 0.5f};
    s.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {0.3f, 0.1f, 0.1f}}, {0.45f, 0.f, 0.f}});
    OpenBoundary inlet;
    inlet.center = {0.02f, 0.05f, 0.05f};
    inlet.normal = {1.f, 0.f, 0.f};
    inlet.radius = 0.08f; // beyond the duct's corners: the container bounds the section
    inlet.pressure = 2000.f;
    OpenBoundary outlet;
    outlet.shape = OpenBoundaryShape::Rectangle;
    outlet.center = {0.28f, 0.05f, 0.05f};
    outlet.normal = {-1.f, 0.f, 0.f};
    outlet.axis = {0.f, 0.f, 1.f};
    outlet.halfWidth = outlet.halfHeight = 0.06f;
    outlet.pressure = 500.f;
    s.openBoundaries = {inlet, outlet};
    return s;
}

TEST(CudaParity, DamBreak) {
    ATRIUM_REQUIRE_CUDA();
    expectParity(damScene(), 50, 2e-4f);
}

TEST(CudaParity, DamBreakZOrderProfiled) {
    ATRIUM_REQUIRE_CUDA();
    Scene s = damScene();
    s.parameters.zOrder = true;
    expectParity(s, 30, 2e-4f, /*profileCuda=*/true);

    // Profiling runs integration and boundaries as separate kernels timed by events.
    Solver gpu(s, BackendKind::Cuda);
    gpu.setProfiling(true);
    gpu.resetStageTimes();
    for (int i = 0; i < 5; ++i) gpu.step(2e-4f);
    const StageTimes t = gpu.stageTimes();
    EXPECT_GT(t.grid, 0.0);
    EXPECT_GT(t.density, 0.0);
    EXPECT_GT(t.force, 0.0);
    EXPECT_GT(t.integrate, 0.0);
    EXPECT_GT(t.boundary, 0.0);
}

TEST(CudaParity, OpenBoundariesAtPrescribedPressures) {
    ATRIUM_REQUIRE_CUDA();
    const Scene scene = openBoundaryScene();
    expectParity(scene, 70, 2e-4f);
    expectParity(scene, 70, 2e-4f, /*profileCuda=*/true); // zone via pos.w between split kernels

    // The crossings, creations and flux agree; the GPU reports each step's one step late.
    Solver cpu(scene, BackendKind::Cpu);
    Solver gpu(scene, BackendKind::Cuda);
    for (int i = 0; i < 70; ++i) {
        cpu.step(2e-4f);
        gpu.step(2e-4f);
    }
    const std::array<OpenBoundaryFlow, 2> cpuBefore{cpu.openBoundaryFlow(0), cpu.openBoundaryFlow(1)};
    const std::array<double, 2> cpuRate{cpu.openBoundaryFlowRate(0), cpu.openBoundaryFlowRate(1)};
    const ParticleAccounting cpuAccounting = cpu.accounting();
    gpu.step(2e-4f);
    for (std::size_t b = 0; b < 2; ++b) {
        SCOPED_TRACE("open boundary " + std::to_string(b));
        EXPECT_EQ(gpu.openBoundaryFlow(b).entered, cpuBefore[b].entered);
        EXPECT_EQ(gpu.openBoundaryFlow(b).left, cpuBefore[b].left);
        EXPECT_NEAR(gpu.openBoundaryFlowRate(b), cpuRate[b], 1e-3 * std::fabs(cpuRate[b]) + 1e-9);
    }
    EXPECT_GT(cpuBefore[0].entered, 0u) << "a layer must have entered through the inlet";
    EXPECT_GT(cpuBefore[1].left, 0u) << "a layer must have left through the outlet";
    EXPECT_EQ(gpu.accounting().openCreated, cpuAccounting.openCreated);
    EXPECT_EQ(gpu.accounting().openRemoved, cpuAccounting.openRemoved);
    EXPECT_EQ(gpu.accounting().openDropped, cpuAccounting.openDropped);
}

TEST(CudaParity, ValvePlanesOutletsAndEmitter) {
    ATRIUM_REQUIRE_CUDA();
    expectParity(valveScene(), 60, 2e-4f);
}

TEST(CudaParity, PulsingSphereWall) {
    ATRIUM_REQUIRE_CUDA();
    expectParity(pulsingSphereScene(), 60, 2e-4f);
}

TEST(CudaParity, DamBreakOnMirroredWalls) {
    ATRIUM_REQUIRE_CUDA();
    Scene s = damScene();
    s.parameters.wallPressure = WallPressure::Mirrored;
    s.parameters.artificialViscosity = 0.5f;
    expectParity(s, 50, 2e-4f);
}

TEST(CudaParity, PulsingSphereWallInZOrderOnMirroredWalls) {
    ATRIUM_REQUIRE_CUDA();
    Scene s = pulsingSphereScene();
    s.parameters.zOrder = true;
    s.parameters.wallPressure = WallPressure::Mirrored;
    expectParity(s, 60, 2e-4f);
}

// h = 3.5 spacings: a row of three cells holds ~130 candidates, past the 64 that the
// neighbour masks hold, so the force pass scans those rows (CudaBackend.cuh).
TEST(CudaParity, WideKernelRowsOfMoreThan64Candidates) {
    ATRIUM_REQUIRE_CUDA();
    Scene s = damScene();
    s.parameters.kernelRadius = 3.5f * kSpacing;
    expectParity(s, 20, 2e-4f);
}
