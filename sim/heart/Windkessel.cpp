#include "sim/heart/Windkessel.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace atrium::heart {
namespace {

void requirePositive(double value, const char* field) {
    if (!std::isfinite(value) || !(value > 0.0))
        throw std::invalid_argument(std::string("Windkessel ") + field + " must be a positive number, got " +
                                    std::to_string(value));
}

} // namespace

void WindkesselParameters::validate() const {
    requirePositive(characteristicImpedance, "characteristic impedance (mmHg s/mL)");
    requirePositive(peripheralResistance, "peripheral resistance (mmHg s/mL)");
    requirePositive(compliance, "compliance (mL/mmHg)");
    if (!std::isfinite(venousPressure))
        throw std::invalid_argument("Windkessel venous pressure (mmHg) must be a number, got " +
                                    std::to_string(venousPressure));
}

Windkessel::Windkessel(const WindkesselParameters& parameters, double compliancePressureMmHg)
    : parameters_(parameters), compliancePressure_(compliancePressureMmHg) {
    parameters_.validate();
    if (!std::isfinite(compliancePressureMmHg))
        throw std::invalid_argument("Windkessel initial pressure must be a number");
}

double Windkessel::step(double flowMlPerS, double dtSeconds) {
    if (!std::isfinite(flowMlPerS) || !std::isfinite(dtSeconds) || dtSeconds < 0.0)
        throw std::invalid_argument("Windkessel::step: flow and time step must be finite, the step >= 0");
    const double tau = parameters_.peripheralResistance * parameters_.compliance;
    const double target = parameters_.venousPressure + parameters_.peripheralResistance * flowMlPerS;
    compliancePressure_ = target + (compliancePressure_ - target) * std::exp(-dtSeconds / tau);
    flow_ = flowMlPerS;
    return pressure();
}

std::complex<double> Windkessel::inputImpedance(double omega) const {
    const double r = parameters_.peripheralResistance, c = parameters_.compliance;
    return parameters_.characteristicImpedance + r / std::complex<double>(1.0, omega * r * c);
}

std::vector<double> periodicWindkesselPressure(const WindkesselParameters& parameters,
                                               const std::vector<double>& flowMlPerS, double cycleSeconds) {
    if (flowMlPerS.empty()) throw std::invalid_argument("periodicWindkesselPressure: no flow samples");
    if (!std::isfinite(cycleSeconds) || !(cycleSeconds > 0.0))
        throw std::invalid_argument("periodicWindkesselPressure: the cycle must last a positive time");
    parameters.validate();
    const double dt = cycleSeconds / double(flowMlPerS.size());
    // After one cycle from P0 the compliance holds a·P0 + b: b from a cycle started at 0,
    // a = exp(-T/RC). The periodic start is the fixed point b / (1 - a).
    Windkessel fromZero(parameters, 0.0);
    for (double q : flowMlPerS) fromZero.step(q, dt);
    const double a = std::exp(-cycleSeconds / (parameters.peripheralResistance * parameters.compliance));
    Windkessel periodic(parameters, fromZero.compliancePressure() / (1.0 - a));
    std::vector<double> pressures;
    pressures.reserve(flowMlPerS.size());
    for (double q : flowMlPerS) pressures.push_back(periodic.step(q, dt));
    return pressures;
}

} // namespace atrium::heart
