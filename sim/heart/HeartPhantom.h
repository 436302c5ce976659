#pragma once
// Atrium's own synthetic 4D left heart: the demo's embedded default (no download).
//
// A parametric left ventricle (a quadric of revolution: a truncated prolate ellipsoid at
// end diastole), left atrium (ellipsoid) and ascending aorta (tube), joined through the
// mitral and aortic valve openings, with a myocardial wall, rendered as contrast-CT-like
// intensities (blood bright, myocardium darker, background darkest) plus Gaussian noise.
// Optionally the aorta goes on into an arch (blood), and a right heart is drawn in an
// image of its own for display (rightHeartShell; the "four-chamber" preset has both).
// Units: millimetres, seconds, millilitres. Geometry and formulas: docs/heart-phantom.md.
//
// Frame: z is the LV long axis, pointing from the apex to the base; the base (valve)
// plane is z = 0, the ventricle lies below it, atrium and aorta above; +y is posterior
// (towards the atrium), -y anterior (towards the aorta).

#include "sim/heart/VolumeSeries.h"
#include "sim/sph/Vec3.h"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace atrium::heart {

struct PhantomParameters {
    double heartRateBpm = 72;
    double endDiastolicVolumeMl = 120;
    double ejectionFraction = 0.6;
    /// Images per cycle. The phases of the cycle (isovolumic contraction, ejection,
    /// isovolumic relaxation, rapid filling, diastasis, atrial contraction) begin and end
    /// on this grid, so that the interpolated wall keeps the isovolumic phases; 25 puts
    /// the adult's on its published durations (docs/heart-phantom.md).
    int phases = 25;
    double voxelSizeMm = 1.0;
    double noise = 0.05;            ///< std dev relative to the blood-myocardium contrast
    std::uint32_t seed = 1;
    double wallThicknessMm = 8;     ///< LV myocardium at end diastole (thickens in systole)
    /// The valves and the aorta (they do not scale with the EDV): the aortic annulus and
    /// the open valve's disc at it (diameter, mm), the open mitral orifice (cm²), the
    /// aortic root and ascending aorta (diameter, mm). The LV's base ring is as wide as
    /// the two valves side by side need.
    double aorticAnnulusMm = 22;
    double mitralValveAreaCm2 = 5.0;
    double ascendingAortaMm = 28;
    /// A stenotic aortic valve: the open valve's orifice (cm², below the annulus's own
    /// area), a hole in a 3 mm thick valve at the annulus. Empty: the valve opens to the
    /// whole annulus.
    std::optional<double> aorticValveAreaCm2;
    /// A leaking mitral valve (mitral regurgitation): its effective regurgitant orifice
    /// area (EROA, cm², below the valve's own area), open while the ventricle ejects;
    /// the lumped circulation drives the regurgitant jet through it into the atrium
    /// (HeartSimulation). Empty: a competent valve.
    std::optional<double> mitralRegurgitantOrificeCm2;
    bool rightHeart = false;        ///< add a right ventricle wrapped around the septum
    /// The ascending aorta goes on into an aortic arch and a short descending aorta
    /// (blood flows through it to the outlet at its end).
    bool aorticArch = false;
    /// A right atrium, right ventricle and pulmonary trunk for display only: not in the
    /// blood's image (generatePhase) but in their own (generateRightHeartPhase), shown
    /// as a translucent shell. Excludes `rightHeart`.
    bool rightHeartShell = false;
    float bloodIntensity = 300.f;       ///< contrast-enhanced blood pool (HU-like)
    float myocardiumIntensity = 100.f;  ///< myocardium and vessel walls
    float backgroundIntensity = 0.f;    ///< everything outside the heart

    /// Throws std::invalid_argument naming the field that is out of its range, the
    /// range and the value (HeartPhantom's constructor asks; PhantomParameters.cpp).
    void validate() const;

    friend bool operator==(const PhantomParameters&, const PhantomParameters&) = default;
};

/// When each phase of the cycle begins, as fractions of the cycle (isovolumic
/// contraction begins at 0, end diastole; the cycle ends at 1 with the atrial
/// contraction). From the heart rate (docs/heart-phantom.md: Weissler 1968, Nagueh
/// 2009), on the phase grid.
struct CycleTiming {
    double ejection = 0;             ///< aortic valve opens
    double isovolumicRelaxation = 0; ///< aortic valve closes: end systole
    double rapidFilling = 0;         ///< mitral valve opens (E)
    double diastasis = 0;
    double atrialContraction = 0;    ///< (A); equals diastasis when there is none
};

/// A valve opening: a disc with its centre, the unit normal pointing in the direction of
/// forward flow (mitral: atrium -> ventricle; aortic: ventricle -> aorta), and radius, mm.
struct ValveDisc {
    sph::Vec3 center, normal;
    double radius = 0;
};

/// An axis-aligned ellipsoid, mm.
struct EllipsoidShape {
    sph::Vec3 center, semiAxes;
};

/// A tube around a polyline centreline with closed, rounded far end, mm. The first point
/// is the centre of the aortic valve disc.
struct VesselTube {
    std::vector<sph::Vec3> centerline;
    double radius = 0;         ///< at the valve
    std::vector<double> radii; ///< at each centreline point (the radius varies linearly between)
};

enum class Tissue : std::uint8_t {
    Background, Myocardium, LeftVentricle, LeftAtrium, Aorta, RightVentricle,
    RightAtrium, PulmonaryTrunk ///< the display-only right heart (rightHeartAt)
};

class HeartPhantom {
public:
    /// Throws std::invalid_argument naming the parameter when one is out of range.
    explicit HeartPhantom(PhantomParameters parameters = {});

    /// Named parameter sets: "adult" (PhantomParameters' defaults), "athlete",
    /// "heart-failure", "child", "aortic-stenosis" (the adult with a 0.8 cm² aortic
    /// valve), and "four-chamber" (the viewer's default): the adult with an aortic arch
    /// and a right heart shown as a shell (aorticArch, rightHeartShell). Their figures
    /// and sources: docs/heart-phantom.md.
    /// Throws std::invalid_argument listing the valid names.
    static PhantomParameters preset(const std::string& name);
    static std::vector<std::string> presetNames();

    const PhantomParameters& parameters() const { return params_; }
    double cycleSeconds() const { return 60.0 / params_.heartRateBpm; }

    /// One volume per phase; phase k at k/phases of the cycle. Progress after each phase.
    VolumeSeries generate(std::function<void(double)> progress = {}) const;
    /// The volume at any point of the cycle (phase01 wraps: 1.0 is 0.0). generate() uses
    /// generatePhase(k / phases); the noise depends on the seed and the phase only (images
    /// within an isovolumic phase share its first image's noise: the ventricle holds still).
    Volume generatePhase(double phase01) const;
    /// With rightHeartShell: the right heart's cavities on the same grid, blood
    /// intensity inside and background outside, without noise (throws std::logic_error
    /// without it). Its surface at the blood/background midpoint is the shell.
    Volume generateRightHeartPhase(double phase01) const;
    VolumeSeries generateRightHeart(std::function<void(double)> progress = {}) const;

    /// Voxel counts and the position of voxel (0,0,0) shared by every phase. The volume
    /// covers the whole heart over the cycle with a margin of at least 4 voxels; the base
    /// plane z = 0 lies half-way between two voxel layers.
    std::array<int, 3> dimensions() const { return dims_; }
    sph::Vec3 origin() const { return origin_; }

    /// Analytic LV cavity volume (below the valve plane), millilitres. V(0) = EDV, held
    /// through isovolumic contraction; the minimum EDV*(1-EF) is held through isovolumic
    /// relaxation, from endSystolicPhase() to timing().rapidFilling.
    double lvVolumeMl(double phase01) const;
    double ejectionFractionAnalytic() const;
    /// The phases of the cycle at this heart rate and phase count.
    CycleTiming timing() const;
    /// Aortic valve closure: the end of ejection, the first phase of the LV's minimum.
    double endSystolicPhase() const { return timing().isovolumicRelaxation; }
    /// Analytic left-atrial ellipsoid volume before trimming at the valve plane, ml: its
    /// smallest at end diastole, filling through ventricular systole (reservoir), emptying
    /// in rapid filling, held in diastasis (conduit), emptying again in atrial contraction
    /// by what the ventricle gains then.
    double laVolumeMl(double phase01) const;

    ValveDisc mitralValve(double phase01) const;
    ValveDisc aorticValve(double phase01) const;
    EllipsoidShape leftAtrium(double phase01) const;
    VesselTube aorta() const;
    /// A point on the LV long axis half-way between apex and base (inside the cavity).
    sph::Vec3 lvCavityCenter(double phase01) const;
    /// Distance from base plane to apex of the cavity, mm.
    double lvLengthMm(double phase01) const;
    /// LV myocardium thickness at this phase (myocardial volume is kept about constant).
    double lvWallThicknessMm(double phase01) const;

    /// What the phantom holds at a point (mm) and phase, without partial volume or noise.
    Tissue tissueAt(sph::Vec3 p, double phase01) const;
    /// The display-only right heart at a point: RightAtrium, RightVentricle (with the
    /// tricuspid neck), PulmonaryTrunk, or Background (also without rightHeartShell).
    Tissue rightHeartAt(sph::Vec3 p, double phase01) const;
    /// The right atrium's ellipsoid volume before trimming, ml (the left atrium's curve).
    double raVolumeMl(double phase01) const;
    /// The right ventricle's volume (with its tricuspid neck) at `samples` phases k /
    /// samples, ml: voxels of `voxelMm` counted at end systole, end diastole and half-way
    /// in filling, the phases between following the stroke fraction. Empty without
    /// rightHeartShell.
    std::vector<double> rvVolumesMl(int samples, double voxelMm = 2.0) const;
    /// With rightHeartShell: a point well inside each right-heart chamber (for labels).
    struct RightHeartLandmarks {
        sph::Vec3 rightAtrium, rightVentricle, pulmonaryTrunk;
    };
    std::optional<RightHeartLandmarks> rightHeartLandmarks(double phase01) const;

private:
    Volume image(double phase01, bool rightHeart) const;
    VolumeSeries series(bool rightHeart, std::function<void(double)> progress) const;

    PhantomParameters params_;
    std::array<int, 3> dims_{};
    sph::Vec3 origin_{};
};

} // namespace atrium::heart
