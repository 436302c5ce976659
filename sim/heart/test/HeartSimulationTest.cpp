// The blood scene inside the moving phantom heart: anatomy, ventricle volumes over the
// cycle measured on the extracted meshes, and a relaxed initial fill inside the wall.
#include "sim/heart/HeartSimulation.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"
#include "sim/sph/WallDistanceField.h"

#include <gtest/gtest.h>

using namespace atrium;
using namespace atrium::heart;

namespace {

struct PhantomHeart {
    HeartPhantom phantom;
    MovingHeartMesh moving;
};

const PhantomHeart& coarseHeart() {
    static const PhantomHeart heart = [] {
        PhantomParameters p = HeartPhantom::preset("adult");
        p.voxelSizeMm = 1.5;
        p.phases = 10;
        HeartPhantom phantom(p);
        const VolumeSeries series = phantom.generate();
        const float iso = suggestIsovalue(series.phases[0]);
        std::vector<sph::TriangleMesh> meshes;
        for (const Volume& v : series.phases) {
            ExtractionSettings es;
            es.isovalue = iso;
            es.noiseBoxMm = 2.0;
            meshes.push_back(extractSurface(v, es));
        }
        InterpolationSettings is;
        is.subframes = 24;
        return PhantomHeart{phantom, MovingHeartMesh::build(std::move(meshes), is)};
    }();
    return heart;
}

} // namespace

TEST(HeartSimulation, VentricleVolumeOfTheMeshesFollowsThePhantom) {
    const PhantomHeart& h = coarseHeart();
    const HeartAnatomy anatomy = HeartAnatomy::fromPhantom(h.phantom);
    double maxV = 0.0, minV = 1e30;
    for (int k = 0; k < h.moving.phaseCount(); ++k) {
        const double phase = double(k) / h.moving.phaseCount();
        const double measured = ventricleVolumeMl(h.moving.phaseMesh(k), anatomy);
        EXPECT_NEAR(measured, h.phantom.lvVolumeMl(phase), 0.05 * h.phantom.lvVolumeMl(phase)) << "phase " << k;
        maxV = std::max(maxV, measured);
        minV = std::min(minV, measured);
    }
    EXPECT_NEAR((maxV - minV) / maxV, h.phantom.parameters().ejectionFraction, 0.03);
}

TEST(HeartSimulation, SubframesMoveTheWallLessThanHalfASpacing) {
    EXPECT_LT(coarseHeart().moving.maxSubframeDisplacement(), 0.5 * 2.0) << "mm, for 2 mm blood particles";
}

TEST(HeartSimulation, SeededBloodRelaxesInsideTheWall) {
    const PhantomHeart& h = coarseHeart();
    HeartSimulationSettings settings;
    settings.particleSpacingMm = 2.5;
    HeartSimulation sim(h.moving, h.phantom.cycleSeconds(), HeartAnatomy::fromPhantom(h.phantom), settings);
    const sph::Solver& solver = sim.solver();
    EXPECT_GT(solver.particleCount(), 5000u);
    EXPECT_EQ(solver.time(), 0.0) << "relaxation leaves the clock alone";
    // After relaxation the blood is near rest density and inside the wall.
    const sph::SimulationStats st = solver.stats();
    EXPECT_LT(st.meanDensityError, 0.06);
    EXPECT_LT(st.maxSpeed, 0.5);
    sph::HostParticles particles;
    solver.read(sph::FieldPosition, particles);
    sph::WallDistanceField field;
    sph::WallDistanceField::Settings fs;
    fs.cellSize = 1.f;
    field.build(h.moving.phaseMesh(0), nullptr, fs);
    std::size_t outside = 0;
    for (const sph::Vec3& p : particles.position)
        if (field.signedDistance(p * 1000.f) > 0.f) ++outside;
    EXPECT_EQ(outside, 0u);
    // The first sub-steps of the beat keep everything accounted for.
    for (int i = 0; i < 200; ++i) sim.step();
    const sph::ParticleAccounting& a = solver.accounting();
    EXPECT_EQ(a.seeded + a.emitted - a.removedByOutlets - a.leaked, solver.particleCount());
    EXPECT_EQ(a.leaked, 0u);
}

TEST(HeartSimulation, RejectsImpossibleSettings) {
    const PhantomHeart& h = coarseHeart();
    HeartSimulationSettings settings;
    settings.particleSpacingMm = 0.0;
    EXPECT_THROW(HeartSimulation(h.moving, 0.8, {}, settings), std::invalid_argument);
    settings.particleSpacingMm = 2.0;
    EXPECT_THROW(HeartSimulation(h.moving, 0.0, {}, settings), std::invalid_argument);
    settings.fill = HeartSimulationSettings::Fill::Emitter;
    EXPECT_THROW(HeartSimulation(h.moving, 0.8, {}, settings), std::invalid_argument) << "no inflow disc";
}
