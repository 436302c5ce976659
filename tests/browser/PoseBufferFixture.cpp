// Writes what session/PoseBuffer shows for a fixed stream of samples, as JSON on stdout,
// for web/test/poseBufferParity.mjs to replay through the page's PoseBuffer: the samples
// (a camera circling and resting, with jittered arrival times), and at each query time
// the pose shown and the buffer's delay. Deterministic: a fixed linear congruential
// generator, no clock.
#include "session/PoseBuffer.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <iostream>
#include <numbers>

using namespace atrium;

namespace {
nlohmann::json poseJson(const narrative::CameraPose& p) {
    return {{"p", {p.position().x, p.position().y, p.position().z}}, {"yaw", p.yaw()}, {"pitch", p.pitch()}};
}
} // namespace

int main() {
    session::PoseBuffer buffer;
    std::uint64_t state = 12345;
    const auto uniform = [&state] { // [0, 1)
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        return double(state >> 11) / double(1ull << 53);
    };
    nlohmann::json events = nlohmann::json::array();
    double now = 0.0;
    for (int i = 0; i < 400; ++i) {
        // 60 Hz samples for 3 s, a rest of 1 s (no samples), then a turn through yaw +-pi
        // and a climb to the pitch limit.
        const double t = i < 180 ? i / 60.0 : 4.0 + (i - 180) / 60.0;
        const double a = 2 * std::numbers::pi * t / 4.0;
        narrative::CameraPose pose =
            i < 180 ? narrative::CameraPose::lookAt({100 * std::cos(a), 100 * std::sin(a), 20 + 10 * std::sin(3 * a)}, {0, 0, 0})
                    : narrative::CameraPose({5.0 * (i - 180), -150, 0}, std::numbers::pi * (0.9 + 0.002 * (i - 180)),
                                            -1.2 + 0.012 * (i - 180));
        const double arrival = t + 0.01 + 0.03 * uniform() * uniform(); // lateness with a long tail
        // Queries between arrivals, at the frame rate of a display (120 Hz) with jitter.
        while (now < arrival) {
            const auto shown = buffer.poseAt(now);
            events.push_back({{"query", now}, {"pose", shown ? poseJson(*shown) : nlohmann::json(nullptr)},
                              {"delay", buffer.delay()}});
            now += 1.0 / 120.0 * (0.5 + uniform());
        }
        const bool taken = buffer.push({t, pose}, arrival);
        events.push_back({{"push", {{"t", t}, {"pose", poseJson(pose)}}}, {"arrival", arrival}, {"taken", taken}});
        if (i % 97 == 0) { // now and then a sample that is not newer: dropped
            const bool stale = buffer.push({t - 0.5, pose}, arrival);
            events.push_back({{"push", {{"t", t - 0.5}, {"pose", poseJson(pose)}}}, {"arrival", arrival}, {"taken", stale}});
        }
    }
    std::cout << nlohmann::json{{"events", events}}.dump() << "\n";
    return 0;
}
