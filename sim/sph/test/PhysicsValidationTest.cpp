// Validation against analytic and published references (shared/validation/README.md):
// hydrostatic pressure, Martin & Moyce (1952) dam break, and no leaks from closed
// containers, static or moving, over 10,000 steps.
#include "sim/sph/Solver.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <vector>

using namespace atrium::sph;

namespace {

struct SettledColumn {
    double gradient = 0.0;     ///< d p / d depth from the bottom and top fifths, in rho0 g
    /// max over the fifths of |mean p - rho0 g (H - mean z)|, in rho0 g H
    double profileError = 0.0;
    double densityError = 0.0; ///< mean |rho / rho0 - 1| below the surface layers
    double densityErrorP99 = 0.0; ///< its 99th percentile (the largest of the read-backs)
    double stepsPerSecond = 0.0;  ///< sub-steps per simulated second
    double solverIterations = 0.0; ///< divergence-free: mean iterations of both solves, last read-back
    double kineticEnergy = 0.0, potentialEnergyScale = 0.0; ///< J; the latter m g H0 / 2
    bool pressureGrowsWithDepth = true;
    bool stayedInTheBox = true;
};

/// A column of water at rest under gravity, 6 x 6 x 15 cm in a box twice as high,
/// after 1 s. The pressure gradient is read from the mean pressures of the column's
/// bottom and top fifths (the two surface layers, which lack neighbours, left out),
/// averaged over 5 read-backs across the last 40 ms (one period of the column's lowest
/// sound mode, c0 / 4H ~ 28 Hz).
SettledColumn settleColumn(WallPressure wallPressure, float artificialViscosity,
                           PressureSolver pressureSolver = PressureSolver::WeaklyCompressible) {
    const float s = 0.005f, L = 0.06f, H0 = 0.15f;
    Scene scene;
    scene.parameters.particleSpacing = s;
    scene.parameters.kernelRadius = 2.f * s;
    scene.parameters.soundSpeed = 10.f * std::sqrt(2.f * 9.81f * H0);
    scene.parameters.viscosity = 0.001f;
    scene.parameters.artificialViscosity = artificialViscosity;
    scene.parameters.wallPressure = wallPressure;
    scene.parameters.pressureSolver = pressureSolver;
    scene.container = BoxContainer{{{0.f, 0.f, 0.f}, {L, L, 2.f * H0}}, 0.f};
    scene.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {L, L, H0}}, {}});
    Solver solver(scene);
    const double g = 9.81;
    SettledColumn out;
    const int reads = 5;
    for (int read = 0; read < reads; ++read) {
        while (solver.time() < 0.96 + 0.01 * read) solver.step();
        HostParticles h;
        solver.read(FieldAll, h);
        const double rho0 = solver.restDensity();
        for (const Vec3& p : h.position) out.stayedInTheBox &= scene.container->bounds.contains(p);
        float top = 0.f;
        for (const Vec3& p : h.position) top = std::max(top, p.z);
        const double H = top + 0.5 * s; // free surface: the top layer's upper edge
        const int slabs = 5;
        std::vector<double> pSum(slabs, 0.0), zSum(slabs, 0.0), count(slabs, 0.0);
        double densityError = 0.0, bulk = 0.0;
        std::vector<double> errors;
        for (std::size_t i = 0; i < h.position.size(); ++i) {
            const Vec3 p = h.position[i];
            if (p.z > H - 2.0 * s) continue;
            errors.push_back(std::fabs(h.density[i] / rho0 - 1.0));
            densityError += errors.back();
            bulk += 1.0;
            const int k = std::min(slabs - 1, int(p.z / H * slabs));
            pSum[k] += h.pressure[i];
            zSum[k] += p.z;
            count[k] += 1.0;
        }
        double profileError = 0.0;
        for (int k = 0; k < slabs; ++k) {
            if (k > 0) out.pressureGrowsWithDepth &= pSum[k - 1] / count[k - 1] > pSum[k] / count[k];
            const double hydrostatic = rho0 * g * (H - zSum[k] / count[k]);
            profileError = std::max(profileError, std::fabs(pSum[k] / count[k] - hydrostatic) / (rho0 * g * H));
        }
        out.profileError += profileError / reads;
        const double slope = (pSum[0] / count[0] - pSum[slabs - 1] / count[slabs - 1]) /
                             (zSum[slabs - 1] / count[slabs - 1] - zSum[0] / count[0]);
        out.gradient += slope / (rho0 * g) / reads;
        out.densityError += densityError / bulk / reads;
        std::nth_element(errors.begin(), errors.begin() + std::ptrdiff_t(0.99 * double(errors.size())), errors.end());
        out.densityErrorP99 = std::max(out.densityErrorP99, errors[std::size_t(0.99 * double(errors.size()))]);
        const Solver::PressureSolves& solves = solver.lastPressureSolves();
        out.solverIterations = 0.5 * (solves.divergenceIterations + solves.densityIterations);
    }
    out.stepsPerSecond = double(solver.stepCount()) / solver.time();
    const SimulationStats st = solver.stats();
    const double mass = solver.particleMass() * double(st.particles);
    out.kineticEnergy = st.kineticEnergy;
    out.potentialEnergyScale = mass * g * H0 / 2.0;
    return out;
}

/// Prints what was measured and checks what both wall models must give: nobody left
/// the box, motion died out (kinetic energy below 0.1 % of the column's potential
/// energy), bulk density within 1 % and pressure growing with depth.
void expectSettled(const SettledColumn& c, const char* walls) {
    std::cout << "[ measured ] " << walls << " walls: hydrostatic gradient " << c.gradient
              << " rho0 g, profile within " << c.profileError << " rho0 g H, bulk density error " << c.densityError
              << " (p99 " << c.densityErrorP99 << "), " << c.stepsPerSecond << " steps per second"
              << ", kinetic energy " << c.kineticEnergy / c.potentialEnergyScale << " of m g H0 / 2\n";
    EXPECT_TRUE(c.stayedInTheBox);
    EXPECT_LT(c.kineticEnergy, 1e-3 * c.potentialEnergyScale) << "settled";
    EXPECT_LT(c.densityError, 0.01) << "mean density error in the bulk";
    EXPECT_TRUE(c.pressureGrowsWithDepth);
}

} // namespace

TEST(Physics, HydrostaticColumnSettles) {
    // The check: after settling, p = rho0 g (H - z) within 5 %, density error
    // ~1 %, nobody outside the box. With mirrored wall pressure (Adami et al. 2012, see
    // WallKernelIntegrals.h) the floor and the side walls carry the column at
    // hydrostatic pressure. That model keeps ringing at the default artificial
    // viscosity (0.05), so the column settles with alpha = 0.5: the resting state does
    // not depend on viscosity.
    const SettledColumn c = settleColumn(WallPressure::Mirrored, 0.5f);
    expectSettled(c, "mirrored");
    EXPECT_NEAR(c.gradient, 1.0, 0.05);
    EXPECT_LT(c.profileError, 0.05) << "each fifth's mean pressure against rho0 g (H - z), in rho0 g H";
}

TEST(Physics, HydrostaticColumnOnEnergyConsistentWallsSettlesAtHigherPressure) {
    // The default, energy-consistent density-map walls settle quietly at the default
    // artificial viscosity, but the floor carries the column only with its first layer
    // at ~2x the hydrostatic pressure, and a particle beside a side wall lacks the
    // vertical gradient of its missing neighbours: the gradient read over the whole
    // column is ~1.37 rho0 g (1.07 away from the walls). Checked to stay in that
    // regime; docs/PERFORMANCE.md ("Known gaps") has the figures.
    const SettledColumn c = settleColumn(WallPressure::DensityMap, 0.05f);
    expectSettled(c, "density-map");
    EXPECT_GT(c.gradient, 1.0);
    EXPECT_LT(c.gradient, 1.6);
}

TEST(Physics, HydrostaticColumnStaysIncompressibleWithTheDivergenceFreeSolver) {
    // Issue 22's bound on incompressibility: |rho / rho0 - 1| within 1 % at the 99th
    // percentile and 0.3 % on average (the bulk below the two surface layers), which the
    // weakly compressible solver meets only with c0 far above the flow (a sound-limited
    // sub-step). DFSPH (Bender & Koschier 2017) solves for it at a sub-step the flow
    // bounds. Pressure still grows with depth at about rho0 g, the floor carrying the
    // column on density-map walls as in the weakly compressible case (1.0-1.6 rho0 g
    // over the whole column, see above).
    const SettledColumn c = settleColumn(WallPressure::DensityMap, 0.05f, PressureSolver::DivergenceFree);
    expectSettled(c, "divergence-free, density-map");
    EXPECT_LT(c.densityErrorP99, 0.01);
    EXPECT_LT(c.densityError, 0.003);
    EXPECT_GT(c.gradient, 0.9);
    EXPECT_LT(c.gradient, 1.6);
    std::cout << "[ measured ] divergence-free: " << c.solverIterations << " iterations a solve at rest\n";
}

namespace {

// Martin & Moyce (1952), square column of width a and height 2a:
// T = t sqrt(2 g / a), Z = surge front / a. (shared/validation/dam_break_martin_moyce_1952.csv)
constexpr double kMartinMoyce[][2] = {
    {0.41, 1.11}, {0.84, 1.23}, {1.19, 1.44}, {1.43, 1.67}, {1.63, 1.89}, {1.82, 2.11}, {1.97, 2.33},
    {2.2, 2.56},  {2.32, 2.78}, {2.5, 3.0},   {2.64, 3.22}, {2.82, 3.44}, {2.96, 3.67},
};

double referenceFront(double T) {
    // Linear interpolation of the published curve.
    for (std::size_t i = 1; i < std::size(kMartinMoyce); ++i)
        if (T <= kMartinMoyce[i][0]) {
            const double* a = kMartinMoyce[i - 1];
            const double* b = kMartinMoyce[i];
            return a[1] + (b[1] - a[1]) * (T - a[0]) / (b[0] - a[0]);
        }
    return kMartinMoyce[std::size(kMartinMoyce) - 1][1];
}

} // namespace

namespace {

/// Runs the 3D dam break and compares its surge front with Martin & Moyce from
/// T = 0.8 on (the front forms first), within 10 %; prints the largest deviation.
void expectDamBreakFollowsMartinMoyce(WallPressure wallPressure,
                                      PressureSolver pressureSolver = PressureSolver::WeaklyCompressible) {
    const float a = 0.1f, s = 0.005f;
    Scene scene;
    scene.parameters.particleSpacing = s;
    scene.parameters.kernelRadius = 2.f * s;
    scene.parameters.soundSpeed = 10.f * std::sqrt(2.f * 9.81f * 2.f * a);
    scene.parameters.viscosity = 0.001f; // water; the default artificial viscosity keeps it stable
    scene.parameters.wallPressure = wallPressure;
    scene.parameters.pressureSolver = pressureSolver;
    // 3D: a column a x a/2 x 2a across the whole width of the tank (walls on both
    // sides; a few-particle-thin slab would lack neighbours across its thickness).
    scene.container = BoxContainer{{{0.f, 0.f, 0.f}, {5.f * a, 0.5f * a, 3.f * a}}, 0.f};
    scene.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {a, 0.5f * a, 2.f * a}}, {}});
    Solver solver(scene);
    const double timeScale = std::sqrt(2.0 * 9.81 / a);

    int compared = 0;
    double worst = 0.0;
    for (const auto& point : kMartinMoyce) {
        const double T = point[0];
        if (T < 0.8) continue;
        while (solver.time() * timeScale < T) solver.step();
        HostParticles h;
        solver.read(FieldPosition, h);
        std::vector<float> x;
        x.reserve(h.position.size());
        for (const Vec3& p : h.position) x.push_back(p.x);
        // The front: the 99.5th percentile of x (ignores isolated spray), plus half a
        // spacing for the particle's extent.
        std::nth_element(x.begin(), x.begin() + std::ptrdiff_t(0.995 * double(x.size())), x.end());
        const double front = (x[std::size_t(0.995 * double(x.size()))] + 0.5 * s) / a;
        const double Tnow = solver.time() * timeScale;
        EXPECT_NEAR(front, referenceFront(Tnow), 0.10 * referenceFront(Tnow)) << "T = " << Tnow;
        worst = std::max(worst, std::fabs(front / referenceFront(Tnow) - 1.0));
        ++compared;
    }
    EXPECT_GE(compared, 10);
    std::cout << "[ measured ] largest deviation from Martin & Moyce: " << worst * 100.0 << " %\n";
}

} // namespace

TEST(Physics, DamBreakFrontFollowsMartinMoyce) { expectDamBreakFollowsMartinMoyce(WallPressure::DensityMap); }

TEST(Physics, DamBreakFrontFollowsMartinMoyceOnMirroredWalls) {
    expectDamBreakFollowsMartinMoyce(WallPressure::Mirrored);
}

TEST(Physics, DamBreakFrontFollowsMartinMoyceWithTheDivergenceFreeSolver) {
    expectDamBreakFollowsMartinMoyce(WallPressure::DensityMap, PressureSolver::DivergenceFree);
}

TEST(Physics, ClosedBoxLeaksNothingOver10000Steps) {
    Scene scene;
    scene.parameters.particleSpacing = 0.01f;
    scene.parameters.kernelRadius = 0.02f;
    scene.parameters.soundSpeed = 20.f;
    scene.parameters.viscosity = 0.02f;
    scene.container = BoxContainer{{{0.f, 0.f, 0.f}, {0.3f, 0.1f, 0.2f}}, 0.5f};
    scene.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {0.1f, 0.1f, 0.2f}}, {1.f, 0.f, 0.f}}); // a hard slosh
    Solver solver(scene);
    const std::size_t n = solver.particleCount();
    for (int i = 0; i < 10000; ++i) {
        solver.step();
        if (i % 250 == 249) {
            HostParticles h;
            solver.read(FieldPosition, h);
            ASSERT_EQ(h.position.size(), n);
            for (const Vec3& p : h.position) ASSERT_TRUE(scene.container->bounds.contains(p)) << "step " << i;
        }
    }
}

TEST(Physics, PulsingSphereLeaksNothingOver10000Steps) {
    Scene scene;
    scene.parameters.particleSpacing = 0.005f;
    scene.parameters.kernelRadius = 0.01f;
    scene.parameters.soundSpeed = 10.f;
    scene.parameters.viscosity = 0.05f;
    scene.wall.kind = WallMeshSpec::Kind::Sphere;
    scene.wall.center = {0.f, 0.f, 0.f};
    scene.wall.radius = 0.05f;
    scene.wall.subdivisions = 3;
    scene.wall.pulseAmplitude = 0.15f;
    scene.wall.pulsePeriod = 0.5f;
    scene.fluidBlocks.push_back({{{-0.03f, -0.03f, -0.05f}, {0.03f, 0.03f, 0.01f}}, {}});
    Solver solver(scene);
    const std::size_t n = solver.particleCount();
    ASSERT_GT(n, 1000u);
    for (int i = 0; i < 10000; ++i) {
        solver.step();
        if (i % 250 == 249) {
            const double r = 0.05 * (1.0 + 0.15 * std::sin(2.0 * std::numbers::pi * solver.time() / 0.5));
            HostParticles h;
            solver.read(FieldPosition, h);
            ASSERT_EQ(h.position.size(), n) << "step " << i;
            for (const Vec3& p : h.position) ASSERT_LT(length(p), r) << "step " << i;
        }
    }
    EXPECT_EQ(solver.accounting().leaked, 0u);
    EXPECT_GT(solver.time(), 2.0 * 0.5) << "at least two beats";
}
