#pragma once
// In-memory description of a simulation scene: solver parameters, container, wall
// mesh, fluid blocks, emitters, outlets, open boundaries and planes. SceneFile.h reads it from JSON.
// All lengths in metres, times in seconds, densities in kg/m^3, pressures in Pa.

#include "sim/sph/Boundaries.h"
#include "sim/sph/OpenBoundaries.h"
#include "sim/sph/TriangleMesh.h"
#include "sim/sph/Vec3.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace atrium::sph {

enum class EquationOfState {
    Tait,   ///< p = B((rho/rho0)^7 - 1), B = rho0 c0^2 / 7, clamped at maxPressure
    Linear, ///< p = k (rho - rho0), k = c0^2 unless set
};

/// How walls push on the fluid (sim/sph/WallKernelIntegrals.h).
/// How pressure keeps the fluid incompressible.
enum class PressureSolver {
    /// Weakly compressible (WCSPH): pressure from the density by the equation of state;
    /// the sub-step is bounded by the speed of sound (cflNumber h / (c0 + v_max)).
    WeaklyCompressible,
    /// Divergence-free SPH (DFSPH, Bender & Koschier 2015/2017; DivergenceFreeSolve.h):
    /// pressure solved each sub-step so that the density stays at rest density and its
    /// rate of change at zero, to maxDensityError and maxDivergenceError; the sub-step is
    /// bounded by the flow (cflNumber spacing / v_max). CPU backend; no open boundaries.
    DivergenceFree,
};

enum class WallPressure {
    DensityMap, ///< energy-consistent: settles quietly; the first layer at ~2x hydrostatic pressure
    Mirrored,   ///< the fluid beyond a wall at the particle's pressure, extrapolated
                ///< hydrostatically, and at Adami's no-slip velocity 2 v_wall - v
                ///< (Adami et al. 2012): right wall pressures and wall shear, rings
                ///< longer; the choice for flows driven by open boundaries' pressures
};

struct SolverParameters {
    float particleSpacing = 0.01f;  ///< lattice spacing of seeded/emitted particles (m)
    float kernelRadius = 0.02f;     ///< h (m); also the neighbour-grid cell size
    float referenceDensity = 1000.f; ///< sets the particle mass m = rho_ref * spacing^3
    /// rho0. Unset: derived from the initial particles (Poyart 2016, 3.5.1), see below.
    std::optional<float> restDensity;
    /// How rho0 is derived from the initial particles when restDensity is unset.
    enum class RestDensitySource {
        Bulk, ///< mean over particles with a full neighbourhood (default)
        All,  ///< mean over all particles, as in the dissertation's eq. 3.1
    } restDensitySource = RestDensitySource::Bulk;
    EquationOfState equationOfState = EquationOfState::Tait;
    float soundSpeed = 20.f;          ///< c0 (m/s); about 10x the largest flow speed
    std::optional<float> linearStiffness; ///< k for the linear EOS (m^2/s^2); default c0^2
    float maxPressure = 1e6f;         ///< p_max clamp (Pa), dissertation eq. 2.12
    bool clampNegativePressure = true; ///< p >= 0: no tension at free surfaces
    /// Without that clamp: the most tension the fluid carries, p >= -maxTension (Pa);
    /// unset: no limit. The solver then adds maxTension to every pressure inside its
    /// force computation - a background pressure (Morris, Fox & Zhu 1997) - so that no
    /// pair of particles attracts: under raw tension the spiky gradient, largest at
    /// r -> 0, pulls neighbours together and pairs them up (the tensile instability).
    /// Pressures read back are without it.
    std::optional<float> maxTension;
    float viscosity = 0.01f;          ///< dynamic viscosity mu (Pa s)
    /// Monaghan's artificial viscosity alpha in Becker & Teschner's (2007) WCSPH form:
    /// acts only between approaching particles and keeps low-viscosity fluid from
    /// ringing and blowing apart; 0 turns it off.
    float artificialViscosity = 0.05f;
    Vec3 gravity{0.f, 0.f, -9.81f};   ///< m/s^2
    float cflNumber = 0.4f;           ///< dt <= cfl * h / (c0 + v_max)
    float maxTimeStep = 1e-3f;        ///< upper bound on one sub-step (s)
    float frameRate = 60.f;           ///< rendered frames per simulated second
    int substepsPerFrame = 8;         ///< fixed sub-steps per rendered frame
    float maxSpeed = 100.f;           ///< faster than this is a blow-up (m/s)
    float wallMargin = 0.f;           ///< d of "collision with margin"; 0: half the spacing
    float wallRestitution = 0.5f;     ///< restitution against the wall mesh
    WallPressure wallPressure = WallPressure::DensityMap;
    PressureSolver pressureSolver = PressureSolver::WeaklyCompressible;
    /// DivergenceFree: the density solve stops when the mean compression, (rho - rho0) /
    /// rho0 over the particles above rest density averaged over all, is below this.
    float maxDensityError = 5e-4f;
    /// DivergenceFree: the divergence solve stops when the mean dt (D rho / Dt) / rho0 of
    /// the compressing particles (averaged over all) is below this.
    float maxDivergenceError = 1e-3f;
    int maxSolverIterations = 100; ///< DivergenceFree: per solve and sub-step
    std::size_t maxParticles = 2'000'000; ///< emitters stop at this count
    bool zOrder = false;              ///< order grid cells along a Z curve
    std::optional<Aabb> domain;       ///< neighbour-grid bounds; default from the scene
};

/// A block of fluid seeded on a cubic lattice of `particleSpacing`.
struct FluidBlock {
    Aabb bounds;
    Vec3 velocity;
};

/// Emits discs of particles, one lattice layer each time the previous layer has
/// travelled one spacing, while start <= t < end and below maxParticles.
struct Emitter {
    Vec3 position;
    Vec3 direction{0.f, 0.f, 1.f}; ///< normalised on load
    float radius = 0.01f;          ///< m
    float speed = 0.5f;            ///< m/s
    float rate = 0.f;              ///< max particles/s; 0 means limited by speed only
    float start = 0.f;             ///< s
    float end = 1e30f;             ///< s
};

/// A wall that may move: a built-in analytic shape for tests and demos. Later issues
/// add heart meshes (sim/heart) through Solver::setWallMesh.
struct WallMeshSpec {
    /// External: the caller supplies the wall mesh (Solver's constructor, then
    /// setWallMesh for each new pose), e.g. the beating heart of sim/heart.
    enum class Kind { None, Sphere, External } kind = Kind::None;
    Vec3 center;
    float radius = 0.f;
    int subdivisions = 3;
    float pulseAmplitude = 0.f; ///< relative radius change, r(t) = r (1 + A sin(2 pi t / T))
    float pulsePeriod = 1.f;    ///< T (s)
    float fieldCellSize = 0.f;  ///< wall field grid spacing; 0: the particle spacing
};

struct Scene {
    std::string name;
    SolverParameters parameters;
    std::optional<BoxContainer> container;
    WallMeshSpec wall;
    std::vector<FluidBlock> fluidBlocks;
    std::vector<Emitter> emitters;
    std::vector<Outlet> outlets;
    /// Pressure boundaries with buffer layers (OpenBoundaries.h), at most kMaxOpenBoundaries.
    std::vector<OpenBoundary> openBoundaries;
    std::vector<BoundaryPlane> planes;
};

} // namespace atrium::sph
