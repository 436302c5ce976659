// The phantoms against published normal (and diseased) values (issue 22), never against
// the code's own output: valve areas and diameters measured in the phantom's geometry,
// the phases of the cycle read off its volume curves - both the analytic curve and the
// one the interpolated wall follows (straight between the phase images, which is where
// the simulation reads its valve timing) - and each preset's EDV, EF and heart rate.
// Sources, as in docs/heart-phantom.md:
//  - Lang RM et al. 2015, chamber quantification (JASE 28:1): LV EDV men 62-150 ml,
//    EF 52-72 %; aortic annulus about 20-26 mm; LA volume index up to 34 ml/m².
//  - Baumgartner H et al. 2009 (mitral stenosis, JASE 22:1): normal mitral valve area
//    4-6 cm².
//  - Baumgartner H et al. 2017 (aortic stenosis, JASE 30:372): normal peak aortic
//    velocity 1.0-1.7 m/s; severe stenosis: area < 1.0 cm², peak >= 4 m/s, mean
//    gradient >= 40 mmHg.
//  - Weissler AM et al. 1968 (Circulation 37:149): LVET = 413 - 1.7 HR ms (men).
//  - Nagueh SF et al. 2009 (Eur J Echocardiogr 10:165), normal adults 21-40 years: IVRT
//    67 +- 8 ms; E/A 1.53 +- 0.40; mitral E 0.6-1.0 m/s and A 0.3-0.7 m/s (Nagueh 2016).
//  - Ponikowski P et al. 2016, ESC heart failure guidelines: HFrEF, EF < 40 %.
//  - Pelliccia A et al. 1991 (NEJM 324:295) and 1999 (Ann Intern Med 130:23), athletes:
//    LV wall <= 12 mm in nearly all, cavity enlarged (LV end-diastolic diameter up to
//    60 mm and more), resting bradycardia.

#include "sim/heart/HeartPhantom.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

using namespace atrium::heart;
using atrium::sph::Vec3;

namespace {

constexpr double kPi = std::numbers::pi;

double areaCm2(double radiusMm) { return kPi * radiusMm * radiusMm / 100.0; }

/// Length (mm) of the run of `tissue` along the line p + s dir through p, found by
/// walking both ways from p in 0.05 mm steps.
double chordMm(const HeartPhantom& h, Vec3 p, Vec3 dir, Tissue tissue, double phase) {
    double ends[2] = {0, 0};
    for (int side = 0; side < 2; ++side) {
        const float sign = side == 0 ? 1.f : -1.f;
        for (double s = 0.05; s < 100.0; s += 0.05) {
            if (h.tissueAt(p + dir * (sign * float(s)), phase) != tissue) break;
            ends[side] = s;
        }
    }
    return ends[0] + ends[1];
}

/// A volume curve sampled over one cycle.
struct Curve {
    std::vector<double> t, ml;
    double cycleSeconds = 1;
    /// d(ml)/dt between samples n and n + 1, ml/s.
    double rate(std::size_t n) const { return (ml[n + 1] - ml[n]) / ((t[n + 1] - t[n]) * cycleSeconds); }
};

/// The LV (or LA) volume at `samples` evenly spaced points, and again at t = 1.
Curve sampled(const HeartPhantom& h, int samples, bool atrium = false) {
    Curve c;
    c.cycleSeconds = h.cycleSeconds();
    for (int n = 0; n <= samples; ++n) {
        const double t = double(n) / samples;
        c.t.push_back(t);
        c.ml.push_back(atrium ? h.laVolumeMl(t) : h.lvVolumeMl(t));
    }
    return c;
}
Curve analytic(const HeartPhantom& h, bool atrium = false) { return sampled(h, 5000, atrium); }
/// What the interpolated wall follows: the volumes of the phase images, straight between.
Curve wall(const HeartPhantom& h) { return sampled(h, h.parameters().phases); }

/// The phases of the cycle as a curve shows them: spans where the volume holds still
/// (below 1e-5 of the peak emptying rate) or moves.
struct Phases {
    double isovolumicContractionS = 0, ejectionS = 0, isovolumicRelaxationS = 0;
    double peakEjectionMlPerS = 0, peakEMlPerS = 0, peakAMlPerS = 0, diastasisMinMlPerS = 0;
    double meanSquaredEjectionRate = 0; ///< (ml/s)^2, over the ejection
};

Phases phasesOf(const Curve& c) {
    Phases p;
    const std::size_t n = c.t.size() - 1;
    for (std::size_t k = 0; k < n; ++k) p.peakEjectionMlPerS = std::max(p.peakEjectionMlPerS, -c.rate(k));
    const double still = 1e-5 * p.peakEjectionMlPerS;
    const auto span = [&](std::size_t k) { return (c.t[k + 1] - c.t[k]) * c.cycleSeconds; };
    std::size_t k = 0;
    for (; k < n && std::fabs(c.rate(k)) < still; ++k) p.isovolumicContractionS += span(k);
    double sumSquares = 0;
    for (; k < n && c.rate(k) <= -still; ++k) {
        p.ejectionS += span(k);
        sumSquares += c.rate(k) * c.rate(k) * span(k);
    }
    p.meanSquaredEjectionRate = p.ejectionS > 0 ? sumSquares / p.ejectionS : 0;
    for (; k < n && std::fabs(c.rate(k)) < still; ++k) p.isovolumicRelaxationS += span(k);
    // Filling: the first peak (E), the lowest rate after it (diastasis), the last peak (A).
    std::size_t e = k;
    for (; k < n && c.rate(k) >= c.rate(e); ++k) e = k;
    std::size_t low = k;
    for (; k < n && c.rate(k) <= c.rate(low); ++k) low = k;
    double a = 0;
    for (; k < n; ++k) a = std::max(a, c.rate(k));
    p.peakEMlPerS = c.rate(e);
    p.diastasisMinMlPerS = c.rate(low);
    p.peakAMlPerS = a;
    return p;
}

std::vector<std::string> presetsOtherThanFourChamber() {
    std::vector<std::string> names;
    for (const std::string& name : HeartPhantom::presetNames())
        if (name != "four-chamber") names.push_back(name); // its left heart is the adult's
    return names;
}

} // namespace

TEST(PhantomPhysiology, AdultValvesAndAortaHaveAdultCalibre) {
    const HeartPhantom h(HeartPhantom::preset("adult"));
    const ValveDisc aortic = h.aorticValve(0.0), mitral = h.mitralValve(0.0);
    // The openings as the geometry has them, just above the base plane, across x.
    const double annulusMm = chordMm(h, aortic.center + Vec3{0.f, 0.f, 0.2f}, {1.f, 0.f, 0.f}, Tissue::Aorta, 0.0);
    const double mitralMm = chordMm(h, mitral.center + Vec3{0.f, 0.f, 0.2f}, {1.f, 0.f, 0.f}, Tissue::LeftAtrium, 0.0);
    EXPECT_NEAR(annulusMm, 2.0 * aortic.radius, 0.2);
    EXPECT_NEAR(mitralMm, 2.0 * mitral.radius, 0.2);
    // Lang 2015: annulus about 20-26 mm; Baumgartner 2017: a normal valve about 3-4 cm²;
    // Baumgartner 2009: mitral valve area 4-6 cm².
    EXPECT_GE(annulusMm, 20.0);
    EXPECT_LE(annulusMm, 26.0);
    EXPECT_GE(areaCm2(aortic.radius), 3.0);
    EXPECT_LE(areaCm2(aortic.radius), 4.0);
    EXPECT_GE(areaCm2(mitral.radius), 4.0);
    EXPECT_LE(areaCm2(mitral.radius), 6.0);
    // Aortic root and ascending aorta of adult calibre, 25-30 mm: across x at the top of
    // the root and half-way up the ascending aorta.
    const VesselTube aorta = h.aorta();
    ASSERT_GE(aorta.centerline.size(), 3u);
    for (const Vec3& at : {aorta.centerline[1], (aorta.centerline[1] + aorta.centerline[2]) * 0.5f}) {
        const double across = chordMm(h, at, {1.f, 0.f, 0.f}, Tissue::Aorta, 0.0);
        EXPECT_GE(across, 25.0) << "mm across the ascending aorta at z " << at.z;
        EXPECT_LE(across, 30.0) << "mm across the ascending aorta at z " << at.z;
    }
    // Continuity: the peak flow of the volume curve through these orifices, as a plug.
    // Baumgartner 2017: aortic peak 1.0-1.7 m/s; Nagueh 2016: mitral E 0.6-1.0 m/s and A
    // 0.3-0.7 m/s.
    const Phases p = phasesOf(analytic(h));
    const double aorticMs = p.peakEjectionMlPerS / areaCm2(aortic.radius) / 100.0;
    const double eMs = p.peakEMlPerS / areaCm2(mitral.radius) / 100.0, aMs = p.peakAMlPerS / areaCm2(mitral.radius) / 100.0;
    std::cout << "[ measured ] adult: aortic annulus " << annulusMm << " mm (" << areaCm2(aortic.radius)
              << " cm2), mitral " << areaCm2(mitral.radius) << " cm2; peak flow " << p.peakEjectionMlPerS
              << " ml/s = " << aorticMs << " m/s through the aortic valve, E " << eMs << " m/s, A " << aMs << " m/s\n";
    EXPECT_GE(aorticMs, 1.0);
    EXPECT_LE(aorticMs, 1.7);
    EXPECT_GE(eMs, 0.6);
    EXPECT_LE(eMs, 1.0);
    EXPECT_GE(aMs, 0.3);
    EXPECT_LE(aMs, 0.7);
}

TEST(PhantomPhysiology, EveryPhaseOfTheCycleInTheCurveAndInTheInterpolatedWall) {
    for (const std::string& name : presetsOtherThanFourChamber()) {
        const HeartPhantom h(HeartPhantom::preset(name));
        const double hr = h.parameters().heartRateBpm;
        for (const bool ofWall : {false, true}) {
            SCOPED_TRACE(name + (ofWall ? ", the wall's (phase images)" : ", analytic"));
            const Phases p = phasesOf(ofWall ? wall(h) : analytic(h));
            const double interval = h.cycleSeconds() / h.parameters().phases;
            std::cout << "[ measured ] " << name << (ofWall ? " wall: " : " curve: ") << "IVC "
                      << 1000 * p.isovolumicContractionS << " ms, ejection " << 1000 * p.ejectionS << " ms, IVR "
                      << 1000 * p.isovolumicRelaxationS << " ms, E/A " << p.peakEMlPerS / p.peakAMlPerS
                      << ", diastasis " << p.diastasisMinMlPerS << " ml/s\n";
            // Weissler 1968: LVET = 413 - 1.7 HR ms (SD about 10 ms), within 20 ms.
            EXPECT_NEAR(1000 * p.ejectionS, 413 - 1.7 * hr, 20.0);
            // Both isovolumic phases: at least one phase interval in the wall.
            EXPECT_GE(p.isovolumicContractionS, (ofWall ? 0.99 * interval : 0.02));
            EXPECT_GE(p.isovolumicRelaxationS, (ofWall ? 0.99 * interval : 0.04));
            // Nagueh 2009: IVRT 67 +- 8 ms (21-40 years): within two SD; a failing
            // ventricle's relaxation is not normal, not held to it.
            if (name != "heart-failure") {
                EXPECT_GE(1000 * p.isovolumicRelaxationS, 67 - 2 * 8.0);
                EXPECT_LE(1000 * p.isovolumicRelaxationS, 67 + 2 * 8.0 + 1.0);
            }
            // Nagueh 2009: E/A 1.53 +- 0.40 in young adults; the 1-2.
            EXPECT_GE(p.peakEMlPerS / p.peakAMlPerS, 1.0);
            EXPECT_LE(p.peakEMlPerS / p.peakAMlPerS, 2.0);
            // Between E and A the filling slows to diastasis where the cycle leaves time
            // for it (Guyton & Hall's Wiggers diagram); a fast heart fuses E and A.
            if (hr <= 75) {
                EXPECT_LT(p.diastasisMinMlPerS, 0.3 * p.peakAMlPerS);
            }
        }
    }
}

TEST(PhantomPhysiology, TheAtriumIsTheVentriclesCounterpart) {
    for (const std::string& name : presetsOtherThanFourChamber()) {
        SCOPED_TRACE(name);
        const HeartPhantom h(HeartPhantom::preset(name));
        const CycleTiming t = h.timing();
        const Curve lv = analytic(h), la = analytic(h, true);
        const auto at = [&](const Curve& c, double phase) { return c.ml[std::size_t(std::lround(phase * 5000))]; };
        // Smallest at end diastole (after its contraction), largest when the mitral valve
        // opens: it fills through ventricular systole (its reservoir).
        const auto [lo, hi] = std::minmax_element(la.ml.begin(), la.ml.end());
        EXPECT_NEAR(*lo, at(la, 0.0), 1e-6);
        EXPECT_NEAR(*hi, at(la, t.rapidFilling), 1e-6);
        for (std::size_t n = 0; n + 1 < la.ml.size(); ++n) {
            if (la.t[n + 1] <= t.rapidFilling) {
                EXPECT_GE(la.ml[n + 1], la.ml[n] - 1e-9) << "fills in systole, t " << la.t[n];
            }
            if (la.t[n] >= t.rapidFilling) {
                EXPECT_LE(la.ml[n + 1], la.ml[n] + 1e-9) << "empties in diastole, t " << la.t[n];
            }
        }
        // Passive emptying with E, a conduit in diastasis (it holds its volume while the
        // veins' blood passes on), and in A it gives what the ventricle gains then.
        EXPECT_LT(at(la, t.diastasis), at(la, t.rapidFilling) - 5.0);
        EXPECT_NEAR(at(la, t.atrialContraction), at(la, t.diastasis), 1e-9);
        const double laGives = at(la, t.atrialContraction) - at(la, 1.0), lvGains = at(lv, 1.0) - at(lv, t.atrialContraction);
        EXPECT_NEAR(laGives, lvGains, 1e-6);
        // Lang 2015: LA volume index up to 34 ml/m² (normal); the adult's body surface
        // area taken as 1.9 m². Its total emptying fraction 0.5-0.75 (reservoir function).
        if (name == "adult") {
            EXPECT_LE(*hi / 1.9, 34.0);
            EXPECT_GE((*hi - *lo) / *hi, 0.5);
            EXPECT_LE((*hi - *lo) / *hi, 0.75);
        }
    }
}

TEST(PhantomPhysiology, PresetsHoldTheirPublishedVolumesAndRates) {
    const auto edvEf = [](const std::string& name) {
        const HeartPhantom h(HeartPhantom::preset(name));
        return std::pair{h.lvVolumeMl(0.0), h.ejectionFractionAnalytic()};
    };
    // Lang 2015 (men): EDV 62-150 ml, EF 52-72 %.
    for (const std::string name : {"adult", "aortic-stenosis", "four-chamber"}) {
        const auto [edv, ef] = edvEf(name);
        EXPECT_GE(edv, 62.0) << name;
        EXPECT_LE(edv, 150.0) << name;
        EXPECT_GE(ef, 0.52) << name;
        EXPECT_LE(ef, 0.72) << name;
        EXPECT_EQ(HeartPhantom::preset(name).heartRateBpm, 72) << name;
    }
    // Athlete (Pelliccia 1991, 1999): an enlarged cavity above the untrained upper limit,
    // a normal EF, a wall of at most 12 mm, resting bradycardia (under 60 bpm).
    {
        const auto [edv, ef] = edvEf("athlete");
        const PhantomParameters p = HeartPhantom::preset("athlete");
        EXPECT_GT(edv, 150.0);
        EXPECT_GE(ef, 0.52);
        EXPECT_LE(ef, 0.72);
        EXPECT_LE(p.wallThicknessMm, 12.0);
        EXPECT_LT(p.heartRateBpm, 60.0);
    }
    // Heart failure with reduced EF (Ponikowski 2016): EF under 40 %, a dilated LV (EDV
    // above Lang's upper limit), a resting tachycardia-leaning rate.
    {
        const auto [edv, ef] = edvEf("heart-failure");
        EXPECT_LT(ef, 0.40);
        EXPECT_GT(edv, 150.0);
    }
    // Child (about 6 years, body surface area about 0.8 m²): an EF in the adult's
    // normal range, an EDV under the adult's lower limit, and smaller valves.
    {
        const auto [edv, ef] = edvEf("child");
        const HeartPhantom h(HeartPhantom::preset("child"));
        EXPECT_LT(edv, 62.0);
        EXPECT_GE(ef, 0.52);
        EXPECT_LE(ef, 0.75);
        EXPECT_LT(2.0 * h.aorticValve(0.0).radius, 20.0);
        EXPECT_LT(areaCm2(h.mitralValve(0.0).radius), 4.0);
    }
    // Severe primary mitral regurgitation (Zoghbi 2017: EROA >= 0.40 cm²), compensated
    // (Otto 2020 ACC/AHA guideline: LVEF > 60 %), with the dilated ventricle a 60 ml
    // regurgitant volume needs (EDV above Lang's upper limit).
    {
        const auto [edv, ef] = edvEf("mitral-regurgitation");
        const PhantomParameters p = HeartPhantom::preset("mitral-regurgitation");
        ASSERT_TRUE(p.mitralRegurgitantOrificeCm2.has_value());
        EXPECT_GE(*p.mitralRegurgitantOrificeCm2, 0.40);
        EXPECT_LT(*p.mitralRegurgitantOrificeCm2, p.mitralValveAreaCm2);
        EXPECT_GT(edv, 150.0);
        EXPECT_GT(ef, 0.60);
    }
}

TEST(PhantomPhysiology, AorticStenosisIsSevere) {
    const HeartPhantom as(HeartPhantom::preset("aortic-stenosis")), adult(HeartPhantom::preset("adult"));
    const ValveDisc valve = as.aorticValve(0.0);
    // The orifice as the geometry has it: a hole through the valve 1 mm above the base
    // plane, the root above it the adult's.
    const double orificeMm = chordMm(as, valve.center + Vec3{0.f, 0.f, 1.f}, {1.f, 0.f, 0.f}, Tissue::Aorta, 0.0);
    EXPECT_NEAR(orificeMm, 2.0 * valve.radius, 0.2);
    EXPECT_EQ(as.tissueAt(valve.center + Vec3{float(valve.radius) + 2.f, 0.f, 1.f}, 0.0), Tissue::Myocardium)
        << "the valve's tissue around the orifice";
    const VesselTube root = as.aorta();
    EXPECT_NEAR(chordMm(as, root.centerline[1], {1.f, 0.f, 0.f}, Tissue::Aorta, 0.0),
                chordMm(adult, adult.aorta().centerline[1], {1.f, 0.f, 0.f}, Tissue::Aorta, 0.0), 0.2);
    // Baumgartner 2017: severe, area < 1.0 cm²; by continuity the flow through it peaks
    // at >= 4 m/s and its mean gradient (simplified Bernoulli, 4 v², over ejection) is
    // >= 40 mmHg.
    EXPECT_LT(areaCm2(valve.radius), 1.0);
    const Phases p = phasesOf(analytic(as));
    const double areaM2 = areaCm2(valve.radius) * 1e-4;
    const double peakMs = p.peakEjectionMlPerS * 1e-6 / areaM2;
    const double meanGradientMmHg = 4.0 * p.meanSquaredEjectionRate * 1e-12 / (areaM2 * areaM2);
    std::cout << "[ measured ] aortic stenosis: " << areaCm2(valve.radius) << " cm2, peak " << peakMs
              << " m/s, mean gradient " << meanGradientMmHg << " mmHg\n";
    EXPECT_GE(peakMs, 4.0);
    EXPECT_GE(meanGradientMmHg, 40.0);
    // Otherwise the normal adult: the same ventricle and volumes.
    EXPECT_DOUBLE_EQ(as.lvVolumeMl(0.3), adult.lvVolumeMl(0.3));
    EXPECT_EQ(as.mitralValve(0.0).radius, adult.mitralValve(0.0).radius);
}
