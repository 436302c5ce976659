// The reference backend: multithreaded with oneTBB, structure of arrays, particles
// reordered in cell order every step. Each particle's sums are gathered by one task
// in a fixed neighbour order (four neighbours at a time in vector lanes, the lanes
// added in a fixed order), so results do not depend on the thread count or on
// scheduling (the determinism test relies on this).

#include "sim/sph/Backend.h"
#include "sim/sph/CandidateCells.h"
#include "sim/sph/DivergenceFreeSolve.h"
#include "sim/sph/WallDistanceField.h"
#include "sim/sph/WallKernelIntegrals.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif
#include <fstream>
#include <thread>

namespace atrium::sph {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

constexpr std::size_t kGrain = 512;

class CpuBackend final : public Backend {
public:
    std::string name() const override { return "cpu"; }

    std::string deviceName() const override {
        std::ifstream in("/proc/cpuinfo");
        std::string line, model = "unknown CPU";
        while (std::getline(in, line))
            if (line.rfind("model name", 0) == 0) {
                model = line.substr(line.find(':') + 2);
                break;
            }
        return model + " (" + std::to_string(std::thread::hardware_concurrency()) + " threads)";
    }

    void setParticles(std::span<const Vec3> position, std::span<const Vec3> velocity) override {
        pos_.assign(position.begin(), position.end());
        vel_.assign(velocity.begin(), velocity.end());
        removed_.assign(pos_.size(), 0);
        pendingRemoved_ = 0;
        pressureSolve_ = DivergenceFreeSolve{}; // no warm start from other particles' pressures
        resizeDerived();
    }

    void appendParticles(std::span<const Vec3> position, std::span<const Vec3> velocity) override {
        pos_.insert(pos_.end(), position.begin(), position.end());
        vel_.insert(vel_.end(), velocity.begin(), velocity.end());
        removed_.resize(pos_.size(), 0);
        resizeDerived();
    }

    void removeParticles(std::span<const std::uint32_t> indices) override {
        for (std::uint32_t i : indices)
            if (i < removed_.size() && !removed_[i]) {
                removed_[i] = 1;
                ++pendingRemoved_;
            }
    }

    std::size_t size() const override { return pos_.size() - pendingRemoved_; }

    void setWall(const WallDistanceField* wall) override { wall_ = wall; }

    void computeDensities(const StepInput& in) override {
        auto t0 = Clock::now();
        buildGrid(in.grid);
        times_.grid += msSince(t0);
        t0 = Clock::now();
        densityPass(in);
        times_.density += msSince(t0);
    }

    bool supportsDivergenceFree() const override { return true; }

    StepOutput step(const StepInput& in) override {
        if (in.pressureSolver == PressureSolver::DivergenceFree) return stepDivergenceFree(in);
        computeDensities(in);
        StepOutput out;
        auto t0 = Clock::now();
        if (!in.openBoundaries.empty()) {
            bufferDensityCorrection(in);
            bufferVelocityPass(in);
        }
        out.neighbourPairs = forcePass(in);
        times_.force += msSince(t0);
        t0 = Clock::now();
        integrate(in);
        times_.integrate += msSince(t0);
        t0 = Clock::now();
        boundaryPass(in, out);
        if (!in.openBoundaries.empty()) createBufferParticles(in, out);
        times_.boundary += msSince(t0);
        return out;
    }

    /// DFSPH (DivergenceFreeSolve.h): this step's neighbourhoods and densities, the
    /// divergence solve on the velocities, the forces but pressure (viscosity, the
    /// walls' friction, gravity), the density solve on the velocities they advanced, then
    /// the positions and the boundaries as step() moves them.
    StepOutput stepDivergenceFree(const StepInput& in) {
        computeDensities(in);
        StepOutput out;
        auto t0 = Clock::now();
        // The density pass's lists, or the grid where a list overflowed.
        pressureSolve_.gatherNeighbours(pos_.size(), [&](std::size_t i, auto&& f) {
            if (listCount_[i] <= kListed) {
                for (unsigned m = 0; m < listCount_[i]; ++m)
                    if (listed_[i * kListed + m] != i) f(listed_[i * kListed + m]);
                return;
            }
            forEachCandidateRange(pos_[i], [&](std::uint32_t begin, std::uint32_t end) {
                for (std::uint32_t j = begin; j < end; ++j)
                    if (j != i && lengthSquared(pos_[i] - pos_[j]) < in.kernels.h2) f(j);
            });
        });
        const DivergenceFreeSettings settings{in.dt,         in.mass,           in.restDensity,        in.kernels,
                                              in.maxDensityError, in.maxDivergenceError, in.maxSolverIterations};
        const DivergenceFreeParticles particles{pos_, vel_, density_, walls_};
        pressureSolve_.prepare(particles, settings);
        const SolveReport divergence = pressureSolve_.correctDivergence(particles, settings);
        std::fill(pressure_.begin(), pressure_.end(), 0.f);
        copyFlatVelocities(); // the force pass reads the flat copies
        out.neighbourPairs = forcePass(in);
        const float dt = in.dt;
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) vel_[i] += accel_[i] * dt;
        });
        const SolveReport density = pressureSolve_.correctDensity(particles, settings);
        std::copy(pressureSolve_.pressure().begin(), pressureSolve_.pressure().end(), pressure_.begin());
        times_.force += msSince(t0);
        t0 = Clock::now();
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) pos_[i] += vel_[i] * dt;
        });
        times_.integrate += msSince(t0);
        t0 = Clock::now();
        boundaryPass(in, out);
        times_.boundary += msSince(t0);
        out.divergenceIterations = divergence.iterations;
        out.divergenceError = divergence.error;
        out.densityIterations = density.iterations;
        out.densityError = density.error;
        return out;
    }

    /// Copies the live particles (those removed during the last step are left out).
    void download(unsigned fields, HostParticles& out) const override {
        const auto copy = [&](const auto& from, auto& to) {
            to.clear();
            to.reserve(size());
            for (std::size_t i = 0; i < from.size(); ++i)
                if (!removed_[i]) to.push_back(from[i]);
        };
        if (fields & FieldPosition) copy(pos_, out.position);
        if (fields & FieldVelocity) copy(vel_, out.velocity);
        if (fields & FieldDensity) copy(density_, out.density);
        if (fields & FieldPressure) copy(pressure_, out.pressure);
    }

    void markOccupied(std::span<const Vec3> candidates, float radius, std::vector<std::uint8_t>& blocked) const override {
        if (candidates.empty()) return;
        const Aabb box = candidateBounds(candidates, radius);
        const float r2 = radius * radius;
        for (std::size_t i = 0; i < pos_.size(); ++i) {
            if (removed_[i] || !box.contains(pos_[i])) continue;
            for (std::size_t c = 0; c < candidates.size(); ++c)
                if (lengthSquared(candidates[c] - pos_[i]) < r2) blocked[c] = 1;
        }
    }

    void sampleBloodAround(std::span<const Vec3> candidates, const SphKernels& kernels,
                           std::vector<float>& sums) const override {
        if (candidates.empty()) return;
        const Aabb box = candidateBounds(candidates, kernels.h);
        for (std::size_t i = 0; i < pos_.size(); ++i) {
            if (removed_[i] || !box.contains(pos_[i])) continue;
            for (std::size_t c = 0; c < candidates.size(); ++c) {
                const float w = kernels.poly6W(lengthSquared(candidates[c] - pos_[i]));
                if (w <= 0.f) continue;
                float* s = &sums[5 * c];
                s[0] += w;
                s[1] += w * density_[i];
                s[2] += w * vel_[i].x;
                s[3] += w * vel_[i].y;
                s[4] += w * vel_[i].z;
            }
        }
    }

    std::size_t bytesPerParticle() const override {
        // pos, vel, accel, tmp pos/vel (12 B each), their flat copies (24 B), density,
        // pressure, volume, key, order, list count (4 B each), removed flag (1 B), the
        // walls near it (density pass -> force pass), the neighbour list (256 B); grid
        // cells are amortised over the particles.
        const std::size_t n = std::max<std::size_t>(pos_.size(), 1);
        const std::size_t perParticle = 5 * sizeof(Vec3) + 6 * sizeof(float) + 6 * sizeof(float) + 1 +
                                        sizeof(WallNeighbourhood) + kListed * sizeof(std::uint32_t);
        return perParticle + (cellStart_.size() + zRank_.size()) * sizeof(std::uint32_t) / n;
    }

    StageTimes stageTimes() const override { return times_; }
    void resetStageTimes() override { times_ = {}; }

private:
    void resizeDerived() {
        const std::size_t n = pos_.size();
        density_.resize(n);
        pressure_.resize(n);
        accel_.resize(n);
    }

    // --- neighbour grid -------------------------------------------------------------

    int cellCoord(float p, float origin, int n) const { return sph::cellCoord(p, origin, cells_.invCell, n); }

    /// Sort key of a cell: its linear index, or its rank along the Z curve.
    std::uint32_t cellKey(int x, int y, int z) const {
        const std::uint32_t lin = linearCell(cells_, x, y, z);
        return grid_.zOrder ? zRank_[lin] : lin;
    }

    void prepareGrid(const GridGeometry& g) {
        const bool changed = g.nx != grid_.nx || g.ny != grid_.ny || g.nz != grid_.nz || g.zOrder != grid_.zOrder;
        grid_ = g;
        cells_.origin = g.origin;
        cells_.cellSize = g.cellSize;
        cells_.invCell = 1.f / g.cellSize;
        cells_.nx = g.nx;
        cells_.ny = g.ny;
        cells_.nz = g.nz;
        cells_.zOrder = g.zOrder ? 1 : 0;
        if (!changed && !cellStart_.empty()) return;
        cellStart_.assign(g.cellCount() + 2, 0);
        zRank_.clear();
        if (g.zOrder) zRank_ = zOrderRanks(g);
    }

    /// Counting sort of particles by cell key; removed particles get the key one past
    /// the last cell and are dropped. Afterwards particle arrays are in cell order and
    /// cellStart_[key] .. cellStart_[key + 1] lists each cell's particles.
    void buildGrid(const GridGeometry& g) {
        prepareGrid(g);
        const std::size_t n = pos_.size();
        const std::uint32_t sentinel = std::uint32_t(g.cellCount());
        key_.resize(n);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                if (removed_[i]) {
                    key_[i] = sentinel;
                    continue;
                }
                const Vec3 p = pos_[i];
                key_[i] = cellKey(cellCoord(p.x, g.origin.x, g.nx), cellCoord(p.y, g.origin.y, g.ny),
                                  cellCoord(p.z, g.origin.z, g.nz));
            }
        });
        std::fill(cellStart_.begin(), cellStart_.end(), 0u);
        for (std::size_t i = 0; i < n; ++i) ++cellStart_[key_[i] + 1];
        for (std::size_t c = 1; c < cellStart_.size(); ++c) cellStart_[c] += cellStart_[c - 1];
        order_.resize(n);
        {
            // Scatter with a running cursor per cell (stable: keeps the previous order
            // inside a cell, which keeps the run deterministic).
            cursor_.assign(cellStart_.begin(), cellStart_.end() - 1);
            for (std::size_t i = 0; i < n; ++i) order_[cursor_[key_[i]]++] = std::uint32_t(i);
        }
        pressureSolve_.reorder(std::span(order_).first(cellStart_[sentinel])); // DFSPH's warm start
        const std::size_t alive = cellStart_[sentinel];
        tmpPos_.resize(alive);
        tmpVel_.resize(alive);
        for (auto* a : {&px_, &py_, &pz_, &vx_, &vy_, &vz_}) a->resize(alive);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, alive, kGrain), [&](const auto& r) {
            for (std::size_t k = r.begin(); k != r.end(); ++k) {
                const Vec3 p = pos_[order_[k]], v = vel_[order_[k]];
                tmpPos_[k] = p;
                tmpVel_[k] = v;
                // Flat copies for the vectorised neighbour loops.
                px_[k] = p.x, py_[k] = p.y, pz_[k] = p.z;
                vx_[k] = v.x, vy_[k] = v.y, vz_[k] = v.z;
            }
        });
        pos_.swap(tmpPos_);
        vel_.swap(tmpVel_);
        removed_.assign(alive, 0);
        pendingRemoved_ = 0;
        resizeDerived();
    }

    /// Calls f(begin, end) for the contiguous particle ranges of the cells around p that
    /// can hold a neighbour (CandidateCells.h, the CUDA backend's rule too): 9 rows of up
    /// to 3 cells in linear order, single cells in Z order.
    template <class F>
    void forEachCandidateRange(Vec3 p, F&& f) const {
        const CandidateRows rows(cells_, p);
        for (int row = 0; row < kCandidateRows; ++row) {
            const CandidateRow r = rows.at(row, cellStart_.data(), zRank_.data());
            for (int c = 0; c < 3; ++c)
                if (r.begin[c] < r.end[c]) f(r.begin[c], r.end[c]);
        }
    }

    void copyFlatVelocities() {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, vel_.size(), kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) vx_[i] = vel_[i].x, vy_[i] = vel_[i].y, vz_[i] = vel_[i].z;
        });
    }

    // --- physics passes ---------------------------------------------------------------

    static float equationOfState(const StepInput& in, float rho) {
        return pressureFromDensity(rho, in.equationOfState == EquationOfState::Tait, in.restDensity, in.eosStiffness,
                                   in.minPressure, in.maxPressure) +
               in.backgroundPressure;
    }

    /// The density at which a buffer particle at p has boundary b's pressure, with the
    /// hydrostatic part rho0 g . (p - center).
    static float bufferDensity(const StepInput& in, const OpenBoundary& b, Vec3 p) {
        return densityFromPressure(bufferPressure(b, in.restDensity, in.gravity, p), in.equationOfState == EquationOfState::Tait, in.restDensity,
                                   in.eosStiffness);
    }

    /// Sets the velocity of every buffer particle (zone_ from the density pass): the
    /// prescribed one, or a Shepard average of the fluid's at bufferVelocitySample
    /// (zero-gradient extrapolation). Only buffer particles are
    /// written and only fluid ones read, so the order does not matter.
    void bufferVelocityPass(const StepInput& in) {
        const SphKernels k = in.kernels;
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                if (!zone_[i]) continue;
                const OpenBoundary& b = in.openBoundaries[zone_[i] - 1];
                Vec3 v = vel_[i];
                if (b.velocity == OpenBoundaryVelocity::Prescribed) {
                    v = b.normal * b.inflowSpeed;
                } else {
                    const Vec3 sample = bufferVelocitySample(b, pos_[i], k.h);
                    float weight = 0.f, massWeight = 0.f;
                    Vec3 sum;
                    forEachCandidateRange(sample, [&](std::uint32_t begin, std::uint32_t end) {
                        for (std::uint32_t j = begin; j < end; ++j) {
                            if (zone_[j]) continue;
                            const float w = k.poly6W(lengthSquared(sample - pos_[j]));
                            weight += w * volume_[j];
                            massWeight += w;
                            sum += vel_[j] * (w * volume_[j]);
                        }
                    });
                    // Mass flux continuity across the plane: the buffer, at its own
                    // particle density, delivers the fluid's mass flux rho_f v_f.
                    if (weight > 0.f) {
                        v = sum / weight;
                        const float summed = density_[i] / (1.f + bufferExcess_[i]);
                        v *= bufferSpeedFactor(b, v, density_[i], summed, in.mass * massWeight / weight);
                    }
                }
                vel_[i] = v;
                vx_[i] = v.x, vy_[i] = v.y, vz_[i] = v.z;
            }
        });
    }

    /// Adds to the density of each fluid particle beside a buffer its buffer
    /// neighbours' excess weight (bufferDensityExcess, OpenBoundaries.h), with the
    /// pressure that follows. Only fluid particles are written, only buffer ones read.
    void bufferDensityCorrection(const StepInput& in) {
        const SphKernels k = in.kernels;
        const OpenBoundary* open = in.openBoundaries.data();
        const int openCount = int(in.openBoundaries.size());
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                const Vec3 pi = pos_[i];
                if (zone_[i] || !nearOpenBoundary(open, openCount, pi, k.h)) continue;
                float extra = 0.f;
                forEachCandidateRange(pi, [&](std::uint32_t begin, std::uint32_t end) {
                    for (std::uint32_t j = begin; j < end; ++j)
                        extra += k.poly6W(lengthSquared(pi - pos_[j])) * bufferExcess_[j];
                });
                if (extra == 0.f) continue;
                const float rho = density_[i] + in.mass * extra;
                density_[i] = rho;
                volume_[i] = in.mass / rho;
                pressure_[i] = equationOfState(in, rho);
            }
        });
    }

    /// Appends the buffer particles the boundary pass asked for (spawn_): each `depth`
    /// behind one that crossed into the fluid, with its velocity, in index order.
    void createBufferParticles(const StepInput& in, StepOutput& out) {
        if (spawnCount_ == 0) return;
        const std::size_t n = pos_.size();
        const float room2 = in.openSpawnRoom * in.openSpawnRoom;
        std::uint32_t created = 0;
        spawnCandidates_.clear();
        for (std::size_t i = 0; i < n; ++i) {
            if (!spawn_[i]) continue;
            const OpenBoundary& b = in.openBoundaries[spawn_[i] - 1];
            const Vec3 q = pos_[i] - b.normal * b.depth;
            const bool taken = occupiedNear(q, room2);
            spawnCandidates_.push_back(q);
            if (taken) {
                ++out.openDropped;
                continue;
            }
            ++created;
            pos_.push_back(q);
            vel_.push_back(vel_[i]);
            // Until the next density pass, the density and pressure of the buffer it joins.
            const float rho = bufferDensity(in, b, pos_.back());
            density_.push_back(rho);
            pressure_.push_back(equationOfState(in, rho));
        }
        removed_.resize(pos_.size(), 0);
        resizeDerived();
        out.openCreated = created;
    }

    /// Whether a live particle lies within sqrt(room2) of q (through the grid of this
    /// step: they moved less than a kernel radius since it was built), or an earlier
    /// candidate of this step (created or not; the GPU's rule, where they are checked at
    /// once).
    bool occupiedNear(Vec3 q, float room2) const {
        bool found = false;
        forEachCandidateRange(q, [&](std::uint32_t begin, std::uint32_t end) {
            for (std::uint32_t j = begin; j < end && !found; ++j)
                found = !removed_[j] && lengthSquared(pos_[j] - q) < room2;
        });
        for (std::size_t c = 0; c < spawnCandidates_.size() && !found; ++c)
            found = lengthSquared(spawnCandidates_[c] - q) < room2;
        return found;
    }

    WallNeighbourhood wallsNear(const StepInput& in, Vec3 p, const WallFieldView* wall) const {
        return wallNeighbourhood(p, in.kernels.h, in.wallDistanceOffset, in.gravity, in.container, in.planes.data(),
                                 int(in.planes.size()), wall);
    }

    const WallFieldView* wallView(WallFieldView& storage, float poseAge) const {
        if (!wall_ || wall_->empty()) return nullptr;
        storage = wall_->view();
        storage.poseAge = poseAge;
        return &storage;
    }

    // The density pass scans the 27 cells once and records each particle's neighbours
    // (up to kListed of them; beyond that the force pass scans again rather than drop
    // any); the force pass then visits only those. Both loops read the flat copies.

    static constexpr unsigned kListed = 64;
    using Float4 = float __attribute__((vector_size(16)));
    using Int4 = std::int32_t __attribute__((vector_size(16)));
    static Float4 splat(float v) { return Float4{v, v, v, v}; }
    static Float4 masked(Float4 v, Int4 keep) { return reinterpret_cast<Float4>(reinterpret_cast<Int4>(v) & keep); }
    static float horizontalSum(Float4 v) { return (v[0] + v[1]) + (v[2] + v[3]); }
    static Float4 sqrt4(Float4 v) {
#if defined(__SSE__)
        return Float4(_mm_sqrt_ps(__m128(v)));
#else
        return Float4{std::sqrt(v[0]), std::sqrt(v[1]), std::sqrt(v[2]), std::sqrt(v[3])};
#endif
    }

    void densityPass(const StepInput& in) {
        const SphKernels k = in.kernels;
        WallFieldView storage;
        const WallFieldView* wall = wallView(storage, in.wallPoseAge);
        const float* __restrict px = px_.data();
        const float* __restrict py = py_.data();
        const float* __restrict pz = pz_.data();
        const std::size_t n = pos_.size();
        const OpenBoundary* open = in.openBoundaries.data();
        const int openCount = int(in.openBoundaries.size());
        zone_.resize(openCount > 0 ? n : 0);
        bufferExcess_.resize(openCount > 0 ? n : 0);
        volume_.resize(n);
        walls_.resize(n);
        listCount_.resize(n);
        listed_.resize(n * kListed);
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                const Vec3 pi = pos_[i];
                std::uint32_t* __restrict list = &listed_[i * kListed];
                unsigned count = 0;
                // Four candidates at a time (GCC/Clang vector extension, SSE2 on
                // x86-64): distances and kernel values in lanes, summed per lane. A
                // range's last group reads its last candidate again in the lanes past
                // its end, which count for nothing.
                const Float4 xi = splat(pi.x), yi = splat(pi.y), zi = splat(pi.z), h2 = splat(k.h2);
                const Int4 lane = {0, 1, 2, 3};
                Float4 lanes = {};
                forEachCandidateRange(pi, [&](std::uint32_t begin, std::uint32_t end) {
                    for (std::uint32_t j = begin; j < end; j += 4) {
                        Float4 x, y, z;
                        if (j + 4 <= end) {
                            std::memcpy(&x, px + j, sizeof x);
                            std::memcpy(&y, py + j, sizeof y);
                            std::memcpy(&z, pz + j, sizeof z);
                        } else {
                            const auto at = [&](std::uint32_t l) { return std::min(j + l, end - 1); };
                            x = Float4{px[at(0)], px[at(1)], px[at(2)], px[at(3)]};
                            y = Float4{py[at(0)], py[at(1)], py[at(2)], py[at(3)]};
                            z = Float4{pz[at(0)], pz[at(1)], pz[at(2)], pz[at(3)]};
                        }
                        const Float4 dx = xi - x, dy = yi - y, dz = zi - z;
                        const Float4 r2 = dx * dx + dy * dy + dz * dz;
                        const Int4 inside = (r2 < h2) & (lane < std::int32_t(end - j));
                        const Float4 d = masked(h2 - r2, inside);
                        lanes += d * d * d;
                        // Branch-free append: j always lands in the list, the count only
                        // advances for neighbours (self included; the force pass skips
                        // r = 0).
                        for (std::uint32_t l = 0; l < 4; ++l) {
                            list[count < kListed ? count : kListed - 1] = j + l;
                            count += inside[l] != 0 ? 1u : 0u;
                        }
                    }
                });
                const float sum = horizontalSum(lanes);
                listCount_[i] = count;
                // The walls near p_i, kept for the force pass (same positions): the
                // wall field is sampled once per step here, not twice.
                walls_[i] = wallsNear(in, pi, wall);
                float rho = in.mass * k.poly6 * sum + in.restDensity * walls_[i].densityFraction();
                if (openCount > 0) {
                    // A buffer particle carries its boundary's pressure (OpenBoundaries.h).
                    const int zone = openBoundaryZone(open, openCount, pi);
                    zone_[i] = std::uint8_t(zone);
                    bufferExcess_[i] = 0.f;
                    if (zone) {
                        const float summed = rho;
                        rho = bufferDensity(in, open[zone - 1], pi);
                        bufferExcess_[i] = bufferDensityExcess(rho, summed);
                    }
                }
                density_[i] = rho;
                volume_[i] = in.mass / rho;
                pressure_[i] = equationOfState(in, rho);
            }
        });
    }

    /// Pressure (symmetric in i and j, after Poyart eq. 2.6a) and viscosity (relative
    /// velocity, eq. 2.6b) accelerations plus gravity, written as a_i = f_i / rho_i so
    /// the pair forces m a_i are antisymmetric and momentum is conserved exactly.
    /// The pressure term uses (p_i + p_j) where eq. 2.6a has (p_i + p_j) / 2: in the
    /// bulk sum_j V_j grad W_ij ~ 0 and sum_j V_j p_j grad W_ij ~ grad p, so the halved
    /// form yields grad p / 2 and a hydrostatic column would settle at twice rho g h.
    /// The pressure gradient is divided by spikyGradientLatticeSum() (0.947 for h = 2
    /// spacings), so that on the seeding lattice it is exact for a linear pressure.
    std::uint64_t forcePass(const StepInput& in) {
        const SphKernels k = in.kernels;
        const float* __restrict px = px_.data();
        const float* __restrict py = py_.data();
        const float* __restrict pz = pz_.data();
        const float* __restrict vx = vx_.data();
        const float* __restrict vy = vy_.data();
        const float* __restrict vz = vz_.data();
        const float* __restrict vol = volume_.data();
        const float* __restrict pr = pressure_.data();
        const float* __restrict rho = density_.data();
        const float muLap = in.viscosity * k.viscLap;
        const float pressureGrad = k.spikyGrad * in.pressureGradientScale;
        return tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), std::uint64_t{0},
            [&](const auto& r, std::uint64_t pairs) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    const Vec3 pi = pos_[i], vi = vel_[i];
                    const float rhoI = density_[i], pI = pressure_[i];
                    // Four neighbours at a time in vector lanes (gathered). Lanes that
                    // are no neighbour - self (which also pads the last group), a
                    // coincident particle, beyond h - are masked to zero.
                    Float4 ax = {}, ay = {}, az = {};
                    Float4 bx = {}, by = {}, bz = {}; // artificial viscosity (m/s^2)
                    const Float4 h = splat(k.h), h2 = splat(k.h2), zero = splat(0.f);
                    const auto interact4 = [&](std::uint32_t j0, std::uint32_t j1, std::uint32_t j2, std::uint32_t j3) {
                        const auto gather = [&](const float* a) { return Float4{a[j0], a[j1], a[j2], a[j3]}; };
                        const Float4 dx = splat(pi.x) - gather(px), dy = splat(pi.y) - gather(py),
                                     dz = splat(pi.z) - gather(pz);
                        const Float4 r2 = dx * dx + dy * dy + dz * dz;
                        const Int4 live = (r2 < h2) & (r2 > zero);
                        const Float4 dist = sqrt4(r2);
                        const Float4 d = h - dist;
                        const Float4 grad = d * d / dist; // inf or NaN in dead lanes, masked below
                        // -grad W_spiky(r_ij) V_j (p_i + p_j): repulsive along r_ij.
                        const Float4 volJ = gather(vol);
                        const Float4 fp = masked(splat(pressureGrad) * grad * volJ * (splat(pI) + gather(pr)), live);
                        const Float4 fv = masked(splat(muLap) * d * volJ, live);
                        const Float4 dvx = gather(vx) - splat(vi.x), dvy = gather(vy) - splat(vi.y),
                                     dvz = gather(vz) - splat(vi.z);
                        ax += fp * dx + fv * dvx;
                        ay += fp * dy + fv * dvy;
                        az += fp * dz + fv * dvz;
                        // Becker & Teschner's Pi_ij between approaching particles, in lanes
                        // (SphKernels::artificialViscosity, which the GPU uses).
                        const Float4 vDotX = -(dvx * dx + dvy * dy + dvz * dz);
                        const Float4 nu = splat(2.f * in.artificialViscosity * k.h * in.soundSpeed) /
                                          (splat(rhoI) + gather(rho));
                        const Float4 pij = splat(in.mass) * nu * (-vDotX) / (r2 + splat(0.01f * k.h2));
                        const Float4 fa = masked(pij * splat(k.spikyGrad) * grad, live & (vDotX < zero)); // along r_ij
                        bx += fa * dx;
                        by += fa * dy;
                        bz += fa * dz;
                        pairs += std::uint64_t(-(live[0] + live[1] + live[2] + live[3]));
                    };
                    // Indices first .. last - 1 of `at`, in groups of four padded with i.
                    const auto interactAll = [&](std::uint32_t first, std::uint32_t last, auto&& at) {
                        const auto self = std::uint32_t(i);
                        std::uint32_t m = first;
                        for (; m + 4 <= last; m += 4) interact4(at(m), at(m + 1), at(m + 2), at(m + 3));
                        if (m < last)
                            interact4(at(m), m + 1 < last ? at(m + 1) : self, m + 2 < last ? at(m + 2) : self, self);
                    };
                    if (listCount_[i] <= kListed) {
                        const std::uint32_t* list = &listed_[i * kListed];
                        interactAll(0, listCount_[i], [&](std::uint32_t m) { return list[m]; });
                    } else {
                        forEachCandidateRange(pi, [&](std::uint32_t begin, std::uint32_t end) {
                            interactAll(begin, end, [](std::uint32_t j) { return j; });
                        });
                    }
                    Vec3 a{horizontalSum(ax), horizontalSum(ay), horizontalSum(az)};
                    a += wallForce(walls_[i], pI, rhoI, vi, in);
                    accel_[i] = a / rhoI + Vec3{horizontalSum(bx), horizontalSum(by), horizontalSum(bz)} + in.gravity;
                }
                return pairs;
            },
            std::plus<>());
    }

    /// Semi-implicit (symplectic) Euler: v += a dt, then x += v dt. Buffer particles
    /// move at the velocity their boundary gave them.
    void integrate(const StepInput& in) {
        const float dt = in.dt;
        if (!in.openBoundaries.empty()) {
            tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), [&](const auto& r) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    if (!zone_[i]) vel_[i] += accel_[i] * dt;
                    pos_[i] += vel_[i] * dt;
                }
            });
            return;
        }
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), [&](const auto& r) {
            for (std::size_t i = r.begin(); i != r.end(); ++i) {
                vel_[i] += accel_[i] * dt;
                pos_[i] += vel_[i] * dt;
            }
        });
    }

    struct BoundaryTally {
        float maxSpeed2 = 0.f;
        std::uint32_t nonFinite = 0, outlets = 0, leaked = 0;
        std::uint32_t openRemoved = 0, openSpawns = 0;
        OpenBoundaryStepCounts open[kMaxOpenBoundaries];
        BoundaryTally merged(const BoundaryTally& o) const {
            BoundaryTally t{std::max(maxSpeed2, o.maxSpeed2), nonFinite + o.nonFinite, outlets + o.outlets,
                            leaked + o.leaked, openRemoved + o.openRemoved, openSpawns + o.openSpawns};
            for (int b = 0; b < kMaxOpenBoundaries; ++b) {
                t.open[b].entered = open[b].entered + o.open[b].entered;
                t.open[b].left = open[b].left + o.open[b].left;
                t.open[b].fluxUnits = open[b].fluxUnits + o.open[b].fluxUnits;
            }
            return t;
        }
    };

    /// A particle's open-boundary events after its travel, zone0 being its zone at the
    /// start of the step (OpenBoundaries.h): removal past a far side (before the walls,
    /// which may close the pipe right there), then, after the walls, the crossings,
    /// the request for a new buffer particle and the flux. Returns true if removed.
    static bool openBoundaryEvents(const StepInput& in, int zone0, bool beforeWalls, Vec3 p, Vec3 v,
                                   BoundaryTally& t, std::uint8_t& spawn) {
        const OpenBoundary* open = in.openBoundaries.data();
        const int count = int(in.openBoundaries.size());
        if (beforeWalls) {
            const int b = openBoundaryBeyond(open, count, p);
            if (b < 0) return false;
            ++t.openRemoved;
            if (zone0 == 0) ++t.open[b].left; // fluid that jumped the whole buffer
            return true;
        }
        const int zone1 = openBoundaryZone(open, count, p);
        if (zone0 != zone1) {
            if (zone0) {
                ++t.open[zone0 - 1].entered;
                // Crossed its plane forwards: a new buffer particle fills the gap.
                if (open[zone0 - 1].distance(p) >= 0.f) {
                    spawn = std::uint8_t(zone0);
                    ++t.openSpawns;
                }
            }
            if (zone1) ++t.open[zone1 - 1].left;
        }
        if (zone1 == 0)
            for (int b = 0; b < count; ++b) t.open[b].fluxUnits += openBoundaryFluxUnits(open[b], in.openFluxSlab, p, v);
        return false;
    }

    void boundaryPass(const StepInput& in, StepOutput& out) {
        const bool open = !in.openBoundaries.empty();
        spawn_.assign(open ? pos_.size() : 0, 0);
        WallFieldView storage;
        // Positions are at the end of the step here.
        const WallFieldView* wall = wallView(storage, in.wallPoseAge + in.dt);
        const BoundaryTally tally = tbb::parallel_reduce(
            tbb::blocked_range<std::size_t>(0, pos_.size(), kGrain), BoundaryTally{},
            [&](const auto& r, BoundaryTally t) {
                for (std::size_t i = r.begin(); i != r.end(); ++i) {
                    Vec3 p = pos_[i], v = vel_[i];
                    if (!isFinite(p) || !isFinite(v)) {
                        ++t.nonFinite;
                        continue;
                    }
                    const Vec3 previous = p - v * in.dt; // start of this step's travel
                    const int zone0 = open ? zone_[i] : 0;
                    if (open && openBoundaryEvents(in, zone0, true, p, v, t, spawn_[i])) {
                        removed_[i] = 1;
                        continue;
                    }
                    for (const BoundaryPlane& plane : in.planes) collideWithPlane(plane, previous, p, v);
                    if (in.container) collideWithBox(*in.container, p, v);
                    if (wall && collideWithWall(*wall, in.wallMargin, in.wallRestitution, p, v) == WallHit::Leaked) {
                        removed_[i] = 1;
                        ++t.leaked;
                    } else {
                        for (const Outlet& o : in.outlets)
                            if (o.contains(p)) {
                                removed_[i] = 1;
                                ++t.outlets;
                                break;
                            }
                    }
                    if (open && !removed_[i]) openBoundaryEvents(in, zone0, false, p, v, t, spawn_[i]);
                    pos_[i] = p;
                    vel_[i] = v;
                    if (!removed_[i]) t.maxSpeed2 = std::max(t.maxSpeed2, lengthSquared(v));
                }
                return t;
            },
            [](const BoundaryTally& a, const BoundaryTally& b) { return a.merged(b); });
        out.maxSpeed = std::sqrt(tally.maxSpeed2);
        out.nonFinite = tally.nonFinite;
        out.removedOutlets = tally.outlets;
        out.removedLeaked = tally.leaked;
        pendingRemoved_ += tally.outlets + tally.leaked + tally.openRemoved;
        out.openRemoved = tally.openRemoved;
        for (int b = 0; b < kMaxOpenBoundaries; ++b) out.open[b] = tally.open[b];
        spawnCount_ = tally.openSpawns;
    }

    std::vector<Vec3> pos_, vel_, accel_, tmpPos_, tmpVel_;
    std::vector<float> density_, pressure_, volume_;          // volume_ = m / rho
    std::vector<WallNeighbourhood> walls_;                    // per particle, density -> force pass
    std::vector<float> px_, py_, pz_, vx_, vy_, vz_;          // flat copies in cell order
    std::vector<std::uint32_t> listed_;                       // kListed neighbours per particle
    std::vector<unsigned> listCount_;                         // neighbours found (may exceed kListed)
    std::vector<std::uint8_t> removed_;
    std::vector<std::uint8_t> zone_;  // open boundaries: 0 fluid, b + 1 in b's buffer (density pass)
    std::vector<float> bufferExcess_;  // open boundaries: bufferDensityExcess of buffer particles, 0 for fluid
    std::vector<std::uint8_t> spawn_; // open boundaries: b + 1 where b needs a new buffer particle
    std::size_t spawnCount_ = 0;
    std::vector<Vec3> spawnCandidates_; // createBufferParticles: this step's, in index order
    std::vector<std::uint32_t> key_, order_, cellStart_, cursor_, zRank_;
    GridGeometry grid_;
    CellGrid cells_; // grid_ as CandidateCells.h reads it
    std::size_t pendingRemoved_ = 0; // flagged in removed_, dropped at the next grid build
    const WallDistanceField* wall_ = nullptr;
    StageTimes times_;
    DivergenceFreeSolve pressureSolve_; // PressureSolver::DivergenceFree

};

} // namespace

std::unique_ptr<Backend> makeCpuBackend() { return std::make_unique<CpuBackend>(); }

} // namespace atrium::sph
