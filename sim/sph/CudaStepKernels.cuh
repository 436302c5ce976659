#pragma once
// The CUDA backend's kernels of one step (keyKernel ... motionKernel, numbered in
// CudaBackend.cu's header comment; CudaBackend.cu launches them): each mirrors its
// CpuBackend counterpart. Included by CudaBackend.cu only (it defines kernels); split
// from it, unchanged, as the open-boundary kernels are (CudaOpenBoundaries.cuh).

#include "sim/sph/CudaBackend.cuh"

#include <cub/block/block_reduce.cuh>

#include <cstdint>

namespace atrium::sph {
namespace {

using cuda::DeviceCounters;
using cuda::DeviceGrid;
using cuda::DeviceStep;
using cuda::kBlockSize;

/// Cell key and in-cell rank of every particle slot below counters->count; thread 0
/// resets the per-step counters (nothing in this kernel reads them).
__global__ void __launch_bounds__(kBlockSize)
    keyKernel(DeviceGrid g, const float4* __restrict__ pos, const std::uint8_t* __restrict__ removed,
              const std::uint32_t* __restrict__ zRank, std::uint32_t* __restrict__ key,
              std::uint32_t* __restrict__ rank, std::uint32_t* __restrict__ cellCounter, DeviceCounters* counters) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) {
        counters->maxSpeed2Bits = 0;
        counters->nonFinite = 0;
        counters->removedOutlets = 0;
        counters->removedLeaked = 0;
        counters->neighbourPairs = 0;
        counters->openCreated = counters->openRemoved = counters->openDropped = counters->openSpawned = 0;
        for (int b = 0; b < kMaxOpenBoundaries; ++b) {
            counters->openEntered[b] = counters->openLeft[b] = 0;
            counters->openFluxUnits[b] = 0;
        }
    }
    const std::uint32_t n = counters->count;
    const bool active = i < n;
    // Warp-aggregated counting: particles are already in cell order from the previous
    // step, so most lanes of a warp share a cell; one atomicAdd per distinct key.
    const unsigned mask = __ballot_sync(0xffffffffu, active);
    if (!active) return;
    const std::uint32_t k = removed[i] ? g.cellCount : cuda::cellKeyOf(g, zRank, cuda::xyz(pos[i]));
    const unsigned peers = __match_any_sync(mask, k);
    const int lane = int(threadIdx.x & 31u);
    const int leader = __ffs(int(peers)) - 1;
    std::uint32_t base = 0;
    if (lane == leader) base = atomicAdd(&cellCounter[k], std::uint32_t(__popc(peers)));
    base = __shfl_sync(mask, base, leader);
    key[i] = k;
    rank[i] = base + std::uint32_t(__popc(peers & ((1u << lane) - 1u)));
}

/// Moves every live particle to cellStart[key] + rank in the spare buffers and clears
/// its removal flag there; clears the cell counters for the next build (the scan has
/// consumed them) and stores the new count. cellStart has cellCount + 2 entries:
/// [cellCount] = live particles, [cellCount + 1] = all slots before the build.
__global__ void __launch_bounds__(kBlockSize)
    scatterKernel(std::uint32_t cellCount, const std::uint32_t* __restrict__ cellStart,
                  const std::uint32_t* __restrict__ key, const std::uint32_t* __restrict__ rank,
                  const float4* __restrict__ pos, const float4* __restrict__ vel, float4* __restrict__ posOut,
                  float4* __restrict__ velOut, std::uint8_t* __restrict__ removed,
                  std::uint32_t* __restrict__ cellCounter, DeviceCounters* counters) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    const std::uint32_t stride = gridDim.x * blockDim.x;
    for (std::uint32_t c = i; c < cellCount + 2; c += stride) cellCounter[c] = 0;
    if (i == 0) {
        counters->count = cellStart[cellCount];
        counters->pending = 0;
    }
    if (i >= cellStart[cellCount + 1]) return;
    const std::uint32_t k = key[i];
    if (k >= cellCount) return; // removed: dropped
    const std::uint32_t dst = cellStart[k] + rank[i];
    posOut[dst] = pos[i];
    velOut[dst] = vel[i];
    removed[dst] = 0;
}

/// The fluid's share of the density (into rhoP[i].x) and the neighbour masks. The wall
/// lookups, which need many more registers than this neighbour loop, run in wallKernel
/// after it.
__global__ void __launch_bounds__(kBlockSize)
    densityKernel(DeviceStep s, const std::uint32_t* __restrict__ cellStart, const std::uint32_t* __restrict__ zRank,
                  const float4* __restrict__ pos, float2* __restrict__ rhoP, cuda::NeighbourMasks masks) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cellStart[s.grid.cellCount]) return;
    rhoP[i].x = cuda::fluidDensityAt(s, cellStart, zRank, pos, i, masks);
}

/// Density and pressure with the walls, and the walls' force for the force pass. With
/// open boundaries: each particle's zone, and a buffer particle's density and pressure
/// its boundary's (bufferExcess: OpenBoundaries.h's bufferDensityExcess, 0 for fluid).
__global__ void __launch_bounds__(kBlockSize)
    wallKernel(DeviceStep s, cuda::DeviceOpenBoundaries o, const std::uint32_t* __restrict__ cellStart,
               float4* __restrict__ pos, float4* __restrict__ vel, float2* __restrict__ rhoP, float4* __restrict__ wall,
               std::uint8_t* __restrict__ zone, float* __restrict__ bufferExcess) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cellStart[s.grid.cellCount]) return;
    Vec3 w;
    const Vec3 p = cuda::xyz(pos[i]);
    float2 rp = cuda::densityWithWalls(s, p, cuda::xyz(vel[i]), rhoP[i].x, w);
    if (o.count > 0) {
        const int z = openBoundaryZone(o.boundary, o.count, p);
        zone[i] = std::uint8_t(z);
        bufferExcess[i] = 0.f;
        if (z) {
            const float rho = cuda::bufferDensity(s, o.boundary[z - 1], p);
            bufferExcess[i] = bufferDensityExcess(rho, rp.x);
            rp = make_float2(rho, cuda::equationOfState(s, rho));
        }
    }
    rhoP[i] = rp;
    wall[i] = cuda::toFloat4(w);
    // The force pass reads a neighbour's density and pressure with its position and
    // velocity: one 16-byte load fewer per pair.
    pos[i].w = rp.x;
    vel[i].w = rp.y;
}

/// Blocks per multiprocessor the force kernel is compiled for: 5 (48 registers, 12 bytes
/// spilled) measured 2 % faster on an H100 than 4 (56 registers, none spilled), which
/// the compiler chooses alone.
constexpr int kForceBlocksPerSm = 5;

__global__ void __launch_bounds__(kBlockSize, kForceBlocksPerSm)
    forceKernel(DeviceStep s, const std::uint32_t* __restrict__ cellStart, const std::uint32_t* __restrict__ zRank,
                const float4* __restrict__ pos, const float4* __restrict__ vel, const float2* __restrict__ rhoP,
                const float4* __restrict__ wall, const cuda::NeighbourMasks masks, float4* __restrict__ accel,
                DeviceCounters* counters) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    std::uint32_t pairs = 0;
    if (i < cellStart[s.grid.cellCount])
        accel[i] = cuda::toFloat4(cuda::accelerationAt(s, cellStart, zRank, pos, vel, rhoP, wall, masks, i, pairs));
    using Reduce = cub::BlockReduce<unsigned long long, kBlockSize>;
    __shared__ typename Reduce::TempStorage temp;
    const unsigned long long blockPairs = Reduce(temp).Sum(static_cast<unsigned long long>(pairs));
    if (threadIdx.x == 0 && blockPairs != 0) atomicAdd(&counters->neighbourPairs, blockPairs);
}

/// What the boundary pass tallies (reduced per block, then one atomic each).
struct Tally {
    float maxSpeed2;
    std::uint32_t nonFinite, outlets, leaked, openRemoved;
};

struct TallyMerge {
    __device__ Tally operator()(const Tally& a, const Tally& b) const {
        return {a.maxSpeed2 > b.maxSpeed2 ? a.maxSpeed2 : b.maxSpeed2, a.nonFinite + b.nonFinite,
                a.outlets + b.outlets, a.leaked + b.leaked, a.openRemoved + b.openRemoved};
    }
};

/// Integration (kIntegrate: v += a dt, x += v dt) and/or boundary handling (kBoundary)
/// of every live particle. Fused (both true) in normal steps; split when profiling.
/// Open boundaries: a particle's zone at the start of the step travels from the split
/// integration kernel to the boundary kernel in pos.w.
template <bool kIntegrate, bool kBoundary>
__global__ void __launch_bounds__(kBlockSize)
    motionKernel(DeviceStep s, cuda::DeviceOpenBoundaries o, const std::uint32_t* __restrict__ cellStart,
                 float4* __restrict__ pos, float4* __restrict__ vel, const float4* __restrict__ accel,
                 float4* __restrict__ spawnPos, float4* __restrict__ spawnVel, std::uint8_t* __restrict__ removed,
                 DeviceCounters* counters) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    Tally t{0.f, 0u, 0u, 0u, 0u};
    const std::uint32_t live = cellStart[s.grid.cellCount];
    if (i < live) {
        const float4 start = pos[i];
        Vec3 p = cuda::xyz(start), v = cuda::xyz(vel[i]);
        int zone0 = 0;
        if (o.count > 0) zone0 = kIntegrate ? openBoundaryZone(o.boundary, o.count, p) : int(start.w);
        if constexpr (kIntegrate) {
            if (zone0) p += v * s.dt; // a buffer particle moves at its boundary's velocity
            else cuda::integrateParticle(p, v, cuda::xyz(accel[i]), s.dt);
        }
        if constexpr (kBoundary) {
            // NonFinite leaves p and v untouched, so storing them below is what the CPU
            // does (integrated, not handled by the boundaries).
            switch (cuda::boundaryParticle(s, o, zone0, p, v, counters)) {
            case cuda::BoundaryResult::NonFinite: ++t.nonFinite; break;
            case cuda::BoundaryResult::Leaked: removed[i] = 1; ++t.leaked; break;
            case cuda::BoundaryResult::Outlet: removed[i] = 1; ++t.outlets; break;
            case cuda::BoundaryResult::OpenRemoved: removed[i] = 1; ++t.openRemoved; break;
            case cuda::BoundaryResult::Kept:
                t.maxSpeed2 = lengthSquared(v);
                if (o.count > 0) openBoundaryEventsAfterWalls(o, zone0, p, v, spawnPos, spawnVel, counters);
                break;
            }
        }
        pos[i] = cuda::toFloat4(p);
        if constexpr (!kBoundary) pos[i].w = float(zone0);
        vel[i] = cuda::toFloat4(v);
    }
    if constexpr (kBoundary) {
        using Reduce = cub::BlockReduce<Tally, kBlockSize>;
        __shared__ typename Reduce::TempStorage temp;
        const Tally b = Reduce(temp).Reduce(t, TallyMerge{});
        if (threadIdx.x == 0) {
            // Non-negative floats (and +inf) order like their bit patterns.
            if (b.maxSpeed2 > 0.f) atomicMax(&counters->maxSpeed2Bits, __float_as_uint(b.maxSpeed2));
            if (b.nonFinite) atomicAdd(&counters->nonFinite, b.nonFinite);
            if (b.outlets) atomicAdd(&counters->removedOutlets, b.outlets);
            if (b.leaked) atomicAdd(&counters->removedLeaked, b.leaked);
            if (b.openRemoved) atomicAdd(&counters->openRemoved, b.openRemoved);
            if (b.outlets + b.leaked + b.openRemoved)
                atomicAdd(&counters->pending, b.outlets + b.leaked + b.openRemoved);
        }
    }
}

/// Flags the given (distinct) slots for removal at the next grid build.
__global__ void __launch_bounds__(kBlockSize)
    removeKernel(const std::uint32_t* __restrict__ indices, std::uint32_t count, std::uint8_t* __restrict__ removed,
                 DeviceCounters* counters) {
    const std::uint32_t t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= count) return;
    const std::uint32_t i = indices[t];
    if (i >= counters->count || removed[i]) return;
    removed[i] = 1;
    atomicAdd(&counters->pending, 1u);
}

/// blocked[c] = 1 for each candidate within sqrt(r2) of a live particle; each thread
/// tests one particle slot, and only those inside `box` (few: the candidates are an
/// emitter's layers) compare with every candidate.
__global__ void __launch_bounds__(kBlockSize)
    occupiedKernel(const float4* __restrict__ pos, const std::uint8_t* __restrict__ removed,
                   const DeviceCounters* counters, Aabb box, const Vec3* __restrict__ candidates,
                   std::uint32_t candidateCount, float r2, std::uint8_t* __restrict__ blocked) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= counters->count || removed[i]) return;
    const Vec3 p = cuda::xyz(pos[i]);
    if (!box.contains(p)) return;
    for (std::uint32_t c = 0; c < candidateCount; ++c)
        if (lengthSquared(candidates[c] - p) < r2) blocked[c] = 1;
}

/// Backend::sampleBloodAround: each live particle in the candidates' box adds
/// W_poly6 (1, rho, v) to the sums of the candidates within h (atomically: the sums'
/// order, and so their last bits, vary from run to run).
__global__ void __launch_bounds__(kBlockSize)
    bloodAroundKernel(const float4* __restrict__ pos, const float4* __restrict__ vel, const float2* __restrict__ rhoP,
                      const std::uint8_t* __restrict__ removed, const DeviceCounters* counters, Aabb box,
                      const Vec3* __restrict__ candidates, std::uint32_t candidateCount, SphKernels kernels,
                      float* __restrict__ sums) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= counters->count || removed[i]) return;
    const Vec3 p = cuda::xyz(pos[i]);
    if (!box.contains(p)) return;
    const float rho = rhoP[i].x;
    const Vec3 v = cuda::xyz(vel[i]);
    for (std::uint32_t c = 0; c < candidateCount; ++c) {
        const float w = kernels.poly6W(lengthSquared(candidates[c] - p));
        if (w > 0.f) {
            float* s = sums + 5 * c;
            atomicAdd(s, w);
            atomicAdd(s + 1, w * rho);
            atomicAdd(s + 2, w * v.x);
            atomicAdd(s + 3, w * v.y);
            atomicAdd(s + 4, w * v.z);
        }
    }
}

} // namespace
} // namespace atrium::sph
