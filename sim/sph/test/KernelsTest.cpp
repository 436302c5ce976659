// Kernel invariants (Müller et al. 2003; Poyart 2016 eqs. 2.7-2.10) and the sign of
// the pressure force, evaluated through the CPU backend's real passes.
#include "sim/sph/Backend.h"
#include "sim/sph/Kernels.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <random>

using namespace atrium::sph;

namespace {

double spikyW(double r, double h) { return r < h ? 15.0 / (std::numbers::pi * std::pow(h, 6)) * std::pow(h - r, 3) : 0.0; }

double viscosityW(double r, double h) {
    if (r >= h) return 0.0;
    return 15.0 / (2.0 * std::numbers::pi * h * h * h) * (-r * r * r / (2 * h * h * h) + r * r / (h * h) + h / (2 * r) - 1.0);
}

} // namespace

TEST(Kernels, Poly6SumsToOneOnALattice) {
    // sum_j W(x - x_j) V_j ~ 1 for any point x inside a lattice of volume V_j = s^3.
    const float s = 0.01f;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> offset(0.f, s);
    for (float ratio : {2.0f, 2.5f, 3.0f, 4.0f}) {
        const SphKernels k = SphKernels::forRadius(ratio * s);
        for (int trial = 0; trial < 4; ++trial) {
            const Vec3 x = trial == 0 ? Vec3{} : Vec3{offset(rng), offset(rng), offset(rng)};
            const int m = int(std::ceil(ratio)) + 1;
            double sum = 0.0;
            for (int a = -m; a <= m; ++a)
                for (int b = -m; b <= m; ++b)
                    for (int c = -m; c <= m; ++c)
                        sum += k.poly6W(lengthSquared(x - Vec3{a * s, b * s, c * s})) * double(s) * s * s;
            EXPECT_NEAR(sum, 1.0, 0.02) << "h/s = " << ratio << ", trial " << trial;
        }
    }
}

TEST(Kernels, ZeroAtAndBeyondTheRadius) {
    const SphKernels k = SphKernels::forRadius(0.02f);
    EXPECT_EQ(k.poly6W(k.h2), 0.f);
    EXPECT_EQ(k.poly6W(2.f * k.h2), 0.f);
    EXPECT_EQ(length(k.spikyGradient({0.02f, 0.f, 0.f}, 0.02f)), 0.f);
    EXPECT_EQ(k.viscosityLaplacian(0.02f), 0.f);
    EXPECT_GT(k.poly6W(0.f), 0.f);
}

TEST(Kernels, SpikyGradientIsAntisymmetricAndMatchesTheDerivative) {
    const double h = 0.02;
    const SphKernels k = SphKernels::forRadius(float(h));
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> u(-1.f, 1.f);
    for (int t = 0; t < 100; ++t) {
        Vec3 r{u(rng), u(rng), u(rng)};
        r = normalized(r) * (float(h) * (0.05f + 0.9f * std::fabs(u(rng))));
        const float d = length(r);
        const Vec3 g = k.spikyGradient(r, d);
        const Vec3 gMinus = k.spikyGradient(-r, d);
        EXPECT_NEAR(length(g + gMinus), 0.f, 1e-6f * length(g));
        // Central difference of W_spiky along r: the gradient is radial with dW/dr < 0.
        const double eps = 1e-6 * h;
        const double dWdr = (spikyW(d + eps, h) - spikyW(d - eps, h)) / (2 * eps);
        EXPECT_NEAR(dot(g, normalized(r)), dWdr, 1e-3 * std::fabs(dWdr));
        EXPECT_LT(dot(g, r), 0.f) << "the gradient points from i towards j (errata: minus sign)";
    }
}

TEST(Kernels, ViscosityLaplacianMatchesTheKernel) {
    const double h = 0.02;
    const SphKernels k = SphKernels::forRadius(float(h));
    for (double r : {0.2 * h, 0.4 * h, 0.6 * h, 0.8 * h, 0.95 * h}) {
        // Laplacian of a radial function: W'' + 2 W' / r.
        const double e = 1e-4 * h;
        const double w0 = viscosityW(r - e, h), w1 = viscosityW(r, h), w2 = viscosityW(r + e, h);
        const double lap = (w2 - 2 * w1 + w0) / (e * e) + 2.0 / r * (w2 - w0) / (2 * e);
        EXPECT_NEAR(k.viscosityLaplacian(float(r)), lap, 2e-3 * std::fabs(lap)) << "r/h = " << r / h;
        EXPECT_GT(k.viscosityLaplacian(float(r)), 0.f);
    }
}

namespace {

StepInput twoParticleInput(float h) {
    StepInput in;
    in.dt = 1e-5f;
    in.mass = 1e-3f;
    in.restDensity = 1.f; // far below the pair's density: both are compressed
    in.eosStiffness = 10.f;
    in.maxPressure = 1e6f;
    in.kernels = SphKernels::forRadius(h);
    in.grid.origin = {-0.1f, -0.1f, -0.1f};
    in.grid.cellSize = h;
    in.grid.nx = in.grid.ny = in.grid.nz = int(std::ceil(0.2f / h));
    return in;
}

} // namespace

TEST(Kernels, PressureRepelsUnderCompression) {
    for (EquationOfState eos : {EquationOfState::Tait, EquationOfState::Linear}) {
        auto backend = makeCpuBackend();
        const float h = 0.02f;
        const std::vector<Vec3> pos{{-0.004f, 0.001f, 0.f}, {0.004f, -0.001f, 0.f}};
        const std::vector<Vec3> vel(2);
        backend->setParticles(pos, vel);
        StepInput in = twoParticleInput(h);
        in.equationOfState = eos;
        backend->step(in);
        HostParticles out;
        backend->download(FieldAll, out);
        ASSERT_EQ(out.position.size(), 2u);
        ASSERT_GT(out.pressure[0], 0.f);
        // Whatever the storage order, the particles move apart along their axis.
        const Vec3 axis = out.position[1] - out.position[0];
        const Vec3 relVel = out.velocity[1] - out.velocity[0];
        EXPECT_GT(dot(relVel, axis), 0.f) << "pressure must push compressed particles apart";
        EXPECT_GT(length(axis), length(pos[1] - pos[0]));
    }
}

TEST(Kernels, PressureIsClampedAtTheMaximum) {
    auto backend = makeCpuBackend();
    const std::vector<Vec3> pos{{0.f, 0.f, 0.f}, {0.001f, 0.f, 0.f}};
    backend->setParticles(pos, std::vector<Vec3>(2));
    StepInput in = twoParticleInput(0.02f);
    in.restDensity = 1e-3f;
    in.eosStiffness = 1e6f;
    in.maxPressure = 5000.f;
    backend->computeDensities(in);
    HostParticles out;
    backend->download(FieldPressure, out);
    EXPECT_FLOAT_EQ(out.pressure[0], 5000.f);
    EXPECT_FLOAT_EQ(out.pressure[1], 5000.f);
}

TEST(Kernels, TensionIsClampedOrBounded) {
    // Two particles far apart for their kernel: density well below rho0, so the Tait
    // equation gives a large negative pressure: 0 with the clamp, -maxTension with a
    // bound, the equation's own value without either.
    const std::vector<Vec3> pos{{0.f, 0.f, 0.f}, {0.015f, 0.f, 0.f}};
    const auto pressureWith = [&](float minPressure) {
        auto backend = makeCpuBackend();
        backend->setParticles(pos, std::vector<Vec3>(2));
        StepInput in = twoParticleInput(0.02f);
        in.restDensity = 1000.f; // the pair's density is ~200 kg/m^3
        in.eosStiffness = 1e5f;
        in.minPressure = minPressure;
        backend->computeDensities(in);
        HostParticles out;
        backend->download(FieldPressure | FieldDensity, out);
        return out;
    };
    const HostParticles free = pressureWith(-std::numeric_limits<float>::max());
    ASSERT_LT(free.density[0], 500.f);
    ASSERT_LT(free.pressure[0], -1000.f);
    EXPECT_FLOAT_EQ(pressureWith(0.f).pressure[0], 0.f);
    EXPECT_FLOAT_EQ(pressureWith(-1000.f).pressure[0], -1000.f);
}
