#pragma once
// The arterial tree downstream of an outflow valve as a three-element Windkessel
// (Westerhof, Lankhaar & Westerhof 2009, "The arterial Windkessel", Med Biol Eng Comput
// 47:131): a characteristic impedance Zc (the proximal aorta) in series with a
// compliance C (the elastic arteries) in parallel with a peripheral resistance R (the
// arterioles), which drains to a venous pressure. Given the flow into it, it gives the
// pressure at its entrance: the aortic pressure that the ventricle ejects against.
//
// This is a model, not a measurement: Atrium's 0D circulation outside the 3D blood
// (docs/physiology.md). Units: pressure mmHg, flow mL/s, time s, resistances and
// impedance mmHg·s/mL, compliance mL/mmHg.
#include <complex>
#include <vector>

namespace atrium::heart {

struct WindkesselParameters {
    /// Zc: about 5-10 % of R (Westerhof 2009); 5 % here.
    double characteristicImpedance = 0.055;
    /// R = (mean arterial - venous pressure) / cardiac output: ~95 mmHg over 84 mL/s
    /// (70 mL at 72 bpm, 5 L/min); the normal range is 1.0-1.2 (Westerhof 2009).
    double peripheralResistance = 1.1;
    /// C: within the normal 1-2 mL/mmHg (Westerhof 2009), chosen so that a normal
    /// stroke (70 mL ejected in 0.29 s at 72 bpm) gives ~120/80 mmHg.
    double compliance = 1.6;
    /// The pressure R drains to: central venous, ~0-5 mmHg.
    double venousPressure = 0.0;

    /// Throws std::invalid_argument naming the field when a value is not finite and
    /// positive (venousPressure: finite).
    void validate() const;
};

class Windkessel {
public:
    /// Starts with the compliance at `compliancePressureMmHg` and no flow.
    explicit Windkessel(const WindkesselParameters& parameters, double compliancePressureMmHg = 0.0);

    /// Advances `dtSeconds` with `flowMlPerS` into the entrance held constant over the
    /// step, exactly (the compliance relaxes exponentially towards venous + R·Q with time
    /// constant R·C), and returns the entrance pressure at its end.
    double step(double flowMlPerS, double dtSeconds);

    /// The entrance pressure: the compliance's pressure plus Zc times the last flow.
    double pressure() const { return compliancePressure_ + parameters_.characteristicImpedance * flow_; }
    double compliancePressure() const { return compliancePressure_; }
    const WindkesselParameters& parameters() const { return parameters_; }

    /// The input impedance at angular frequency `omega` (rad/s): Zc + R / (1 + i·omega·R·C).
    std::complex<double> inputImpedance(double omega) const;

private:
    WindkesselParameters parameters_;
    double compliancePressure_ = 0.0;
    double flow_ = 0.0;
};

/// The periodic steady state of a Windkessel fed, cycle after cycle, by the flow
/// `flowMlPerS` sampled at n equal steps over `cycleSeconds` (sample k holds over
/// [k, k+1)·cycle/n): the entrance pressure at each sample's end, as after infinitely
/// many beats. Exact for that piecewise-constant flow (the compliance's pressure after a
/// cycle is linear in its start, so the fixed point is solved, not iterated). Throws
/// std::invalid_argument for no samples, a non-positive cycle or bad parameters.
std::vector<double> periodicWindkesselPressure(const WindkesselParameters& parameters,
                                               const std::vector<double>& flowMlPerS, double cycleSeconds);

} // namespace atrium::heart
