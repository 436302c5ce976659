#include "sim/heart/LumpedCirculation.h"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace atrium::heart {

void CirculationParameters::validate() const {
    arterial.validate();
    if (!std::isfinite(atrialPressureMmHg) || atrialPressureMmHg < 0.0 || atrialPressureMmHg > 60.0)
        throw std::invalid_argument("circulation: atrial pressure must be 0-60 mmHg, got " +
                                    std::to_string(atrialPressureMmHg));
    if (!std::isfinite(relaxationTimeConstantS) || !(relaxationTimeConstantS > 0.0) || relaxationTimeConstantS > 1.0)
        throw std::invalid_argument("circulation: relaxation time constant must be in (0, 1] s, got " +
                                    std::to_string(relaxationTimeConstantS));
}

double ChamberPressureCurves::at(const std::vector<double>& curve, double phase) {
    if (curve.empty()) return 0.0;
    const double u = (phase - std::floor(phase)) * double(curve.size());
    const std::size_t k = std::min(std::size_t(u), curve.size() - 1);
    const double s = u - double(k);
    return curve[k] * (1.0 - s) + curve[(k + 1) % curve.size()] * s;
}

double bernoulliGradientMmHg(double flowMlPerS, double areaMm2) {
    if (!(areaMm2 > 0.0)) return 0.0;
    const double v = flowMlPerS * 1e3 / areaMm2 * 1e-3; // mL/s = 1e3 mm^3/s; mm/s -> m/s
    return 4.0 * v * v;
}

void ValveOrificeAreas::add(const Valve& v) {
    const double area = std::numbers::pi * v.disc.radius * v.disc.radius;
    if (v.role != ValveRole::Outflow && inflowMm2 == 0.0) inflowMm2 = area;
    if (v.role != ValveRole::Inflow && outflowMm2 == 0.0) outflowMm2 = area;
}

ChamberPressureCurves lumpedChamberPressures(const CirculationParameters& parameters, double cycleSeconds,
                                             const std::vector<double>& volumeRateMlPerS,
                                             const std::vector<ValveSample>& valves, double inflowAreaMm2,
                                             double outflowAreaMm2) {
    parameters.validate();
    const std::size_t n = volumeRateMlPerS.size();
    if (n < 2 || valves.size() != n)
        throw std::invalid_argument("circulation: needs the same number (>= 2) of volume rates and valve samples");
    if (!std::isfinite(cycleSeconds) || !(cycleSeconds > 0.0))
        throw std::invalid_argument("circulation: the cycle must last a positive time");
    const double dt = cycleSeconds / double(n);
    // Which way blood goes at each sample: a sample with both valves open (a two-way
    // valve, or valve timing off) goes the way the volume does.
    enum class Open { None, In, Out };
    std::vector<Open> open(n, Open::None);
    bool anyIn = false, anyOut = false;
    for (std::size_t k = 0; k < n; ++k) {
        const ValveSample v = valves[k];
        if (v.inflowOpen && v.outflowOpen) open[k] = volumeRateMlPerS[k] < 0.0 ? Open::Out : Open::In;
        else if (v.outflowOpen) open[k] = Open::Out;
        else if (v.inflowOpen) open[k] = Open::In;
        anyIn = anyIn || open[k] == Open::In;
        anyOut = anyOut || open[k] == Open::Out;
    }

    ChamberPressureCurves c;
    if (anyOut) {
        std::vector<double> ejection(n);
        for (std::size_t k = 0; k < n; ++k)
            ejection[k] = open[k] == Open::Out ? std::max(0.0, -volumeRateMlPerS[k]) : 0.0;
        const std::vector<double> atIntervalEnd = periodicWindkesselPressure(parameters.arterial, ejection, cycleSeconds);
        c.downstream.resize(n); // interval k ends at sample k + 1
        for (std::size_t k = 0; k < n; ++k) c.downstream[(k + 1) % n] = atIntervalEnd[k];
    }
    if (anyIn) c.upstream.assign(n, parameters.atrialPressureMmHg);

    c.chamber.assign(n, parameters.atrialPressureMmHg);
    if (!anyIn && !anyOut) return c;
    for (std::size_t k = 0; k < n; ++k) {
        if (open[k] == Open::Out)
            c.chamber[k] = c.downstream[k] + bernoulliGradientMmHg(-volumeRateMlPerS[k], outflowAreaMm2);
        else if (open[k] == Open::In)
            c.chamber[k] = c.upstream[k] - bernoulliGradientMmHg(volumeRateMlPerS[k], inflowAreaMm2);
    }
    // Each run of shut samples joins the open samples on either side of it.
    for (std::size_t start = 0; start < n; ++start) {
        if (open[start] == Open::None || open[(start + 1) % n] != Open::None) continue;
        std::size_t end = (start + 1) % n; // the first open sample after the run
        std::size_t length = 1;
        while (open[end] == Open::None) end = (end + 1) % n, ++length;
        const double p0 = c.chamber[start], p1 = c.chamber[end];
        const double span = double(length) * dt;
        const double tau = parameters.relaxationTimeConstantS;
        const double decay = std::exp(-span / tau);
        for (std::size_t j = 1; j < length; ++j) {
            const double t = double(j) * dt;
            double p;
            if (open[start] == Open::Out && open[end] == Open::In) {
                // Isovolumic relaxation: P = Pinf + (P0 - Pinf) exp(-t / tau), P(span) = P1.
                const double pInf = (p1 - p0 * decay) / (1.0 - decay);
                p = pInf + (p0 - pInf) * std::exp(-t / tau);
            } else if (open[start] == Open::In && open[end] == Open::Out) {
                // Isovolumic contraction: a smooth rise to the pressure that opens the valve.
                p = p0 + (p1 - p0) * 0.5 * (1.0 - std::cos(std::numbers::pi * t / span));
            } else {
                p = p0 + (p1 - p0) * t / span;
            }
            c.chamber[(start + j) % n] = p;
        }
    }
    return c;
}

} // namespace atrium::heart
