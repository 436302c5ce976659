// Micro-benchmarks of one solver sub-step. Run:
//   build/tests/bench/sph_benchmarks --benchmark_format=json
// Counters: ns per particle-step and neighbour pairs per second of the whole step.
#include "app/sim/BenchmarkScenes.h"
#include "sim/sph/Solver.h"
#include "sim/sph/WallDistanceField.h"

#include <benchmark/benchmark.h>
#include <tbb/global_control.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

using namespace atrium;

namespace {

void solverStep(benchmark::State& state, const char* sceneName) {
    sph::Solver solver(app::benchmarkScene(sceneName, std::size_t(state.range(0))));
    for (int i = 0; i < 10; ++i) solver.step();
    std::uint64_t particleSteps = 0, pairs = 0;
    for (auto _ : state) {
        particleSteps += solver.particleCount();
        solver.step();
        pairs += solver.lastNeighbourPairs();
    }
    state.counters["particles"] = double(solver.particleCount());
    state.counters["ns_per_particle_step"] =
        benchmark::Counter(double(particleSteps) * 1e-9, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["neighbor_pairs_per_s"] = benchmark::Counter(double(pairs), benchmark::Counter::kIsRate);
}

/// Closed "cube sphere": each face of a cube split into n x n quads (12 n^2 triangles,
/// outward counter-clockwise), projected on a sphere of radius r whose radius is then
/// modulated by a few low-order lobes, so the surface is curved unevenly like a heart
/// chamber. n = 65: 50,700 triangles.
sph::TriangleMesh lobedCubeSphere(float r, int n) {
    sph::TriangleMesh m;
    std::map<std::array<int, 3>, std::uint32_t> index; // cube lattice point -> vertex
    auto vertex = [&](std::array<int, 3> g) {
        const auto [it, added] = index.try_emplace(g, std::uint32_t(m.vertices.size()));
        if (added) {
            const sph::Vec3 d = sph::normalized(sph::Vec3{float(2 * g[0] - n), float(2 * g[1] - n), float(2 * g[2] - n)});
            const float lobes = 1.f + 0.12f * std::sin(3.f * d.x + 1.f) * std::cos(2.f * d.y) + 0.08f * d.z * d.z;
            m.vertices.push_back(d * (r * lobes));
        }
        return it->second;
    };
    for (int axis = 0; axis < 3; ++axis)
        for (int side = 0; side < 2; ++side) {
            const int u = (axis + 1) % 3, w = (axis + 2) % 3;
            for (int a = 0; a < n; ++a)
                for (int b = 0; b < n; ++b) {
                    std::uint32_t q[4];
                    const int corner[4][2] = {{a, b}, {a + 1, b}, {a + 1, b + 1}, {a, b + 1}};
                    for (int c = 0; c < 4; ++c) {
                        std::array<int, 3> g{};
                        g[axis] = side * n;
                        g[u] = corner[c][0];
                        g[w] = corner[c][1];
                        q[c] = vertex(g);
                    }
                    // (u, w, axis) is right-handed: counter-clockwise seen from +axis.
                    if (side == 1) {
                        m.triangles.push_back({q[0], q[1], q[2]});
                        m.triangles.push_back({q[0], q[2], q[3]});
                    } else {
                        m.triangles.push_back({q[0], q[2], q[1]});
                        m.triangles.push_back({q[0], q[3], q[2]});
                    }
                }
        }
    return m;
}

/// Two lobed chambers (n = 46 each: 2 x 25,392 triangles, r = 4 cm) side by side with a
/// 1.4 mm gap between them: a septum thinner than a 2 mm cell, so the field has thin
/// cells with exact triangle lists.
sph::TriangleMesh twoChambers() {
    sph::TriangleMesh a = lobedCubeSphere(0.04f, 46), b = a;
    float aMax = -1e9f, bMin = 1e9f;
    for (sph::Vec3& v : a.vertices) aMax = std::max(aMax, v.x -= 0.0407f);
    for (const sph::Vec3& v : b.vertices) bMin = std::min(bMin, v.x);
    for (sph::Vec3& v : b.vertices) v.x += aMax - bMin + 0.0014f;
    const auto offset = std::uint32_t(a.vertices.size());
    a.vertices.insert(a.vertices.end(), b.vertices.begin(), b.vertices.end());
    for (auto t : b.triangles) a.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
    return a;
}

/// At most `threads` TBB threads while the result lives (0: no limit).
std::unique_ptr<tbb::global_control> threadLimit(int threads) {
    if (threads <= 0) return nullptr;
    return std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
}

/// The wall benches' mesh `id`: 3, 4, 5: icosphere subdivisions, r = 5 cm; 50: lobed
/// cube sphere of 50,700 triangles, r = 5 cm; 51: two chambers with a thin gap.
sph::TriangleMesh wallBenchMesh(int id) {
    return id == 50 ? lobedCubeSphere(0.05f, 65)
                    : id == 51 ? twoChambers() : sph::TriangleMesh::icosphere({0.f, 0.f, 0.f}, 0.05f, id);
}

/// Args: mesh (3, 4, 5: icosphere subdivisions, r = 5 cm; 50: lobed cube sphere of
/// 50,700 triangles, r = 5 cm; 51: two chambers with a thin gap, 50,784 triangles), cell
/// size (um), TBB threads (0: default). Every iteration scales the mesh (a beat) and
/// passes vertex velocities. Wall time is what a sub-frame costs; CPU is summed over all
/// threads.
/// Pose `frame` (of 17) of a beating wall: `mesh` scaled by 1 +- 5 %, with the
/// vertices' velocities. `moving` (a copy of `mesh`) and `velocity` (one per vertex)
/// get the pose's vertices and velocities.
void beatingWallPose(const sph::TriangleMesh& mesh, int frame, sph::TriangleMesh& moving,
                     std::vector<sph::Vec3>& velocity) {
    const float phase = 0.37f * float(frame % 17);
    const float scale = 1.f + 0.05f * std::sin(phase), rate = 0.05f * std::cos(phase);
    for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
        moving.vertices[i] = mesh.vertices[i] * scale;
        velocity[i] = mesh.vertices[i] * rate;
    }
}

void wallFieldRebuild(benchmark::State& state) {
    const sph::TriangleMesh mesh = wallBenchMesh(int(state.range(0)));
    const int threads = int(state.range(2));
    const auto limit = threadLimit(threads);
    // A beating wall: every build moves the vertices (same triangles) and gives velocities.
    std::vector<sph::Vec3> velocity(mesh.vertices.size());
    sph::TriangleMesh moving = mesh;
    sph::WallDistanceField field;
    sph::WallDistanceField::Settings settings;
    settings.cellSize = float(state.range(1)) * 1e-6f;
    int frame = 0;
    for (auto _ : state) {
        beatingWallPose(mesh, frame++, moving, velocity);
        field.build(moving, &velocity, settings);
    }
    state.counters["triangles"] = double(mesh.triangles.size());
    state.counters["nodes"] = double(field.view().nodeCount);
    state.counters["threads"] = double(threads > 0 ? threads : int(tbb::global_control::active_value(
                                                                       tbb::global_control::max_allowed_parallelism)));
}

} // namespace

BENCHMARK_CAPTURE(solverStep, dam_break, "dam-break")->Arg(15000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solverStep, pulsing_sphere, "pulsing-sphere")->Arg(15000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(wallFieldRebuild)
    ->ArgNames({"mesh", "cell_um", "threads"})
    ->Args({4, 2000, 1})->Args({4, 2000, 2})
    ->Args({5, 2000, 1})->Args({5, 2000, 2})
    ->Args({5, 2500, 1})->Args({5, 2500, 2})
    ->Args({3, 1000, 1})->Args({3, 1000, 2})
    ->Args({50, 2000, 1})->Args({50, 2000, 2})
    ->Args({51, 2000, 1})->Args({51, 2000, 2})
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

/// Restoring a kept pose (WallDistanceField::restore) instead of rebuilding it: the
/// 17 poses of wallFieldRebuild's beat are built and snapshotted once, then restored in
/// turn. Same args as wallFieldRebuild; the snapshots' memory is reported per pose.
void wallFieldRestore(benchmark::State& state) {
    const sph::TriangleMesh mesh = wallBenchMesh(int(state.range(0)));
    const int threads = int(state.range(2));
    const auto limit = threadLimit(threads);
    sph::WallDistanceField::Settings settings;
    settings.cellSize = float(state.range(1)) * 1e-6f;
    std::vector<sph::WallDistanceField::Snapshot> poses;
    sph::WallDistanceField field;
    double bytes = 0.0;
    sph::TriangleMesh moving = mesh;
    std::vector<sph::Vec3> velocity(mesh.vertices.size());
    for (int frame = 0; frame < 17; ++frame) {
        beatingWallPose(mesh, frame, moving, velocity);
        field.build(moving, &velocity, settings);
        poses.push_back(field.snapshot());
        bytes += double(poses.back().bytes());
    }
    std::size_t pose = 0;
    for (auto _ : state) field.restore(poses[pose++ % poses.size()]);
    state.counters["triangles"] = double(mesh.triangles.size());
    state.counters["pose_bytes"] = bytes / double(poses.size());
    state.counters["field_bytes"] = double(field.bytes());
}
BENCHMARK(wallFieldRestore)
    ->ArgNames({"mesh", "cell_um", "threads"})
    ->Args({50, 2000, 1})->Args({50, 2000, 2})
    ->Args({51, 2000, 1})->Args({51, 2000, 2})
    ->MeasureProcessCPUTime()
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
