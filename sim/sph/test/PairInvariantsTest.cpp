// Direct tests of single terms of the SPH step, each of which once let a planted bug
// through or was caught only by a distant integration test (issue 11):
//  - the equation of state against its formula (Tait exponent 7, Becker & Teschner 2007;
//    stiffness B = rho0 c^2 / 7, Poyart 2016 eq. 2.11) and its clamps (eq. 2.12);
//  - two particles under physical viscosity (Mueller et al. 2003, eq. 14): their relative
//    velocity decays, at the rate the kernel's Laplacian gives, and momentum is kept;
//  - two particles under artificial viscosity (Becker & Teschner's Pi_ij, Monaghan 1992):
//    approaching pairs are braked, separating pairs are not, through the CPU backend's
//    four-lane force pass;
//  - the neighbour grid's clamp of positions outside it into the border cells;
//  - the wall margin the solver keeps particles inside a wall by.
// Every expectation comes from the formulas, not from the code's output.

#include "sim/sph/Backend.h"
#include "sim/sph/CandidateCells.h"
#include "sim/sph/Kernels.h"
#include "sim/sph/Solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>

using namespace atrium::sph;

namespace {

constexpr double kPi = std::numbers::pi;

/// Two free particles (no walls, no gravity): pressure clamped at 0 (their density is a
/// fifth of rho0), so only the viscosity terms act.
StepInput pairInput(float h) {
    StepInput in;
    in.dt = 1e-4f;
    in.mass = 1e-3f;
    in.restDensity = 1000.f;
    in.eosStiffness = 1e5f;
    in.minPressure = 0.f;
    in.maxPressure = 1e6f;
    in.soundSpeed = 10.f;
    in.kernels = SphKernels::forRadius(h);
    in.grid.origin = {-0.1f, -0.1f, -0.1f};
    in.grid.cellSize = h;
    in.grid.nx = in.grid.ny = in.grid.nz = int(std::ceil(0.2f / h));
    in.gravity = {};
    return in;
}

struct Pair {
    Vec3 x0, x1, v0, v1;
};

/// One step of the CPU backend; the particles come back in storage order, so they are
/// told apart by position (particle 0 has the smaller x + y + z).
Pair stepPair(const Pair& p, const StepInput& in) {
    auto backend = makeCpuBackend();
    const std::vector<Vec3> positions{p.x0, p.x1}, velocities{p.v0, p.v1};
    backend->setParticles(positions, velocities);
    backend->step(in);
    HostParticles out;
    backend->download(FieldPosition | FieldVelocity | FieldPressure, out);
    EXPECT_EQ(out.pressure[0], 0.f);
    EXPECT_EQ(out.pressure[1], 0.f);
    const auto key = [](Vec3 x) { return x.x + x.y + x.z; };
    const bool swapped = key(out.position[0]) > key(out.position[1]);
    return {out.position[swapped], out.position[!swapped], out.velocity[swapped], out.velocity[!swapped]};
}

} // namespace

TEST(EquationOfState, TaitValuesFollowTheFormulaWithExponentSeven) {
    const float rho0 = 1000.f, B = 2.5e4f;
    for (const double ratio : {0.9, 0.99, 1.0, 1.003, 1.01, 1.05, 1.2}) {
        const double expected = double(B) * (std::pow(ratio, 7.0) - 1.0);
        const float p = pressureFromDensity(float(rho0 * ratio), true, rho0, B, -std::numeric_limits<float>::max(),
                                            std::numeric_limits<float>::max());
        EXPECT_NEAR(p, expected, 1e-5 * double(B) + 1e-5 * std::fabs(expected)) << "rho/rho0 = " << ratio;
    }
    // Linear: p = k (rho - rho0).
    EXPECT_FLOAT_EQ(pressureFromDensity(1010.f, false, 1000.f, 300.f, -1e9f, 1e9f), 3000.f);
}

TEST(EquationOfState, ClampsAtTheMaximumAndTheMinimum) {
    // Poyart 2016 eq. 2.12: p <= p_max; with no tension, p >= 0.
    EXPECT_EQ(pressureFromDensity(3000.f, true, 1000.f, 2.5e4f, 0.f, 1e5f), 1e5f);
    EXPECT_EQ(pressureFromDensity(900.f, true, 1000.f, 2.5e4f, 0.f, 1e5f), 0.f);
    EXPECT_EQ(pressureFromDensity(900.f, true, 1000.f, 2.5e4f, -500.f, 1e5f), -500.f);
    EXPECT_TRUE(std::isnan(pressureFromDensity(std::numeric_limits<float>::quiet_NaN(), true, 1000.f, 2.5e4f, 0.f, 1e5f)));
}

TEST(EquationOfState, TheSolversPressuresAreTheTaitFormulaWithBEqualsRho0CSquaredOverSeven) {
    Scene s;
    s.parameters.particleSpacing = 0.01f;
    s.parameters.kernelRadius = 0.02f;
    s.parameters.soundSpeed = 12.f;
    s.parameters.maxPressure = 1e9f;
    s.parameters.clampNegativePressure = false; // see the formula on both sides of rho0
    s.parameters.gravity = {0.f, 0.f, -9.81f};
    s.container = BoxContainer{{{0.f, 0.f, 0.f}, {0.1f, 0.1f, 0.1f}}, 0.f};
    s.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {0.1f, 0.1f, 0.06f}}, {}});
    Solver solver(s);
    for (int i = 0; i < 20; ++i) solver.step();
    HostParticles h;
    solver.read(FieldDensity | FieldPressure, h);
    const double rho0 = solver.restDensity(), c = s.parameters.soundSpeed;
    const double B = rho0 * c * c / 7.0;
    ASSERT_FALSE(h.density.empty());
    double largest = 0.0;
    for (std::size_t i = 0; i < h.density.size(); ++i) {
        const double expected = B * (std::pow(double(h.density[i]) / rho0, 7.0) - 1.0);
        ASSERT_NEAR(h.pressure[i], expected, 2e-4 * B + 2e-5 * std::fabs(expected)) << "particle " << i;
        largest = std::max(largest, std::fabs(expected));
    }
    EXPECT_GT(largest, 0.01 * B) << "the test needs densities away from rho0";
}

TEST(PairForces, ViscosityDampsTheRelativeVelocityAtTheLaplaciansRate) {
    // Shear: particles 0.01 m apart along x, moving +-0.1 m/s along y.
    const float h = 0.02f, r = 0.01f, mu = 0.05f;
    StepInput in = pairInput(h);
    in.viscosity = mu;
    Pair p{{0.f, 0.f, 0.f}, {r, 0.f, 0.f}, {0.f, 0.1f, 0.f}, {0.f, -0.1f, 0.f}};
    const Pair q = stepPair(p, in);
    const double before = double(p.v0.y) - p.v1.y, after = double(q.v0.y) - q.v1.y;
    // Each density is m (W_poly6(0) + W_poly6(r)); the volumes V = m / rho.
    const double poly6 = 315.0 / (64.0 * kPi * std::pow(h, 9));
    const double rho = 1e-3 * poly6 * (std::pow(double(h) * h, 3) + std::pow(double(h) * h - double(r) * r, 3));
    const double lap = 45.0 / (kPi * std::pow(h, 6)) * (h - r); // Mueller 2003 eq. 22
    // a_i = mu lap V_j (v_j - v_i) / rho_i: the relative velocity decays at 2 mu lap V / rho.
    const double rate = 2.0 * mu * lap * (1e-3 / rho) / rho;
    EXPECT_LT(std::fabs(after), std::fabs(before)) << "viscosity must damp the shear, not feed it";
    EXPECT_NEAR(after, before * (1.0 - rate * in.dt), 1e-3 * before * rate * in.dt + 1e-7);
    EXPECT_NEAR(double(q.v0.y) + q.v1.y, 0.0, 1e-7) << "momentum is kept";
    // Without viscosity nothing acts on the pair.
    in.viscosity = 0.f;
    const Pair free = stepPair(p, in);
    EXPECT_FLOAT_EQ(free.v0.y - free.v1.y, float(before));
}

TEST(PairForces, ArtificialViscosityBrakesApproachingPairsOnly) {
    // Head-on along x at 0.012 m (inside h = 0.02 m), 0.5 m/s each way; artificial
    // viscosity only. One neighbour each: the CPU force pass computes it in its
    // four-lane group, the other lanes masked.
    const float h = 0.02f;
    StepInput in = pairInput(h);
    in.viscosity = 0.f;
    in.artificialViscosity = 0.5f;
    const Pair approaching{{0.f, 0.f, 0.f}, {0.012f, 0.f, 0.f}, {0.5f, 0.f, 0.f}, {-0.5f, 0.f, 0.f}};
    const Pair a = stepPair(approaching, in);
    const float closingBefore = approaching.v0.x - approaching.v1.x, closingAfter = a.v0.x - a.v1.x;
    EXPECT_LT(closingAfter, closingBefore) << "approaching particles must be braked";
    EXPECT_GT(closingAfter, 0.f) << "braked, not turned round, in one step";
    EXPECT_NEAR(a.v0.x + a.v1.x, 0.f, 1e-6f) << "momentum is kept";

    const Pair separating{{0.f, 0.f, 0.f}, {0.012f, 0.f, 0.f}, {-0.5f, 0.f, 0.f}, {0.5f, 0.f, 0.f}};
    const Pair s = stepPair(separating, in);
    EXPECT_EQ(s.v0.x, -0.5f) << "separating particles feel no artificial viscosity";
    EXPECT_EQ(s.v1.x, 0.5f);

    // A fifth particle in line makes four neighbours for the middle one: a full lane group.
    auto backend = makeCpuBackend();
    const std::vector<Vec3> line{{-0.01f, 0.f, 0.f}, {-0.005f, 0.f, 0.f}, {0.f, 0.f, 0.f}, {0.005f, 0.f, 0.f}, {0.01f, 0.f, 0.f}};
    const std::vector<Vec3> converging{{0.2f, 0.f, 0.f}, {0.1f, 0.f, 0.f}, {0.f, 0.f, 0.f}, {-0.1f, 0.f, 0.f}, {-0.2f, 0.f, 0.f}};
    backend->setParticles(line, converging);
    StepInput five = pairInput(h);
    five.viscosity = 0.f;
    five.artificialViscosity = 0.5f;
    five.restDensity = 1e6f; // pressure stays clamped at 0 for the denser group too
    backend->step(five);
    HostParticles out;
    backend->download(FieldPosition | FieldVelocity, out);
    for (std::size_t i = 0; i < out.position.size(); ++i) {
        const float x0 = std::round(out.position[i].x / 0.005f) * 0.005f;
        const float v0 = -20.f * x0; // the velocity it started with
        if (x0 != 0.f) {
            EXPECT_LT(std::fabs(out.velocity[i].x), std::fabs(v0)) << "the converging line is braked at " << x0;
        }
    }
}

TEST(NeighbourGrid, PositionsOutsideAreClampedIntoTheBorderCells) {
    const float origin = -0.1f, cell = 0.02f;
    const int n = 10;
    EXPECT_EQ(cellCoord(origin + 0.5f * cell, origin, 1.f / cell, n), 0);
    EXPECT_EQ(cellCoord(origin + 9.5f * cell, origin, 1.f / cell, n), n - 1);
    EXPECT_EQ(cellCoord(origin + 10.f * cell, origin, 1.f / cell, n), n - 1) << "the upper edge is in the last cell";
    EXPECT_EQ(cellCoord(origin + 57.f * cell, origin, 1.f / cell, n), n - 1);
    EXPECT_EQ(cellCoord(origin - 3.f * cell, origin, 1.f / cell, n), 0);
    EXPECT_EQ(cellCoord(1e30f, origin, 1.f / cell, n), n - 1) << "far outside: clamped, not an int overflow";
    EXPECT_EQ(cellCoord(-1e30f, origin, 1.f / cell, n), 0);
    EXPECT_EQ(cellCoord(std::numeric_limits<float>::quiet_NaN(), origin, 1.f / cell, n), 0);

    // Two particles beyond the grid's upper corner share the last cell and see each other.
    auto backend = makeCpuBackend();
    StepInput in = pairInput(0.02f);
    const Vec3 beyond{0.15f, 0.15f, 0.15f};
    const std::vector<Vec3> corner{beyond, beyond + Vec3{0.01f, 0.f, 0.f}};
    backend->setParticles(corner, std::vector<Vec3>(2));
    backend->computeDensities(in);
    HostParticles out;
    backend->download(FieldDensity, out);
    const double poly6 = 315.0 / (64.0 * kPi * std::pow(0.02, 9));
    const double pair = 1e-3 * poly6 * (std::pow(4e-4, 3) + std::pow(4e-4 - 1e-4, 3));
    EXPECT_NEAR(out.density[0], pair, 1e-4 * pair);
    EXPECT_NEAR(out.density[1], pair, 1e-4 * pair);
}

TEST(WallMargin, SeededAndMovingParticlesStayHalfASpacingInsideTheWall) {
    // A resting sphere of water: the wall keeps every particle at least the margin
    // (default half a spacing) inside, from seeding on.
    Scene s;
    s.parameters.particleSpacing = 0.01f;
    s.parameters.kernelRadius = 0.02f;
    s.parameters.soundSpeed = 15.f;
    s.parameters.viscosity = 0.05f;
    s.wall.kind = WallMeshSpec::Kind::Sphere;
    s.wall.center = {0.f, 0.f, 0.f};
    s.wall.radius = 0.08f;
    s.wall.subdivisions = 4;
    s.fluidBlocks.push_back({{{-0.1f, -0.1f, -0.1f}, {0.1f, 0.1f, 0.1f}}, {}});
    Solver solver(s);
    EXPECT_FLOAT_EQ(solver.wallFieldSettings().margin, 0.005f);
    const auto deepest = [&] {
        HostParticles h;
        solver.read(FieldPosition, h);
        float closest = std::numeric_limits<float>::max();
        for (const Vec3& x : h.position) closest = std::min(closest, -solver.wallField()->signedDistance(x));
        return closest;
    };
    EXPECT_GE(deepest(), 0.005f * 0.999f) << "seeded inside the margin";
    for (int i = 0; i < 30; ++i) solver.step();
    EXPECT_GE(deepest(), 0.005f * 0.98f) << "pushed back to the margin, not to the wall";
}
