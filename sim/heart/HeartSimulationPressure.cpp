// HeartSimulation's pressures: the lumped circulation's curves of each chamber and the
// physiological pressure of the blood (HeartSimulation.h, pressureCurves and
// physiologicalPressure; docs/physiology.md).
#include "sim/heart/HeartSimulation.h"

#include <cmath>
#include <limits>
#include <numeric>

namespace atrium::heart {
namespace {

constexpr double kPascalPerMmHg = 133.322;

} // namespace

void HeartSimulation::computePressureCurves() {
    const std::size_t chambers = rateMlPerS_.size();
    pressureCurves_.assign(chambers, {});
    regurgitantMlPerS_.assign(valveSlots_.size(), {});
    for (std::size_t c = 0; c < chambers; ++c) {
        const std::vector<double>& rate = rateMlPerS_[c];
        const std::size_t n = rate.size();
        std::vector<ValveSample> samples(n);
        ValveOrificeAreas areas;
        for (const ValveSlot& slot : valveSlots_)
            if (slot.chamber == c) areas.add(*slot.valve);
        for (std::size_t k = 0; k < n && !valveSlots_.empty(); ++k) {
            const std::vector<ValveFlow> flows = valvesAt(double(k) / double(n));
            for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
                if (valveSlots_[i].chamber != c) continue;
                samples[k].inflowOpen = samples[k].inflowOpen || flows[i] == ValveFlow::Into;
                samples[k].outflowOpen = samples[k].outflowOpen || flows[i] == ValveFlow::OutOf;
            }
        }
        pressureCurves_[c] = lumpedChamberPressures(settings_.circulation, cycleSeconds_, rate, samples, areas.inflowMm2, areas.outflowMm2);
        // A leaking inflow valve: its regurgitant flow from the pressures, and the
        // arterial side fed only the forward rest. The flow lowers the arterial and so
        // the ventricle's pressure it depends on: a damped fixed point (halving the
        // step each pass; 12 passes settle it to well under 1 %).
        for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
            const Valve& valve = *valveSlots_[i].valve;
            if (valveSlots_[i].chamber != c || valve.role != ValveRole::Inflow || !(valve.regurgitantOrificeMm2 > 0.0))
                continue;
            std::vector<double>& leak = regurgitantMlPerS_[i];
            leak.assign(n, 0.0);
            for (int pass = 0; pass < 12; ++pass) {
                const ChamberPressureCurves& curves = pressureCurves_[c];
                std::vector<double> forward = rate;
                for (std::size_t k = 0; k < n; ++k) {
                    if (!samples[k].outflowOpen || samples[k].inflowOpen || rate[k] >= 0.0) continue;
                    const double atrium = curves.upstream.empty() ? 0.0 : curves.upstream[k];
                    const double speed = std::sqrt(std::max(0.0, curves.chamber[k] - atrium) / 4.0); // m/s
                    const double drive = std::min(valve.regurgitantOrificeMm2 * speed, -rate[k]); // mm^2 m/s = ml/s
                    leak[k] = pass == 0 ? drive : 0.5 * (leak[k] + drive);
                    forward[k] = rate[k] + leak[k];
                }
                pressureCurves_[c] =
                    lumpedChamberPressures(settings_.circulation, cycleSeconds_, forward, samples, areas.inflowMm2, areas.outflowMm2);
            }
        }
    }
}

const ChamberPressureCurves& HeartSimulation::pressureCurves(std::size_t chamber) const {
    if (chamber >= pressureCurves_.size()) throw std::out_of_range("heart: no chamber " + std::to_string(chamber));
    return pressureCurves_[chamber];
}

void HeartSimulation::physiologicalPressure(sph::HostParticles& particles) const {
    const std::size_t n = std::min(particles.position.size(), particles.pressure.size());
    const double phase = filling_ ? 0.0 : beats();
    const std::size_t chambers = pressureCurves_.size(), valves = valveSlots_.size();
    // Compartments: each chamber (0..chambers-1), then the blood beyond each valve.
    const std::size_t compartments = chambers + valves;
    std::vector<std::size_t> compartmentOf(n, 0);
    std::vector<double> sum(compartments, 0.0);
    std::vector<std::size_t> count(compartments, 0);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t where = 0;
        if (valves > 0) {
            const sph::Vec3 p = particles.position[i] * 1000.f; // mm
            const std::size_t nearest = nearestValve(p);
            where = valveSlots_[nearest].valve->beyond(p) ? chambers + nearest : valveSlots_[nearest].chamber;
        }
        compartmentOf[i] = where;
        sum[where] += particles.pressure[i];
        ++count[where];
    }
    // Each compartment's anchor: the compartment whose level and mean pressure it takes.
    // An open valve joins its chamber to the blood beyond it, which anchors both.
    std::vector<std::size_t> anchor(compartments);
    std::iota(anchor.begin(), anchor.end(), std::size_t(0));
    for (std::size_t v = 0; v < valves; ++v) {
        const std::size_t beyond = chambers + v;
        if (valves_[v] != ValveFlow::Shut && count[beyond] > 0 && anchor[valveSlots_[v].chamber] == valveSlots_[v].chamber)
            anchor[valveSlots_[v].chamber] = beyond;
    }
    const auto level = [&](std::size_t compartment) {
        if (compartment < chambers) return ChamberPressureCurves::at(pressureCurves_[compartment].chamber, phase);
        const ValveSlot& slot = valveSlots_[compartment - chambers];
        const ChamberPressureCurves& curves = pressureCurves_[slot.chamber];
        const bool arterial = slot.valve->role == ValveRole::Outflow ||
                              (slot.valve->role == ValveRole::TwoWay && valves_[compartment - chambers] == ValveFlow::OutOf);
        const std::vector<double>& curve = arterial ? curves.downstream : curves.upstream;
        return curve.empty() ? ChamberPressureCurves::at(curves.chamber, phase) : ChamberPressureCurves::at(curve, phase);
    };
    std::vector<double> offset(compartments, 0.0); // Pa to add to the solver's pressure
    for (std::size_t c = 0; c < compartments; ++c) {
        const std::size_t a = anchor[c];
        const double mean = count[a] ? sum[a] / double(count[a]) : 0.0;
        offset[c] = level(a) * kPascalPerMmHg - mean;
    }
    for (std::size_t i = 0; i < n; ++i) particles.pressure[i] += float(offset[compartmentOf[i]]);
}

} // namespace atrium::heart
