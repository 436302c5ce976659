#pragma once
// The CUDA backend's open-boundary kernels (OpenBoundaries.h; CudaBackend.cu launches
// them): each mirrors its CpuBackend counterpart, named in its comment. Included by
// CudaBackend.cu only (it defines kernels).

#include "sim/sph/CudaBackend.cuh"

namespace atrium::sph {
namespace {

using cuda::DeviceCounters;
using cuda::DeviceStep;
using cuda::kBlockSize;

/// Open boundaries: the density of each fluid particle beside a buffer gets its buffer
/// neighbours' excess weight (CpuBackend::bufferDensityCorrection), its pressure and wall
/// force follow. Writes rhoP and wall of those particles only (publishKernel then copies
/// the density and pressure into pos.w / vel.w).
__global__ void __launch_bounds__(kBlockSize)
    bufferCorrectionKernel(DeviceStep s, cuda::DeviceOpenBoundaries o, const std::uint32_t* __restrict__ cellStart,
                           const std::uint32_t* __restrict__ zRank, const float4* __restrict__ pos,
                           const float4* __restrict__ vel, float2* __restrict__ rhoP, float4* __restrict__ wall,
                           const std::uint8_t* __restrict__ zone, const float* __restrict__ bufferExcess) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cellStart[s.grid.cellCount] || zone[i]) return;
    const Vec3 pi = cuda::xyz(pos[i]);
    if (!nearOpenBoundary(o.boundary, o.count, pi, s.kernels.h)) return;
    float extra = 0.f;
    const CandidateRows rows(s.grid, pi);
    for (int row = 0; row < kCandidateRows; ++row)
        rows.at(row, cellStart, zRank).forEach([&](std::uint32_t j) {
            extra += s.kernels.poly6W(lengthSquared(pi - cuda::xyz(pos[j]))) * bufferExcess[j];
        });
    if (extra == 0.f) return;
    const float rho = rhoP[i].x + s.mass * extra;
    const float pressure = cuda::equationOfState(s, rho);
    rhoP[i] = make_float2(rho, pressure);
    wall[i] = cuda::toFloat4(wallForce(cuda::wallsNear(s, pi), pressure, rho, cuda::xyz(vel[i]), s));
}

/// Open boundaries: every buffer particle's velocity, prescribed or a Shepard average of
/// the fluid's at bufferVelocitySample times bufferSpeedFactor (CpuBackend::
/// bufferVelocityPass). Reads fluid particles only and writes buffer ones only.
__global__ void __launch_bounds__(kBlockSize)
    bufferVelocityKernel(DeviceStep s, cuda::DeviceOpenBoundaries o, const std::uint32_t* __restrict__ cellStart,
                         const std::uint32_t* __restrict__ zRank, const float4* __restrict__ pos,
                         float4* __restrict__ vel, const float2* __restrict__ rhoP,
                         const std::uint8_t* __restrict__ zone, const float* __restrict__ bufferExcess) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cellStart[s.grid.cellCount] || !zone[i]) return;
    const OpenBoundary& b = o.boundary[zone[i] - 1];
    const float4 own = vel[i];
    Vec3 v = cuda::xyz(own);
    if (b.velocity == OpenBoundaryVelocity::Prescribed) {
        v = b.normal * b.inflowSpeed;
    } else {
        const Vec3 sample = bufferVelocitySample(b, cuda::xyz(pos[i]), s.kernels.h);
        float weight = 0.f, massWeight = 0.f;
        Vec3 sum;
        const CandidateRows rows(s.grid, sample);
        for (int row = 0; row < kCandidateRows; ++row)
            rows.at(row, cellStart, zRank).forEach([&](std::uint32_t j) {
                if (zone[j]) return;
                const float w = s.kernels.poly6W(lengthSquared(sample - cuda::xyz(pos[j])));
                const float volume = s.mass / rhoP[j].x;
                weight += w * volume;
                massWeight += w;
                sum += cuda::xyz(vel[j]) * (w * volume);
            });
        if (weight > 0.f) {
            v = sum / weight;
            const float rho = rhoP[i].x;
            v *= bufferSpeedFactor(b, v, rho, rho / (1.f + bufferExcess[i]), s.mass * massWeight / weight);
        }
    }
    vel[i] = make_float4(v.x, v.y, v.z, own.w);
}

/// Open boundaries: the corrected density and pressure of the fluid beside a buffer
/// into pos.w / vel.w, where the force pass reads a neighbour's.
__global__ void __launch_bounds__(kBlockSize)
    publishKernel(DeviceStep s, cuda::DeviceOpenBoundaries o, const std::uint32_t* __restrict__ cellStart,
                  float4* __restrict__ pos, float4* __restrict__ vel, const float2* __restrict__ rhoP,
                  const std::uint8_t* __restrict__ zone) {
    const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= cellStart[s.grid.cellCount] || zone[i]) return;
    if (!nearOpenBoundary(o.boundary, o.count, cuda::xyz(pos[i]), s.kernels.h)) return;
    pos[i].w = rhoP[i].x;
    vel[i].w = rhoP[i].y;
}

/// Open boundaries, after the walls (CpuBackend::openBoundaryEvents): crossings, the
/// request for a new buffer particle `depth` behind one that entered the fluid (a
/// candidate for spawnKernel, which checks for room once every particle has moved), and
/// the flux of the measuring slabs.
__device__ void openBoundaryEventsAfterWalls(const cuda::DeviceOpenBoundaries& o, int zone0, Vec3 p, Vec3 v,
                                             float4* __restrict__ spawnPos, float4* __restrict__ spawnVel,
                                             DeviceCounters* counters) {
    const int zone1 = openBoundaryZone(o.boundary, o.count, p);
    if (zone0 != zone1) {
        if (zone0) {
            const OpenBoundary& b = o.boundary[zone0 - 1];
            atomicAdd(&counters->openEntered[zone0 - 1], 1u);
            if (b.distance(p) >= 0.f) {
                const std::uint32_t k = atomicAdd(&counters->openSpawned, 1u);
                if (k < o.spawnCapacity) {
                    spawnPos[k] = make_float4(p.x - b.normal.x * b.depth, p.y - b.normal.y * b.depth,
                                              p.z - b.normal.z * b.depth, float(zone0));
                    spawnVel[k] = cuda::toFloat4(v);
                } else {
                    atomicAdd(&counters->openDropped, 1u);
                }
            }
        }
        if (zone1) atomicAdd(&counters->openLeft[zone1 - 1], 1u);
    }
    if (zone1 == 0)
        for (int b = 0; b < o.count; ++b) {
            const long long units = openBoundaryFluxUnits(o.boundary[b], o.fluxSlab, p, v);
            if (units != 0) atomicAdd(&counters->openFluxUnits[b], static_cast<unsigned long long>(units));
        }
}

/// Open boundaries: creates the requested buffer particles (openBoundaryEventsAfterWalls)
/// where no live particle and no other candidate lies closer than `room` (CpuBackend::
/// createBufferParticles checks the earlier candidates in index order; here the order of
/// the requests), in the slots after the live ones.
__global__ void __launch_bounds__(kBlockSize)
    spawnKernel(DeviceStep s, cuda::DeviceOpenBoundaries o, float room2, const std::uint32_t* __restrict__ cellStart,
                const std::uint32_t* __restrict__ zRank, float4* __restrict__ pos, float4* __restrict__ vel,
                float2* __restrict__ rhoP, std::uint8_t* __restrict__ removed, const float4* __restrict__ spawnPos,
                const float4* __restrict__ spawnVel, DeviceCounters* counters) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    const std::uint32_t requested = min(counters->openSpawned, o.spawnCapacity);
    if (k >= requested) return;
    const float4 candidate = spawnPos[k];
    const Vec3 q = cuda::xyz(candidate);
    bool taken = false;
    for (std::uint32_t c = 0; c < k && !taken; ++c) taken = lengthSquared(cuda::xyz(spawnPos[c]) - q) < room2;
    const CandidateRows rows(s.grid, q);
    for (int row = 0; row < kCandidateRows && !taken; ++row)
        rows.at(row, cellStart, zRank).forEach([&](std::uint32_t j) {
            if (!removed[j] && lengthSquared(cuda::xyz(pos[j]) - q) < room2) taken = true;
        });
    if (taken) {
        atomicAdd(&counters->openDropped, 1u);
        return;
    }
    const std::uint32_t dst = atomicAdd(&counters->count, 1u); // reserved: below the capacity
    const OpenBoundary& b = o.boundary[int(candidate.w) - 1];
    const float rho = cuda::bufferDensity(s, b, q);
    pos[dst] = cuda::toFloat4(q);
    vel[dst] = spawnVel[k];
    rhoP[dst] = make_float2(rho, cuda::equationOfState(s, rho));
    removed[dst] = 0;
    atomicAdd(&counters->openCreated, 1u);
}

} // namespace
} // namespace atrium::sph
