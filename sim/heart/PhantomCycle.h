#pragma once
// Internal to sim/heart: the phantom's cardiac cycle (HeartPhantom.cpp draws its
// chambers from it). The phases' durations come from the heart rate and published
// normal values, and the LV's and LA's volumes over the cycle are keyframes joined by
// smooth ramps; docs/heart-phantom.md gives the sources of each duration and share.

#include "sim/heart/HeartPhantom.h"

#include <vector>

namespace atrium::heart::detail {

/// A point of a volume curve: at phase `t` (0..1 of the cycle), the value `f`.
struct Keyframe {
    double t, f;
};

/// The share of the stroke volume the LA takes in during ventricular systole (its
/// reservoir); the rest arrives in diastole.
inline constexpr double kLaReservoirShare = 0.5;

/// `phase01` wrapped into [0, 1), never -0.
double wrapPhase(double phase01);

/// The curve's value at `phase01` (wrapped), C2-smooth between keyframes.
double curveAt(const std::vector<Keyframe>& curve, double phase01);

/// When each phase of the cycle begins, at `heartRateBpm`, on a grid of `phases`.
CycleTiming timingFor(double heartRateBpm, int phases);

/// The fraction of the stroke volume in the LV over the cycle (1 at end diastole).
std::vector<Keyframe> lvCurveFor(const CycleTiming& t);

/// The fraction of the LA's reservoir volume present over the cycle (0 at its smallest).
std::vector<Keyframe> laCurveFor(const CycleTiming& t);

} // namespace atrium::heart::detail
