// The CUDA backend: the CPU reference (CpuBackend.cpp) step for step on the GPU.
//
// Neighbour search: a sort-based uniform grid (Green 2010, "Particle Simulation using
// CUDA", NVIDIA CUDA SDK whitepaper; Bayraktar 2010, 5.5 and 6.3.1, sort-based
// neighbour search, on the GPU in CUDA; shared/papers/bayraktar2010-particle-phenomena.txt) with cells
// of size h, searched over the 27 cells around a particle exactly as the CPU does. The
// particles are reordered in cell order every step by a counting sort (not a radix
// sort: one histogram, one scan, one scatter), so a cell's particles are contiguous and
// a row of 3 cells is one contiguous range in linear order.
//
// Per step (StepInput::profileStages off) the stream gets 8 kernels and one 176-byte
// copy back, and the host waits once, for the previous step's counters:
//   1. keyKernel       cell key per particle (removed: key = cellCount), rank inside
//                      its cell from a warp-aggregated atomicAdd on the cell's counter;
//                      thread 0 also resets the step counters
//   2-3. cub::DeviceScan::ExclusiveSum of the counters into cellStart (two CUB kernels)
//   4. scatterKernel   dst = cellStart[key] + rank: copies pos/vel into the spare
//                      buffers (scatter and gather in one pass, no index array), clears
//                      the removal flags and the cell counters for the next step,
//                      stores the new particle count
//   5. densityKernel   the fluid's poly6 density
//   6. wallKernel      + the walls' missing kernel mass, EOS pressure (float2 per
//                      particle), and the walls' force from the same wall lookup
//                      (float4 per particle); apart from 5, whose neighbour loop
//                      then needs far fewer registers
//   7. forceKernel     pressure + viscosity + that wall force + gravity, written into the
//                      spare position buffer; neighbour pairs summed per block, one
//                      atomicAdd per block
//   8. motionKernel    symplectic Euler fused with the boundaries (planes, box, wall,
//                      outlets); max speed / non-finite / removed counts by block
//                      reduction, one set of atomics per block
// With open boundaries (OpenBoundaries.h), wallKernel also gives each particle its zone
// and a buffer particle its boundary's density and pressure, three kernels run between
// 6 and 7 (bufferCorrectionKernel, bufferVelocityKernel, publishKernel) and spawnKernel
// after 8 (all in CudaOpenBoundaries.cuh); their state is 5 B per slot (zone, excess).
// With profileStages the integration and boundary passes run as two kernels and
// cudaEvents time each stage (the host then waits for the step to finish).
//
// Removed particles: the boundary kernel (or removeParticles) sets a per-particle flag;
// the next key kernel gives flagged particles the sentinel key cellCount, so the scan
// puts them after every live particle and the scatter drops them. The live count
// (cellStart[cellCount]) is never read back for this: every kernel after the scan reads
// it from device memory and exits early above it, and launches are sized by a host-side
// upper bound (hostUpper_) that shrinks when the lagged counters arrive and is exact
// after every synchronising call (setParticles, appendParticles, size, download).
//
// StepOutput lags one step: step() enqueues a copy of this step's counters into pinned
// memory and returns the counters of the *previous* step (all zeros for the first step
// after setParticles), waiting only for that previous step while this one runs. The
// Solver uses maxSpeed for the CFL time step and for blow-up detection; both lagging by
// one sub-step is acceptable (the CFL limit uses the speed one sub-step older, and a
// blow-up is reported one sub-step later). Accounting of removed particles lags too:
// the removals of the very last step are reported only if another step follows.
//
// Device memory per particle slot: pos, vel and two spare float4 arrays (the reorder
// target, which then holds the walls' force and the accelerations within a step):
// 64 B; density+pressure float2 8 B; key and rank 8 B; removal flag 1 B: 81 B. The grid
// adds 8 B per cell (counters and cellStart, +4 B with Z order) and the CUB scan's
// scratch, amortised over the particles in bytesPerParticle().
//
// Differences from the CPU: the order of particles inside a cell is not stable (it
// follows the atomics), so float sums run in a different order, and nvcc contracts
// a * b + c into FMAs; results agree to float rounding, not bit for bit.

#include "sim/sph/CudaBackend.cuh"
#include "sim/sph/CudaMemory.cuh"
#include "sim/sph/CudaOpenBoundaries.cuh"
#include "sim/sph/CudaStepKernels.cuh"
#include "sim/sph/CudaDeviceProbe.cuh"

#include "sim/sph/WallDistanceField.h"

#include <cub/block/block_reduce.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace atrium::sph {
namespace {

using cuda::DeviceBuffer;
using cuda::DeviceCounters;
using cuda::DeviceGrid;
using cuda::DeviceStep;
using cuda::kBlockSize;
using cuda::PinnedBuffer;

std::uint32_t blocksFor(std::size_t n) {
    return std::uint32_t(std::max<std::size_t>(1, (n + kBlockSize - 1) / kBlockSize));
}


// --- the backend ------------------------------------------------------------------------

/// Sort-based-grid SPH on one GPU (Green 2010, "Particle Simulation using CUDA";
/// Bayraktar 2010, 5.5 and 6.3.1, sort-based neighbour search in CUDA; see
/// shared/papers). All particle state stays on the device
/// in structure-of-arrays form, reordered in cell order every step; see the file
/// comment for the kernels, the removal scheme and the one-step lag of StepOutput.
class CudaBackend final : public Backend {
public:
    explicit CudaBackend(const DeviceProbe& probe) : device_(probe.device), deviceName_(probe.name) {
        ATRIUM_CUDA_CHECK(cudaSetDevice(device_));
        ATRIUM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        for (cudaEvent_t& e : countersReady_) ATRIUM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        for (cudaEvent_t& e : wallUploaded_) ATRIUM_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
        for (cudaEvent_t& e : stageEvents_) ATRIUM_CUDA_CHECK(cudaEventCreate(&e));
        counters_.reserve(1, 0, stream_);
        hostCounters_.reserve(2);
        writeCounters(0);
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    ~CudaBackend() override {
        if (stream_) cudaStreamSynchronize(stream_);
        for (cudaEvent_t e : countersReady_)
            if (e) cudaEventDestroy(e);
        for (cudaEvent_t e : wallUploaded_)
            if (e) cudaEventDestroy(e);
        for (cudaEvent_t e : stageEvents_)
            if (e) cudaEventDestroy(e);
        if (stream_) cudaStreamDestroy(stream_);
    }

    std::string name() const override { return "cuda"; }
    std::string deviceName() const override { return deviceName_; }

    void setParticles(std::span<const Vec3> position, std::span<const Vec3> velocity) override {
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // also retires in-flight counter copies
        slots_[0].inFlight = slots_[1].inFlight = false;
        const std::size_t n = position.size();
        ensureCapacity(n, 0);
        upload(position, velocity, 0);
        writeCounters(std::uint32_t(n));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // the staging vectors are reused
        setExact(n, 0);
    }

    void appendParticles(std::span<const Vec3> position, std::span<const Vec3> velocity) override {
        const std::size_t m = position.size();
        if (m == 0) return;
        readExact(); // appends go right after the current slots (a rare, synchronising call)
        const std::size_t start = exactCount_;
        ensureCapacity(start + m, start);
        upload(position, velocity, start);
        const std::uint32_t count = std::uint32_t(start + m);
        unsigned char* countField = reinterpret_cast<unsigned char*>(counters_.get()) + offsetof(DeviceCounters, count);
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(countField, &count, sizeof count, cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        appendedTotal_ += m;
        setExact(start + m, exactPending_);
    }

    void removeParticles(std::span<const std::uint32_t> indices) override {
        if (indices.empty()) return;
        readExact();
        std::vector<std::uint32_t> unique;
        unique.reserve(indices.size());
        for (std::uint32_t i : indices)
            if (i < exactCount_) unique.push_back(i);
        std::sort(unique.begin(), unique.end());
        unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
        if (unique.empty()) return;
        indexBuffer_.reserve(grown(indexBuffer_.capacity(), unique.size()), 0, stream_);
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(indexBuffer_.get(), unique.data(), unique.size() * sizeof(std::uint32_t),
                                          cudaMemcpyHostToDevice, stream_));
        removeKernel<<<blocksFor(unique.size()), kBlockSize, 0, stream_>>>(
            indexBuffer_.get(), std::uint32_t(unique.size()), removed_.get(), counters_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // `unique` dies here
        exactKnown_ = false; // some may have been flagged already
    }

    std::size_t size() const override {
        readExact();
        return exactCount_ - exactPending_;
    }

    void setWall(const WallDistanceField* wall) override {
        hasWall_ = wall != nullptr && !wall->empty();
        if (!hasWall_) return;
        uploadWall(wall->view());
    }

    void computeDensities(const StepInput& in) override {
        const bool profile = in.profileStages;
        syncSmallArray(in.planes, planeCache_, planes_); // walls count in the density
        syncSmallArray(in.outlets, outletCache_, outlets_);
        const DeviceStep s = makeDeviceStep(in);
        const cuda::DeviceOpenBoundaries o = prepareOpenBoundaries(in);
        if (profile) record(0);
        buildGrid(in.grid, s.grid);
        if (profile) record(1);
        launchDensity(s, o);
        if (profile) {
            record(2);
            ATRIUM_CUDA_CHECK(cudaEventSynchronize(stageEvents_[2]));
            times_.grid += elapsed(0, 1);
            times_.density += elapsed(1, 2);
        }
        exactKnown_ = false;
    }

    StepOutput step(const StepInput& in) override {
        const bool profile = in.profileStages;
        syncSmallArray(in.planes, planeCache_, planes_);
        syncSmallArray(in.outlets, outletCache_, outlets_);
        const DeviceStep s = makeDeviceStep(in);
        const cuda::DeviceOpenBoundaries o = prepareOpenBoundaries(in);
        const std::uint32_t blocks = blocksFor(hostUpper_);
        if (profile) record(0);
        buildGrid(in.grid, s.grid);
        if (profile) record(1);
        launchDensity(s, o);
        if (o.count > 0) launchOpenBoundaries(s, o);
        if (profile) record(2);
        forceKernel<<<blocks, kBlockSize, 0, stream_>>>(s, cellStart_.get(), zRankPtr(), pos_.get(), vel_.get(),
                                                        rhoP_.get(), tmpVel_.get(), neighbourMasks(), tmpPos_.get(),
                                                        counters_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        if (profile) {
            record(3);
            motionKernel<true, false><<<blocks, kBlockSize, 0, stream_>>>(
                s, o, cellStart_.get(), pos_.get(), vel_.get(), tmpPos_.get(), spawnPos_.get(), spawnVel_.get(),
                removed_.get(), counters_.get());
            ATRIUM_CUDA_CHECK(cudaGetLastError());
            record(4);
            motionKernel<false, true><<<blocks, kBlockSize, 0, stream_>>>(
                s, o, cellStart_.get(), pos_.get(), vel_.get(), tmpPos_.get(), spawnPos_.get(), spawnVel_.get(),
                removed_.get(), counters_.get());
            ATRIUM_CUDA_CHECK(cudaGetLastError());
            record(5);
        } else {
            motionKernel<true, true><<<blocks, kBlockSize, 0, stream_>>>(
                s, o, cellStart_.get(), pos_.get(), vel_.get(), tmpPos_.get(), spawnPos_.get(), spawnVel_.get(),
                removed_.get(), counters_.get());
            ATRIUM_CUDA_CHECK(cudaGetLastError());
        }
        if (o.count > 0) {
            spawnKernel<<<blocksFor(o.spawnCapacity), kBlockSize, 0, stream_>>>(
                s, o, in.openSpawnRoom * in.openSpawnRoom, cellStart_.get(), zRankPtr(), pos_.get(), vel_.get(),
                rhoP_.get(), removed_.get(), spawnPos_.get(), spawnVel_.get(), counters_.get());
            ATRIUM_CUDA_CHECK(cudaGetLastError());
            // The buffers may have filled slots after the live ones (at most the reserve).
            hostUpper_ += in.openSpawnReserve;
        }
        exactKnown_ = false;

        // Queue this step's counters; report the previous step's (see the file comment).
        const int slot = nextSlot_;
        nextSlot_ ^= 1;
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(hostCounters_.get() + slot, counters_.get(), sizeof(DeviceCounters),
                                          cudaMemcpyDeviceToHost, stream_));
        ATRIUM_CUDA_CHECK(cudaEventRecord(countersReady_[slot], stream_));
        slots_[slot] = {true, appendedTotal_};
        if (profile) {
            ATRIUM_CUDA_CHECK(cudaEventSynchronize(stageEvents_[5]));
            times_.grid += elapsed(0, 1);
            times_.density += elapsed(1, 2);
            times_.force += elapsed(2, 3);
            times_.integrate += elapsed(3, 4);
            times_.boundary += elapsed(4, 5);
        }
        StepOutput out;
        Slot& prev = slots_[slot ^ 1];
        if (prev.inFlight) {
            ATRIUM_CUDA_CHECK(cudaEventSynchronize(countersReady_[slot ^ 1]));
            const DeviceCounters c = hostCounters_.get()[slot ^ 1];
            float maxSpeed2;
            std::memcpy(&maxSpeed2, &c.maxSpeed2Bits, sizeof maxSpeed2);
            out.maxSpeed = std::sqrt(maxSpeed2);
            out.nonFinite = c.nonFinite;
            out.removedOutlets = c.removedOutlets;
            out.removedLeaked = c.removedLeaked;
            out.neighbourPairs = c.neighbourPairs;
            out.openCreated = c.openCreated;
            out.openRemoved = c.openRemoved;
            out.openDropped = c.openDropped;
            for (int b = 0; b < kMaxOpenBoundaries; ++b) {
                out.open[b].entered = c.openEntered[b];
                out.open[b].left = c.openLeft[b];
                out.open[b].fluxUnits = static_cast<long long>(c.openFluxUnits[b]);
            }
            // Slots after that step's build, plus everything appended since it was queued
            // (and what this step's buffers may add): an upper bound for the next
            // launches (this step's build only shrinks it).
            hostUpper_ = std::min(hostUpper_, std::size_t(c.count) + (appendedTotal_ - prev.appendedAtEnqueue) +
                                                  (o.count > 0 ? in.openSpawnReserve : 0u));
            prev.inFlight = false;
        }
        return out;
    }

    /// Copies the live particles (those removed during the last step are left out).
    void download(unsigned fields, HostParticles& out) const override {
        readExact();
        const std::size_t n = exactCount_;
        const bool filter = exactPending_ > 0;
        if (filter) {
            hostRemoved_.resize(n);
            ATRIUM_CUDA_CHECK(cudaMemcpyAsync(hostRemoved_.data(), removed_.get(), n, cudaMemcpyDeviceToHost, stream_));
        }
        const auto fetch4 = [&](const DeviceBuffer<float4>& from, std::vector<Vec3>& to) {
            hostFloat4_.resize(n);
            if (n) ATRIUM_CUDA_CHECK(cudaMemcpyAsync(hostFloat4_.data(), from.get(), n * sizeof(float4),
                                                     cudaMemcpyDeviceToHost, stream_));
            ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
            to.clear();
            to.reserve(n - exactPending_);
            for (std::size_t i = 0; i < n; ++i)
                if (!filter || !hostRemoved_[i]) to.push_back(cuda::xyz(hostFloat4_[i]));
        };
        if (fields & FieldPosition) fetch4(pos_, out.position);
        if (fields & FieldVelocity) fetch4(vel_, out.velocity);
        if (fields & (FieldDensity | FieldPressure)) {
            hostFloat2_.resize(n);
            if (n) ATRIUM_CUDA_CHECK(cudaMemcpyAsync(hostFloat2_.data(), rhoP_.get(), n * sizeof(float2),
                                                     cudaMemcpyDeviceToHost, stream_));
            ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
            const auto split = [&](bool second, std::vector<float>& to) {
                to.clear();
                to.reserve(n - exactPending_);
                for (std::size_t i = 0; i < n; ++i)
                    if (!filter || !hostRemoved_[i]) to.push_back(second ? hostFloat2_[i].y : hostFloat2_[i].x);
            };
            if (fields & FieldDensity) split(false, out.density);
            if (fields & FieldPressure) split(true, out.pressure);
        }
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    void markOccupied(std::span<const Vec3> candidates, float radius, std::vector<std::uint8_t>& blocked) const override {
        const std::size_t m = candidates.size();
        if (m == 0 || hostUpper_ == 0) return;
        candidates_.reserve(grown(candidates_.capacity(), m), 0, stream_);
        candidateBlocked_.reserve(grown(candidateBlocked_.capacity(), m), 0, stream_);
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(candidates_.get(), candidates.data(), m * sizeof(Vec3),
                                          cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(candidateBlocked_.get(), blocked.data(), m, cudaMemcpyHostToDevice, stream_));
        occupiedKernel<<<blocksFor(hostUpper_), kBlockSize, 0, stream_>>>(
            pos_.get(), removed_.get(), counters_.get(), candidateBounds(candidates, radius), candidates_.get(),
            std::uint32_t(m), radius * radius, candidateBlocked_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(blocked.data(), candidateBlocked_.get(), m, cudaMemcpyDeviceToHost, stream_));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // `candidates` and `blocked` are the caller's
    }

    void sampleBloodAround(std::span<const Vec3> candidates, const SphKernels& kernels,
                           std::vector<float>& sums) const override {
        const std::size_t m = candidates.size();
        if (m == 0 || hostUpper_ == 0) return;
        candidates_.reserve(grown(candidates_.capacity(), m), 0, stream_);
        candidateSums_.reserve(grown(candidateSums_.capacity(), 5 * m), 0, stream_);
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(candidates_.get(), candidates.data(), m * sizeof(Vec3),
                                          cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(candidateSums_.get(), sums.data(), 5 * m * sizeof(float),
                                          cudaMemcpyHostToDevice, stream_));
        bloodAroundKernel<<<blocksFor(hostUpper_), kBlockSize, 0, stream_>>>(
            pos_.get(), vel_.get(), rhoP_.get(), removed_.get(), counters_.get(), candidateBounds(candidates, kernels.h),
            candidates_.get(), std::uint32_t(m), kernels, candidateSums_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(sums.data(), candidateSums_.get(), 5 * m * sizeof(float),
                                          cudaMemcpyDeviceToHost, stream_));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // `candidates` and `sums` are the caller's
    }

    void synchronize() override { ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

    std::size_t bytesPerParticle() const override {
        // Allocated device memory: particle arrays at their capacity, grid arrays, scan
        // scratch; divided by the particle slots.
        const std::size_t particles = pos_.bytes() + vel_.bytes() + tmpPos_.bytes() + tmpVel_.bytes() +
                                      rhoP_.bytes() + key_.bytes() + rank_.bytes() + removed_.bytes() +
                                      maskBits_.bytes();
        const std::size_t grid = cellCounter_.bytes() + cellStart_.bytes() + zRank_.bytes() + scanTemp_.bytes();
        const std::size_t n = std::max<std::size_t>(hostUpper_, 1);
        return (particles + grid + n - 1) / n;
    }

    StageTimes stageTimes() const override { return times_; }
    void resetStageTimes() override { times_ = {}; }

private:
    struct Slot {
        bool inFlight = false;
        std::uint64_t appendedAtEnqueue = 0;
    };

    static std::size_t grown(std::size_t capacity, std::size_t needed) {
        return needed <= capacity ? capacity : std::max(needed, capacity + capacity / 2);
    }

    const std::uint32_t* zRankPtr() const { return grid_.zOrder ? zRank_.get() : nullptr; }

    void record(int k) { ATRIUM_CUDA_CHECK(cudaEventRecord(stageEvents_[k], stream_)); }

    double elapsed(int a, int b) const {
        float ms = 0.f;
        ATRIUM_CUDA_CHECK(cudaEventElapsedTime(&ms, stageEvents_[a], stageEvents_[b]));
        return ms;
    }

    void setExact(std::size_t count, std::size_t pending) {
        exactKnown_ = true;
        exactCount_ = count;
        exactPending_ = pending;
        hostUpper_ = count;
    }

    /// Waits for the stream and reads the exact slot and pending counts.
    void readExact() const {
        if (exactKnown_) return;
        DeviceCounters c{};
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(&c, counters_.get(), sizeof c, cudaMemcpyDeviceToHost, stream_));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
        exactKnown_ = true;
        exactCount_ = c.count;
        exactPending_ = c.pending;
        hostUpper_ = c.count;
    }

    /// Resets the device counters to `count` slots, nothing pending.
    void writeCounters(std::uint32_t count) {
        DeviceCounters c{};
        c.count = count;
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(counters_.get(), &c, sizeof c, cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // `c` is a local
    }

    /// Makes room for `n` particle slots, keeping the first `keep` (pos, vel, density,
    /// pressure, flags). Grows by at least 1.5x; never shrinks.
    void ensureCapacity(std::size_t n, std::size_t keep) {
        if (n > 0xffffffffull - 1) throw std::length_error("CUDA backend: too many particles");
        const std::size_t cap = grown(pos_.capacity(), n);
        if (cap == pos_.capacity()) return;
        pos_.reserve(cap, keep, stream_);
        vel_.reserve(cap, keep, stream_);
        rhoP_.reserve(cap, keep, stream_);
        removed_.reserve(cap, keep, stream_);
        tmpPos_.reserve(cap, 0, stream_);
        tmpVel_.reserve(cap, 0, stream_);
        key_.reserve(cap, 0, stream_);
        rank_.reserve(cap, 0, stream_);
        maskBits_.reserve(std::size_t(kCandidateRows) * cap, 0, stream_);
    }

    /// The neighbour masks of this step (density -> force kernel); the overflow bits
    /// live in rank_, free from the scatter to the next step's key kernel.
    cuda::NeighbourMasks neighbourMasks() const {
        return {maskBits_.get(), rank_.get(), std::uint32_t(pos_.capacity())};
    }

    /// Uploads particles into slots start.. (flags and densities zeroed).
    void upload(std::span<const Vec3> position, std::span<const Vec3> velocity, std::size_t start) {
        const std::size_t m = position.size();
        if (velocity.size() != m)
            throw std::invalid_argument("CUDA backend: " + std::to_string(m) + " positions but " +
                                        std::to_string(velocity.size()) + " velocities");
        if (m == 0) return;
        stagePos_.resize(m);
        stageVel_.resize(m);
        for (std::size_t i = 0; i < m; ++i) {
            stagePos_[i] = cuda::toFloat4(position[i]);
            stageVel_[i] = cuda::toFloat4(velocity[i]);
        }
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(pos_.get() + start, stagePos_.data(), m * sizeof(float4),
                                          cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(vel_.get() + start, stageVel_.data(), m * sizeof(float4),
                                          cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaMemsetAsync(removed_.get() + start, 0, m, stream_));
        ATRIUM_CUDA_CHECK(cudaMemsetAsync(rhoP_.get() + start, 0, m * sizeof(float2), stream_));
    }

    /// Uploads planes or outlets when their contents changed (rare: scenes are static).
    template <class T>
    void syncSmallArray(std::span<const T> src, std::vector<T>& cache, DeviceBuffer<T>& dev) {
        if (src.size() == cache.size() && (src.empty() || std::memcmp(src.data(), cache.data(), src.size_bytes()) == 0))
            return;
        cache.assign(src.begin(), src.end());
        if (cache.empty()) return;
        dev.reserve(grown(dev.capacity(), cache.size()), 0, stream_);
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(dev.get(), cache.data(), cache.size() * sizeof(T), cudaMemcpyHostToDevice,
                                          stream_));
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }

    DeviceStep makeDeviceStep(const StepInput& in) const {
        DeviceStep s;
        s.grid.origin = in.grid.origin;
        s.grid.cellSize = in.grid.cellSize;
        s.grid.invCell = 1.f / in.grid.cellSize;
        s.grid.nx = in.grid.nx;
        s.grid.ny = in.grid.ny;
        s.grid.nz = in.grid.nz;
        s.grid.zOrder = in.grid.zOrder ? 1 : 0;
        s.grid.cellCount = std::uint32_t(in.grid.cellCount());
        s.kernels = in.kernels;
        s.dt = in.dt;
        s.mass = in.mass;
        s.restDensity = in.restDensity;
        s.eosStiffness = in.eosStiffness;
        s.maxPressure = in.maxPressure;
        s.viscosity = in.viscosity;
        s.artificialViscosity = in.artificialViscosity;
        s.soundSpeed = in.soundSpeed;
        s.tait = in.equationOfState == EquationOfState::Tait ? 1 : 0;
        s.minPressure = in.minPressure;
        s.backgroundPressure = in.backgroundPressure;
        s.gravity = in.gravity;
        if (in.container) {
            s.container = *in.container;
            s.hasContainer = 1;
        }
        s.planes = planes_.get();
        s.planeCount = std::uint32_t(planeCache_.size());
        s.outlets = outlets_.get();
        s.outletCount = std::uint32_t(outletCache_.size());
        if (hasWall_) {
            s.wall = deviceWall_;
            s.wall.poseAge = in.wallPoseAge;
            s.hasWall = 1;
        }
        s.wallMargin = in.wallMargin;
        s.wallDistanceOffset = in.wallDistanceOffset;
        s.wallRestitution = in.wallRestitution;
        s.pressureGradientScale = in.pressureGradientScale;
        s.mirroredWalls = in.mirroredWalls;
        return s;
    }

    /// (Re)allocates the grid arrays and the Z-order ranks when the grid's shape changes.
    void prepareGrid(const GridGeometry& g) {
        const bool changed = !gridReady_ || g.nx != grid_.nx || g.ny != grid_.ny || g.nz != grid_.nz ||
                             g.zOrder != grid_.zOrder;
        grid_ = g;
        if (!changed) return;
        if (g.nx < 1 || g.ny < 1 || g.nz < 1) throw std::invalid_argument("CUDA backend: empty neighbour grid");
        const std::size_t cells = g.cellCount();
        if (cells + 2 > 0xffffffffull) throw std::length_error("CUDA backend: neighbour grid too large");
        cellCounter_.reserve(cells + 2, 0, stream_);
        cellStart_.reserve(cells + 2, 0, stream_);
        // Counters start at zero; afterwards every scatter clears them.
        ATRIUM_CUDA_CHECK(cudaMemsetAsync(cellCounter_.get(), 0, (cells + 2) * sizeof(std::uint32_t), stream_));
        std::size_t tempBytes = 0;
        ATRIUM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, tempBytes, cellCounter_.get(), cellStart_.get(),
                                                        int(cells + 2), stream_));
        scanTemp_.reserve(std::max<std::size_t>(tempBytes, 1), 0, stream_);
        scanTempBytes_ = tempBytes;
        if (g.zOrder) {
            const std::vector<std::uint32_t> rank = zOrderRanks(g); // as on the CPU
            zRank_.reserve(cells, 0, stream_);
            ATRIUM_CUDA_CHECK(cudaMemcpyAsync(zRank_.get(), rank.data(), cells * sizeof(std::uint32_t),
                                              cudaMemcpyHostToDevice, stream_));
        }
        ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream_)); // `rank` dies here
        gridReady_ = true;
    }

    /// Counting sort of the particles by cell key (removed ones dropped); afterwards
    /// pos_/vel_ are in cell order and cellStart_ indexes the cells.
    void buildGrid(const GridGeometry& geometry, const DeviceGrid& g) {
        prepareGrid(geometry);
        const std::size_t n = hostUpper_;
        const std::uint32_t blocks = blocksFor(n);
        keyKernel<<<blocks, kBlockSize, 0, stream_>>>(g, pos_.get(), removed_.get(), zRankPtr(), key_.get(),
                                                      rank_.get(), cellCounter_.get(), counters_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        std::size_t tempBytes = scanTempBytes_;
        ATRIUM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scanTemp_.get(), tempBytes, cellCounter_.get(),
                                                        cellStart_.get(), int(g.cellCount + 2), stream_));
        // Enough threads to clear the cell counters in a few iterations each.
        const std::uint32_t scatterBlocks = std::max(blocks, std::min<std::uint32_t>(blocksFor(g.cellCount + 2), 1024));
        scatterKernel<<<scatterBlocks, kBlockSize, 0, stream_>>>(
            g.cellCount, cellStart_.get(), key_.get(), rank_.get(), pos_.get(), vel_.get(), tmpPos_.get(),
            tmpVel_.get(), removed_.get(), cellCounter_.get(), counters_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        pos_.swap(tmpPos_);
        vel_.swap(tmpVel_);
    }

    void launchDensity(const DeviceStep& s, const cuda::DeviceOpenBoundaries& o) {
        const std::uint32_t blocks = blocksFor(hostUpper_);
        densityKernel<<<blocks, kBlockSize, 0, stream_>>>(s, cellStart_.get(), zRankPtr(), pos_.get(), rhoP_.get(),
                                                          neighbourMasks());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        wallKernel<<<blocks, kBlockSize, 0, stream_>>>(s, o, cellStart_.get(), pos_.get(), vel_.get(), rhoP_.get(),
                                                       tmpVel_.get(), zone_.get(), bufferExcess_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
    }

    /// The open boundaries' passes between the density and the force pass (as the CPU's
    /// bufferDensityCorrection and bufferVelocityPass), then the corrected densities
    /// and pressures where the force pass reads them.
    void launchOpenBoundaries(const DeviceStep& s, const cuda::DeviceOpenBoundaries& o) {
        const std::uint32_t blocks = blocksFor(hostUpper_);
        bufferCorrectionKernel<<<blocks, kBlockSize, 0, stream_>>>(s, o, cellStart_.get(), zRankPtr(), pos_.get(),
                                                                   vel_.get(), rhoP_.get(), tmpVel_.get(), zone_.get(),
                                                                   bufferExcess_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        bufferVelocityKernel<<<blocks, kBlockSize, 0, stream_>>>(s, o, cellStart_.get(), zRankPtr(), pos_.get(),
                                                                 vel_.get(), rhoP_.get(), zone_.get(), bufferExcess_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
        publishKernel<<<blocks, kBlockSize, 0, stream_>>>(s, o, cellStart_.get(), pos_.get(), vel_.get(), rhoP_.get(),
                                                          zone_.get());
        ATRIUM_CUDA_CHECK(cudaGetLastError());
    }

    /// The open boundaries of a step by value; with any, room for the buffer particles
    /// the step may create after the current slots, and the per-slot zone and excess.
    cuda::DeviceOpenBoundaries prepareOpenBoundaries(const StepInput& in) {
        cuda::DeviceOpenBoundaries o;
        if (in.openBoundaries.empty()) return o;
        if (in.openBoundaries.size() > std::size_t(kMaxOpenBoundaries))
            throw std::invalid_argument("CUDA backend: more than " + std::to_string(kMaxOpenBoundaries) +
                                        " open boundaries");
        o.count = int(in.openBoundaries.size());
        std::copy(in.openBoundaries.begin(), in.openBoundaries.end(), o.boundary);
        o.fluxSlab = in.openFluxSlab;
        ensureCapacity(hostUpper_ + in.openSpawnReserve, hostUpper_);
        zone_.reserve(pos_.capacity(), 0, stream_);
        bufferExcess_.reserve(pos_.capacity(), 0, stream_);
        spawnPos_.reserve(std::max<std::size_t>(in.openSpawnReserve, 1), 0, stream_);
        spawnVel_.reserve(std::max<std::size_t>(in.openSpawnReserve, 1), 0, stream_);
        o.spawnCapacity = in.openSpawnReserve;
        return o;
    }

    /// Copies every array of the wall field's view into one device block (same layout
    /// as a pinned staging block, so it is one host memcpy per array and a single
    /// asynchronous upload) and rebinds the pointers of the device view. The blocks
    /// only grow; two staging blocks alternate so a rebuild never waits for the upload
    /// of the previous one.
    void uploadWall(const WallFieldView& v) {
        struct Part {
            const void* src;
            std::size_t bytes;
            std::size_t offset;
        };
        Part parts[] = {
            {v.phi, std::size_t(v.nodeCount) * sizeof(float), 0},
            {v.wallVelocity, std::size_t(v.nodeCount) * sizeof(Vec3), 0},
            {v.cellTriangleStart, (std::size_t(v.cellCount) + 1) * sizeof(std::uint32_t), 0},
            {v.cellTriangles, std::size_t(v.cellTriangleCount) * sizeof(std::uint32_t), 0},
            {v.vertices, std::size_t(v.vertexCount) * sizeof(Vec3), 0},
            {v.vertexNormals, std::size_t(v.vertexCount) * sizeof(Vec3), 0},
            {v.vertexVelocities, std::size_t(v.vertexCount) * sizeof(Vec3), 0},
            {v.triangles, 3 * std::size_t(v.triangleCount) * sizeof(std::uint32_t), 0},
            {v.faceNormals, std::size_t(v.triangleCount) * sizeof(Vec3), 0},
            {v.edgeNormals, 3 * std::size_t(v.triangleCount) * sizeof(Vec3), 0},
            {v.triangleBalls, 4 * std::size_t(v.triangleCount) * sizeof(float), 0},
        };
        std::size_t total = 0;
        for (Part& p : parts) {
            if (p.src == nullptr) p.bytes = 0;
            p.offset = total;
            total += (p.bytes + 255) & ~std::size_t(255);
        }
        total = std::max<std::size_t>(total, 256);

        const int slot = wallSlot_;
        wallSlot_ ^= 1;
        if (wallStagingUsed_[slot]) ATRIUM_CUDA_CHECK(cudaEventSynchronize(wallUploaded_[slot]));
        wallStaging_[slot].reserve(grown(wallStaging_[slot].capacity(), total));
        unsigned char* staging = wallStaging_[slot].get();
        for (const Part& p : parts)
            if (p.bytes) std::memcpy(staging + p.offset, p.src, p.bytes);
        // Growing frees the old block only after the stream has drained (reserve syncs).
        wallBlock_.reserve(grown(wallBlock_.capacity(), total), 0, stream_);
        ATRIUM_CUDA_CHECK(cudaMemcpyAsync(wallBlock_.get(), staging, total, cudaMemcpyHostToDevice, stream_));
        ATRIUM_CUDA_CHECK(cudaEventRecord(wallUploaded_[slot], stream_));
        wallStagingUsed_[slot] = true;

        unsigned char* base = wallBlock_.get();
        const auto at = [&](int k, auto* typed) {
            using T = std::remove_pointer_t<decltype(typed)>;
            return parts[k].bytes ? reinterpret_cast<T*>(base + parts[k].offset) : static_cast<T*>(nullptr);
        };
        deviceWall_ = v;
        deviceWall_.phi = at(0, v.phi);
        deviceWall_.wallVelocity = at(1, v.wallVelocity);
        deviceWall_.cellTriangleStart = at(2, v.cellTriangleStart);
        deviceWall_.cellTriangles = at(3, v.cellTriangles);
        deviceWall_.vertices = at(4, v.vertices);
        deviceWall_.vertexNormals = at(5, v.vertexNormals);
        deviceWall_.vertexVelocities = at(6, v.vertexVelocities);
        deviceWall_.triangles = at(7, v.triangles);
        deviceWall_.faceNormals = at(8, v.faceNormals);
        deviceWall_.edgeNormals = at(9, v.edgeNormals);
        deviceWall_.triangleBalls = at(10, v.triangleBalls);
    }

    int device_ = 0;
    std::string deviceName_;
    cudaStream_t stream_ = nullptr;

    // Particle slots (structure of arrays, cell order after each build).
    // After the scatter, tmpVel_ holds the walls' force (density -> force kernel) and
    // tmpPos_ the accelerations (force -> motion kernel).
    DeviceBuffer<float4> pos_, vel_, tmpPos_, tmpVel_;
    DeviceBuffer<float2> rhoP_;                        // density, pressure
    DeviceBuffer<std::uint32_t> key_, rank_;
    DeviceBuffer<std::uint8_t> removed_;
    DeviceBuffer<std::uint64_t> maskBits_; // cuda::NeighbourMasks, kCandidateRows per slot
    // Open boundaries only (allocated with the first step that has one): per slot, the
    // zone (0 fluid, b + 1 in b's buffer) and bufferDensityExcess (OpenBoundaries.h).
    DeviceBuffer<std::uint8_t> zone_;
    DeviceBuffer<float> bufferExcess_;
    DeviceBuffer<float4> spawnPos_, spawnVel_; // requested buffer particles (w: zone), spawnKernel

    // Grid: per-cell counters (cellCount + 2, the last two zero-padded for the sentinel
    // key and the total), their exclusive scan, Z-order ranks, scan scratch.
    DeviceBuffer<std::uint32_t> cellCounter_, cellStart_, zRank_;
    DeviceBuffer<unsigned char> scanTemp_;
    std::size_t scanTempBytes_ = 0;
    GridGeometry grid_;
    bool gridReady_ = false;

    // Counters and their lagged read-back.
    DeviceBuffer<DeviceCounters> counters_;
    PinnedBuffer<DeviceCounters> hostCounters_;
    cudaEvent_t countersReady_[2] = {nullptr, nullptr};
    Slot slots_[2];
    int nextSlot_ = 0;
    std::uint64_t appendedTotal_ = 0;

    // Host view of the counts: exact after a synchronising call, else an upper bound.
    mutable std::size_t hostUpper_ = 0;
    mutable bool exactKnown_ = true;
    mutable std::size_t exactCount_ = 0, exactPending_ = 0;

    // Boundaries.
    std::vector<BoundaryPlane> planeCache_;
    std::vector<Outlet> outletCache_;
    DeviceBuffer<BoundaryPlane> planes_;
    DeviceBuffer<Outlet> outlets_;
    DeviceBuffer<std::uint32_t> indexBuffer_;
    // Emitter candidates and their flags (markOccupied, a const query).
    mutable DeviceBuffer<Vec3> candidates_;
    mutable DeviceBuffer<std::uint8_t> candidateBlocked_;
    mutable DeviceBuffer<float> candidateSums_; // sampleBloodAround's
    DeviceBuffer<unsigned char> wallBlock_;
    PinnedBuffer<unsigned char> wallStaging_[2];
    cudaEvent_t wallUploaded_[2] = {nullptr, nullptr};
    bool wallStagingUsed_[2] = {false, false};
    int wallSlot_ = 0;
    WallFieldView deviceWall_;
    bool hasWall_ = false;

    // Host staging (reused).
    std::vector<float4> stagePos_, stageVel_;
    mutable std::vector<float4> hostFloat4_;
    mutable std::vector<float2> hostFloat2_;
    mutable std::vector<std::uint8_t> hostRemoved_;

    // Profiling.
    cudaEvent_t stageEvents_[6] = {};
    StageTimes times_;
};

} // namespace

std::unique_ptr<Backend> makeCudaBackend() {
    const DeviceProbe& p = cachedProbe();
    if (!p.available) return nullptr;
    return std::make_unique<CudaBackend>(p);
}

std::string cudaBackendStatus() { return cachedProbe().status; }

bool cudaBackendAvailable() { return cachedProbe().available; }

} // namespace atrium::sph
