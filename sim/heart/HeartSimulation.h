#pragma once
// Blood pumped by a moving heart wall (Poyart 2016, 3.5.6): the solver of sim/sph runs
// inside the interpolated heart mesh, posed at evenly spaced moments of the cycle and
// moved on by its own velocity in between, so that it never jumps. Planes at the mitral
// and aortic valves open (one-way) and close (no crossing) with the cycle: the mitral
// while the ventricle fills, the aortic while it empties, both shut while its volume
// holds (isovolumic), read from the wall's own motion. An emitter in the left atrium
// lets in what the blood pool upstream of the closed valves grows by (mass
// conservation), and an outlet beyond the aortic root removes what the ventricle
// ejects, so the simulation runs indefinitely with a bounded particle count. The
// heart works in millimetres, the solver in metres.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/MeshInterpolation.h"
#include "sim/sph/Solver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

namespace atrium::heart {

/// Where blood comes in and goes out, in the heart mesh's frame (mm). Real scans
/// carry no valve positions: without them the chamber is simply filled and closed.
struct HeartAnatomy {
    std::optional<ValveDisc> mitral;  ///< open (one-way atrium -> ventricle) while the LV fills
    std::optional<ValveDisc> aortic;  ///< open (one-way ventricle -> aorta) while the LV empties
    std::optional<ValveDisc> inflow;  ///< emitter disc in the atrium, normal = flow direction
    std::optional<sph::Vec3> outlet;  ///< sink centre beyond the aortic root
    double outletRadiusMm = 0.0;

    /// The phantom's valves, an inflow disc in the left atrium aimed at the mitral
    /// valve, and an outlet at the far end of the aorta.
    static HeartAnatomy fromPhantom(const HeartPhantom& phantom);
};

struct HeartSimulationSettings {
    double particleSpacingMm = 2.0;   ///< blood particle spacing; h = 2 spacings
    std::size_t maxParticles = 200000;
    /// Fill the chamber before the beat: Emitter fills through the atrial inflow
    /// with the heart still (3.5.6), Seeded places a lattice in the blood pool at once.
    enum class Fill { Emitter, Seeded } fill = Fill::Seeded;
    double fillSecondsMax = 3.0;      ///< emitter filling stops at this time at the latest
    int relaxationSteps = 300;        ///< Seeded: dynamic relaxation before the beat
    /// Atrial inflow during the beat: the pulmonary veins as a reservoir. The emitter on
    /// the inflow disc runs at this speed (m/s) and adds blood only where the atrium has
    /// room (Solver's emitters never place a particle within 3/4 spacing of another), so
    /// the atrium takes what the ventricle draws from it and cannot be over-filled.
    /// 0: no inflow during the beat.
    double inflowSpeed = 1.5;
    /// The most tension the blood carries (Pa; SolverParameters::maxTension): the
    /// ventricle's expansion draws blood from the atrium - diastolic suction - as in a
    /// heart, where the left ventricle's pressure falls a few mmHg below the atrium's.
    /// 1 kPa (7.5 mmHg) bounds the jets this drives to ~sqrt(2 p / rho) = 1.4 m/s;
    /// without a bound the tension built up while both valves are shut threw 9 m/s
    /// jets when the mitral valve opened. It applies while the mitral valve is open
    /// (diastole) from the beat's start on, not while the seeded blood relaxes nor while
    /// the ventricle contracts: tension kept through systole let the heart-failure
    /// preset's apex blood be squeezed to 1.3 rho0 and thrown at 20 m/s at 15k
    /// particles (a blow-up 0.08 s into the beat); with it off in systole the fastest
    /// blood of its first beat is 3.2 m/s. 0: pressures clamped at 0 - nothing pulls
    /// blood into the growing ventricle, which then ended diastole at ~0.85 rho0 with
    /// ~80 % of its blood (docs/PERFORMANCE.md).
    double diastolicSuctionPa = 1000.0;
    /// Open and close the valve planes with the ventricle's volume change (true), or
    /// leave both one-way planes open throughout (false: the behaviour before).
    bool valveTiming = true;
    /// |dV_LV/dt| below this fraction of its peak over the cycle counts as isovolumic:
    /// both valves closed.
    double isovolumicFraction = 0.03;
    /// m/s. WCSPH wants c0 >= 10 v_max; the adult phantom ejects at ~2.5 m/s mean
    /// through its 16 mm aorta (4-5 m/s jets), so 10 m/s (~1 % density error at 1 m/s,
    /// ~5-8 % in the systolic jets) trades accuracy for a time step half that of
    /// 20 m/s. See docs/PERFORMANCE.md, "Blood in the beating phantom".
    double soundSpeed = 10.0;
    double viscosity = 0.0035;        ///< blood, Pa s
    /// The wall is posed at evenly spaced moments of the cycle (wallPosesPerCycle()),
    /// between which its fastest point moves at most this many particle spacings (> 0;
    /// at least one pose per phase). Between poses the field moves the wall on by its
    /// velocity (Solver::setWallMesh's `poseTime`), so a pose only corrects the
    /// curvature of the motion, where posing a still wall used to shove the blood by
    /// the whole travel (which at a quarter spacing blew the simulation up). With the
    /// adult phantom at 15k particles, 1 spacing (99 poses per beat) ends diastole with
    /// the same blood in the ventricle as every sub-frame (0.34 spacings, 240 poses)
    /// within 0.6 %; 2 spacings (49 poses) within 0.3 %, but 2 % less dense in mid
    /// diastole (docs/PERFORMANCE.md).
    double wallTravelPerUpdate = 1.0;
    /// Memory for the wall's poses kept from one beat to the next (MiB; a pose is a
    /// WallDistanceField::Snapshot, ~1.2 MB for the adult phantom at 15k particles): the
    /// poses the cycle comes round to again are restored instead of rebuilt, ~15x
    /// faster; those past the budget are rebuilt every beat. 0: none kept.
    double wallPoseCacheMiB = 256.0;
    sph::BackendKind backend = sph::BackendKind::Cpu;

    /// Default settings with the spacing that puts about `particles` particles into a
    /// blood pool of `bloodPoolMl` (the pipeline's report of the first phase).
    static HeartSimulationSettings forParticleBudget(double bloodPoolMl, std::size_t particles) {
        HeartSimulationSettings s;
        s.particleSpacingMm = std::cbrt(bloodPoolMl * 1000.0 / double(std::max<std::size_t>(particles, 1)));
        return s;
    }
};

/// Thrown by the HeartSimulation constructor when its caller abandoned the preparation.
class PreparationCancelled : public std::runtime_error {
public:
    PreparationCancelled() : std::runtime_error("heart: the blood's preparation was cancelled") {}
};

class HeartSimulation {
public:
    /// `heart` must outlive the simulation. Throws std::invalid_argument on bad settings.
    /// `preparing`, if given, gets the fraction of the blood's preparation (relaxation)
    /// done; returning false abandons it and the constructor throws
    /// PreparationCancelled (e.g. the window closed while the blood settled).
    HeartSimulation(const MovingHeartMesh& heart, double cycleSeconds, HeartAnatomy anatomy,
                    HeartSimulationSettings settings, const std::function<bool(double fraction)>& preparing = {});

    /// One solver sub-step; the wall takes its next pose when one is due.
    void step();
    /// The same, of at most `dtMax` seconds (a fixed step for comparisons: the CUDA
    /// backend's CFL limit reads the speed one sub-step late).
    void step(float dtMax);
    /// Steps until the heart has beaten `beats` more times.
    void runBeats(double beats, const std::function<void(double fraction)>& progress = {});

    bool filling() const { return filling_; }
    double heartTime() const;             ///< s since the beat started (0 while filling)
    double beats() const;                 ///< cardiac cycles completed since the beat started
    const sph::Solver& solver() const { return *solver_; }
    sph::Solver& solver() { return *solver_; }

    /// The wall at `cycleFraction` (wraps), vertices in mm and velocities in mm/s: the
    /// heart's interpolated motion, with the switch of connectivity at half way made
    /// continuous (see HeartSimulation.cpp). step() poses the wall with it.
    void wallAt(double cycleFraction, sph::TriangleMesh& meshMm, std::vector<sph::Vec3>& velocityMmPerS) const;

    /// The valves at `cycleFraction` (wraps), from the smoothed rate of change of the
    /// LV volume of the wall's motion (ventricleVolumeRateMlPerS): mitral open while it
    /// grows, aortic open while it shrinks, both closed while it is within
    /// isovolumicFraction of its peak rate of zero. Without both valve discs in the
    /// anatomy, or with valveTiming off, both are always open.
    struct Valves {
        bool mitralOpen = true;
        bool aorticOpen = true;
    };
    Valves valvesAt(double cycleFraction) const;
    /// d/dt of the LV volume (the mesh on the ventricle's side of both valve planes,
    /// as ventricleVolumeMl), ml/s, at `cycleFraction`: the flux of the wall's velocity
    /// through its triangles (Reynolds transport), sampled over the cycle at
    /// construction and smoothed over +-1 % of it.
    double ventricleVolumeRateMlPerS(double cycleFraction) const;
    /// Time spent posing the wall (ms): re-sampling the heart mesh and building the wall
    /// field, or restoring a kept pose.
    double meshUpdateMs() const { return restoreMs_ + buildMs_; }
    /// How many poses of the wall one cycle has (see wallTravelPerUpdate).
    int wallPosesPerCycle() const { return posesPerCycle_; }
    /// Builds and keeps every pose of the cycle not kept yet (within wallPoseCacheMiB),
    /// so that no beat, the first included, rebuilds a wall field; a first beat
    /// otherwise builds them as it goes. Leaves the simulation as it was.
    void prepareWallPoses(const std::function<void(double fraction)>& progress = {});
    /// Wall poses restored from the kept ones and built afresh, with their time (ms),
    /// and the memory the kept poses take (bytes).
    struct WallPoseStats {
        std::uint64_t restores = 0, builds = 0;
        double restoreMs = 0.0, buildMs = 0.0;
        double restoreMaxMs = 0.0; ///< the slowest restore (a change of triangulation costs most)
        std::size_t keptPoses = 0, keptBytes = 0;
    };
    WallPoseStats wallPoseStats() const;
    std::uint64_t meshUpdates() const { return restores_ + builds_; }

private:
    /// Poses the wall: pose number `pose` since the beat started, restored if kept.
    void poseWall(std::int64_t pose);
    /// wallM_ and velocityM_ (m, m/s) at pose `index` of the cycle.
    void wallAtPose(std::size_t index);
    /// Keeps a snapshot of `field` as pose `index`, within wallPoseCacheMiB.
    void keepPose(std::size_t index, const sph::WallDistanceField& field);
    bool roomForPoses() const { return double(keptBytes_) < settings_.wallPoseCacheMiB * 1024.0 * 1024.0; }
    /// The fill is done: the wall starts to move and the blood may carry tension.
    void startBeat();
    /// Valve planes for the pose at `cycleFraction`.
    void updateValves(double cycleFraction);
    /// Samples the LV volume rate of wallAt() over the cycle (constructor).
    void sampleVolumeRates();
    double sampledRate(const std::vector<double>& table, double cycleFraction) const;

    const MovingHeartMesh& heart_;
    double cycleSeconds_;
    HeartAnatomy anatomy_;
    HeartSimulationSettings settings_;
    std::unique_ptr<sph::Solver> solver_;
    bool filling_ = false;
    double beatStart_ = 0.0;  // solver time when the beat started
    /// Per phase k: the half-way displacement that takes mesh k towards k-1 and lands
    /// its vertices on mesh k-1's half-way surface (backward displacement + snap).
    std::vector<std::vector<sph::Vec3>> backwardToSurface_;
    /// Per phase k: mesh k's velocity at phase k (mm per half interval), shared by the
    /// backward and forward halves so that the wall's velocity is continuous there
    /// (cubic Hermite in time, see wallAt()).
    std::vector<std::vector<sph::Vec3>> phaseTangent_;
    std::vector<double> lvRateMlPerS_; // over the cycle, smoothed
    double peakLvRateMlPerS_ = 0.0;
    std::optional<std::size_t> mitralPlane_, aorticPlane_;
    Valves valves_;
    bool suction_ = false; // the blood may carry tension now
    double maxWallSpeedMmPerS_ = 0.0; // fastest vertex of wallAt() over the cycle
    int posesPerCycle_ = 1;
    std::int64_t currentPose_ = -1;   // poses since the beat started; -1: none yet
    std::vector<std::unique_ptr<const sph::WallDistanceField::Snapshot>> keptPoses_; // per pose of the cycle
    std::size_t keptBytes_ = 0;
    double restoreMs_ = 0.0, buildMs_ = 0.0, restoreMaxMs_ = 0.0;
    std::uint64_t restores_ = 0, builds_ = 0;
    sph::TriangleMesh wallMm_, wallM_;
    std::vector<sph::Vec3> velocityMm_, velocityM_;
};

/// Volume (ml) of the part of a closed heart mesh on the ventricle's side of both
/// valve planes (behind the mitral and before the aortic disc): the LV of a mesh that
/// also holds atrium and aorta. Without valves, the whole enclosed volume.
double ventricleVolumeMl(const sph::TriangleMesh& meshMm, const HeartAnatomy& anatomy);

} // namespace atrium::heart
