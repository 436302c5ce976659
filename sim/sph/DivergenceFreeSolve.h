#pragma once
// The pressure solves of divergence-free SPH (DFSPH; Bender & Koschier, "Divergence-Free
// Smoothed Particle Hydrodynamics", SCA 2015, and "Divergence-Free SPH for Incompressible
// and Viscous Fluids", IEEE TVCG 2017), on the CPU, with the walls as density maps
// (WallKernelIntegrals.h; Koschier & Bender 2017). Internal to sim/sph: the CPU backend
// hands its arrays over in cell order and lists the neighbours (gatherNeighbours).
//
// Each particle i has rho_i (fluid and walls), its neighbours j within h and its walls'
// density fraction Phi_i (the wall adds rho0 Phi_i to rho_i). With gW_ij the spiky
// kernel's gradient (the weakly compressible force pass's), the wall's g_i = rho0 grad
// Phi_i and the walls' velocity v_b near i:
//   alpha_i  = rho_i / (|sum_j m gW_ij + g_i|^2 + sum_j |m gW_ij|^2)
//   D_i      = sum_j m (v_i - v_j) . gW_ij + (v_i - v_b) . g_i        (D rho_i / Dt)
//   v_i     -= dt (sum_j m (k_i / rho_i + k_j / rho_j) gW_ij + k_i / rho_i g_i)
// with k_i = w max(D_i, 0) alpha_i / dt (divergence solve, before the step's forces) or
// k_i = w max(rho_i + dt D_i - rho0, 0) alpha_i / dt^2 (density solve, on the
// velocities the forces advanced); k is a pressure over density (m^2/s^2), and the
// density solve's pressure is rho_i times the sum of its k_i. Only compression is
// corrected: a free surface is under rest density and stays free. Each solve is a
// Jacobi iteration that stops when its mean error is below its bound (the density
// solve after two iterations at least). Deviations from the paper, measured on the
// hydrostatic column (PhysicsValidationTest):
//  - a relaxation w = 1/2: at w = 1 the clamp at zero keeps every overshoot, and the
//    column settled at 3.2 rho0 g of pressure gradient (1.4 with w = 1/2, as the weakly
//    compressible solver on the same walls);
//  - the spiky gradient, not the gradient of the poly6 density: with the latter,
//    nearby particles barely repel and the column opened holes 5 % under rest density.
// Each solve starts from half the k_i of the last step (warm start, as SPlisHSPlasH
// does), carried through the backend's reordering by reorder().

#include "sim/sph/Kernels.h"
#include "sim/sph/Vec3.h"
#include "sim/sph/WallKernelIntegrals.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <cstdint>
#include <span>
#include <vector>

namespace atrium::sph {

/// The particles as the solves read them (all spans of the same length, cell order).
struct DivergenceFreeParticles {
    std::span<const Vec3> position;
    std::span<Vec3> velocity; ///< changed in place
    std::span<const float> density;
    std::span<const WallNeighbourhood> walls;
};

struct DivergenceFreeSettings {
    float dt = 0.f;
    float mass = 0.f;
    float restDensity = 0.f;
    SphKernels kernels;
    float maxDensityError = 5e-4f;    ///< mean max(rho* / rho0 - 1, 0) over the particles
    float maxDivergenceError = 1e-3f; ///< mean dt max(D_i, 0) / rho0 over the particles
    int maxIterations = 100;
};

/// What a solve did: its iterations and its mean error when it stopped (dimensionless).
struct SolveReport {
    int iterations = 0;
    float error = 0.f;
};

/// The solves' state: alpha_i, the walls' velocities, each solve's k_i of the last step
/// (the next step's warm start) and the pressure the density solve applied.
class DivergenceFreeSolve {
public:
    /// Carries the last step's k_i along the backend's reordering: particle k of the new
    /// order was particle order[k]; an index past the old count (a particle added since)
    /// starts from zero.
    void reorder(std::span<const std::uint32_t> order);
    /// Lists every particle's neighbours (within h, itself left out) for this step's
    /// solves: visit(i, f) calls f(j) for each neighbour j of particle i.
    template <class Visit>
    void gatherNeighbours(std::size_t particles, Visit&& visit);
    /// Computes alpha_i and the walls' velocities for this step's neighbourhoods.
    void prepare(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s);
    /// Makes the velocity field divergence-free (D_i <= 0 to the bound).
    SolveReport correctDivergence(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s);
    /// Corrects the velocities so that the positions after dt are at rest density, and
    /// records the pressure that took (Pa).
    SolveReport correctDensity(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s);
    std::span<const float> pressure() const { return pressure_; }

private:
    /// One solve: the warm start from `total` (the last step's sums, replaced by this
    /// step's), then iterations of `excess` (D_i, or the predicted density excess) times
    /// kScale until `error` of a pass is at most `bound` after `minIterations`.
    template <class Excess>
    SolveReport solve(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s, std::vector<float>& total,
                      Excess&& excess, float kScale, float errorScale, float bound, int minIterations);
    /// v_i -= dt (sum_j m (k_i / rho_i + k_j / rho_j) gW_ij + k_i / rho_i g_i) for kappa_.
    void applyKappa(const DivergenceFreeParticles& p, const DivergenceFreeSettings& s);
    /// D rho_i / Dt from the velocities as they stand.
    float densityRate(const DivergenceFreeParticles& p, std::size_t i) const;

    std::vector<float> alpha_, kappa_, densitySum_, divergenceSum_, pressure_, reordered_;
    std::vector<Vec3> wallVelocity_, wallGradient_;
    std::vector<Vec3> massGradient_; ///< m gW_ij per neighbour entry, for this step's positions
    /// Neighbours of i: neighbours_[start_[i] .. start_[i + 1]) (gatherNeighbours).
    std::vector<std::uint32_t> start_, neighbours_;
};

template <class Visit>
void DivergenceFreeSolve::gatherNeighbours(std::size_t n, Visit&& visit) {
    start_.assign(n + 1, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 512), [&](const auto& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) visit(i, [&](std::uint32_t) { ++start_[i + 1]; });
    });
    for (std::size_t i = 0; i < n; ++i) start_[i + 1] += start_[i];
    neighbours_.resize(start_[n]);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 512), [&](const auto& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
            std::uint32_t at = start_[i];
            visit(i, [&](std::uint32_t j) { neighbours_[at++] = j; });
        }
    });
}

} // namespace atrium::sph
