// The walls' closed-form kernel integrals (WallKernelIntegrals.h) against brute-force
// quadrature over a fine grid of the half-space beyond a plane, and the balance a
// hydrostatic pressure field must reach next to a floor.
#include "sim/sph/WallKernelIntegrals.h"

#include "sim/sph/Backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numbers>

using namespace atrium::sph;

namespace {

constexpr double kH = 0.02; // kernel radius (m)

double poly6(double r) {
    return r < kH ? 315.0 / (64.0 * std::numbers::pi * std::pow(kH, 9)) * std::pow(kH * kH - r * r, 3) : 0.0;
}

/// |dW_spiky/dr|
double spikySlope(double r) { return r < kH ? 45.0 / (std::numbers::pi * std::pow(kH, 6)) * (kH - r) * (kH - r) : 0.0; }

/// The parameters the wall force reads: rest density rho0, no viscosity, artificial
/// viscosity alpha with c0 = 20 m/s, wall pressure mirrored or not.
StepInput wallStep(float rho0, bool mirrored, float alpha = 0.f) {
    StepInput in;
    in.restDensity = rho0;
    in.kernels = SphKernels::forRadius(float(kH));
    in.artificialViscosity = alpha;
    in.soundSpeed = 20.f;
    in.mirroredWalls = mirrored;
    return in;
}

/// Midpoint sum of f(offset x' - x) over the cells of a grid (kH / 60) that lie in
/// the kernel's support and, when `beyond`, beyond the plane z = -d (the wall), else
/// on the particle's side of it. The particle sits at the origin; the wall's inward
/// normal is +z.
double halfSpaceSum(double d, bool beyond, const std::function<double(double, double, double)>& f) {
    const int n = 60;
    const double c = kH / n, dv = c * c * c;
    double sum = 0.0;
    for (int k = -n; k < n; ++k) {
        const double z = (k + 0.5) * c;
        if ((z < -d) != beyond) continue;
        for (int j = -n; j < n; ++j)
            for (int i = -n; i < n; ++i) {
                const double x = (i + 0.5) * c, y = (j + 0.5) * c;
                const double r = std::sqrt(x * x + y * y + z * z);
                if (r < kH) sum += f(x, y, z) * dv;
            }
    }
    return sum;
}

} // namespace

TEST(WallKernelIntegrals, DensityFractionIsThePoly6MassBeyondTheWall) {
    EXPECT_NEAR(wallDensityFraction(0.f, float(kH)), 0.5f, 1e-6f);
    EXPECT_EQ(wallDensityFraction(float(kH), float(kH)), 0.f);
    for (double q : {0.1, 0.35, 0.7}) {
        const double d = q * kH;
        const double mass = halfSpaceSum(d, true, [](double x, double y, double z) {
            return poly6(std::sqrt(x * x + y * y + z * z));
        });
        EXPECT_NEAR(wallDensityFraction(float(d), float(kH)), mass, 2e-3) << "d = " << q << " h";
        const float e = 1e-5f;
        const float slope = (wallDensityFraction(float(d) - e, float(kH)) - wallDensityFraction(float(d) + e, float(kH))) / (2.f * e);
        EXPECT_NEAR(wallDensityFractionSlope(float(d), float(kH)), slope, 2e-3 * slope) << "d = " << q << " h";
    }
}

TEST(WallKernelIntegrals, GradientMomentsAreHalfTheIdentityAtTheWallAndMatchQuadrature) {
    float n0, t0, nh, th;
    wallGradientMoments(0.f, float(kH), n0, t0);
    EXPECT_NEAR(n0, 0.5f, 1e-5f);
    EXPECT_NEAR(t0, 0.5f, 1e-5f);
    wallGradientMoments(float(kH), float(kH), nh, th);
    EXPECT_EQ(nh, 0.f);
    EXPECT_EQ(th, 0.f);
    for (double q : {0.1, 0.35, 0.7}) {
        const double d = q * kH;
        // grad_i W(x_i - x') = |W'| (x' - x_i) / r points at x'.
        const double normal = halfSpaceSum(d, true, [](double x, double y, double z) {
            const double r = std::sqrt(x * x + y * y + z * z);
            return z * spikySlope(r) * z / r;
        });
        const double tangential = halfSpaceSum(d, true, [](double x, double y, double z) {
            const double r = std::sqrt(x * x + y * y + z * z);
            return x * spikySlope(r) * x / r;
        });
        float n, t;
        wallGradientMoments(float(d), float(kH), n, t);
        EXPECT_NEAR(n, normal, 5e-3) << "d = " << q << " h";
        EXPECT_NEAR(t, tangential, 5e-3) << "d = " << q << " h";
    }
}

TEST(WallKernelIntegrals, ApproachDampingMatchesQuadrature) {
    for (double q : {0.1, 0.35, 0.7}) {
        const double d = q * kH;
        const double damping = halfSpaceSum(d, true, [](double x, double y, double z) {
            const double r = std::sqrt(x * x + y * y + z * z);
            return spikySlope(r) * (z * z) / (r * r * r);
        });
        EXPECT_NEAR(wallApproachDamping(float(d), float(kH)), damping, 0.01 * damping) << "d = " << q << " h";
    }
    EXPECT_EQ(wallApproachDamping(float(kH), float(kH)), 0.f);
}

TEST(WallKernelIntegrals, MirroredWallsSupplyTheMissingHydrostaticGradient) {
    // A particle at distance d above a floor, in fluid at rest with p = rho g (H - z).
    // Away from walls the pressure differences, -sum_j V_j (p_j - p_i) grad W_ij, carry
    // the weight rho g; next to the floor the fluid side carries only part of it, and
    // the mirrored wall's hydrostatic term must supply the rest, at every d. (The
    // 2 p_i terms are the density map's pressure push, doubled: they balance the
    // fluid's own 2 p_i sum_j V_j grad W_ij only on the lattice that
    // wallDistanceOffset() calibrates, which the column test checks.)
    const double rho = 1000.0, g = 9.81, H = 0.1;
    const Vec3 gravity{0.f, 0.f, -float(g)};
    const StepInput mirrored = wallStep(float(rho), true);
    for (double q : {0.0, 0.25, 0.5, 0.8, 1.0}) {
        const double d = q * kH;
        const double fluidPush = halfSpaceSum(d, false, [&](double x, double y, double z) {
            const double r = std::sqrt(x * x + y * y + z * z);
            const double pDifference = rho * g * (H - (d + z)) - rho * g * (H - d);
            return -pDifference * spikySlope(r) * z / r; // z component of -(p_j - p_i) grad_i W
        });
        WallNeighbourhood w;
        w.add(float(d), {0.f, 0.f, 1.f}, float(kH), gravity);
        const double wallPush = wallForce(w, 0.f, float(rho), {}, mirrored).z;
        EXPECT_NEAR(fluidPush + wallPush, rho * g, 0.005 * rho * g) << "d = " << q << " h";
        if (q <= 0.5) {
            EXPECT_LT(fluidPush, 0.95 * rho * g) << "the fluid side alone falls short, d = " << q << " h";
        }
    }
    // Beside a side wall, gravity runs along the wall: the wall supplies the tangential
    // share.
    for (double q : {0.0, 0.5}) {
        const double d = q * kH;
        const double fluidPush = halfSpaceSum(d, false, [&](double x, double y, double z) {
            const double r = std::sqrt(x * x + y * y + z * z);
            return rho * g * x * spikySlope(r) * x / r; // wall normal +z, gravity along -x
        });
        WallNeighbourhood w;
        w.add(float(d), {0.f, 0.f, 1.f}, float(kH), Vec3{-float(g), 0.f, 0.f});
        EXPECT_NEAR(fluidPush + wallForce(w, 0.f, float(rho), {}, mirrored).x, rho * g, 0.005 * rho * g)
            << "d = " << q << " h";
    }
}

TEST(WallKernelIntegrals, MirroredWallsPushWithTwiceTheParticlesPressure) {
    const float h = float(kH);
    const StepInput densityMap = wallStep(1000.f, false), mirrored = wallStep(1000.f, true);
    WallNeighbourhood w; // no gravity: only the pressure terms
    w.add(0.3f * h, {0.f, 0.f, 1.f}, h, {});
    const float p = 500.f;
    EXPECT_NEAR(wallForce(w, p, 1000.f, {}, densityMap).z, p * wallDensityFractionSlope(0.3f * h, h), 1e-3f * p / h);
    EXPECT_NEAR(wallForce(w, p, 1000.f, {}, mirrored).z, 2.f * wallForce(w, p, 1000.f, {}, densityMap).z, 1e-3f * p / h);
}

TEST(WallKernelIntegrals, ApproachDampingOpposesOnlyApproachRelativeToTheWall) {
    const float h = float(kH);
    const StepInput p = wallStep(1000.f, false, 0.05f);
    WallNeighbourhood still, moving;
    still.add(0.3f * h, {0.f, 0.f, 1.f}, h, {});
    moving.add(0.3f * h, {0.f, 0.f, 1.f}, h, {}, {0.f, 0.f, 0.5f});
    const auto push = [&](const WallNeighbourhood& w, Vec3 v) { return wallForce(w, 0.f, 1000.f, v, p); };
    EXPECT_GT(push(still, {0.f, 0.f, -0.2f}).z, 0.f) << "approaching: pushed back";
    EXPECT_EQ(length(push(still, {0.f, 0.f, 0.2f})), 0.f) << "receding: free";
    EXPECT_EQ(length(push(still, {0.3f, 0.f, 0.f})), 0.f) << "sliding along: free";
    EXPECT_EQ(length(push(moving, {0.f, 0.f, 0.6f})), 0.f) << "receding from a wall that follows";
    EXPECT_GT(push(moving, {0.f, 0.f, 0.2f}).z, 0.f) << "the wall catches up: pushed";
}

TEST(WallKernelIntegrals, SpikyGradientLatticeSumIsTheDiscreteGradientOfALinearField) {
    // Direct sum over a lattice at its own rest density: (1/3) sum_j V_j (x_j - x_i) .
    // grad W_ij with V_j = 1 / sum_j W_ij.
    for (double ratio : {2.0, 2.5, 3.0, 4.0}) {
        const double s = kH / ratio;
        const int m = int(std::ceil(ratio)) + 1;
        double moment = 0.0, density = 0.0;
        for (int a = -m; a <= m; ++a)
            for (int b = -m; b <= m; ++b)
                for (int c = -m; c <= m; ++c) {
                    const double r = s * std::sqrt(double(a * a + b * b + c * c));
                    density += poly6(r) * s * s * s;
                    moment += spikySlope(r) * r * s * s * s;
                }
        const double expected = moment / (3.0 * density);
        EXPECT_NEAR(spikyGradientLatticeSum(float(s), float(kH)), expected, 1e-4) << "h/s = " << ratio;
        EXPECT_NEAR(spikyGradientLatticeSum(float(s) * 7.f, float(kH) * 7.f), expected, 1e-4) << "scale-free";
    }
    EXPECT_LT(spikyGradientLatticeSum(0.01f, 0.02f), 0.97f) << "h = 2 spacings underestimates gradients";
    EXPECT_NEAR(spikyGradientLatticeSum(0.005f, 0.02f), 1.f, 0.005f) << "converges as h / spacing grows";
}
