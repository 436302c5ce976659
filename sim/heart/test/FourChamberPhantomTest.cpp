// The "four-chamber" phantom (issue 15): the adult left heart with an aortic arch, and a
// right heart (right atrium, right ventricle, pulmonary trunk) for display only. Its
// chamber volumes against the textbook ranges in docs/heart-phantom.md, measured by
// counting voxels of the generated images; the right heart clear of the blood; the
// blood's image the adult's in the ventricle.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/VolumeSeries.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <utility>

using namespace atrium::heart;
using atrium::sph::Vec3;

namespace {

float midpoint(const PhantomParameters& p) { return 0.5f * (p.bloodIntensity + p.backgroundIntensity); }

/// Volume (ml) of each right-heart chamber at a phase: voxels of the right heart's own
/// image above the midpoint, each given to the chamber rightHeartAt names.
std::map<Tissue, double> rightHeartVolumesMl(const HeartPhantom& phantom, double phase) {
    const Volume v = phantom.generateRightHeartPhase(phase);
    const float iso = midpoint(phantom.parameters());
    const double voxelMl = double(v.spacing.x) * v.spacing.y * v.spacing.z / 1000.0;
    std::map<Tissue, double> ml;
    for (int k = 0; k < v.nz; ++k)
        for (int j = 0; j < v.ny; ++j)
            for (int i = 0; i < v.nx; ++i)
                if (v.at(i, j, k) > iso) ml[phantom.rightHeartAt(v.position(i, j, k), phase)] += voxelMl;
    return ml;
}

PhantomParameters noiseless(PhantomParameters p) {
    p.noise = 0.0;
    return p;
}

} // namespace

TEST(FourChamberPhantom, IsTheAdultWithAnArchAndARightHeartShell) {
    const PhantomParameters p = HeartPhantom::preset("four-chamber"), adult = HeartPhantom::preset("adult");
    EXPECT_TRUE(p.aorticArch);
    EXPECT_TRUE(p.rightHeartShell);
    EXPECT_EQ(p.heartRateBpm, adult.heartRateBpm);
    EXPECT_EQ(p.endDiastolicVolumeMl, adult.endDiastolicVolumeMl);
    EXPECT_EQ(p.ejectionFraction, adult.ejectionFraction);
    EXPECT_EQ(p.wallThicknessMm, adult.wallThicknessMm);
    PhantomParameters both = p;
    both.rightHeart = true;
    EXPECT_THROW(HeartPhantom{both}, std::invalid_argument) << "a right ventricle both in the blood and in the shell";
    EXPECT_THROW((void)HeartPhantom(adult).generateRightHeartPhase(0.0), std::logic_error);
    EXPECT_FALSE(HeartPhantom(adult).rightHeartLandmarks(0.0).has_value());
    // The label points lie in their chambers through the beat.
    const HeartPhantom four(p);
    for (const double phase : {0.0, four.endSystolicPhase(), 0.7}) {
        const auto at = four.rightHeartLandmarks(phase);
        ASSERT_TRUE(at.has_value());
        EXPECT_EQ(four.rightHeartAt(at->rightAtrium, phase), Tissue::RightAtrium) << phase;
        EXPECT_EQ(four.rightHeartAt(at->rightVentricle, phase), Tissue::RightVentricle) << phase;
        EXPECT_EQ(four.rightHeartAt(at->pulmonaryTrunk, phase), Tissue::PulmonaryTrunk) << phase;
    }
}

TEST(FourChamberPhantom, TheVentricleIsTheAdultsVoxelForVoxel) {
    // Same lattice (voxel centres at (n + 1/2) mm), a larger box: below the base plane
    // (the LV, its valves' far side, the apex) the noise-free images agree exactly.
    const HeartPhantom four(noiseless(HeartPhantom::preset("four-chamber"))), adult(noiseless(HeartPhantom::preset("adult")));
    for (const double phase : {0.0, adult.endSystolicPhase(), 0.6}) {
        const Volume a = adult.generatePhase(phase), f = four.generatePhase(phase);
        std::size_t compared = 0, differing = 0;
        for (int k = 0; k < a.nz; ++k)
            for (int j = 0; j < a.ny; ++j)
                for (int i = 0; i < a.nx; ++i) {
                    const Vec3 pos = a.position(i, j, k);
                    if (pos.z > 0.f) continue;
                    const int fi = int(std::lround((pos.x - f.origin.x) / f.spacing.x));
                    const int fj = int(std::lround((pos.y - f.origin.y) / f.spacing.y));
                    const int fk = int(std::lround((pos.z - f.origin.z) / f.spacing.z));
                    ASSERT_TRUE(fi >= 0 && fj >= 0 && fk >= 0 && fi < f.nx && fj < f.ny && fk < f.nz);
                    ++compared;
                    if (a.at(i, j, k) != f.at(fi, fj, fk)) ++differing;
                }
        EXPECT_GT(compared, 100000u);
        EXPECT_EQ(differing, 0u) << "voxels of the ventricle at phase " << phase;
    }
    EXPECT_DOUBLE_EQ(four.lvVolumeMl(0.0), adult.lvVolumeMl(0.0));
    EXPECT_DOUBLE_EQ(four.lvVolumeMl(0.35), adult.lvVolumeMl(0.35));
}

TEST(FourChamberPhantom, ChamberVolumesLieInTheDocumentedRanges) {
    // docs/heart-phantom.md, "Four-chamber preset": textbook adult ranges.
    const HeartPhantom h(HeartPhantom::preset("four-chamber"));
    const double esPhase = h.endSystolicPhase(), laLargest = h.timing().rapidFilling;
    const auto ed = rightHeartVolumesMl(h, 0.0), es = rightHeartVolumesMl(h, esPhase),
               raLargest = rightHeartVolumesMl(h, laLargest);
    const double rvEd = ed.at(Tissue::RightVentricle), rvEs = es.at(Tissue::RightVentricle);
    const double rvEf = (rvEd - rvEs) / rvEd;
    const double lvSv = h.lvVolumeMl(0.0) - h.lvVolumeMl(esPhase);
    std::cout << "[ measured ] LV " << h.lvVolumeMl(0.0) << " / " << h.lvVolumeMl(esPhase) << " ml; RV " << rvEd << " / "
              << rvEs << " ml, EF " << rvEf << "; RA " << ed.at(Tissue::RightAtrium) << " / "
              << raLargest.at(Tissue::RightAtrium) << " ml; LA " << h.laVolumeMl(0.0) << " / " << h.laVolumeMl(laLargest)
              << " ml; pulmonary outflow tract and trunk " << ed.at(Tissue::PulmonaryTrunk) << " ml\n";
    EXPECT_GT(rvEd, h.lvVolumeMl(0.0)) << "the RV is slightly larger than the LV";
    EXPECT_LT(rvEd, 1.3 * h.lvVolumeMl(0.0));
    EXPECT_GE(rvEf, 0.50);
    EXPECT_LE(rvEf, 0.65);
    EXPECT_NEAR(rvEd - rvEs, lvSv, 0.1 * lvSv) << "both ventricles eject about the same stroke volume";
    // Right atrium: smallest at end diastole, largest when the AV valves open, as the left.
    EXPECT_GE(ed.at(Tissue::RightAtrium), 15.0);
    EXPECT_LE(ed.at(Tissue::RightAtrium), 40.0);
    EXPECT_GE(raLargest.at(Tissue::RightAtrium), 50.0);
    EXPECT_LE(raLargest.at(Tissue::RightAtrium), 110.0);
    EXPECT_GT(ed.at(Tissue::PulmonaryTrunk), 15.0);
    EXPECT_LT(ed.at(Tissue::PulmonaryTrunk), 50.0);
    // Vessel sizes.
    const VesselTube aorta = h.aorta();
    ASSERT_GE(aorta.centerline.size(), 10u) << "ascending aorta, arch, descending aorta";
    EXPECT_EQ(aorta.radius, h.aorticValve(0.0).radius) << "the valve is the adult's";
    EXPECT_GE(2.0 * aorta.radii.back(), 20.0) << "mm across the arch";
    EXPECT_LE(2.0 * aorta.radii.back(), 30.0) << "mm across the arch";
    // The arch rises above the left atrium and comes down behind it.
    float top = -1e9f;
    for (const Vec3& c : aorta.centerline) top = std::max(top, c.z);
    const EllipsoidShape la = h.leftAtrium(laLargest);
    EXPECT_GT(top - aorta.radii.back(), la.center.z + la.semiAxes.z + 5.0) << "mm: the arch clears the atrium's roof";
    EXPECT_GT(aorta.centerline.back().y, la.center.y + la.semiAxes.y) << "the descending aorta lies behind the atrium";
}

TEST(FourChamberPhantom, TheRightVentriclesVolumeCurveMatchesItsImageThroughTheCycle) {
    // The cycle panel's RV curve (two coarse counts and the stroke fraction between)
    // against the right heart's 1 mm image counted at phases between those two.
    const HeartPhantom h(HeartPhantom::preset("four-chamber"));
    const int samples = 20;
    const std::vector<double> curve = h.rvVolumesMl(samples);
    ASSERT_EQ(curve.size(), std::size_t(samples));
    for (const int k : {0, 3, 5, 7, 10, 14}) {
        const double counted = rightHeartVolumesMl(h, double(k) / samples).at(Tissue::RightVentricle);
        EXPECT_NEAR(curve[std::size_t(k)], counted, 0.03 * counted) << "phase " << double(k) / samples;
    }
    EXPECT_TRUE(HeartPhantom(HeartPhantom::preset("adult")).rvVolumesMl(samples).empty()) << "no right heart";
}

TEST(FourChamberPhantom, TheRightHeartKeepsClearOfTheBlood) {
    // No voxel within 4 mm of a right-heart voxel holds left-heart blood, at any phase
    // the viewer shows; the right heart never touches a face of the volume.
    const HeartPhantom h(noiseless(HeartPhantom::preset("four-chamber")));
    const float rhIso = midpoint(h.parameters());
    const float bloodIso = 0.5f * (h.parameters().bloodIntensity + h.parameters().myocardiumIntensity);
    for (const double phase : {0.0, 0.2, 0.35, 0.7}) {
        const Volume rh = h.generateRightHeartPhase(phase), blood = h.generatePhase(phase);
        ASSERT_EQ(rh.nx, blood.nx);
        constexpr int r = 4; // voxels of 1 mm
        std::size_t rightHeartVoxels = 0, touching = 0, onFace = 0;
        for (int k = 0; k < rh.nz; ++k)
            for (int j = 0; j < rh.ny; ++j)
                for (int i = 0; i < rh.nx; ++i) {
                    if (rh.at(i, j, k) <= rhIso) continue;
                    ++rightHeartVoxels;
                    if (i == 0 || j == 0 || k == 0 || i == rh.nx - 1 || j == rh.ny - 1 || k == rh.nz - 1) ++onFace;
                    bool near = false;
                    for (int c = std::max(0, k - r); c <= std::min(rh.nz - 1, k + r) && !near; ++c)
                        for (int b = std::max(0, j - r); b <= std::min(rh.ny - 1, j + r) && !near; ++b)
                            for (int a = std::max(0, i - r); a <= std::min(rh.nx - 1, i + r); ++a)
                                if ((a - i) * (a - i) + (b - j) * (b - j) + (c - k) * (c - k) <= r * r &&
                                    blood.at(a, b, c) > bloodIso) {
                                    near = true;
                                    break;
                                }
                    if (near) ++touching;
                }
        EXPECT_GT(rightHeartVoxels, 120000u) << "phase " << phase; // 1 mm voxels: RA + RV + trunk over 120 ml
        EXPECT_EQ(touching, 0u) << "right-heart voxels within 4 mm of blood at phase " << phase;
        EXPECT_EQ(onFace, 0u);
    }
}

TEST(FourChamberPhantom, TheShellIsAClosedMovingSurfaceOutsideTheBlood) {
    // loadHeart of the right heart's source (what the viewer and atrium-sim show), at a
    // coarse grid: every phase a closed, outward surface, no vertex in left-heart blood.
    PhantomParameters p = HeartPhantom::preset("four-chamber");
    p.voxelSizeMm = 1.5;
    p.phases = 4;
    const HeartSource source = HeartSource::fromPhantom(p);
    const std::optional<HeartSource> shellSource = source.rightHeartShell();
    ASSERT_TRUE(shellSource.has_value());
    EXPECT_FALSE(HeartSource::fromPreset("adult").rightHeartShell().has_value());
    PipelineSettings settings;
    settings.cacheDirectory.clear();
    PipelineReport report;
    const MovingHeartMesh shell = loadHeart(*shellSource, settings, &report);
    EXPECT_TRUE(report.anatomy.empty()) << "no valves: no blood goes there";
    const HeartPhantom phantom(p);
    ASSERT_EQ(shell.phaseCount(), 4);
    for (int k = 0; k < shell.phaseCount(); ++k) {
        const atrium::sph::TriangleMesh& m = shell.phaseMesh(k);
        std::map<std::pair<std::uint32_t, std::uint32_t>, int> edges;
        for (const auto& t : m.triangles)
            for (int e = 0; e < 3; ++e) ++edges[std::minmax(t[std::size_t(e)], t[std::size_t((e + 1) % 3)])];
        std::size_t open = 0;
        for (const auto& [edge, uses] : edges) open += uses != 2;
        EXPECT_EQ(open, 0u) << "edges not shared by two triangles at phase " << k;
        const double ml = enclosedVolumeMl(m);
        EXPECT_GT(ml, 120.0) << "RA + RV + pulmonary trunk at phase " << k;
        EXPECT_LT(ml, 300.0);
        std::size_t inBlood = 0;
        for (const Vec3& v : m.vertices) {
            const Tissue t = phantom.tissueAt(v, double(k) / shell.phaseCount());
            inBlood += t == Tissue::LeftVentricle || t == Tissue::LeftAtrium || t == Tissue::Aorta;
        }
        EXPECT_EQ(inBlood, 0u) << "shell vertices in the blood's pool at phase " << k;
    }
}
