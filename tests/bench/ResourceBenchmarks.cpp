// Micro-benchmark of embedded-resource activation (Poyart 2016 5.5): the test that
// runs every frame for every resource. Target: 10,000 resources in at most 1 ms per
// frame on one core. Run:
//   build/tests/bench/resource_benchmarks --benchmark_format=json
#include "narrative/ResourceActivation.h"

#include <benchmark/benchmark.h>

#include <random>
#include <vector>

using namespace atrium::narrative;

namespace {

/// `n` resources scattered through a heart-sized box (200 mm), radii 5-40 mm, one in
/// seven without the target condition, one in a hundred global.
std::vector<Resource> scatteredResources(std::size_t n, double minRadius = 5.0, double maxRadius = 40.0) {
    std::mt19937 rng(13);
    std::uniform_real_distribution<double> pos(-100.0, 100.0), rad(minRadius, maxRadius);
    std::vector<Resource> resources(n);
    for (std::size_t i = 0; i < n; ++i) {
        Resource& r = resources[i];
        r.id = std::to_string(i);
        r.centre = {pos(rng), pos(rng), pos(rng)};
        r.target = {pos(rng), pos(rng), pos(rng)};
        r.radius = rad(rng);
        r.ignoreTarget = i % 7 == 0;
        r.global = i % 100 == 0;
    }
    return resources;
}

/// One frame: a camera flying a slow circle through the box, looking ahead. The second
/// argument 1 makes every sphere hold the camera (radii of 1 m), the worst case, where
/// each resource also runs the frustum test.
void activationUpdate(benchmark::State& state) {
    const bool everySphere = state.range(1) != 0;
    const auto resources = everySphere ? scatteredResources(std::size_t(state.range(0)), 1000.0, 1000.0)
                                       : scatteredResources(std::size_t(state.range(0)));
    ResourceActivation activation;
    activation.setResources(resources);
    const ViewFrustum frustum;
    std::size_t frame = 0, active = 0;
    for (auto _ : state) {
        const double a = 0.01 * double(frame++);
        const CameraPose pose({60.0 * std::cos(a), 60.0 * std::sin(a), 10.0 * std::sin(3.0 * a)}, a, 0.1);
        active += activation.update(pose, frustum).size();
        benchmark::DoNotOptimize(activation.active().data());
    }
    state.counters["resources"] = double(resources.size());
    state.counters["mean_active"] = double(active) / double(frame);
    state.counters["ns_per_resource"] = benchmark::Counter(double(frame) * double(resources.size()) * 1e-9,
                                                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

} // namespace

BENCHMARK(activationUpdate)
    ->ArgNames({"resources", "every_sphere"})
    ->Args({100, 0})
    ->Args({10000, 0})
    ->Args({100000, 0})
    ->Args({10000, 1})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
