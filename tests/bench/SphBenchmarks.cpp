// Micro-benchmarks of one solver sub-step. Run:
//   build/tests/bench/sph_benchmarks --benchmark_format=json
// Counters: ns per particle-step and neighbour pairs per second of the whole step.
#include "app/sim/BenchmarkScenes.h"
#include "sim/sph/Solver.h"
#include "sim/sph/WallDistanceField.h"

#include <benchmark/benchmark.h>

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

void wallFieldRebuild(benchmark::State& state) {
    const sph::TriangleMesh mesh = sph::TriangleMesh::icosphere({0.f, 0.f, 0.f}, 0.05f, int(state.range(0)));
    sph::WallDistanceField field;
    sph::WallDistanceField::Settings settings;
    settings.cellSize = 0.002f;
    for (auto _ : state) field.build(mesh, nullptr, settings);
    state.counters["triangles"] = double(mesh.triangles.size());
}

} // namespace

BENCHMARK_CAPTURE(solverStep, dam_break, "dam-break")->Arg(15000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(solverStep, heart, "heart")->Arg(15000)->Arg(100000)->Unit(benchmark::kMillisecond);
BENCHMARK(wallFieldRebuild)->Arg(4)->Arg(5)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
