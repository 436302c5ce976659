// The synthetic 4D heart phantom: measured LV volumes against the analytic curve, the
// blood spaces and their connections, walls, valves, cycle, presets, parameter checks,
// determinism and noise.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/VolumeSeries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <deque>
#include <functional>
#include <string>
#include <vector>

using namespace atrium::heart;
using atrium::sph::Vec3;

namespace {

std::array<int, 3> voxelOf(const Volume& v, Vec3 p) {
    return {static_cast<int>(std::lround((p.x - v.origin.x) / v.spacing.x)),
            static_cast<int>(std::lround((p.y - v.origin.y) / v.spacing.y)),
            static_cast<int>(std::lround((p.z - v.origin.z) / v.spacing.z))};
}

bool inside(const Volume& v, const std::array<int, 3>& c) {
    return c[0] >= 0 && c[1] >= 0 && c[2] >= 0 && c[0] < v.nx && c[1] < v.ny && c[2] < v.nz;
}

/// 6-connected flood fill from `seed` over voxels brighter than iso whose centres pass
/// `allowed`. Returns the visited mask.
std::vector<char> floodFill(const Volume& v, float iso, Vec3 seed, const std::function<bool(Vec3)>& allowed) {
    std::vector<char> seen(v.voxelCount(), 0);
    const auto start = voxelOf(v, seed);
    if (!inside(v, start) || v.at(start[0], start[1], start[2]) <= iso) return seen;
    std::deque<std::array<int, 3>> queue{start};
    seen[v.index(start[0], start[1], start[2])] = 1;
    constexpr int steps[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
    while (!queue.empty()) {
        const auto c = queue.front();
        queue.pop_front();
        for (const auto& s : steps) {
            const std::array<int, 3> n{c[0] + s[0], c[1] + s[1], c[2] + s[2]};
            if (!inside(v, n)) continue;
            const std::size_t id = v.index(n[0], n[1], n[2]);
            if (seen[id] || v.values[id] <= iso || !allowed(v.position(n[0], n[1], n[2]))) continue;
            seen[id] = 1;
            queue.push_back(n);
        }
    }
    return seen;
}

bool reached(const Volume& v, const std::vector<char>& mask, Vec3 p) {
    const auto c = voxelOf(v, p);
    return inside(v, c) && mask[v.index(c[0], c[1], c[2])] != 0;
}

/// Measured LV cavity volume (ml): blood voxels connected to the LV centre on the
/// ventricular side of both valve planes.
double measuredLvMl(const HeartPhantom& phantom, const Volume& v, float iso, double phase) {
    const ValveDisc mitral = phantom.mitralValve(phase), aortic = phantom.aorticValve(phase);
    const auto lvSide = [&](Vec3 p) {
        return atrium::sph::dot(p - mitral.center, mitral.normal) > 0.f &&
               atrium::sph::dot(p - aortic.center, aortic.normal) < 0.f;
    };
    const auto mask = floodFill(v, iso, phantom.lvCavityCenter(phase), lvSide);
    const double count = static_cast<double>(std::count(mask.begin(), mask.end(), 1));
    return count * v.spacing.x * v.spacing.y * v.spacing.z / 1000.0;
}

/// The default phantom (1 mm voxels, noise 0.05), generated once for the suite.
class DefaultPhantom : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        phantom_ = new HeartPhantom(PhantomParameters{});
        series_ = new VolumeSeries(phantom_->generate());
    }
    static void TearDownTestSuite() {
        delete series_;
        delete phantom_;
        series_ = nullptr;
        phantom_ = nullptr;
    }
    static double phaseOf(std::size_t k) { return static_cast<double>(k) / static_cast<double>(series_->phases.size()); }

    static HeartPhantom* phantom_;
    static VolumeSeries* series_;
};
HeartPhantom* DefaultPhantom::phantom_ = nullptr;
VolumeSeries* DefaultPhantom::series_ = nullptr;

void expectInvalid(const std::function<void(PhantomParameters&)>& change, const std::string& name) {
    PhantomParameters p;
    change(p);
    try {
        HeartPhantom phantom(p);
        ADD_FAILURE() << "no exception for a bad " << name;
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
}

} // namespace

// ---------------------------------------------------------------------------------------
// Volumes measured in the generated images

TEST_F(DefaultPhantom, SeriesShapeAndTiming) {
    ASSERT_EQ(series_->phases.size(), 25u); // the phases of the cycle on a 33 ms grid at 72 bpm
    EXPECT_NEAR(series_->cycleSeconds, 60.0 / 72.0, 1e-12);
    const auto dims = phantom_->dimensions();
    for (const Volume& v : series_->phases) {
        EXPECT_EQ(v.nx, dims[0]);
        EXPECT_EQ(v.ny, dims[1]);
        EXPECT_EQ(v.nz, dims[2]);
        EXPECT_EQ(v.origin, phantom_->origin());
        EXPECT_EQ(v.spacing, (Vec3{1.f, 1.f, 1.f}));
    }
    // The base plane z = 0 lies half-way between two voxel layers.
    const double layer = -series_->phases[0].origin.z / series_->phases[0].spacing.z;
    EXPECT_NEAR(layer - std::floor(layer), 0.5, 1e-5);
}

TEST_F(DefaultPhantom, SuggestedIsovalueLiesBetweenMyocardiumAndBlood) {
    const PhantomParameters& p = phantom_->parameters();
    const double sigma = p.noise * (p.bloodIntensity - p.myocardiumIntensity);
    for (const Volume& v : series_->phases) {
        const float iso = suggestIsovalue(v);
        EXPECT_GT(iso, p.myocardiumIntensity + 3 * sigma);
        EXPECT_LT(iso, p.bloodIntensity - 3 * sigma);
    }
}

TEST_F(DefaultPhantom, LvVolumeMatchesAnalyticCurveAndEjectionFraction) {
    std::vector<double> measured;
    for (std::size_t k = 0; k < series_->phases.size(); ++k) {
        const Volume& v = series_->phases[k];
        const double ml = measuredLvMl(*phantom_, v, suggestIsovalue(v), phaseOf(k));
        const double analytic = phantom_->lvVolumeMl(phaseOf(k));
        EXPECT_NEAR(ml / analytic, 1.0, 0.05) << "phase " << k << ": measured " << ml << " ml, analytic " << analytic;
        measured.push_back(ml);
    }
    const double ed = *std::max_element(measured.begin(), measured.end());
    const double es = *std::min_element(measured.begin(), measured.end());
    EXPECT_NEAR((ed - es) / ed, phantom_->parameters().ejectionFraction, 0.03);
    // End diastole is phase 0 (or the next, in isovolumic contraction) and end systole
    // lies in isovolumic relaxation, from aortic closure to mitral opening.
    const double edPhase = phaseOf(std::size_t(std::max_element(measured.begin(), measured.end()) - measured.begin()));
    EXPECT_LE(edPhase, phantom_->timing().ejection + 1e-9);
    const double esPhase = phaseOf(std::size_t(std::min_element(measured.begin(), measured.end()) - measured.begin()));
    EXPECT_GE(esPhase, phantom_->endSystolicPhase() - 1e-9);
    EXPECT_LE(esPhase, phantom_->timing().rapidFilling + 1e-9);
}

TEST_F(DefaultPhantom, BloodFlowsFromAtriumThroughVentricleToAorta) {
    for (const std::size_t k : {std::size_t{0}, std::size_t{10}}) {
        SCOPED_TRACE("phase " + std::to_string(k));
        const double phase = phaseOf(k);
        const Volume& v = series_->phases[k];
        const float iso = suggestIsovalue(v);
        const Vec3 la = phantom_->leftAtrium(phase).center;
        const Vec3 lv = phantom_->lvCavityCenter(phase);
        const VesselTube aorta = phantom_->aorta();
        const Vec3 aortaEnd = aorta.centerline.back();

        const auto everywhere = floodFill(v, iso, la, [](Vec3) { return true; });
        EXPECT_TRUE(reached(v, everywhere, lv));
        EXPECT_TRUE(reached(v, everywhere, aortaEnd));

        // Without the ventricle, atrium and aorta are separate spaces.
        const auto aboveValves = [](Vec3 p) { return p.z > 0.f; };
        const auto fromAtrium = floodFill(v, iso, la, aboveValves);
        EXPECT_TRUE(reached(v, fromAtrium, la));
        EXPECT_FALSE(reached(v, fromAtrium, aortaEnd));
        const auto fromAorta = floodFill(v, iso, aortaEnd, aboveValves);
        EXPECT_TRUE(reached(v, fromAorta, aorta.centerline[1]));
        EXPECT_FALSE(reached(v, fromAorta, la));
    }
}

TEST_F(DefaultPhantom, BloodPoolNeverTouchesTheVolumeFaces) {
    const PhantomParameters& p = phantom_->parameters();
    const double sigma = p.noise * (p.bloodIntensity - p.myocardiumIntensity);
    for (const Volume& v : series_->phases) {
        float faceMax = -1e30f;
        for (int k = 0; k < v.nz; ++k)
            for (int j = 0; j < v.ny; ++j)
                for (int i = 0; i < v.nx; ++i) {
                    const bool face = i == 0 || j == 0 || k == 0 || i == v.nx - 1 || j == v.ny - 1 || k == v.nz - 1;
                    if (face) faceMax = std::max(faceMax, v.at(i, j, k));
                }
        EXPECT_LT(faceMax, p.backgroundIntensity + 6 * sigma); // background only
    }
}

// ---------------------------------------------------------------------------------------
// Analytic geometry

TEST(HeartPhantom, WallOfGivenThicknessSurroundsTheVentricle) {
    const HeartPhantom phantom;
    for (const double phase : {0.0, phantom.endSystolicPhase()}) {
        SCOPED_TRACE(phase);
        const double wall = phantom.lvWallThicknessMm(phase);
        const double length = phantom.lvLengthMm(phase);
        // From the cavity's edge along +x at many heights, the myocardium measured along
        // rays from horizontal to steeply down (outwards, away from the base): never
        // thinner than the wall, and equal to it along the surface normal (at end systole
        // the cavity is a cone widest at the base, whose normals point down).
        double thinnest = 1e9;
        for (double z = -0.85 * length; z <= -0.1 * length; z += 2.0) {
            double cavityEdge = -1;
            for (double x = 0; x < 80; x += 0.05) {
                if (phantom.tissueAt({static_cast<float>(x), 0.f, static_cast<float>(z)}, phase) != Tissue::LeftVentricle)
                    break;
                cavityEdge = x;
            }
            ASSERT_GT(cavityEdge, 0.0) << "z " << z;
            for (double angle = 0.0; angle >= -1.2; angle -= 0.04) {
                double across = 0;
                for (double d = 0.05; d < 40.0; d += 0.05) {
                    const Vec3 p{static_cast<float>(cavityEdge + d * std::cos(angle)), 0.f,
                                 static_cast<float>(z + d * std::sin(angle))};
                    if (phantom.tissueAt(p, phase) == Tissue::Background) break;
                    across = d;
                }
                ASSERT_GT(across, 0.0) << "z " << z;
                thinnest = std::min(thinnest, across);
            }
        }
        EXPECT_NEAR(thinnest, wall, 0.3);
    }
    EXPECT_DOUBLE_EQ(phantom.lvWallThicknessMm(0.0), phantom.parameters().wallThicknessMm);
    EXPECT_GT(phantom.lvWallThicknessMm(phantom.endSystolicPhase()), 1.5 * phantom.lvWallThicknessMm(0.0)); // systolic thickening
    // The apex is closed by myocardium too.
    const double length = phantom.lvLengthMm(0.0);
    EXPECT_EQ(phantom.tissueAt({0.f, 0.f, static_cast<float>(-length + 0.5)}, 0.0), Tissue::LeftVentricle);
    EXPECT_EQ(phantom.tissueAt({0.f, 0.f, static_cast<float>(-length - 4.0)}, 0.0), Tissue::Myocardium);
    EXPECT_EQ(phantom.tissueAt({0.f, 0.f, static_cast<float>(-length - 9.0)}, 0.0), Tissue::Background);
}

TEST(HeartPhantom, ValveDiscsJoinTheChambers) {
    const HeartPhantom phantom;
    for (const double phase : {0.0, 0.2, 0.35, 0.7}) {
        SCOPED_TRACE(phase);
        const ValveDisc mitral = phantom.mitralValve(phase), aortic = phantom.aorticValve(phase);
        EXPECT_NEAR(atrium::sph::length(mitral.normal), 1.f, 1e-6f);
        EXPECT_NEAR(atrium::sph::length(aortic.normal), 1.f, 1e-6f);
        EXPECT_GT(mitral.radius, 5.0);
        EXPECT_GT(aortic.radius, 5.0);
        EXPECT_GT(atrium::sph::length(mitral.center - aortic.center), mitral.radius + aortic.radius + 2.0);
        // Upstream and downstream of each disc, across its face.
        const Vec3 across[3] = {{0.f, 0.f, 0.f}, {0.8f, 0.f, 0.f}, {0.f, 0.8f, 0.f}};
        for (const Vec3& offset : across) {
            const Vec3 m = mitral.center + offset * static_cast<float>(mitral.radius);
            EXPECT_EQ(phantom.tissueAt(m - mitral.normal * 1.5f, phase), Tissue::LeftAtrium);
            EXPECT_EQ(phantom.tissueAt(m + mitral.normal * 1.5f, phase), Tissue::LeftVentricle);
            const Vec3 a = aortic.center + offset * static_cast<float>(aortic.radius);
            EXPECT_EQ(phantom.tissueAt(a - aortic.normal * 1.5f, phase), Tissue::LeftVentricle);
            EXPECT_EQ(phantom.tissueAt(a + aortic.normal * 1.5f, phase), Tissue::Aorta);
        }
        // Between the two openings the base is tissue.
        const Vec3 between = (mitral.center + aortic.center) * 0.5f;
        const float gapMid = static_cast<float>((mitral.center.y - mitral.radius + aortic.center.y + aortic.radius) / 2.0);
        EXPECT_EQ(phantom.tissueAt({between.x, gapMid, 1.f}, phase), Tissue::Myocardium);
        // The atrium is the ellipsoid the phantom reports.
        EXPECT_EQ(phantom.tissueAt(phantom.leftAtrium(phase).center, phase), Tissue::LeftAtrium);
        EXPECT_EQ(phantom.tissueAt(phantom.aorta().centerline.back(), phase), Tissue::Aorta);
    }
}

TEST(HeartPhantom, VolumeCurveAndCycleWrap) {
    const HeartPhantom phantom;
    EXPECT_DOUBLE_EQ(phantom.lvVolumeMl(0.0), 120.0);
    EXPECT_DOUBLE_EQ(phantom.lvVolumeMl(phantom.endSystolicPhase()), 120.0 * 0.4);
    EXPECT_DOUBLE_EQ(phantom.ejectionFractionAnalytic(), 0.6);
    EXPECT_DOUBLE_EQ(phantom.lvVolumeMl(1.0), phantom.lvVolumeMl(0.0));
    EXPECT_NEAR(phantom.lvVolumeMl(1.3), phantom.lvVolumeMl(0.3), 1e-9);
    EXPECT_NEAR(phantom.lvVolumeMl(-0.25), phantom.lvVolumeMl(0.75), 1e-9);
    // Smooth and bounded over the cycle: EDV is the maximum, EDV(1-EF) the minimum.
    double previous = phantom.lvVolumeMl(0.0);
    for (int n = 1; n <= 1000; ++n) {
        const double v = phantom.lvVolumeMl(n / 1000.0);
        EXPECT_LE(v, 120.0 + 1e-9);
        EXPECT_GE(v, 48.0 - 1e-9);
        EXPECT_LT(std::fabs(v - previous), 1.0); // no jumps, including the wrap at n = 1000
        previous = v;
    }
    // The atrium fills while the ventricle empties.
    EXPECT_GT(phantom.laVolumeMl(phantom.timing().rapidFilling), phantom.laVolumeMl(0.0) + 20.0);
    // Generated images wrap too and differ between phases.
    PhantomParameters coarse;
    coarse.voxelSizeMm = 2.5;
    const HeartPhantom small(coarse);
    const Volume first = small.generatePhase(0.0), wrapped = small.generatePhase(1.0), later = small.generatePhase(0.3);
    EXPECT_EQ(first.values, wrapped.values);
    std::size_t changed = 0;
    for (std::size_t n = 0; n < first.values.size(); ++n)
        changed += std::fabs(first.values[n] - later.values[n]) > 100.f ? 1 : 0;
    EXPECT_GT(changed, first.values.size() / 50);
    const VolumeSeries series = small.generate();
    EXPECT_EQ(series.phases[0].values, first.values);
    EXPECT_NE(series.phases[1].values, series.phases[2].values);
}

TEST(HeartPhantom, PresetsAreValidAndDistinct) {
    const auto names = HeartPhantom::presetNames();
    ASSERT_GE(names.size(), 3u);
    for (const auto& name : names) {
        SCOPED_TRACE(name);
        const PhantomParameters p = HeartPhantom::preset(name);
        const HeartPhantom phantom(p);
        EXPECT_NEAR(phantom.ejectionFractionAnalytic(), p.ejectionFraction, 1e-12);
        EXPECT_DOUBLE_EQ(phantom.lvVolumeMl(0.0), p.endDiastolicVolumeMl);
        EXPECT_DOUBLE_EQ(phantom.cycleSeconds(), 60.0 / p.heartRateBpm);
        const double es = phantom.endSystolicPhase();
        EXPECT_EQ(phantom.tissueAt(phantom.lvCavityCenter(es), es), Tissue::LeftVentricle);
    }
    const PhantomParameters adult = HeartPhantom::preset("adult"), athlete = HeartPhantom::preset("athlete"),
                            failure = HeartPhantom::preset("heart-failure");
    EXPECT_EQ(adult.endDiastolicVolumeMl, PhantomParameters{}.endDiastolicVolumeMl);
    EXPECT_LT(athlete.heartRateBpm, adult.heartRateBpm);
    EXPECT_GT(athlete.endDiastolicVolumeMl, adult.endDiastolicVolumeMl);
    EXPECT_DOUBLE_EQ(failure.ejectionFraction, 0.3);
    EXPECT_GT(failure.endDiastolicVolumeMl, adult.endDiastolicVolumeMl);
    try {
        (void)HeartPhantom::preset("marathon");
        ADD_FAILURE() << "unknown preset accepted";
    } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        EXPECT_NE(message.find("marathon"), std::string::npos);
        for (const auto& name : names) EXPECT_NE(message.find(name), std::string::npos) << message;
    }
}

TEST(HeartPhantom, PresetVolumesMeasuredInImages) {
    // The dilated failing heart at a coarser voxel size: EF 0.3 within 3 points.
    PhantomParameters p = HeartPhantom::preset("heart-failure");
    p.voxelSizeMm = 1.5;
    const HeartPhantom phantom(p);
    const VolumeSeries series = phantom.generate();
    double ed = 0, es = 1e9;
    for (std::size_t k = 0; k < series.phases.size(); ++k) {
        const double phase = static_cast<double>(k) / p.phases;
        const double ml = measuredLvMl(phantom, series.phases[k], suggestIsovalue(series.phases[k]), phase);
        EXPECT_NEAR(ml / phantom.lvVolumeMl(phase), 1.0, 0.05) << "phase " << k;
        ed = std::max(ed, ml);
        es = std::min(es, ml);
    }
    EXPECT_NEAR((ed - es) / ed, 0.3, 0.03);
}

TEST(HeartPhantom, BadParametersAreNamed) {
    expectInvalid([](PhantomParameters& p) { p.ejectionFraction = 0.0; }, "ejectionFraction");
    expectInvalid([](PhantomParameters& p) { p.ejectionFraction = 1.0; }, "ejectionFraction");
    expectInvalid([](PhantomParameters& p) { p.ejectionFraction = -0.2; }, "ejectionFraction");
    expectInvalid([](PhantomParameters& p) { p.ejectionFraction = std::nan(""); }, "ejectionFraction");
    expectInvalid([](PhantomParameters& p) { p.phases = 1; }, "phases");
    expectInvalid([](PhantomParameters& p) { p.phases = -4; }, "phases");
    expectInvalid([](PhantomParameters& p) { p.voxelSizeMm = 0.0; }, "voxelSizeMm");
    expectInvalid([](PhantomParameters& p) { p.voxelSizeMm = -1.0; }, "voxelSizeMm");
    expectInvalid([](PhantomParameters& p) { p.voxelSizeMm = 0.01; }, "voxelSizeMm"); // too many voxels
    expectInvalid([](PhantomParameters& p) { p.endDiastolicVolumeMl = 0.0; }, "endDiastolicVolumeMl");
    expectInvalid([](PhantomParameters& p) { p.endDiastolicVolumeMl = -50.0; }, "endDiastolicVolumeMl");
    expectInvalid([](PhantomParameters& p) { p.heartRateBpm = 0.0; }, "heartRateBpm");
    expectInvalid([](PhantomParameters& p) { p.noise = -0.1; }, "noise");
    expectInvalid([](PhantomParameters& p) { p.wallThicknessMm = 0.0; }, "wallThicknessMm");
    expectInvalid([](PhantomParameters& p) { p.bloodIntensity = 50.f; }, "bloodIntensity");
    expectInvalid([](PhantomParameters& p) { p.aorticAnnulusMm = 0.0; }, "aorticAnnulusMm");
    expectInvalid([](PhantomParameters& p) { p.mitralValveAreaCm2 = std::nan(""); }, "mitralValveAreaCm2");
    expectInvalid([](PhantomParameters& p) { p.ascendingAortaMm = 15.0; }, "ascendingAortaMm"); // under the annulus
    expectInvalid([](PhantomParameters& p) { p.aorticValveAreaCm2 = 4.0; }, "aorticValveAreaCm2"); // over 3.8 cm2
    expectInvalid([](PhantomParameters& p) { p.aorticValveAreaCm2 = 0.0; }, "aorticValveAreaCm2");
    // Extremes that are valid still build a closed ventricle.
    PhantomParameters extreme;
    extreme.ejectionFraction = 0.9;
    const HeartPhantom emptying(extreme);
    const double es = emptying.endSystolicPhase();
    EXPECT_NEAR(emptying.lvVolumeMl(es), 12.0, 1e-9);
    EXPECT_EQ(emptying.tissueAt(emptying.lvCavityCenter(es), es), Tissue::LeftVentricle);
}

TEST(HeartPhantom, SameSeedSameVolumeAndNoiseLevel) {
    PhantomParameters p;
    p.voxelSizeMm = 2.0;
    p.seed = 42;
    const Volume a = HeartPhantom(p).generatePhase(0.3);
    const Volume b = HeartPhantom(p).generatePhase(0.3);
    EXPECT_EQ(a.values, b.values);
    p.seed = 43;
    const Volume c = HeartPhantom(p).generatePhase(0.3);
    EXPECT_NE(a.values, c.values);

    // Noise std dev in the background (the first slice) is noise * contrast.
    double sum = 0, sum2 = 0;
    const std::size_t n = static_cast<std::size_t>(a.nx) * static_cast<std::size_t>(a.ny);
    for (std::size_t i = 0; i < n; ++i) {
        sum += a.values[i];
        sum2 += static_cast<double>(a.values[i]) * a.values[i];
    }
    const double mean = sum / static_cast<double>(n);
    const double sd = std::sqrt(sum2 / static_cast<double>(n) - mean * mean);
    EXPECT_NEAR(mean, p.backgroundIntensity, 1.0);
    EXPECT_NEAR(sd, p.noise * (p.bloodIntensity - p.myocardiumIntensity), 1.0);

    p.noise = 0.0;
    const Volume clean = HeartPhantom(p).generatePhase(0.3);
    EXPECT_EQ(*std::min_element(clean.values.begin(), clean.values.end()), p.backgroundIntensity);
    EXPECT_EQ(*std::max_element(clean.values.begin(), clean.values.end()), p.bloodIntensity);
}

TEST(HeartPhantom, ProgressIsReportedPerPhase) {
    PhantomParameters p;
    p.voxelSizeMm = 4.0;
    p.phases = 4;
    std::vector<double> progress;
    const VolumeSeries series = HeartPhantom(p).generate([&](double f) { progress.push_back(f); });
    EXPECT_EQ(series.phases.size(), 4u);
    EXPECT_EQ(progress, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));
}

TEST(HeartPhantom, RightHeartWrapsTheSeptum) {
    PhantomParameters p;
    p.rightHeart = true;
    p.voxelSizeMm = 1.5;
    p.phases = 2;
    const HeartPhantom phantom(p);
    const double phase = 0.0;
    const Vec3 centre = phantom.lvCavityCenter(phase);
    // Walking -x from the LV centre: ventricle, septum (myocardium), right ventricle.
    std::vector<Tissue> seen;
    for (float x = 0.f; x > -80.f; x -= 0.25f) {
        const Tissue t = phantom.tissueAt({x, 0.f, centre.z}, phase);
        if (seen.empty() || seen.back() != t) seen.push_back(t);
    }
    ASSERT_GE(seen.size(), 4u);
    EXPECT_EQ(seen[0], Tissue::LeftVentricle);
    EXPECT_EQ(seen[1], Tissue::Myocardium);
    EXPECT_EQ(seen[2], Tissue::RightVentricle);
    // The LV measured in the image is still only the LV.
    const Volume v = phantom.generatePhase(phase);
    EXPECT_NEAR(measuredLvMl(phantom, v, suggestIsovalue(v), phase) / phantom.lvVolumeMl(phase), 1.0, 0.05);
}
