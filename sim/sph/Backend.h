#pragma once
// The CPU/GPU seam (internal; not installed). Both backends implement exactly this:
// they own the particle arrays (structure of arrays, reordered in cell order each
// step) and run one sub-step of the same algorithm. Everything else - scene setup,
// emitters, rest density, time-step control, blow-up detection - lives in Solver.

#include "sim/sph/Boundaries.h"
#include "sim/sph/Kernels.h"
#include "sim/sph/Scene.h"
#include "sim/sph/Vec3.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace atrium::sph {

class WallDistanceField;

/// The neighbour grid: cells of size h covering `bounds`; positions outside are
/// clamped into the border cells (still exact: clamping never separates neighbours).
struct GridGeometry {
    Vec3 origin;
    float cellSize = 0.f;
    int nx = 0, ny = 0, nz = 0;
    bool zOrder = false;
    std::size_t cellCount() const { return std::size_t(nx) * ny * nz; }
};

/// Rank of every cell (by linear index) along the Morton (Z-order) curve, for
/// GridGeometry::zOrder; both backends sort particles by these keys.
std::vector<std::uint32_t> zOrderRanks(const GridGeometry& grid);

/// Everything one sub-step needs, with parameters resolved (rest density known).
struct StepInput {
    float dt = 0.f;
    float mass = 0.f;
    float restDensity = 0.f;
    EquationOfState equationOfState = EquationOfState::Tait;
    float eosStiffness = 0.f; ///< B (Tait) or k (linear)
    float maxPressure = 0.f;
    float minPressure = 0.f; ///< Pa: 0 (clampNegativePressure), -maxTension or -FLT_MAX
    float backgroundPressure = 0.f; ///< Pa added to every pressure (maxTension, see Scene.h)
    float viscosity = 0.f;
    float artificialViscosity = 0.f; ///< alpha
    float soundSpeed = 0.f;          ///< c0 (m/s), for the artificial viscosity
    Vec3 gravity;
    SphKernels kernels;
    GridGeometry grid;
    const BoxContainer* container = nullptr; ///< null: none
    std::span<const BoundaryPlane> planes;
    std::span<const Outlet> outlets;
    /// Open boundaries (OpenBoundaries.h), depths resolved; empty: none, and no cost.
    std::span<const OpenBoundary> openBoundaries;
    float openFluxSlab = 0.f; ///< m: thickness of the slab each boundary's flux is measured in
    /// Most buffer particles all open boundaries together may create in one step (a
    /// bound the Solver derives from their sections; the GPU reserves slots for them).
    std::uint32_t openSpawnReserve = 0;
    /// A buffer particle is created only where no particle is closer than this (m): a
    /// fluid particle that strays into a buffer and back must not add one.
    float openSpawnRoom = 0.f;
    float wallMargin = 0.f;
    float wallDistanceOffset = 0.f; ///< see WallKernelIntegrals.h
    /// Divides the spiky pressure gradient: 1 / spikyGradientLatticeSum() (WallKernelIntegrals.h)
    float pressureGradientScale = 1.f;
    bool mirroredWalls = false; ///< WallPressure::Mirrored
    float wallRestitution = 0.f;
    /// Seconds from the wall field's pose to the start of this step (WallFieldView::poseAge;
    /// the boundary pass, at the end of the step, adds dt).
    float wallPoseAge = 0.f;
    bool profileStages = false; ///< measure per-stage times (may add synchronisation)
    PressureSolver pressureSolver = PressureSolver::WeaklyCompressible;
    float maxDensityError = 0.f;    ///< DivergenceFree (SolverParameters)
    float maxDivergenceError = 0.f; ///< DivergenceFree (SolverParameters)
    int maxSolverIterations = 0;    ///< DivergenceFree (SolverParameters)
};

/// Milliseconds spent per stage, accumulated over the steps since the last reset.
struct StageTimes {
    double grid = 0, density = 0, force = 0, integrate = 0, boundary = 0;
    double wallUpdate = 0; ///< host: rebuilding the wall field of a moving mesh (Solver)
    double emit = 0;       ///< host: emitters adding particles where there is room (Solver)
    double total() const { return grid + density + force + integrate + boundary + wallUpdate + emit; }
};

/// What one step reports back (on a GPU this may lag one step behind).
struct StepOutput {
    float maxSpeed = 0.f;           ///< after boundary handling (m/s)
    std::uint32_t nonFinite = 0;    ///< particles whose position or velocity is NaN/Inf
    std::uint32_t removedOutlets = 0;
    std::uint32_t removedLeaked = 0; ///< found outside the wall mesh and removed
    std::uint64_t neighbourPairs = 0; ///< i-j pairs within h in the force pass (i != j)
    /// Open boundaries: per boundary (scene order) the crossings and flux of this step.
    OpenBoundaryStepCounts open[kMaxOpenBoundaries];
    std::uint32_t openCreated = 0;  ///< buffer particles created behind a buffer
    std::uint32_t openRemoved = 0;  ///< particles removed past a buffer's far side
    std::uint32_t openDropped = 0;  ///< creations refused: the spot was taken (or no slot, GPU)
    /// PressureSolver::DivergenceFree: each solve's iterations and its mean error when it
    /// stopped (DivergenceFreeSolve.h); zero for the weakly compressible step.
    int divergenceIterations = 0, densityIterations = 0;
    float divergenceError = 0.f, densityError = 0.f;
};

/// Which arrays to copy back to the host.
enum ParticleField : unsigned {
    FieldPosition = 1u, FieldVelocity = 2u, FieldDensity = 4u, FieldPressure = 8u,
    FieldAll = 15u,
};

struct HostParticles {
    std::vector<Vec3> position, velocity;
    std::vector<float> density, pressure;
};

/// The box around `candidates` grown by `radius` (Backend::markOccupied's filter);
/// `candidates` must not be empty.
inline Aabb candidateBounds(std::span<const Vec3> candidates, float radius) {
    Aabb box{candidates.front(), candidates.front()};
    for (const Vec3& x : candidates) {
        box.lo = componentMin(box.lo, x);
        box.hi = componentMax(box.hi, x);
    }
    box.lo -= Vec3{radius, radius, radius};
    box.hi += Vec3{radius, radius, radius};
    return box;
}

class Backend {
public:
    virtual ~Backend() = default;
    virtual std::string name() const = 0;       ///< "cpu" or "cuda"
    virtual std::string deviceName() const = 0; ///< CPU model or GPU name

    /// Replaces all particles.
    virtual void setParticles(std::span<const Vec3> position, std::span<const Vec3> velocity) = 0;
    /// Adds particles (emitters); they join the grid at the next step.
    virtual void appendParticles(std::span<const Vec3> position, std::span<const Vec3> velocity) = 0;
    /// Marks particles for removal at the next grid build (index in current order).
    virtual void removeParticles(std::span<const std::uint32_t> indices) = 0;
    virtual std::size_t size() const = 0;

    /// Uploads the wall field for the following steps (null: no wall mesh).
    virtual void setWall(const WallDistanceField* wall) = 0;

    /// Builds the grid and computes densities and pressures only (no motion); used for
    /// the rest density (3.5.1) and for statistics.
    virtual void computeDensities(const StepInput& in) = 0;
    /// One full sub-step: grid, density+pressure, forces, integration, boundaries; with
    /// StepInput::pressureSolver DivergenceFree, DFSPH's (only where
    /// supportsDivergenceFree()).
    virtual StepOutput step(const StepInput& in) = 0;
    /// Whether step() runs PressureSolver::DivergenceFree.
    virtual bool supportsDivergenceFree() const { return false; }

    virtual void download(unsigned fields, HostParticles& out) const = 0;
    /// Sets blocked[c] = 1 for each candidate closer than `radius` (m) to a live
    /// particle, and leaves the others as they are (`blocked` has candidates.size()
    /// entries): where an emitter must not place a particle. On a GPU this runs there,
    /// so that emitting costs no read-back of every position.
    virtual void markOccupied(std::span<const Vec3> candidates, float radius, std::vector<std::uint8_t>& blocked) const = 0;
    /// The blood around each candidate as its particles have it: for candidate c,
    /// sums[5c .. 5c + 4] += sum_j W_j (1, rho_j, v_j) with W_j = W_poly6(|x_c - x_j|) over
    /// the live particles, their densities of the last step (`sums` has 5 entries per
    /// candidate): whether the blood there has thinned enough for an emitter to add a
    /// particle, and how it moves (Solver::setEmitterRefill). On a GPU this runs there.
    virtual void sampleBloodAround(std::span<const Vec3> candidates, const SphKernels& kernels,
                                   std::vector<float>& sums) const = 0;
    /// Waits until all queued work is done (timing); a no-op on the CPU.
    virtual void synchronize() {}
    virtual std::size_t bytesPerParticle() const = 0;
    virtual StageTimes stageTimes() const = 0;
    virtual void resetStageTimes() = 0;
};

std::unique_ptr<Backend> makeCpuBackend();
/// Null when built without CUDA or when no GPU is present (see cudaBackendStatus()).
std::unique_ptr<Backend> makeCudaBackend();
/// Why the CUDA backend is or is not available, in words (GPU name when it is).
std::string cudaBackendStatus();
bool cudaBackendAvailable();

} // namespace atrium::sph
