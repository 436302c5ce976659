#include "sim/heart/PhantomCycle.h"

#include <algorithm>
#include <cmath>

namespace atrium::heart::detail {

double wrapPhase(double phase01) {
    double t = phase01 - std::floor(phase01);
    if (!(t < 1.0)) t = 0.0; // rounding of tiny negative inputs
    return t + 0.0;          // -0.0 -> +0.0, so the noise key of phase 0 is unique
}

// ---------------------------------------------------------------------------------------
// Volumes over the cycle: keyframes joined by C2 "smootherstep" ramps (zero slope and
// curvature at each keyframe), so the curves are smooth and periodic. The LV's value is
// the fraction f of the stroke volume present (1 at end diastole, 0 at end systole); the
// LA's the fraction h of its reservoir volume present (0 at its smallest, 1 at its
// largest). docs/heart-phantom.md gives the sources of the durations and shares.

double curveAt(const std::vector<Keyframe>& curve, double phase01) {
    const double t = wrapPhase(phase01);
    for (std::size_t n = 1; n < curve.size(); ++n) {
        const Keyframe a = curve[n - 1], b = curve[n];
        if (t < b.t || (n + 1 == curve.size())) {
            if (!(b.t > a.t)) continue; // an empty phase (no diastasis)
            const double x = std::clamp((t - a.t) / (b.t - a.t), 0.0, 1.0);
            const double s = x * x * x * (x * (6.0 * x - 15.0) + 10.0);
            return a.f + (b.f - a.f) * s;
        }
    }
    return curve.back().f;
}

// Durations at rest, ms: isovolumic contraction (Weissler 1968's pre-ejection period less
// the electromechanical delay), isovolumic relaxation, rapid filling (E's acceleration
// and deceleration) and atrial contraction (A) of normal adults (Nagueh et al. 2009);
// ejection from the heart rate (Weissler 1968, men: LVET = 413 - 1.7 HR).
constexpr double kIsovolumicContractionMs = 35, kIsovolumicRelaxationMs = 70, kRapidFillingMs = 200,
                 kAtrialContractionMs = 130;
// Shares of the stroke volume that fill the LV in diastole (Guyton & Hall's Wiggers
// diagram: rapid filling about 70 %, diastasis about 5 %, atrial contraction 20-30 %),
// and the LA's reservoir: the share of the stroke volume it takes in during ventricular
// systole (the pulmonary veins' systolic wave), the rest arriving in diastole.
constexpr double kDiastasisShare = 0.07, kAtrialShare = 0.28;

CycleTiming timingFor(double heartRateBpm, int phases) {
    const double cycle = 60000.0 / heartRateBpm;
    double ivc = kIsovolumicContractionMs, ivr = kIsovolumicRelaxationMs;
    double ejection = std::max(413.0 - 1.7 * heartRateBpm, 0.2 * cycle);
    // Very fast hearts: systole keeps at most 60 % of the cycle.
    if (const double systole = ivc + ejection + ivr; systole > 0.6 * cycle) {
        ivc *= 0.6 * cycle / systole;
        ejection *= 0.6 * cycle / systole;
        ivr *= 0.6 * cycle / systole;
    }
    // A short diastole loses the diastasis first, then shortens E and A alike.
    double e = kRapidFillingMs, a = kAtrialContractionMs;
    const double diastole = cycle - ivc - ejection - ivr;
    if (const double filling = e + a; filling > diastole) {
        e *= diastole / filling;
        a *= diastole / filling;
    }
    double durations[5] = {ivc, ejection, ivr, e, a}; // diastasis: what is left
    if (phases >= 6) {
        // On the phase grid: each phase at least one interval, the diastasis the rest;
        // too long a sum shortens the longest of ejection, E and A an interval at a time.
        int counts[5];
        int used = 0;
        for (int k = 0; k < 5; ++k) used += counts[k] = std::max(1, int(std::lround(durations[k] / cycle * phases)));
        while (used > phases) {
            int* longest = &counts[1];
            for (int k : {3, 4})
                if (counts[k] > *longest) longest = &counts[k];
            --*longest;
            --used;
        }
        CycleTiming t; // exact multiples of the interval, so that an empty diastasis is empty
        t.ejection = double(counts[0]) / phases;
        t.isovolumicRelaxation = double(counts[0] + counts[1]) / phases;
        t.rapidFilling = double(counts[0] + counts[1] + counts[2]) / phases;
        t.diastasis = double(counts[0] + counts[1] + counts[2] + counts[3]) / phases;
        t.atrialContraction = double(phases - counts[4]) / phases;
        return t;
    }
    CycleTiming t;
    t.ejection = durations[0] / cycle;
    t.isovolumicRelaxation = t.ejection + durations[1] / cycle;
    t.rapidFilling = t.isovolumicRelaxation + durations[2] / cycle;
    t.diastasis = t.rapidFilling + durations[3] / cycle;
    t.atrialContraction = std::max(t.diastasis, 1.0 - durations[4] / cycle);
    return t;
}

std::vector<Keyframe> lvCurveFor(const CycleTiming& t) {
    const double diastasis = t.atrialContraction > t.diastasis + 1e-9 ? kDiastasisShare : 0.0;
    return {{0.0, 1.0},
            {t.ejection, 1.0},                                      // isovolumic contraction
            {t.isovolumicRelaxation, 0.0},                          // ejection
            {t.rapidFilling, 0.0},                                  // isovolumic relaxation
            {t.diastasis, 1.0 - kAtrialShare - diastasis},          // rapid filling (E)
            {t.atrialContraction, 1.0 - kAtrialShare},              // diastasis
            {1.0, 1.0}};                                            // atrial contraction (A)
}

/// The LA gives in A what the LV gains then: its volume before A, h = A share / reservoir share.
std::vector<Keyframe> laCurveFor(const CycleTiming& t) {
    const double beforeA = kAtrialShare / kLaReservoirShare;
    return {{0.0, 0.0},
            {t.rapidFilling, 1.0},          // reservoir: fills through ventricular systole
            {t.diastasis, beforeA},         // passive emptying with E
            {t.atrialContraction, beforeA}, // conduit: the veins' inflow passes on
            {1.0, 0.0}};                    // atrial contraction
}

} // namespace atrium::heart::detail
