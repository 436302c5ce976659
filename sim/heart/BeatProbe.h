#pragma once
// What a cardiologist would measure in the simulated blood over one beat, sampled from
// the particles as the beat runs: each chamber's mean pressure (physiological,
// HeartSimulation::physiologicalPressure), each valve's Doppler-like speed (the 95th
// percentile of the blood's speed at its plane while it is open), how far the chambers'
// blood is from incompressible (|rho/rho0 - 1|), and how much of each chamber it fills.
// `atrium-sim heart --json` reports them; the physiology tests hold them to published
// values. Units: mmHg, m/s, ml.

#include "sim/heart/HeartSimulation.h"

#include <cstddef>
#include <vector>

namespace atrium::heart {

class BeatProbe {
public:
    /// Samples `samples` evenly spaced moments of the beat that starts when the
    /// simulation's beat count reaches `fromBeat` (a whole number). `chamberVolumesMl`
    /// (optional, per chamber, its wall's volume at evenly spaced phases) gives the
    /// blood-to-wall ratio; a chamber without it gets none.
    BeatProbe(const HeartSimulation& simulation, double fromBeat, int samples,
              std::vector<std::vector<double>> chamberVolumesMl = {});

    /// Takes the samples whose moment has passed (call after each step or few steps).
    void observe();
    bool done() const { return next_ >= samples_; }

    struct ChamberSamples {
        std::vector<double> pressureMmHg;   ///< mean over its blood, per sample
        std::vector<double> bloodToWall;    ///< its blood's volume / its wall's, per sample (empty without volumes)
    };
    struct ValveSamples {
        /// m/s at its plane while open (a leaking valve: in its regurgitant orifice while
        /// it leaks), 0 while shut, per sample.
        std::vector<double> speedP95;
        /// The mean speed across its disc along its normal (m/s, unsigned), per sample: the
        /// flow through it (the flux of the blood within 1.5 spacings of its plane) over
        /// its area, as continuity has it; 0 while shut.
        std::vector<double> meanNormalSpeed;
        /// The blood's share of that slab (its particles' rest volume over the slab's),
        /// per sample: ~1 where blood fills the disc, less where a jet fills part of it.
        std::vector<double> slabFill;
        double peakSpeed() const;           ///< the largest of speedP95
    };
    const std::vector<ChamberSamples>& chambers() const { return chambers_; }
    const std::vector<ValveSamples>& valves() const { return valves_; }
    /// Per sample, over the chambers' blood (all of it without anatomy): the 99th
    /// percentile and the mean of |rho/rho0 - 1|.
    const std::vector<double>& densityErrorP99() const { return densityP99_; }
    const std::vector<double>& densityErrorMean() const { return densityMean_; }
    int samples() const { return samples_; }

private:
    void sample();

    const HeartSimulation& sim_;
    double fromBeat_;
    int samples_, next_ = 0;
    std::vector<std::vector<double>> volumesMl_;
    std::vector<ChamberSamples> chambers_;
    std::vector<ValveSamples> valves_;
    std::vector<double> densityP99_, densityMean_;
};

} // namespace atrium::heart
