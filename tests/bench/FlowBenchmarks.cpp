// The real-time flow's cost per frame of the view (docs/baked-flow.md): sampling a baked
// beat of ~15k particles at a phase (decode, move along the velocities), and the whole
// BakedFlowPlayer frame with the adult phantom's wall posed at that phase and the
// snapshot converted for the renderer. Run:
//   build/tests/bench/flow_benchmarks --benchmark_format=json

#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"
#include "widgets/flow/BakedFlowPlayer.h"

#include <benchmark/benchmark.h>

#include <memory>
#include <random>

using namespace atrium;

namespace {

std::shared_ptr<const heart::BakedBeat> syntheticBeat(std::size_t particles, int frames) {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> pos(-40.f, 80.f), vel(-1.f, 1.f), de(-0.03f, 0.05f), p(-1000.f, 8000.f);
    std::vector<heart::BloodFrame> out(static_cast<std::size_t>(frames));
    for (heart::BloodFrame& f : out)
        for (std::size_t i = 0; i < particles; ++i) {
            for (int a = 0; a < 3; ++a) {
                f.positionMm.push_back(pos(rng));
                f.velocity.push_back(vel(rng));
            }
            f.densityError.push_back(de(rng));
            f.pressure.push_back(p(rng));
        }
    return std::make_shared<const heart::BakedBeat>("bench", 0.8, 2.2, sph::Aabb{{-60, -60, -90}, {90, 90, 110}}, out);
}

void BM_SampleBeat(benchmark::State& state) {
    const auto beat = syntheticBeat(std::size_t(state.range(0)), 60);
    heart::BloodFrame frame;
    double phase = 0.0;
    for (auto _ : state) {
        beat->sampleAt(phase, frame);
        benchmark::DoNotOptimize(frame.positionMm.data());
        phase += 1.0 / 75.0;
    }
    state.counters["particles"] = double(state.range(0));
}
BENCHMARK(BM_SampleBeat)->Arg(15000)->Unit(benchmark::kMicrosecond);

void BM_PlayerFrame(benchmark::State& state) {
    // The adult phantom from the heart cache (built on first use).
    heart::PipelineReport report;
    const auto heart = std::make_shared<const heart::MovingHeartMesh>(
        heart::loadHeart(heart::HeartSource::fromPreset("adult"), heart::PipelineSettings::forBlood(), &report));
    widgets::BakedFlowPlayer player(syntheticBeat(std::size_t(state.range(0)), 60), heart, report.cycleSeconds);
    for (auto _ : state) {
        player.advance(1.0 / 60.0);
        benchmark::DoNotOptimize(player.latest().get());
    }
    state.counters["particles"] = double(state.range(0));
    state.counters["wall_triangles"] = double(player.latest()->wallTriangles.size() / 3);
}
BENCHMARK(BM_PlayerFrame)->Arg(15000)->Unit(benchmark::kMicrosecond);

} // namespace

BENCHMARK_MAIN();
