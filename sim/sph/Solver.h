#pragma once
// Weakly compressible SPH blood/fluid solver (Müller et al. 2003; Becker & Teschner
// 2007; Poyart 2016 ch. 2-3). One public API over two backends: a multithreaded CPU
// reference (oneTBB) and a CUDA backend; see Backend.h for the seam.
//
// Per sub-step: uniform grid (cells of size h, counting sort, arrays reordered in cell
// order) -> density (poly6) and pressure (Tait or linear EOS, clamped at p_max) ->
// symmetric pressure (spiky gradient) and relative-velocity viscosity forces plus
// gravity -> semi-implicit (symplectic) Euler -> boundaries (box, planes, wall mesh
// with margin, outlets, open boundaries). Walls also act as missing neighbours (Koschier & Bender 2017's
// density maps, or Adami et al. 2012's mirrored pressure: WallKernelIntegrals.h). The
// time step is CFL-limited; advanceFrame() runs a fixed number of sub-steps per
// rendered frame.

#include "sim/sph/Backend.h"
#include "sim/sph/Scene.h"
#include "sim/sph/TriangleMesh.h"
#include "sim/sph/WallDistanceField.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::sph {

enum class BackendKind { Cpu, Cuda };

/// A run stopped because the state became non-finite or too fast. what() names the
/// step, the time and the parameters to change.
class SimulationBlowUp : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Aggregate state, computed from a read-back (costly on the GPU: not per step).
struct SimulationStats {
    std::uint64_t step = 0;
    double time = 0.0;              ///< s
    std::size_t particles = 0;
    double meanDensityError = 0.0;  ///< mean |rho/rho0 - 1|
    double maxDensityError = 0.0;   ///< max |rho/rho0 - 1|
    double maxSpeed = 0.0;          ///< m/s
    double kineticEnergy = 0.0;     ///< J
};

/// Particles added and removed since the start.
struct ParticleAccounting {
    std::uint64_t seeded = 0;           ///< from fluid blocks, after removal in walls
    std::uint64_t removedInWalls = 0;   ///< seeded inside a wall or outside the box
    std::uint64_t emitted = 0;
    std::uint64_t removedByOutlets = 0;
    std::uint64_t leaked = 0;           ///< found outside the wall mesh and removed
    /// Open boundaries: buffer particles created (the initial fill of the buffers where
    /// the fluid blocks left room, and one behind each particle that entered the fluid).
    std::uint64_t openCreated = 0;
    std::uint64_t openRemoved = 0;      ///< removed past a buffer's far side
    /// Buffer particles not created because another lay within 3/4 spacing of the spot
    /// (a fluid particle that strayed into an inflowing buffer and back would otherwise
    /// add one each time), or for want of slots on the GPU.
    std::uint64_t openDropped = 0;
};

/// What crossed one open boundary since the start (Solver::openBoundaryFlow). Counts are
/// exact: the fluid (the particles in no buffer) changes by entered - left through
/// all open boundaries, plus what emitters, outlets and leaks add and remove.
struct OpenBoundaryFlow {
    std::uint64_t entered = 0; ///< particles that crossed the plane into the fluid
    std::uint64_t left = 0;    ///< fluid particles that crossed it into the buffer
    double particleVolume = 0; ///< m^3 per particle at rest density (mass / rho0)
    /// Net volume into the fluid since the start (m^3; negative when more left).
    double netVolumeIn() const { return (double(entered) - double(left)) * particleVolume; }
};

class Solver {
public:
    /// Seeds the scene and computes the rest density. Throws std::invalid_argument for
    /// an impossible scene and std::runtime_error if the backend is unavailable.
    explicit Solver(Scene scene, BackendKind backend = BackendKind::Cpu);
    /// For scene.wall.kind == External: the wall's first pose, used to seed the fluid.
    Solver(Scene scene, BackendKind backend, const TriangleMesh& wall, const std::vector<Vec3>* wallVelocity = nullptr);
    ~Solver();
    Solver(const Solver&) = delete;
    Solver& operator=(const Solver&) = delete;

    /// One sub-step with the CFL-limited time step (s). Throws SimulationBlowUp.
    void step();
    /// One sub-step of at most `dtMax` seconds.
    void step(float dtMax);
    /// One rendered frame: substepsPerFrame sub-steps of min(1/(fps*substeps), CFL).
    void advanceFrame();

    /// Dynamic relaxation of the initial state: `steps` sub-steps after each of which
    /// every velocity is set to zero, so particles seeded on a lattice against curved
    /// walls settle into their rest spacing before the simulation starts. The clock
    /// and the step count are left where they were.
    /// `progress`, if given, gets the fraction done after each sub-step; returning false
    /// stops the relaxation there (returns false then, true when all steps ran).
    bool relax(int steps, const std::function<bool(double fraction)>& progress = {});

    /// Replaces the wall mesh (e.g. the next heart sub-frame). Vertex velocities (m/s),
    /// if given, make the wall push the fluid; the wall field is rebuilt. With a
    /// `poseTime` (s, on the solver's clock, at most time()), the mesh is the wall's pose
    /// at that time and the field moves the wall on by those velocities until the next
    /// call (to first order, WallFieldView::poseAge), so a moving wall need not be
    /// re-posed every step to move smoothly. Without one the wall stands still.
    void setWallMesh(const TriangleMesh& mesh, const std::vector<Vec3>* vertexVelocities = nullptr,
                     std::optional<double> poseTime = std::nullopt);
    /// Sets the wall `pose` (a snapshot of this solver's wallField() after an earlier
    /// setWallMesh) back, as setWallMesh with its mesh and velocities would, without
    /// rebuilding the field: a periodic wall's poses come round again. Throws
    /// std::invalid_argument if the pose was built with other field settings.
    void restoreWall(const WallDistanceField::Snapshot& pose, std::optional<double> poseTime = std::nullopt);
    const TriangleMesh* wallMesh() const;
    /// The settings setWallMesh builds the wall's field with (cell size, margin).
    WallDistanceField::Settings wallFieldSettings() const;
    /// The wall's distance field (null without a wall mesh), e.g. for its build times.
    const WallDistanceField* wallField() const { return wall_.get(); }

    /// Opens or closes plane `index` of the scene from the next sub-step on, e.g. a
    /// heart valve that is one-way while open and PlaneKind::Closed while shut. Both
    /// backends read the planes at every step (the CUDA backend re-uploads them when
    /// they change), so this costs nothing until it is called. Throws
    /// std::out_of_range for a bad index.
    void setPlaneKind(std::size_t index, PlaneKind kind);
    /// Replaces plane `index` (point, normal - normalised here -, radius, kind,
    /// restitution) from the next sub-step on, e.g. a two-way valve that lets blood
    /// through one way while its chamber fills and the other way while it empties.
    /// Particles are not moved: a plane moved across them does not stop them. Throws
    /// std::out_of_range for a bad index, std::invalid_argument for a zero normal.
    void setPlane(std::size_t index, const BoundaryPlane& plane);
    /// Changes emitter `index`'s speed (m/s, >= 0) from the next sub-step on: new layers
    /// come every spacing / speed seconds and leave at that speed; 0 pauses it. Throws
    /// std::out_of_range for a bad index, std::invalid_argument for a negative speed.
    void setEmitterSpeed(std::size_t index, float speed);
    /// Lets emitter `index` also refill blood that has thinned, from the next sub-step
    /// on. By default (nullopt) an emitter adds blood only where there is a hole (no
    /// particle within 3/4 of a spacing), and blood that has thinned out evenly (as the
    /// atrium's does when the ventricle draws on it faster than it fills) stays thin.
    /// With a fraction it also keeps a spot of its layer where no particle lies within
    /// half a spacing, the blood around it (its particles' densities of the last step,
    /// weighted by the kernel) is below `densityFraction` x rho0, and no spot so refilled
    /// lies within 1.5 spacings; such a particle moves with the blood around it, not at
    /// the emitter's speed. Throws std::out_of_range for a bad index,
    /// std::invalid_argument unless the fraction is in (0, 1].
    void setEmitterRefill(std::size_t index, std::optional<float> densityFraction);
    // --- open boundaries (Scene::openBoundaries, OpenBoundaries.h) ----------------------
    // For a lumped (0D) model around the 3D fluid, e.g. a Windkessel at an outflow: each
    // step (or frame), read the flow through the boundary and set its pressure from it:
    //     const double q = -solver.openBoundaryFlowRate(aorta); // m^3/s out of the fluid
    //     solver.setOpenBoundaryPressure(aorta, float(windkessel.step(q, dt)));
    // The index is the boundary's position in Scene::openBoundaries. On the GPU the
    // counts and the flow rate of a step arrive with the next step (one sub-step late).

    std::size_t openBoundaryCount() const { return scene_.openBoundaries.size(); }
    /// Sets boundary `index`'s prescribed gauge pressure (Pa, at its centre; the
    /// equation of state's gauge: 0 is the fluid at rest density) from the next sub-step
    /// on: its buffer particles carry it. It costs nothing (no upload on the CPU, a
    /// few bytes on the GPU). Keep it within the range the equation of state resolves
    /// (|p| well below rho0 c0^2): prescribe pressures relative to a reference level
    /// (e.g. the mean aortic pressure), not absolute physiological ones, because the
    /// fluid compresses by p / (rho0 c0^2). Throws std::out_of_range for a bad index,
    /// std::invalid_argument for a non-finite pressure.
    void setOpenBoundaryPressure(std::size_t index, float pascal);
    /// The pressure boundary `index` prescribes now (Pa).
    float openBoundaryPressure(std::size_t index) const;
    /// Volume flow into the fluid through boundary `index` (m^3/s; negative: out of the
    /// fluid), measured at the end of the last sub-step as the flux of the fluid's first
    /// kernel radius beside the plane: sum of V (v . normal) / h over the particles
    /// there, V = mass / rho0. Smooth enough to drive a lumped model every step; 0
    /// before the first step. Throws std::out_of_range for a bad index.
    double openBoundaryFlowRate(std::size_t index) const;
    /// The particles (and volume) that crossed boundary `index` since the start, exact:
    /// for a mean flow over an interval, difference netVolumeIn() at its ends and divide
    /// by the time. Throws std::out_of_range for a bad index.
    OpenBoundaryFlow openBoundaryFlow(std::size_t index) const;
    /// Whether p lies in an open boundary's buffer (not fluid, not integrated).
    bool inOpenBoundaryBuffer(Vec3 p) const;

    /// Lets the fluid carry tension down to -maxTension (Pa), or none (nullopt: negative
    /// pressures clamped at 0), from the next step on. Throws std::invalid_argument
    /// unless maxTension is positive and finite.
    void setMaxTension(std::optional<float> maxTension);

    /// Replaces all particles (e.g. to restore a snapshot); the rest density stays.
    void setParticles(const std::vector<Vec3>& positions, const std::vector<Vec3>& velocities);

    std::size_t particleCount() const;
    float restDensity() const { return restDensity_; }
    float particleMass() const { return mass_; }
    double time() const { return time_; }
    std::uint64_t stepCount() const { return steps_; }
    float lastTimeStep() const { return lastDt_; }
    const Scene& scene() const { return scene_; }
    const ParticleAccounting& accounting() const { return accounting_; }
    std::uint64_t lastNeighbourPairs() const { return lastPairs_; }
    /// The last step's pressure solves (PressureSolver::DivergenceFree; zeros otherwise):
    /// iterations and mean errors when they stopped (DivergenceFreeSolve.h).
    struct PressureSolves {
        int divergenceIterations = 0, densityIterations = 0;
        float divergenceError = 0.f, densityError = 0.f;
    };
    const PressureSolves& lastPressureSolves() const { return lastSolves_; }

    /// Copies particle arrays back from the backend (positions in cell order).
    void read(unsigned fields, HostParticles& out) const;
    SimulationStats stats() const;

    std::string backendName() const;
    std::string deviceName() const;
    std::size_t bytesPerParticle() const;
    void setProfiling(bool on) { profile_ = on; }
    /// Waits for the backend's queued work (for wall-clock timing).
    void synchronize() { backend_->synchronize(); }
    StageTimes stageTimes() const;
    void resetStageTimes();

private:
    void initialise(const TriangleMesh* wall, const std::vector<Vec3>* wallVelocity);
    StepInput makeStepInput(float dt, double stepStart) const;
    float backgroundPressure() const; // Pa, see SolverParameters::maxTension
    float cflTimeStep() const;
    void seed();
    void emit(float dt);
    /// dropOccupied's source of candidates that no emitter adds (an open boundary's fill).
    static constexpr std::size_t kNotAnEmitter = static_cast<std::size_t>(-1);
    void dropOccupied(std::vector<Vec3>& positions, std::vector<Vec3>& velocities, std::vector<std::size_t>& source) const;
    /// setEmitterRefill's rule: unblocks the spots (one emitter's) where the blood has
    /// thinned below densityFraction x rho0 and no particle lies within half a spacing,
    /// and gives each the velocity of the blood around it.
    void refillThinnedSpots(std::span<const Vec3> spots, float densityFraction, std::vector<std::uint8_t>& blocked,
                            std::span<Vec3> velocities) const;
    void updateAnalyticWall();
    /// After a new wall field: its pose time, the backend's copy, the time spent since `start`.
    void wallChanged(std::optional<double> poseTime, bool moving, std::chrono::steady_clock::time_point start);
    void checkHealth(const StepOutput& out, float dt) const;
    void fillOpenBoundaryBuffers();
    const OpenBoundary& openBoundaryAt(std::size_t index, const char* caller) const;

    Scene scene_;
    std::unique_ptr<Backend> backend_;
    std::unique_ptr<WallDistanceField> wall_;
    std::unique_ptr<TriangleMesh> wallMesh_;
    TriangleMesh wallRestMesh_; // analytic wall at rest (pulsing sphere)
    GridGeometry grid_;
    SphKernels kernels_;
    float mass_ = 0.f;
    float restDensity_ = 0.f;
    float eosStiffness_ = 0.f;
    float wallOffset_ = 0.f;
    float pressureGradientScale_ = 1.f;
    float lastMaxSpeed_ = 0.f;
    float lastDt_ = 0.f;
    double time_ = 0.0;
    double wallTime_ = 0.0; // when the analytic wall was last re-sampled
    double wallPoseTime_ = 0.0; // time() of the wall field's pose
    bool wallAdvances_ = false; // setWallMesh(..., poseTime) with velocities
    std::uint64_t steps_ = 0;
    std::uint64_t lastPairs_ = 0;
    PressureSolves lastSolves_;
    double wallUpdateMs_ = 0.0;
    double emitMs_ = 0.0; // in emit(), StageTimes::emit
    bool profile_ = false;
    ParticleAccounting accounting_;
    std::vector<double> emitterTravel_;       // travel since each emitter's last layer (m)
    std::vector<std::size_t> emitterEmitted_; // particles each emitter has added
    std::vector<std::optional<float>> emitterRefill_; // setEmitterRefill: density bound / rho0
    std::vector<OpenBoundaryFlow> openFlow_;   // per open boundary, since the start
    std::vector<double> openFlowRate_;         // per open boundary, the last step's (m^3/s)
    std::uint32_t openSpawnReserve_ = 0;      // StepInput::openSpawnReserve
};

} // namespace atrium::sph
