#pragma once
// Blood pumped by a moving heart wall (Poyart 2016, 3.5.6): the solver of sim/sph runs
// inside the interpolated heart mesh, posed at evenly spaced moments of the cycle and
// moved on by its own velocity in between, so that it never jumps. Each chamber's valves
// (HeartAnatomy.h) are planes that open (one-way) and close (no crossing) with the
// cycle: an inflow valve (mitral, tricuspid) while its chamber fills, an outflow valve
// (aortic, pulmonary) while it empties, both shut while its volume holds (isovolumic),
// read from the wall's own motion; a two-way valve (a chamber's only opening) lets
// blood in while it fills and out while it empties. An emitter in the reservoir behind
// each inflow valve (the phantom's left atrium, a mesh series' vestibule) lets in what
// the chamber draws, wherever there is room, and an outlet beyond each outflow valve
// removes what the chamber ejects, so the simulation runs indefinitely with a bounded
// particle count. The blood that passes each valve is counted. A chamber that has no
// way out but whose volume changes by more than a few per cent is refused before the
// first step (the blood shut in would be squeezed until it blows up). The heart works
// in millimetres, the solver in metres.

#include "sim/heart/HeartAnatomy.h"
#include "sim/heart/LumpedCirculation.h"
#include "sim/heart/MeshInterpolation.h"
#include "sim/sph/Solver.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::heart {

struct HeartSimulationSettings {
    double particleSpacingMm = 2.0;   ///< blood particle spacing; h = 2 spacings
    std::size_t maxParticles = 200000;
    /// Fill the chamber before the beat: Emitter fills through the atrial inflow
    /// with the heart still (3.5.6), Seeded places a lattice in the blood pool at once.
    enum class Fill { Emitter, Seeded } fill = Fill::Seeded;
    double fillSecondsMax = 3.0;      ///< emitter filling stops at this time at the latest
    int relaxationSteps = 300;        ///< Seeded: dynamic relaxation before the beat
    /// Seeded, with a reservoir behind an inflow valve: after relaxation, seconds of
    /// topping the chambers up through their inflow valves (heart still, outflow valves
    /// shut, diastolic suction on): the seeded lattice keeps a collision margin from
    /// the wall and starts ~10 % short of the chamber's volume, so the first beat
    /// ejected ~25 % less than the later ones (53 instead of 73 ml in the cut-out
    /// phantom). 0: none.
    double topUpSeconds = 0.15;
    /// Inflow during the beat: the emitter on the disc of each reservoir (the phantom's
    /// pulmonary veins, a series' vestibule) adds blood only where there is room
    /// (Solver's emitters never place a particle within 3/4 spacing of another), so the
    /// reservoir cannot be over-filled. A reservoir in a vestibule (a still tube behind
    /// a series' valve) runs at this speed (m/s); 0: no inflow during the beat.
    double inflowSpeed = 1.5;
    /// A reservoir in an atrium (a region behind the valve whose own volume changes over
    /// the cycle, more than a tenth of its chamber's peak rate: the phantom's left
    /// atrium) is a venous return (true): at each moment its emitter lets in the blood
    /// the wall makes room for - the atrium's own growth (while the mitral valve is
    /// shut: the pulmonary veins' S wave) plus, while its valve is open, the chamber's
    /// filling (the D wave) - and what the blood lacks against the wall's volume since
    /// the beat began (made up within 50 ms), at that flow over the disc's area, at most
    /// venousReturnMaxSpeed; none while the atrium shrinks faster than the chamber
    /// draws (atrial contraction). false: inflowSpeed throughout, as before issue 22,
    /// when 1.5 m/s jets from a smaller disc reached the mitral valve and read as its E
    /// wave (docs/physiology.md). A vestibule keeps inflowSpeed: its tube is no wider
    /// than the valve, and a venous return there left the cut-out ventricle 5 % under
    /// rest density at end-diastole (the push of the constant speed fills it).
    bool venousReturn = true;
    double venousReturnMaxSpeed = 1.0; ///< m/s
    /// From the beat on, a venous return also refills its atrium's blood where it has
    /// thinned below this fraction of rest density (sph::Solver::setEmitterRefill); 0
    /// (the default): only where there is a hole. Without it the atrium thins to
    /// ~0.85 rho0 while the ventricle draws on it in rapid filling (its emitter finds no
    /// hole to fill) and the ventricle's blood falls to 0.89 of its wall's volume; with
    /// 0.95 its lowest is 0.988 (adult, 15k), but the mitral E wave's p95 rises to ~1.4 m/s, above
    /// the normal 0.6-1.0 (docs/physiology.md), so it is not the default yet.
    double venousReturnRefill = 0.0;
    /// The most tension the blood carries (Pa; SolverParameters::maxTension): the
    /// ventricle's expansion draws blood from the atrium - diastolic suction - as in a
    /// heart, where the left ventricle's pressure falls a few mmHg below the atrium's.
    /// 1 kPa (7.5 mmHg) bounds the jets this drives to ~sqrt(2 p / rho) = 1.4 m/s;
    /// without a bound the tension built up while both valves are shut threw 9 m/s
    /// jets when the mitral valve opened. It applies from the beat's start on (and while
    /// a seeded fill is topped up), not while the seeded blood relaxes nor while a
    /// chamber contracts (its volume falls faster than isovolumicFraction of its peak): tension kept through systole let the heart-failure
    /// preset's apex blood be squeezed to 1.3 rho0 and thrown at 20 m/s at 15k
    /// particles (a blow-up 0.08 s into the beat); with it off in systole the fastest
    /// blood of its first beat is 3.2 m/s. 0: pressures clamped at 0 - nothing pulls
    /// blood into the growing ventricle, which then ended diastole at ~0.85 rho0 with
    /// ~80 % of its blood (docs/PERFORMANCE.md).
    double diastolicSuctionPa = 1000.0;
    /// Open and close the valve planes with the ventricle's volume change (true), or
    /// leave both one-way planes open throughout (false: the behaviour before).
    bool valveTiming = true;
    /// A valve opens when |dV/dt| of its chamber passes this fraction of its peak over
    /// the cycle (an inflow valve closes only under a third of that: a ventricle still
    /// filling slowly at end-diastole keeps its inflow valve open): below it, after a valve closed,
    /// the phase is isovolumic, both valves closed.
    double isovolumicFraction = 0.03;
    /// m/s. WCSPH wants c0 >= 10 v_max (Monaghan 1994): the adult phantom's fastest
    /// blood, at its aortic valve, is ~1.8-2 m/s, which asks for 20 m/s. Against 10 m/s,
    /// at 8k particles over the second beat (docs/PERFORMANCE.md): the ventricle's mean
    /// |rho/rho0 - 1| 1.5 % instead of 4.3 %, the stroke out of the aortic valve the
    /// wall's within 0.3 % instead of 6 %, for twice the steps. The default stays 10 m/s
    /// for now: at 20 the shared CardioMesh ventricle's first beat ejected 8 % short and
    /// the test suite outgrew its time budget. `atrium-sim heart --sound-speed 20` and
    /// the viewer's solver panel choose 20.
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
    /// A chamber with no way out (no outflow or two-way valve with an outlet; a heart
    /// without anatomy counts as one chamber) whose volume changes by more than this
    /// fraction over the cycle is refused (ChamberSqueezed): its blood would be
    /// compressed to rho0 EDV / ESV.
    double closedVolumeChangeLimit = 0.05;
    sph::BackendKind backend = sph::BackendKind::Cpu;
    /// The lumped circulation around the chambers (LumpedCirculation.h): the levels of
    /// the physiological pressures (pressureCurves, physiologicalPressure).
    CirculationParameters circulation;

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

/// Thrown by the HeartSimulation constructor, before the first step, for a chamber
/// that is shut but changes volume (see closedVolumeChangeLimit); what() names it and
/// says why and what to give instead.
class ChamberSqueezed : public std::invalid_argument {
public:
    using std::invalid_argument::invalid_argument;
};

/// Which way an open valve lets blood through, or that it is shut.
enum class ValveFlow { Shut, Into, OutOf };

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

    /// Every valve of the anatomy (chamber by chamber, in order) at `cycleFraction`
    /// (wraps), from the smoothed rate of change of its chamber's volume
    /// (chamberVolumeRateMlPerS): an inflow valve lets blood in while the chamber grows,
    /// an outflow valve out while it shrinks - each open while the rate passes
    /// isovolumicFraction of its peak, an inflow valve until it falls under a third of
    /// that - both shut in
    /// between (the isovolumic phases); a two-way valve follows the rate either
    /// way. With valveTiming off, inflow and outflow valves stay open all beat (a
    /// chamber with only one of them too).
    std::vector<ValveFlow> valvesAt(double cycleFraction) const;
    /// The index into valvesAt() of the valve named `name` (first match), or -1.
    int valveIndex(const std::string& name) const;
    /// d/dt of chamber `chamber`'s volume (the part of its mesh on its side of its
    /// valves), ml/s, at `cycleFraction`: the flux of the wall's velocity through its
    /// triangles (Reynolds transport), sampled over the cycle at construction and
    /// smoothed over +-1 % of it.
    double chamberVolumeRateMlPerS(double cycleFraction, std::size_t chamber = 0) const;
    double ventricleVolumeRateMlPerS(double cycleFraction) const { return chamberVolumeRateMlPerS(cycleFraction, 0); }

    /// Blood that passed each valve (valvesAt() order) since the beat started, ml: the
    /// change of the particles in its chamber while it was the chamber's only open
    /// valve, counted whenever a valve of the chamber opens or closes and at the end of
    /// each beat. A leaking valve's outMl is what came back through it while it was shut
    /// and the outflow valve open: the blood its atrium gained then, less what the
    /// emitters let in (particle counts, exact); the outflow valve's is the chamber's
    /// loss less that.
    struct ValveVolumes {
        double inMl = 0.0, outMl = 0.0;
    };
    const std::vector<ValveVolumes>& valveVolumes() const { return valveVolumes_; }
    /// Per chamber, at the end of each diastole (each whole beat): the particles inside
    /// it (on its side of its valves) and their mean density / rho0.
    struct EndDiastole {
        std::size_t particles = 0;
        double meanDensity = 0.0;
    };
    const std::vector<std::vector<EndDiastole>>& endDiastoles() const { return endDiastoles_; }
    /// Blood in chamber `chamber` now: particles on its side of its valves (and, with
    /// several chambers, inside it) and their mean density / rho0. Reads the particles.
    EndDiastole chamberBlood(std::size_t chamber) const;
    /// Chamber `chamber`'s pressures over the cycle from the lumped circulation around
    /// it (LumpedCirculation.h), timed by its valves as valvesAt() opens them: the
    /// chamber's level, its arterial (downstream) and atrial (upstream) pressures, mmHg.
    const ChamberPressureCurves& pressureCurves(std::size_t chamber = 0) const;
    /// Rewrites `particles.pressure` (Pa; needs positions and the solver's pressures)
    /// as physiological pressure above atmospheric: the lumped circulation's level of
    /// the blood each particle belongs to, plus the 3D flow's local variation about
    /// that blood's mean. Blood joined through an open valve shares one level: that of
    /// the blood beyond the valve (the aorta's pressure while the aortic valve is open,
    /// the atrium's while the mitral is), so the ventricle shows the 3D gradient across
    /// the valve on top. The weakly compressible solver carries pressure differences,
    /// not the 100 mmHg level (that would compress the blood by ~10 % at c0 = 10 m/s);
    /// with the wall's motion prescribed, the level does not change the flow.
    /// A particle belongs to the valve nearest it: beyond it, or in its chamber.
    void physiologicalPressure(sph::HostParticles& particles) const;
    /// A leaking inflow valve's regurgitant flow (Valve::regurgitantOrificeMm2), ml/s,
    /// at `cycleFraction` (wraps); 0 for any other valve (valvesAt() order). The lumped
    /// model's: while the valve is shut and its chamber ejects, the orifice area times
    /// the jet speed the chamber-to-atrium pressure difference drives (the simplified
    /// Bernoulli relation, v = sqrt(dp / 4) m/s for dp in mmHg), at most what the chamber
    /// ejects at that moment. The 3D blood is driven through a hole of that area in the
    /// shut valve's plane at that speed (sph::BoundaryPlane's hole); the arterial
    /// Windkessel is fed the rest (the forward flow).
    double regurgitantFlowMlPerS(double cycleFraction, std::size_t valve) const;
    /// Its integral over one cycle (ml): the model's regurgitant volume per beat.
    double regurgitantVolumeMl(std::size_t valve) const;

    /// Time spent on the valves since the start (ms): their timing, the planes and
    /// reservoirs set, the blood counted when they open or close and at end-diastole.
    double valveMs() const { return valveMs_; }
    /// Volume one particle stands for, ml (mass / rho0).
    double particleVolumeMl() const;
    const HeartAnatomy& anatomy() const { return anatomy_; }

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
    /// Valve planes and reservoirs for the pose at `cycleFraction`; counts the blood
    /// of a chamber whose valves change.
    void updateValves(double cycleFraction);
    /// The plane valve `index` is while it lets blood flow `flow`.
    sph::BoundaryPlane valvePlane(std::size_t index, ValveFlow flow) const;
    /// Which chamber each triangle of each phase mesh belongs to (several chambers).
    void assignChambers();
    /// Samples each chamber's volume rate of wallAt() over the cycle (constructor).
    void sampleVolumeRates();
    /// The lumped circulation's pressures of each chamber (constructor, after
    /// sampleVolumeRates; HeartSimulationPressure.cpp).
    void computePressureCurves();
    /// Refuses a chamber that is shut but changes volume (constructor).
    void refuseSqueezedChambers() const;
    /// Particles of chamber `chamber` among `positions` (m); `density` (optional) sums
    /// their densities.
    std::size_t countChamber(std::size_t chamber, const sph::HostParticles& particles, double* density) const;
    /// Attributes the change of chamber `chamber`'s blood since its last count to the
    /// valve that was open (flows: the states until now).
    void countValveFlow(std::size_t chamber, const std::vector<ValveFlow>& flows);
    /// A blow-up, said again with what the heart was doing (compression by the wall).
    [[noreturn]] void explainBlowUp(const sph::SimulationBlowUp& e) const;
    double sampledRate(const std::vector<double>& table, double cycleFraction) const;
    /// Sets each reservoir's emitter for `cycleFraction` (see venousReturn).
    void setReservoirInflow(double cycleFraction);
    /// Opens the hole of each leaking valve's shut plane at `cycleFraction`'s
    /// regurgitant flow, or closes it. The jet runs at the model's speed (flow / EROA);
    /// the hole opens as wide as the 3D blood needs to carry the model's flow at it (a
    /// hole a few particles across delivers about half: the blood converging on it
    /// cannot keep up), from the blood its atrium gained between updates.
    void setRegurgitantJets(double cycleFraction);
    /// The valve slot nearest `pMm` (disc centres), the one whose side a point is on.
    std::size_t nearestValve(sph::Vec3 pMm) const;
    /// Blood beyond valve slot `valve` (nearer it than any other valve, on its far
    /// side) among `particles` (m): a leaking valve's atrium, for the regurgitant count.
    std::size_t countBeyond(std::size_t valve, const sph::HostParticles& particles) const;

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
    struct ValveSlot {
        std::size_t chamber = 0;
        const Valve* valve = nullptr;
        std::size_t plane = 0;
        std::optional<std::size_t> emitter; // its reservoir's emitter in the beat
    };
    std::vector<ValveSlot> valveSlots_;               // every valve, chamber by chamber
    std::vector<std::vector<double>> rateMlPerS_;     // per chamber, over the cycle, smoothed
    /// Per valve slot, over the cycle: its regurgitant flow (ml/s; empty unless it leaks).
    std::vector<std::vector<double>> regurgitantMlPerS_;
    /// Per valve slot that leaks: the blood beyond it and the particles emitted in all
    /// at the last count (countValveFlow: what the atrium gained but for its emitter came
    /// back through the leak).
    std::vector<std::size_t> beyondCount_;
    std::uint64_t emittedAtCount_ = 0;
    /// Per leaking valve slot, the jet's 3D orifice (setRegurgitantJets): its area over
    /// the EROA, learnt beat after beat, and this systole's tallies so far (ml).
    struct RegurgitantJet {
        double areaScale = 1.0;
        bool active = false;            ///< counting this systole's jet
        bool holeOpen = false;          ///< the plane has its hole now
        double phase = 0.0;             ///< beats() at the last update
        std::size_t beyond = 0;         ///< blood beyond the valve then
        std::uint64_t emitted = 0;      ///< particles emitted in all then
        double targetMl = 0.0, deliveredMl = 0.0;
    };
    std::vector<RegurgitantJet> jets_;
    std::vector<double> peakRateMlPerS_;              // per chamber
    /// Per valve slot with a reservoir (others empty), over the cycle, smoothed: d/dt of
    /// the volume beyond the valve (the wall's triangles beyond it, nearer it than the
    /// chamber's other valves), ml/s.
    std::vector<std::vector<double>> reservoirRateMlPerS_;
    /// Per valve slot: whether its reservoir lies in an atrium (see venousReturn).
    std::vector<bool> reservoirInAtrium_;
    /// The whole wall's enclosed volume over the cycle, less its value at the cycle's
    /// start (ml; the integral of its smoothed rate, periodic).
    std::vector<double> poolVolumeMl_;
    std::size_t beatParticles_ = 0; ///< at the beat's start (phase 0, where poolVolumeMl_ is 0)
    std::vector<std::vector<std::uint8_t>> fillingTable_, emptyingTable_; // per chamber, over the cycle
    std::vector<ChamberPressureCurves> pressureCurves_; // per chamber (one without anatomy)
    std::vector<std::vector<std::uint16_t>> triangleChamber_; // per phase, per triangle (several chambers)
    std::vector<ValveFlow> valves_;                   // current states
    std::vector<ValveVolumes> valveVolumes_;
    std::vector<std::size_t> chamberCount_;           // particles at the last count, per chamber
    std::vector<std::vector<EndDiastole>> endDiastoles_;
    std::int64_t beatsCounted_ = 0;                   // whole beats whose end-diastole is recorded
    double valveMs_ = 0.0;
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

/// Volume (ml) of the part of a closed heart mesh on the first chamber's side of its
/// valves (behind the mitral and before the aortic disc): the LV of a mesh that also
/// holds atrium and aorta. Without valves, the whole enclosed volume.
double ventricleVolumeMl(const sph::TriangleMesh& meshMm, const HeartAnatomy& anatomy);

/// Bounds (mm) of the heart over every sub-frame of its cycle.
sph::Aabb cycleBounds(const MovingHeartMesh& heart);

} // namespace atrium::heart
