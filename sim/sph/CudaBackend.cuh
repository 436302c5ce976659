#pragma once
// Device-side building blocks of the CUDA backend (CudaBackend.cu): the parameter
// structs passed to the kernels by value and the per-particle maths as ATRIUM_HD
// functions. Everything here mirrors CpuBackend.cpp operation by operation (same
// kernels from Kernels.h, same boundary functions from Boundaries.h and
// WallDistanceField.h, same wall density/pressure terms from WallKernelIntegrals.h,
// same EOS with its clamps), so the two backends differ only in float summation order
// inside a cell and in FMA contraction.
//
// CUDA-only header: it uses float2/float4 and is included by .cu files only (no public
// .h header may expose CUDA types).

#include "sim/sph/Backend.h"
#include "sim/sph/Boundaries.h"
#include "sim/sph/CandidateCells.h"
#include "sim/sph/Kernels.h"
#include "sim/sph/OpenBoundaries.h"
#include "sim/sph/Vec3.h"
#include "sim/sph/WallDistanceField.h"
#include "sim/sph/WallKernelIntegrals.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace atrium::sph::cuda {

/// Threads per block of every kernel (the block reductions are written for it).
constexpr int kBlockSize = 256;


/// The neighbour grid as the kernels see it (CellGrid, see GridGeometry). Sort keys are
/// the linear cell index, or its Z-order rank when zOrder; removed particles get the key
/// cellCount (one past the last cell) and are dropped by the grid build.
struct DeviceGrid : CellGrid {
    std::uint32_t cellCount = 1;
};

/// Everything one step's kernels need besides the particle arrays (passed by value).
struct DeviceStep {
    DeviceGrid grid;
    SphKernels kernels;
    float dt = 0.f;
    float mass = 0.f;
    float restDensity = 1.f;
    float eosStiffness = 0.f;
    float maxPressure = 0.f;
    float viscosity = 0.f;
    float artificialViscosity = 0.f;
    float soundSpeed = 0.f;
    int tait = 1;
    float minPressure = 0.f;
    float backgroundPressure = 0.f;
    Vec3 gravity;
    BoxContainer container;
    int hasContainer = 0;
    const BoundaryPlane* planes = nullptr; ///< device array
    std::uint32_t planeCount = 0;
    const Outlet* outlets = nullptr;       ///< device array
    std::uint32_t outletCount = 0;
    WallFieldView wall;                    ///< pointers rebound to device copies
    int hasWall = 0;
    float wallMargin = 0.f;
    float wallDistanceOffset = 0.f;
    float wallRestitution = 0.f;
    float pressureGradientScale = 1.f;
    bool mirroredWalls = false;
};

/// The open boundaries of a step (OpenBoundaries.h), by value: a pressure set every step
/// costs no upload. Passed only to the kernels that use them.
struct DeviceOpenBoundaries {
    OpenBoundary boundary[kMaxOpenBoundaries];
    int count = 0;
    float fluxSlab = 0.f;          ///< StepInput::openFluxSlab
    std::uint32_t spawnCapacity = 0; ///< new buffer particles one step may request (StepInput::openSpawnReserve)
};

/// Device-resident counters: particle count bookkeeping plus the StepOutput of the last
/// step. One struct so a single small copy brings everything back.
struct DeviceCounters {
    std::uint32_t count;          ///< slots in the particle arrays (incl. flagged ones)
    std::uint32_t pending;        ///< flagged for removal since the last grid build
    std::uint32_t maxSpeed2Bits;  ///< bits of max |v|^2 (non-negative floats order as uints)
    std::uint32_t nonFinite;
    std::uint32_t removedOutlets;
    std::uint32_t removedLeaked;
    unsigned long long neighbourPairs;
    // Open boundaries (StepOutput::open...).
    std::uint32_t openCreated, openRemoved, openDropped, openSpawned;
    std::uint32_t openEntered[kMaxOpenBoundaries], openLeft[kMaxOpenBoundaries];
    unsigned long long openFluxUnits[kMaxOpenBoundaries]; ///< two's complement sums
};

static_assert(sizeof(DeviceCounters) == 176, "one 176-byte copy brings the counters back");

ATRIUM_HD Vec3 xyz(float4 f) { return Vec3{f.x, f.y, f.z}; }
ATRIUM_HD float4 toFloat4(Vec3 v) { return make_float4(v.x, v.y, v.z, 0.f); }

// --- neighbour grid (CandidateCells.h: the same cells as CpuBackend) ---------------

ATRIUM_HD std::uint32_t cellKeyOf(const DeviceGrid& g, const std::uint32_t* zRank, Vec3 p) {
    const std::uint32_t lin = linearCell(g, cellCoord(p.x, g.origin.x, g.invCell, g.nx),
                                         cellCoord(p.y, g.origin.y, g.invCell, g.ny),
                                         cellCoord(p.z, g.origin.z, g.invCell, g.nz));
    return g.zOrder ? zRank[lin] : lin;
}

/// The index of the lowest set bit of a non-zero mask.
ATRIUM_HD int lowestBit(std::uint64_t mask) {
#ifdef __CUDA_ARCH__
    return __ffsll(static_cast<long long>(mask)) - 1;
#else
    return __builtin_ctzll(mask);
#endif
}

// --- physics (mirrors CpuBackend::equationOfState / densityPass / forcePass) ------------

ATRIUM_HD float equationOfState(const DeviceStep& s, float rho) {
    return pressureFromDensity(rho, s.tait, s.restDensity, s.eosStiffness, s.minPressure, s.maxPressure) +
           s.backgroundPressure;
}

/// The walls near p (box faces, two-sided planes, wall mesh) as missing neighbours;
/// CpuBackend::wallsNear.
ATRIUM_HD WallNeighbourhood wallsNear(const DeviceStep& s, Vec3 p) {
    return wallNeighbourhood(p, s.kernels.h, s.wallDistanceOffset, s.gravity, s.hasContainer ? &s.container : nullptr, s.planes,
                             int(s.planeCount), s.hasWall ? &s.wall : nullptr);
}

/// The neighbour masks handed from the density pass to the force pass: per row of
/// candidates (kCandidateRows, row-major: bits[row * stride + i]), bit k set when the
/// row's k-th candidate is a neighbour of i (j != i, within h). A row of more than 64
/// candidates sets bit `row` of overflow[i] (its bits are then meaningless), and the
/// force pass scans that row.
/// With the masks, the force pass visits only neighbours: scanning all candidates
/// there left most lanes of a warp idle while a few computed a pair.
struct NeighbourMasks {
    std::uint64_t* bits;
    std::uint32_t* overflow;
    std::uint32_t stride;
};

/// The fluid's share of particle i's density: the poly6 sum over all candidates, self
/// included, times the mass; writes i's neighbour masks.
ATRIUM_HD float fluidDensityAt(const DeviceStep& s, const std::uint32_t* __restrict__ cellStart,
                               const std::uint32_t* __restrict__ zRank, const float4* __restrict__ pos,
                               std::uint32_t i, NeighbourMasks masks) {
    const SphKernels& k = s.kernels;
    const Vec3 pi = xyz(pos[i]);
    float sum = 0.f;
    std::uint32_t overflow = 0;
    const CandidateRows rows(s.grid, pi);
    for (int row = 0; row < kCandidateRows; ++row) {
        const CandidateRow candidates = rows.at(row, cellStart, zRank);
        std::uint64_t bits = 0;
        std::uint32_t n = 0;
        candidates.forEach([&](std::uint32_t j) {
            const float r2 = lengthSquared(pi - xyz(pos[j]));
            sum += k.poly6W(r2);
            // Without a branch: past 64 candidates the shift wraps, and the row is
            // marked for a scan below whatever the bits say.
            bits |= std::uint64_t(r2 < k.h2 && j != i) << (n & 63u);
            ++n;
        });
        if (n > 64) overflow |= 1u << row;
        masks.bits[std::size_t(row) * masks.stride + i] = bits;
    }
    masks.overflow[i] = overflow;
    return s.mass * sum;
}

/// Density (the fluid's share plus the walls' missing kernel mass at rest density) and
/// pressure of a particle at p moving at v; `wall` gets the walls' force on it
/// (WallKernelIntegrals.h's wallForce, per unit volume), which depends only on what is
/// known here, so the force pass reads it instead of finding the walls again
/// (CpuBackend keeps its WallNeighbourhood for the same reason).
ATRIUM_HD float2 densityWithWalls(const DeviceStep& s, Vec3 p, Vec3 v, float fluidDensity, Vec3& wall) {
    const WallNeighbourhood walls = wallsNear(s, p);
    const float rho = fluidDensity + s.restDensity * walls.densityFraction();
    const float pressure = equationOfState(s, rho);
    wall = wallForce(walls, pressure, rho, v, s);
    return make_float2(rho, pressure);
}

/// The density of a buffer particle at p of boundary b (CpuBackend::bufferDensity).
ATRIUM_HD float bufferDensity(const DeviceStep& s, const OpenBoundary& b, Vec3 p) {
    return densityFromPressure(bufferPressure(b, s.restDensity, s.gravity, p), s.tait, s.restDensity, s.eosStiffness);
}

/// Pressure (symmetric, (p_i + p_j) as on the CPU), viscosity and wall (from the
/// density pass) accelerations plus gravity of particle i, over the neighbours that
/// the density pass found (NeighbourMasks); `pairs` counts them.
ATRIUM_HD Vec3 accelerationAt(const DeviceStep& s, const std::uint32_t* __restrict__ cellStart,
                              const std::uint32_t* __restrict__ zRank, const float4* __restrict__ pos,
                              const float4* __restrict__ vel, const float2* __restrict__ rhoP,
                              const float4* __restrict__ wall, const NeighbourMasks masks, std::uint32_t i,
                              std::uint32_t& pairs) {
    const SphKernels& k = s.kernels;
    const Vec3 pi = xyz(pos[i]), vi = xyz(vel[i]);
    const float2 rpI = rhoP[i];
    const float rhoI = rpI.x, pI = rpI.y;
    Vec3 a, av; // av: artificial viscosity, already an acceleration
    // pos[j].w and vel[j].w hold j's density and pressure (wallKernel).
    const auto pair = [&](std::uint32_t j, float4 posJ, float r2) {
        ++pairs;
        const Vec3 rij = pi - xyz(posJ);
        const float dist = sqrtf(r2);
        const float4 velJ = vel[j];
        const float rhoJ = posJ.w;
        const float massOverRhoJ = s.mass / rhoJ;
        const Vec3 vj = xyz(velJ);
        a -= k.spikyGradient(rij, dist) * (s.pressureGradientScale * massOverRhoJ * (pI + velJ.w));
        a += (vj - vi) * (s.viscosity * massOverRhoJ * k.viscosityLaplacian(dist));
        const float vDotX = dot(vi - vj, rij);
        av -= k.spikyGradient(rij, dist) *
              k.artificialViscosity(vDotX, r2, s.artificialViscosity, s.soundSpeed, rhoI + rhoJ, s.mass);
    };
    const CandidateRows rows(s.grid, pi);
    const std::uint32_t overflow = masks.overflow[i];
    for (int row = 0; row < kCandidateRows; ++row) {
        const CandidateRow candidates = rows.at(row, cellStart, zRank);
        if (overflow & (1u << row)) { // more than 64 candidates: scan the row
            candidates.forEach([&](std::uint32_t j) {
                const float4 posJ = pos[j];
                const float r2 = lengthSquared(pi - xyz(posJ));
                if (r2 < k.h2 && j != i) pair(j, posJ, r2);
            });
            continue;
        }
        for (std::uint64_t bits = masks.bits[std::size_t(row) * masks.stride + i]; bits != 0; bits &= bits - 1) {
            const std::uint32_t j = candidates.at(std::uint32_t(lowestBit(bits)));
            const float4 posJ = pos[j];
            pair(j, posJ, lengthSquared(pi - xyz(posJ)));
        }
    }
    a += xyz(wall[i]);
    return a / rhoI + av + s.gravity;
}

/// Semi-implicit (symplectic) Euler: v += a dt, then x += v dt.
ATRIUM_HD void integrateParticle(Vec3& p, Vec3& v, Vec3 a, float dt) {
    v += a * dt;
    p += v * dt;
}

enum class BoundaryResult : int { Kept = 0, NonFinite = 1, Outlet = 2, Leaked = 3, OpenRemoved = 4 };

/// Open boundaries, before the walls (CpuBackend::openBoundaryEvents): whether the
/// particle (zone0 at the start of the step) has passed a buffer's far side; counts
/// fluid that jumped a whole buffer as having left.
ATRIUM_HD bool passedOpenBoundary(const DeviceOpenBoundaries& o, int zone0, Vec3 p, DeviceCounters* counters) {
    const int b = openBoundaryBeyond(o.boundary, o.count, p);
    if (b < 0) return false;
#ifdef __CUDA_ARCH__
    if (zone0 == 0) atomicAdd(&counters->openLeft[b], 1u);
#else
    (void)zone0, (void)counters; // kernels only
#endif
    return true;
}

/// Planes, box, wall, outlets for one particle after integration (CpuBackend's
/// boundaryPass). NonFinite: p and v are left as they are and must not be counted.
/// Outlet / Leaked / OpenRemoved: the particle is to be flagged for removal (p and v
/// still updated).
ATRIUM_HD BoundaryResult boundaryParticle(const DeviceStep& s, const DeviceOpenBoundaries& o, int zone0, Vec3& p,
                                          Vec3& v, DeviceCounters* counters) {
    if (!isFinite(p) || !isFinite(v)) return BoundaryResult::NonFinite;
    if (o.count > 0 && passedOpenBoundary(o, zone0, p, counters)) return BoundaryResult::OpenRemoved;
    const Vec3 previous = p - v * s.dt; // start of this step's travel
    for (std::uint32_t k = 0; k < s.planeCount; ++k) collideWithPlane(s.planes[k], previous, p, v);
    if (s.hasContainer) collideWithBox(s.container, p, v);
    if (s.hasWall) {
        WallFieldView wall = s.wall; // positions are at the end of the step here
        wall.poseAge += s.dt;
        if (collideWithWall(wall, s.wallMargin, s.wallRestitution, p, v) == WallHit::Leaked)
            return BoundaryResult::Leaked;
    }
    for (std::uint32_t k = 0; k < s.outletCount; ++k)
        if (s.outlets[k].contains(p)) return BoundaryResult::Outlet;
    return BoundaryResult::Kept;
}

} // namespace atrium::sph::cuda
