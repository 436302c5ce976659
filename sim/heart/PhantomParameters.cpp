// PhantomParameters' rules and the named presets (HeartPhantom::preset): what a
// phantom may be asked for, apart from how it is drawn (HeartPhantom.cpp).

#include "sim/heart/HeartPhantom.h"

#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>
#include <string>

namespace atrium::heart {
namespace {

[[noreturn]] void badParameter(const std::string& name, const std::string& rule, double value) {
    std::ostringstream out;
    out << "PhantomParameters::" << name << " " << rule << ", got " << value;
    throw std::invalid_argument(out.str());
}

} // namespace

void PhantomParameters::validate() const {
    const PhantomParameters& p = *this;
    const auto finite = [](double v) { return std::isfinite(v); };
    if (!finite(p.heartRateBpm) || p.heartRateBpm < 20.0 || p.heartRateBpm > 300.0)
        badParameter("heartRateBpm", "must be in [20, 300] beats per minute", p.heartRateBpm);
    if (!finite(p.endDiastolicVolumeMl) || p.endDiastolicVolumeMl <= 0.0)
        badParameter("endDiastolicVolumeMl", "must be positive", p.endDiastolicVolumeMl);
    if (p.endDiastolicVolumeMl < 5.0 || p.endDiastolicVolumeMl > 1000.0)
        badParameter("endDiastolicVolumeMl", "must be in [5, 1000] ml", p.endDiastolicVolumeMl);
    if (!finite(p.ejectionFraction) || p.ejectionFraction <= 0.0 || p.ejectionFraction >= 1.0)
        badParameter("ejectionFraction", "must be in (0, 1)", p.ejectionFraction);
    if (p.phases < 2 || p.phases > 1000) badParameter("phases", "must be in [2, 1000]", p.phases);
    if (!finite(p.voxelSizeMm) || p.voxelSizeMm <= 0.0 || p.voxelSizeMm > 10.0)
        badParameter("voxelSizeMm", "must be in (0, 10] mm", p.voxelSizeMm);
    if (!finite(p.noise) || p.noise < 0.0 || p.noise > 10.0) badParameter("noise", "must be in [0, 10]", p.noise);
    if (!finite(p.wallThicknessMm) || p.wallThicknessMm <= 0.0 || p.wallThicknessMm > 40.0)
        badParameter("wallThicknessMm", "must be in (0, 40] mm", p.wallThicknessMm);
    if (!std::isfinite(p.bloodIntensity) || !std::isfinite(p.myocardiumIntensity) ||
        !std::isfinite(p.backgroundIntensity))
        badParameter("bloodIntensity", "and the other intensities must be finite", p.bloodIntensity);
    if (!finite(p.aorticAnnulusMm) || p.aorticAnnulusMm < 5.0 || p.aorticAnnulusMm > 50.0)
        badParameter("aorticAnnulusMm", "must be in [5, 50] mm", p.aorticAnnulusMm);
    if (!finite(p.mitralValveAreaCm2) || p.mitralValveAreaCm2 < 0.2 || p.mitralValveAreaCm2 > 20.0)
        badParameter("mitralValveAreaCm2", "must be in [0.2, 20] cm2", p.mitralValveAreaCm2);
    if (!finite(p.ascendingAortaMm) || p.ascendingAortaMm < p.aorticAnnulusMm || p.ascendingAortaMm > 80.0)
        badParameter("ascendingAortaMm", "must be in [aorticAnnulusMm (" + std::to_string(p.aorticAnnulusMm) + "), 80] mm",
                     p.ascendingAortaMm);
    if (p.aorticValveAreaCm2) {
        const double annulusCm2 = std::numbers::pi * 0.25 * p.aorticAnnulusMm * p.aorticAnnulusMm / 100.0;
        const double area = *p.aorticValveAreaCm2;
        if (!finite(area) || area < 0.1 || area >= annulusCm2)
            badParameter("aorticValveAreaCm2", "must be in [0.1, " + std::to_string(annulusCm2) +
                                                   ") cm2 (below the annulus's own area; leave it empty for a normal valve)",
                         area);
    }
    if (p.mitralRegurgitantOrificeCm2) {
        const double area = *p.mitralRegurgitantOrificeCm2;
        if (!finite(area) || area < 0.05 || area >= p.mitralValveAreaCm2)
            badParameter("mitralRegurgitantOrificeCm2",
                         "must be in [0.05, mitralValveAreaCm2 (" + std::to_string(p.mitralValveAreaCm2) +
                             ")) cm2 (leave it empty for a competent valve)",
                         area);
    }
    if (p.rightHeart && p.rightHeartShell)
        badParameter("rightHeartShell", "excludes rightHeart (a right ventricle in the blood's image)", 1.0);
    if (!(p.bloodIntensity > p.myocardiumIntensity))
        badParameter("bloodIntensity", "must be above myocardiumIntensity (" +
                                           std::to_string(p.myocardiumIntensity) + ")", p.bloodIntensity);
}

namespace {

/// The presets besides "adult" (PhantomParameters' defaults): what differs from it. Their
/// figures and sources: docs/heart-phantom.md, "Presets".
struct PhantomPreset {
    const char* name;
    double heartRateBpm, endDiastolicVolumeMl, ejectionFraction, wallThicknessMm;
    double aorticAnnulusMm, mitralValveAreaCm2, ascendingAortaMm;
    double aorticValveAreaCm2 = 0; ///< a stenotic valve's orifice; 0: none
    bool fourChambers = false;     ///< aortic arch and right heart shell
    int phases = 25;               ///< a slow heart's longer cycle takes more images
    double mitralRegurgitantOrificeCm2 = 0; ///< a leaking mitral valve's EROA; 0: none
};
constexpr const char* kAdult = "adult";
constexpr PhantomPreset kPresets[] = {
    {"athlete", 50, 180, 0.6, 11, 24, 5.5, 30, 0, false, 30},
    {"heart-failure", 90, 220, 0.3, 7, 22, 5.0, 28},
    {"child", 100, 60, 0.65, 6, 17, 3.0, 20},
    {"aortic-stenosis", 72, 120, 0.6, 8, 22, 5.0, 28, 0.8},
    {"four-chamber", 72, 120, 0.6, 8, 22, 5.0, 28, 0, true},
    // Severe primary MR (Zoghbi 2017: EROA >= 0.40 cm2, RVol >= 60 ml, RF >= 50 %),
    // with the dilated, hyperdynamic ventricle that a 60 ml regurgitant volume needs.
    {"mitral-regurgitation", 72, 200, 0.65, 9, 22, 6.0, 28, 0, false, 25, 0.6},
};

} // namespace

PhantomParameters HeartPhantom::preset(const std::string& name) {
    if (name == kAdult) return {};
    for (const PhantomPreset& k : kPresets) {
        if (name != k.name) continue;
        PhantomParameters p;
        p.heartRateBpm = k.heartRateBpm;
        p.endDiastolicVolumeMl = k.endDiastolicVolumeMl;
        p.ejectionFraction = k.ejectionFraction;
        p.wallThicknessMm = k.wallThicknessMm;
        p.aorticAnnulusMm = k.aorticAnnulusMm;
        p.mitralValveAreaCm2 = k.mitralValveAreaCm2;
        p.ascendingAortaMm = k.ascendingAortaMm;
        if (k.aorticValveAreaCm2 > 0) p.aorticValveAreaCm2 = k.aorticValveAreaCm2;
        p.aorticArch = p.rightHeartShell = k.fourChambers;
        p.phases = k.phases;
        if (k.mitralRegurgitantOrificeCm2 > 0) p.mitralRegurgitantOrificeCm2 = k.mitralRegurgitantOrificeCm2;
        return p;
    }
    std::string valid;
    for (const auto& known : presetNames()) valid += (valid.empty() ? "" : ", ") + known;
    throw std::invalid_argument("unknown phantom preset '" + name + "'; valid presets: " + valid);
}

std::vector<std::string> HeartPhantom::presetNames() {
    std::vector<std::string> names{kAdult};
    for (const PhantomPreset& k : kPresets) names.emplace_back(k.name);
    return names;
}

} // namespace atrium::heart
