// The three-element Windkessel (sim/heart/Windkessel.h) against its analytic solutions
// and published normal values, never against its own output:
// - the ODE C dPc/dt = Q - (Pc - Pv)/R, P = Pc + Zc Q, solved by hand for a constant flow;
// - its input impedance Zc + R/(1 + i w R C) (Westerhof, Lankhaar & Westerhof 2009, Med
//   Biol Eng Comput 47:131, eq. for the three-element model) for a sinusoidal flow;
// - over a period the compliance's net charge is zero, so mean P = Pv + (R + Zc) mean Q;
// - a normal stroke (70 mL in 0.29 s at 72 bpm; ejection time after Weissler et al. 1968,
//   413 - 1.7 x HR ms) against the default parameters gives aortic ~120/80 mmHg (Guyton &
//   Hall's Wiggers diagram), with R and C within Westerhof 2009's normal 1.0-1.2 mmHg s/mL
//   and 1-2 mL/mmHg.
#include "sim/heart/Windkessel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <stdexcept>

using namespace atrium::heart;

namespace {

WindkesselParameters typical() {
    WindkesselParameters p;
    p.characteristicImpedance = 0.06;
    p.peripheralResistance = 1.1;
    p.compliance = 1.5;
    p.venousPressure = 4.0;
    return p;
}

/// A normal stroke: a half-sine ejection of `strokeMl` over `ejectionS`, then nothing.
std::vector<double> halfSineEjection(double strokeMl, double ejectionS, double cycleS, int samples) {
    std::vector<double> q(samples);
    const double dt = cycleS / samples, peak = std::numbers::pi * strokeMl / (2.0 * ejectionS);
    for (int k = 0; k < samples; ++k) {
        const double t = (k + 0.5) * dt;
        q[k] = t < ejectionS ? peak * std::sin(std::numbers::pi * t / ejectionS) : 0.0;
    }
    return q;
}

} // namespace

TEST(Windkessel, AConstantFlowRaisesThePressureAsTheAnalyticSolution) {
    const WindkesselParameters p = typical();
    const double q = 84.0, tau = p.peripheralResistance * p.compliance;
    for (double dt : {1e-4, 0.01, 0.1}) { // exact for a flow held over each step, whatever its length
        Windkessel wk(p, p.venousPressure);
        double t = 0.0;
        for (double until : {0.25, 1.0, 3.0, 10.0}) {
            while (t < until - 1e-12) {
                wk.step(q, dt);
                t += dt;
            }
            const double expected =
                p.venousPressure + p.peripheralResistance * q * (1.0 - std::exp(-t / tau)) + p.characteristicImpedance * q;
            EXPECT_NEAR(wk.pressure(), expected, 1e-9 * expected) << "t = " << t << " s, dt = " << dt;
        }
    }
}

TEST(Windkessel, ASinusoidalFlowMeetsTheInputImpedance) {
    const WindkesselParameters p = typical();
    const double omega = 2.0 * std::numbers::pi * 1.2, q0 = 80.0, q1 = 60.0, dt = 1e-4;
    Windkessel wk(p, p.venousPressure);
    const double period = 2.0 * std::numbers::pi / omega;
    const int perPeriod = int(std::lround(period / dt));
    // 20 s to forget the start (tau = 1.65 s), then one period projected on sin and cos.
    double t = 0.0, sinPart = 0.0, cosPart = 0.0, mean = 0.0;
    const int settle = int(std::lround(20.0 / period)) * perPeriod;
    for (int k = 0; k < settle + perPeriod; ++k) {
        const double mid = t + 0.5 * dt; // the flow held over the step is its midpoint's
        const double pressure = wk.step(q0 + q1 * std::sin(omega * mid), dt);
        t += dt;
        if (k >= settle) {
            sinPart += pressure * std::sin(omega * mid);
            cosPart += pressure * std::cos(omega * mid);
            mean += pressure;
        }
    }
    sinPart *= 2.0 / perPeriod;
    cosPart *= 2.0 / perPeriod;
    mean /= perPeriod;
    // By hand: Z = Zc + R / (1 + i w R C); P = Pv + Z(0) q0 + |Z| q1 sin(w t + arg Z).
    const double r = p.peripheralResistance, c = p.compliance, zc = p.characteristicImpedance;
    const double denominator = 1.0 + std::pow(omega * r * c, 2);
    const double re = zc + r / denominator, im = -omega * r * r * c / denominator;
    EXPECT_NEAR(mean, p.venousPressure + (zc + r) * q0, 1e-3 * mean);
    EXPECT_NEAR(std::hypot(sinPart, cosPart), std::hypot(re, im) * q1, 5e-3 * std::hypot(re, im) * q1);
    EXPECT_NEAR(std::atan2(cosPart, sinPart), std::atan2(im, re), 5e-3);
    // The same impedance, as the model states it, at w, at rest and at high frequency.
    const Windkessel model(p);
    EXPECT_NEAR(std::abs(model.inputImpedance(omega) - std::complex<double>(re, im)), 0.0, 1e-12);
    EXPECT_NEAR(model.inputImpedance(0.0).real(), zc + r, 1e-12);
    EXPECT_NEAR(std::abs(model.inputImpedance(1e9)), zc, 1e-6);
}

TEST(Windkessel, ThePeriodicStateIsWhatManyBeatsReachAndHoldsTheMeanPressure) {
    const WindkesselParameters p = typical();
    const double cycle = 60.0 / 72.0;
    const std::vector<double> q = halfSineEjection(70.0, 0.29, cycle, 1000);
    const std::vector<double> periodic = periodicWindkesselPressure(p, q, cycle);
    ASSERT_EQ(periodic.size(), q.size());
    Windkessel beats(p, 0.0);
    std::vector<double> last(q.size());
    for (int beat = 0; beat < 60; ++beat) // 50 s: e^-30 of the start is left
        for (std::size_t k = 0; k < q.size(); ++k) last[k] = beats.step(q[k], cycle / q.size());
    for (std::size_t k = 0; k < q.size(); k += 50) EXPECT_NEAR(periodic[k], last[k], 1e-6) << "sample " << k;
    const double meanQ = std::accumulate(q.begin(), q.end(), 0.0) / q.size();
    const double meanP = std::accumulate(periodic.begin(), periodic.end(), 0.0) / periodic.size();
    EXPECT_NEAR(meanP, p.venousPressure + (p.peripheralResistance + p.characteristicImpedance) * meanQ, 5e-3 * meanP);
}

TEST(Windkessel, ANormalStrokeAgainstTheDefaultsGivesANormalAorticPressure) {
    const WindkesselParameters p; // the defaults Atrium uses
    EXPECT_GE(p.peripheralResistance, 1.0);
    EXPECT_LE(p.peripheralResistance, 1.2);
    EXPECT_GE(p.compliance, 1.0);
    EXPECT_LE(p.compliance, 2.0);
    EXPECT_GE(p.characteristicImpedance, 0.05 * p.peripheralResistance - 1e-12);
    EXPECT_LE(p.characteristicImpedance, 0.10 * p.peripheralResistance);
    const double heartRate = 72.0, cycle = 60.0 / heartRate, ejection = (413.0 - 1.7 * heartRate) / 1000.0;
    const std::vector<double> pressure = periodicWindkesselPressure(p, halfSineEjection(70.0, ejection, cycle, 2000), cycle);
    const double systolic = *std::max_element(pressure.begin(), pressure.end());
    const double diastolic = *std::min_element(pressure.begin(), pressure.end());
    EXPECT_NEAR(systolic, 120.0, 10.0);
    EXPECT_NEAR(diastolic, 80.0, 10.0);
}

TEST(Windkessel, BadParametersAreRefusedNamingTheField) {
    WindkesselParameters p;
    p.compliance = 0.0;
    try {
        Windkessel wk(p);
        FAIL() << "a zero compliance was taken";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("compliance"), std::string::npos) << e.what();
    }
    p = WindkesselParameters{};
    p.peripheralResistance = std::nan("");
    EXPECT_THROW(p.validate(), std::invalid_argument);
    EXPECT_THROW(periodicWindkesselPressure(WindkesselParameters{}, {}, 0.8), std::invalid_argument);
    EXPECT_THROW(periodicWindkesselPressure(WindkesselParameters{}, {1.0}, 0.0), std::invalid_argument);
    Windkessel wk{WindkesselParameters{}};
    EXPECT_THROW(wk.step(1.0, -0.1), std::invalid_argument);
}
