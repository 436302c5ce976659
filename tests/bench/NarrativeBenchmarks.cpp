// Micro-benchmark of the narrative player (Poyart 2016 5.4): evaluate() runs every frame
// while a narrative plays (and for every frame of a video export). Target: at most 2 us
// per frame. Run:
//   build/tests/bench/narrative_benchmarks --benchmark_format=json
#include "narrative/NarrativeDocument.h"
#include "narrative/NarrativePlayer.h"

#include <benchmark/benchmark.h>

#include <cmath>
#include <random>

using namespace atrium::narrative;

namespace {

/// `n` nodes on a circle round a heart, each 4 s long, flights of 3 s; every fifth
/// node waits for a key (pressed 2 s after its overlays show).
std::pair<Narrative, std::vector<double>> tour(int n, bool waits) {
    Narrative narrative;
    for (int k = 0; k < n; ++k) {
        Node node;
        const double a = 2.0 * 3.14159265358979 * k / n;
        node.pose = CameraPose::lookAt({200 * std::cos(a), 200 * std::sin(a), 20.0 * (k % 3)}, {0, 0, 0});
        node.waitForKey = waits && k % 5 == 2;
        insertNode(narrative, std::size_t(k), node);
    }
    // Key presses for the waits, from a full play-through.
    std::vector<double> keys;
    for (;;) {
        const PlayerFrame f = evaluate(narrative, 1e9, keys);
        if (f.stage != PlayerStage::WaitingForKey) break;
        keys.push_back(f.stageStart + 2.0);
    }
    return {narrative, keys};
}

/// One frame at a random moment of the tour (the first argument: nodes; the second: 1
/// when some nodes wait for keys, which the player then walks through).
void evaluateFrame(benchmark::State& state) {
    const auto [narrative, keys] = tour(int(state.range(0)), state.range(1) != 0);
    const double length = duration(narrative, keys).value();
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> when(0.0, length);
    std::vector<double> times(1024);
    for (double& t : times) t = when(rng);
    std::size_t i = 0;
    for (auto _ : state) {
        const PlayerFrame f = evaluate(narrative, times[i++ & 1023], keys);
        benchmark::DoNotOptimize(f);
    }
}
BENCHMARK(evaluateFrame)->Args({5, 0})->Args({5, 1})->Args({50, 0})->Args({50, 1})->Args({500, 1});

/// Loading the shipped tour (parse, schema, model rules, media check).
void loadTour(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(loadNarrativeDocument(ATRIUM_SOURCE_DIR "/content/narratives/phantom-tour.narratives.json"));
}
BENCHMARK(loadTour)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
