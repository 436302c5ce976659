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
#include "sim/sph/Kernels.h"
#include "sim/sph/Vec3.h"
#include "sim/sph/WallDistanceField.h"
#include "sim/sph/WallKernelIntegrals.h"

#include <cuda_runtime.h>

#include <cstdint>

namespace atrium::sph::cuda {

/// Threads per block of every kernel (the block reductions are written for it).
constexpr int kBlockSize = 256;


/// The neighbour grid as the kernels see it (see GridGeometry). Sort keys are the
/// linear cell index, or its Z-order rank when zOrder; removed particles get the key
/// cellCount (one past the last cell) and are dropped by the grid build.
struct DeviceGrid {
    Vec3 origin;
    float invCell = 1.f;
    int nx = 1, ny = 1, nz = 1;
    int zOrder = 0;
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
};

static_assert(sizeof(DeviceCounters) == 32, "one 32-byte copy brings the counters back");

ATRIUM_HD Vec3 xyz(float4 f) { return Vec3{f.x, f.y, f.z}; }
ATRIUM_HD float4 toFloat4(Vec3 v) { return make_float4(v.x, v.y, v.z, 0.f); }

// --- neighbour grid (mirrors CpuBackend::cellCoord / linearCell / cellKey) -------------

ATRIUM_HD int cellCoord(float p, float origin, float invCell, int n) {
    const int c = int(floorf((p - origin) * invCell));
    return c < 0 ? 0 : (c > n - 1 ? n - 1 : c);
}

ATRIUM_HD std::uint32_t linearCell(const DeviceGrid& g, int x, int y, int z) {
    return std::uint32_t((z * g.ny + y) * g.nx + x);
}

ATRIUM_HD std::uint32_t cellKeyOf(const DeviceGrid& g, const std::uint32_t* zRank, Vec3 p) {
    const std::uint32_t lin = linearCell(g, cellCoord(p.x, g.origin.x, g.invCell, g.nx),
                                         cellCoord(p.y, g.origin.y, g.invCell, g.ny),
                                         cellCoord(p.z, g.origin.z, g.invCell, g.nz));
    return g.zOrder ? zRank[lin] : lin;
}

/// Calls f(j) for every particle j in the 27 cells around p (j may be the particle
/// itself), in the CPU's order: z, then y, then the row of up to 3 cells that is one
/// contiguous range of cellStart in linear order (one lookup per cell in Z order).
template <class F>
ATRIUM_HD void forEachCandidate(const DeviceGrid& g, const std::uint32_t* __restrict__ cellStart,
                                const std::uint32_t* __restrict__ zRank, Vec3 p, F&& f) {
    const int cx = cellCoord(p.x, g.origin.x, g.invCell, g.nx);
    const int cy = cellCoord(p.y, g.origin.y, g.invCell, g.ny);
    const int cz = cellCoord(p.z, g.origin.z, g.invCell, g.nz);
    const int x0 = cx > 0 ? cx - 1 : 0, x1 = cx + 1 < g.nx ? cx + 1 : g.nx - 1;
    const int y0 = cy > 0 ? cy - 1 : 0, y1 = cy + 1 < g.ny ? cy + 1 : g.ny - 1;
    const int z0 = cz > 0 ? cz - 1 : 0, z1 = cz + 1 < g.nz ? cz + 1 : g.nz - 1;
    for (int z = z0; z <= z1; ++z) {
        for (int y = y0; y <= y1; ++y) {
            if (!g.zOrder) {
                const std::uint32_t begin = cellStart[linearCell(g, x0, y, z)];
                const std::uint32_t end = cellStart[linearCell(g, x1, y, z) + 1];
                for (std::uint32_t j = begin; j < end; ++j) f(j);
            } else {
                for (int x = x0; x <= x1; ++x) {
                    const std::uint32_t key = zRank[linearCell(g, x, y, z)];
                    const std::uint32_t end = cellStart[key + 1];
                    for (std::uint32_t j = cellStart[key]; j < end; ++j) f(j);
                }
            }
        }
    }
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

/// Density (poly6 sum over all candidates, self included, plus the walls' missing
/// kernel mass at rest density) and pressure of particle i.
ATRIUM_HD float2 densityAt(const DeviceStep& s, const std::uint32_t* __restrict__ cellStart,
                           const std::uint32_t* __restrict__ zRank, const float4* __restrict__ pos,
                           std::uint32_t i) {
    const SphKernels& k = s.kernels;
    const Vec3 pi = xyz(pos[i]);
    float sum = 0.f;
    forEachCandidate(s.grid, cellStart, zRank, pi,
                     [&](std::uint32_t j) { sum += k.poly6W(lengthSquared(pi - xyz(pos[j]))); });
    const float rho = s.mass * sum + s.restDensity * wallsNear(s, pi).densityFraction();
    return make_float2(rho, equationOfState(s, rho));
}

/// Pressure (symmetric, (p_i + p_j) as on the CPU), viscosity and wall
/// accelerations plus gravity of particle i; `pairs` counts the neighbours j != i
/// within h.
ATRIUM_HD Vec3 accelerationAt(const DeviceStep& s, const std::uint32_t* __restrict__ cellStart,
                              const std::uint32_t* __restrict__ zRank, const float4* __restrict__ pos,
                              const float4* __restrict__ vel, const float2* __restrict__ rhoP,
                              std::uint32_t i, std::uint32_t& pairs) {
    const SphKernels& k = s.kernels;
    const Vec3 pi = xyz(pos[i]), vi = xyz(vel[i]);
    const float2 rpI = rhoP[i];
    const float rhoI = rpI.x, pI = rpI.y;
    Vec3 a, av; // av: artificial viscosity, already an acceleration
    forEachCandidate(s.grid, cellStart, zRank, pi, [&](std::uint32_t j) {
        const Vec3 rij = pi - xyz(pos[j]);
        const float r2 = lengthSquared(rij);
        if (r2 >= k.h2 || j == i) return;
        ++pairs;
        const float dist = sqrtf(r2);
        const float2 rpJ = rhoP[j];
        const float rhoJ = rpJ.x;
        const float massOverRhoJ = s.mass / rhoJ;
        a -= k.spikyGradient(rij, dist) * (s.pressureGradientScale * massOverRhoJ * (pI + rpJ.y));
        a += (xyz(vel[j]) - vi) * (s.viscosity * massOverRhoJ * k.viscosityLaplacian(dist));
        const float vDotX = dot(vi - xyz(vel[j]), rij);
        av -= k.spikyGradient(rij, dist) *
              k.artificialViscosity(vDotX, r2, s.artificialViscosity, s.soundSpeed, rhoI + rhoJ, s.mass);
    });
    a += wallForce(wallsNear(s, pi), pI, rhoI, vi, s);
    return a / rhoI + av + s.gravity;
}

/// Semi-implicit (symplectic) Euler: v += a dt, then x += v dt.
ATRIUM_HD void integrateParticle(Vec3& p, Vec3& v, Vec3 a, float dt) {
    v += a * dt;
    p += v * dt;
}

enum class BoundaryResult : int { Kept = 0, NonFinite = 1, Outlet = 2, Leaked = 3 };

/// Planes, box, wall, outlets for one particle after integration (CpuBackend's
/// boundaryPass). NonFinite: p and v are left as they are and must not be counted.
/// Outlet / Leaked: the particle is to be flagged for removal (p and v still updated).
ATRIUM_HD BoundaryResult boundaryParticle(const DeviceStep& s, Vec3& p, Vec3& v) {
    if (!isFinite(p) || !isFinite(v)) return BoundaryResult::NonFinite;
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
