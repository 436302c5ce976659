#pragma once
// Blood pumped by a moving heart wall (Poyart 2016, 3.5.6): the solver of sim/sph runs
// inside the interpolated heart mesh, re-posed every few solver steps so that it never
// moves more than a small fraction of a particle spacing at once; one-way planes at the
// mitral and aortic valves, an emitter in the left atrium that keeps inflow going, and an outlet beyond the aortic root that
// removes what the ventricle ejects, so the simulation runs indefinitely with a
// bounded particle count. The heart works in millimetres, the solver in metres.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/MeshInterpolation.h"
#include "sim/sph/Solver.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace atrium::heart {

/// Where blood comes in and goes out, in the heart mesh's frame (mm). Real scans
/// carry no valve positions: without them the chamber is simply filled and closed.
struct HeartAnatomy {
    std::optional<ValveDisc> mitral;  ///< one-way: atrium -> ventricle
    std::optional<ValveDisc> aortic;  ///< one-way: ventricle -> aorta
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
    double inflowMlPerSecond = 90.0;  ///< atrial inflow during the beat (~ cardiac output)
    double soundSpeed = 10.0;         ///< m/s; ~10x the fastest blood flow (~1 m/s)
    double viscosity = 0.0035;        ///< blood, Pa s
    /// The wall is re-posed whenever its fastest point may have moved this fraction of
    /// a particle spacing since the last pose (at most every sub-frame of the heart).
    /// Each re-pose shoves the blood layer against the wall by up to that much in one
    /// step; 0 re-poses it at every solver step (smoothest, one field rebuild per step).
    double wallTravelPerUpdate = 0.05;
    sph::BackendKind backend = sph::BackendKind::Cpu;
};

class HeartSimulation {
public:
    /// `heart` must outlive the simulation. Throws std::invalid_argument on bad settings.
    HeartSimulation(const MovingHeartMesh& heart, double cycleSeconds, HeartAnatomy anatomy,
                    HeartSimulationSettings settings);

    /// One solver sub-step; the wall moves to the next sub-frame when one is due.
    void step();
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

    /// Time spent re-sampling the heart mesh and rebuilding the wall field (ms).
    double meshUpdateMs() const { return meshUpdateMs_; }
    std::uint64_t meshUpdates() const { return meshUpdates_; }

private:
    void updateWall(double cycleFraction);

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
    double maxWallSpeedMmPerS_ = 0.0; // fastest vertex of wallAt() over the cycle
    double lastWallUpdate_ = -1.0;    // solver time of the last pose (s)
    double meshUpdateMs_ = 0.0;
    std::uint64_t meshUpdates_ = 0;
    sph::TriangleMesh wallMm_, wallM_;
    std::vector<sph::Vec3> velocityMm_, velocityM_;
};

/// Volume (ml) of the part of a closed heart mesh on the ventricle's side of both
/// valve planes (behind the mitral and before the aortic disc): the LV of a mesh that
/// also holds atrium and aorta. Without valves, the whole enclosed volume.
double ventricleVolumeMl(const sph::TriangleMesh& meshMm, const HeartAnatomy& anatomy);

} // namespace atrium::heart
