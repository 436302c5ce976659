#pragma once
// The pressures of a chamber over the cycle from a lumped (0D) circulation around it:
// the arterial tree beyond its outflow valve (a three-element Windkessel fed by what the
// chamber ejects), the venous reservoir behind its inflow valve (the preload: a mean
// atrial pressure), and the chamber between them as its valves connect it:
// - outflow valve open: the downstream pressure plus the valve's simplified Bernoulli
//   gradient 4 v^2 (v = flow / valve area; Hatle et al. 1978, as the echo lab reads a
//   gradient from a Doppler velocity, Baumgartner et al. 2017);
// - inflow valve open: the upstream pressure less its Bernoulli gradient (the ventricle
//   draws the E wave a few mmHg below the atrium);
// - both shut after filling (isovolumic contraction): a smooth rise from the
//   end-diastolic to the downstream pressure at the outflow valve's opening;
// - both shut after ejection (isovolumic relaxation): the monoexponential fall of Weiss,
//   Frederiksen & Weisfeldt 1976 (J Clin Invest 58:751) with time constant tau, reaching
//   the upstream pressure as the inflow valve opens.
// The valve timing is the wall's (HeartSimulation::valvesAt), so these pressures follow
// the prescribed motion; they do not drive it. A model, not a measurement: see
// docs/physiology.md. Units: mmHg, mL/s, mm^2, seconds.

#include "sim/heart/HeartAnatomy.h"
#include "sim/heart/Windkessel.h"

#include <vector>

namespace atrium::heart {

struct CirculationParameters {
    WindkesselParameters arterial;
    /// The preload: mean left atrial pressure, normal 4-12 mmHg (Guyton & Hall); the
    /// atrial a and v waves are not modelled.
    double atrialPressureMmHg = 8.0;
    /// Isovolumic relaxation's time constant tau (s); normal adults ~35-40 ms
    /// (Weiss et al. 1976's monoexponential; docs/physiology.md).
    double relaxationTimeConstantS = 0.035;

    /// Throws std::invalid_argument naming the field that is out of range.
    void validate() const;
};

/// What a chamber's valves do at one sample of the cycle.
struct ValveSample {
    bool inflowOpen = false;
    bool outflowOpen = false;
};

/// A chamber's pressures at n samples over the cycle (sample k at phase k / n), mmHg.
struct ChamberPressureCurves {
    std::vector<double> chamber;    ///< inside the chamber (the 0D level; the 3D blood adds its field)
    std::vector<double> downstream; ///< beyond the outflow valve (aortic); empty without one
    std::vector<double> upstream;   ///< behind the inflow valve (atrial); empty without one

    /// Linear interpolation at `phase` (wraps) of `curve` (one of the three).
    static double at(const std::vector<double>& curve, double phase);
};

/// The orifices a chamber's Bernoulli gradients use: the disc areas (mm²) of its first
/// valve that lets blood in and its first that lets it out (a two-way opening is both);
/// 0 where it has none. Call add() for each of the chamber's valves in order.
struct ValveOrificeAreas {
    double inflowMm2 = 0.0;
    double outflowMm2 = 0.0;
    void add(const Valve& v);
};

/// The chamber's pressures from its volume rate (dV/dt, mL/s, at the n samples; > 0
/// while it fills) and valve states at the same samples, over `cycleSeconds`. A valve
/// area <= 0 (or no valve of that kind ever open) adds no gradient. Throws
/// std::invalid_argument for mismatched or empty samples, a non-positive cycle or bad
/// parameters.
ChamberPressureCurves lumpedChamberPressures(const CirculationParameters& parameters, double cycleSeconds,
                                             const std::vector<double>& volumeRateMlPerS,
                                             const std::vector<ValveSample>& valves, double inflowAreaMm2,
                                             double outflowAreaMm2);

/// The simplified Bernoulli gradient 4 v^2 (mmHg) of `flowMlPerS` through `areaMm2`
/// (v in m/s); 0 for a non-positive area.
double bernoulliGradientMmHg(double flowMlPerS, double areaMm2);

} // namespace atrium::heart
