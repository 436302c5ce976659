// SimulationRunner against a heart whose blood blows up at once (issue 11): it is
// restarted a bounded number of times, then the runner stops and says what to change,
// so that neither the GUI nor a headless run retries forever.

#include "widgets/flow/SimulationRunner.h"

#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshInterpolation.h"
#include "sim/sph/TriangleMesh.h"

#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

using namespace atrium;

TEST(SimulationRunner, BloodThatBlowsUpAtOnceStopsAfterBoundedRestartsSayingWhatToChange) {
    // A sphere that jumps 30 mm back and forth twice a millisecond, keeping its volume (a
    // closed heart whose volume changed is refused before the first step): its wall drags
    // the blood far past the solver's speed limit as soon as the beat starts, every time.
    std::vector<sph::TriangleMesh> phases{sph::TriangleMesh::icosphere({0, 0, 0}, 30.f, 2),
                                          sph::TriangleMesh::icosphere({30, 0, 0}, 30.f, 2)};
    const auto heart = std::make_shared<const heart::MovingHeartMesh>(
        heart::MovingHeartMesh::build(std::move(phases), heart::InterpolationSettings{}));
    widgets::RunnerSettings settings;
    settings.cycleSeconds = 0.002;
    settings.simulation = heart::HeartSimulationSettings::forParticleBudget(heart::enclosedVolumeMl(heart->phaseMesh(0)), 1000);
    settings.simulation.relaxationSteps = 5;
    settings.maxRestarts = 2;
    widgets::SimulationRunner runner(heart, {}, settings);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
    while (runner.state() != widgets::SimulationRunner::State::Failed && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_EQ(runner.state(), widgets::SimulationRunner::State::Failed) << "still restarting after 3 minutes";
    EXPECT_EQ(runner.restarts(), 2);
    const std::string why = runner.failure();
    EXPECT_NE(why.find("the blood blew up 3 times in a row"), std::string::npos) << why;
    EXPECT_NE(why.find("simulation blew up at step"), std::string::npos) << why;
    EXPECT_NE(why.find("Fewer particles or a lower heart rate"), std::string::npos) << why;
    EXPECT_NE(why.find("--scale"), std::string::npos) << why;
}
