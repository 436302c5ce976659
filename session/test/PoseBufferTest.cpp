// The camera across the network: the lecturer's sampler, the student's adaptive
// interpolation buffer, and clock alignment by ping.
#include "session/ClockSync.h"
#include "session/PoseBuffer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>

using namespace atrium;
using namespace atrium::session;
using narrative::CameraPose;

namespace {
/// A camera circling the origin at radius 100 mm, one turn in 4 s.
CameraPose circling(double t) {
    const double a = 2 * std::numbers::pi * t / 4.0;
    return CameraPose::lookAt({100 * std::cos(a), 100 * std::sin(a), 20}, {0, 0, 0});
}
/// The angle between two view directions, accurate for tiny angles too.
double angleBetween(const CameraPose& a, const CameraPose& b) {
    return 2.0 * std::asin(std::min(1.0, narrative::length(a.forward() - b.forward()) / 2.0));
}
} // namespace

TEST(PoseSampler, SendsAtMostMaxRateWhileMovingAndNothingWhileStill) {
    PoseSampler sampler;
    int sent = 0;
    for (int frame = 0; frame <= 144; ++frame) sent += int(sampler.update(circling(frame / 144.0), frame / 144.0).size());
    EXPECT_GE(sent, 58);
    EXPECT_LE(sent, 62); // 60 Hz at most over one second of 144 Hz frames
    // Standing still: the resting pose goes out once if the rate held it back, then nothing.
    const CameraPose rest = circling(1.0);
    std::vector<PoseSample> still;
    for (int frame = 1; frame <= 144; ++frame)
        for (const auto& s : sampler.update(rest, 1.0 + frame / 144.0)) still.push_back(s);
    ASSERT_LE(still.size(), 1u);
    if (!still.empty()) {
        EXPECT_EQ(still[0].pose, rest);
        EXPECT_LT(still[0].t, 1.0 + 1.5 / 60.0);
    }
}

TEST(PoseSampler, AMoveHeldBackByTheRateGoesOutAndMotionFromRestIsAnchored) {
    PoseSampler sampler;
    const CameraPose a({0, 0, 0}, 0, 0), b({10, 0, 0}, 0, 0);
    ASSERT_EQ(sampler.update(a, 0.0).size(), 1u);
    EXPECT_TRUE(sampler.update(b, 0.001).empty()); // too soon
    const auto late = sampler.update(b, 0.02);      // the final resting pose still goes out
    ASSERT_EQ(late.size(), 1u);
    EXPECT_EQ(late[0].pose, b);
    // Five seconds still, then a move: the still pose is re-sent just before it.
    const CameraPose c({20, 0, 0}, 0, 0);
    const auto start = sampler.update(c, 5.0);
    ASSERT_EQ(start.size(), 2u);
    EXPECT_EQ(start[0].pose, b);
    EXPECT_NEAR(start[0].t, 5.0 - 1.0 / 60.0, 1e-12);
    EXPECT_EQ(start[1].pose, c);
}

TEST(PoseBuffer, InterpolatesBetweenSamplesAndHoldsTheLast) {
    PoseBuffer buffer(PoseBuffer::Options{0.0, 0.0, 0.0, 0.1, 64}); // no delay
    buffer.push({1.0, CameraPose({0, 0, 0}, 0, 0)}, 1.0);
    buffer.push({2.0, CameraPose({10, 0, 0}, 0.2, 0)}, 2.0);
    const auto mid = buffer.poseAt(1.5);
    ASSERT_TRUE(mid);
    EXPECT_NEAR(mid->position().x, 5.0, 1e-9);
    EXPECT_NEAR(mid->yaw(), 0.1, 1e-9);
    EXPECT_NEAR(buffer.poseAt(9.0)->position().x, 10.0, 1e-12);
    EXPECT_FALSE(buffer.push({1.5, CameraPose()}, 9.0)); // older than the newest: dropped
}

TEST(PoseBuffer, OnAQuietLinkTheDelayIsAboutOneSampleInterval) {
    PoseBuffer buffer;
    double now = 0;
    for (int i = 0; i < 600; ++i) { // 10 s of 60 Hz samples arriving 1 ms late
        const double t = i / 60.0;
        buffer.push({t, circling(t)}, t + 0.001);
        now = t + 0.001;
        buffer.poseAt(now);
    }
    EXPECT_NEAR(buffer.targetDelay(), 1.0 / 60.0 + 0.001, 0.003);
    EXPECT_NEAR(buffer.delay(), buffer.targetDelay(), 0.002);
    EXPECT_LT(buffer.delay(), 0.2 / 4); // far below OpenSpace's fixed 0.2 s
}

TEST(PoseBuffer, UnderJitterTheDelayGrowsAndMotionStaysSmooth) {
    // Samples at 60 Hz arrive with 0-40 ms of random lateness; the student renders at
    // 120 Hz. A buffer that is too short would run out of samples and hold (the camera
    // stops, then jumps): count the frames at which the rendered camera did not move.
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> late(0.0, 0.040);
    struct Arrival {
        double at;
        PoseSample sample;
    };
    std::vector<Arrival> arrivals;
    for (int i = 0; i < 60 * 20; ++i) {
        const double t = i / 60.0;
        arrivals.push_back({t + late(rng), {t, circling(t)}});
    }
    std::sort(arrivals.begin(), arrivals.end(), [](const Arrival& a, const Arrival& b) { return a.at < b.at; });
    PoseBuffer buffer;
    std::size_t next = 0;
    int stalls = 0, frames = 0;
    std::optional<CameraPose> previous;
    double largestStep = 0;
    for (double now = 0.0; now < 20.0; now += 1.0 / 120.0) {
        while (next < arrivals.size() && arrivals[next].at <= now) {
            buffer.push(arrivals[next].sample, arrivals[next].at);
            ++next;
        }
        const auto pose = buffer.poseAt(now);
        if (!pose) continue;
        if (now > 10.0) { // after it adapted
            ++frames;
            const double step = angleBetween(*previous, *pose);
            if (step < 1e-9) ++stalls;
            largestStep = std::max(largestStep, step);
        }
        previous = pose;
    }
    EXPECT_GT(buffer.delay(), 0.04);
    EXPECT_LT(buffer.delay(), 0.15);
    EXPECT_EQ(stalls, 0) << "of " << frames << " frames";
    // One frame at 120 Hz turns the view by 2 pi / 4 / 120 = 0.013 rad; no jump is much larger.
    EXPECT_LT(largestStep, 0.02);
}

TEST(PoseBuffer, ConvergesExactlyOnTheRestingPose) {
    PoseBuffer buffer;
    for (int i = 0; i <= 60; ++i) buffer.push({i / 60.0, circling(i / 60.0)}, i / 60.0 + 0.002);
    const CameraPose rest = circling(1.0);
    const auto shown = buffer.poseAt(1.5);
    ASSERT_TRUE(shown);
    EXPECT_LT(narrative::length(shown->position() - rest.position()), 1e-9);
    EXPECT_LT(angleBetween(*shown, rest), 1e-9);
}

TEST(ClockSync, UsesTheExchangeWithTheShortestRoundTrip) {
    ClockSync clock;
    EXPECT_FALSE(clock.synced());
    const double offset = 1000.0; // the server is 1000 s ahead
    // Symmetric 2 ms trip: exact. Asymmetric slow trips are less trustworthy.
    clock.addExchange(10.0, 10.0 + 0.030 + offset, 10.040); // 30 ms there, 10 ms back
    clock.addExchange(11.0, 11.0 + 0.001 + offset, 11.002);
    clock.addExchange(12.0, 12.0 + 0.050 + offset, 12.060);
    EXPECT_TRUE(clock.synced());
    EXPECT_NEAR(clock.offset(), offset, 1e-9);
    EXPECT_NEAR(clock.roundTrip(), 0.002, 1e-9);
    EXPECT_NEAR(clock.toServer(20.0), 1020.0, 1e-9);
    clock.addExchange(13.0, 5.0, 12.0); // answered before asked: ignored
    EXPECT_NEAR(clock.offset(), offset, 1e-9);
}
