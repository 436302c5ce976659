// The narrative player (Poyart 2016 5.4): the ease curve of 5.4.1 against the paper's
// construction, the timeline (poses at known times, dwell, wait-for-key, fades, seek,
// loop, next/previous/jump), the short way across yaw +-pi, and the hand-over to the
// camera controllers.

#include "narrative/CameraRig.h"
#include "narrative/NarrativePlayer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

using namespace atrium::narrative;

namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kDeg = kPi / 180.0;

void expectPose(const CameraPose& a, const CameraPose& b, double tolerance = 1e-9) {
    EXPECT_NEAR(a.position().x, b.position().x, tolerance);
    EXPECT_NEAR(a.position().y, b.position().y, tolerance);
    EXPECT_NEAR(a.position().z, b.position().z, tolerance);
    EXPECT_NEAR(wrapAngle(a.yaw() - b.yaw()), 0.0, tolerance);
    EXPECT_NEAR(a.pitch(), b.pitch(), tolerance);
}

Node node(Vec3 p, double yaw, double pitch = 0.0) {
    Node n;
    n.pose = CameraPose(p, yaw, pitch);
    n.fadeIn = 0.5;
    n.dwell = 2.0;
    n.fadeOut = 0.5;
    return n;
}

/// Three nodes 100 mm apart, each 3 s long (0.5 + 2 + 0.5), flights of 4 s:
/// node 0 at [0, 3), flight [3, 7), node 1 at [7, 10), flight [10, 14), node 2 at [14, 17).
Narrative tour() {
    Narrative n;
    n.title = "tour";
    insertNode(n, 0, node({0, 0, 0}, 0.0));
    insertNode(n, 1, node({100, 0, 0}, kPi / 2));
    insertNode(n, 2, node({100, 100, 50}, kPi / 2, 30 * kDeg));
    for (Transition& t : n.transitions) t.duration = 4.0;
    return n;
}

PlayerFrame at(const Narrative& n, double t, std::vector<double> keys = {}, PlayerOptions o = {}) {
    return evaluate(n, t, keys, o);
}

} // namespace

// --- The ease curve (5.4.1) ---

TEST(CubicEase, EndValuesAndMidpoint) {
    EXPECT_DOUBLE_EQ(cubicEase(0.0), 0.0);
    EXPECT_DOUBLE_EQ(cubicEase(1.0), 1.0);
    EXPECT_DOUBLE_EQ(cubicEase(0.5), 0.5);
    // Outside [0, 1] it holds its end values.
    EXPECT_DOUBLE_EQ(cubicEase(-0.3), 0.0);
    EXPECT_DOUBLE_EQ(cubicEase(1.7), 1.0);
}

TEST(CubicEase, IsThePapersRescaledCubic) {
    // y = x - x^3; x scaled so the turning points -+1/sqrt(3) fall at 0 and 1, y so its
    // minimum and maximum there fall at 0 and 1.
    const double xTurn = 1.0 / std::sqrt(3.0);
    const double yMax = xTurn - xTurn * xTurn * xTurn;
    for (int k = 0; k <= 1000; ++k) {
        const double u = k / 1000.0;
        const double x = -xTurn + u * 2.0 * xTurn;
        const double y = x - x * x * x;
        EXPECT_NEAR(cubicEase(u), (y + yMax) / (2.0 * yMax), 1e-12) << "u = " << u;
    }
}

TEST(CubicEase, SymmetricMonotonicAndFlatAtTheEnds) {
    double previous = -1.0;
    for (int k = 0; k <= 1000; ++k) {
        const double u = k / 1000.0;
        EXPECT_NEAR(cubicEase(1.0 - u), 1.0 - cubicEase(u), 1e-12) << "u = " << u;
        EXPECT_GT(cubicEase(u), previous) << "u = " << u;
        previous = cubicEase(u);
    }
    // Ease in and out: the slope vanishes at both ends and peaks (1.5) in the middle.
    const double h = 1e-6;
    EXPECT_NEAR((cubicEase(h) - cubicEase(0.0)) / h, 0.0, 1e-5);
    EXPECT_NEAR((cubicEase(1.0) - cubicEase(1.0 - h)) / h, 0.0, 1e-5);
    EXPECT_NEAR((cubicEase(0.5 + h) - cubicEase(0.5 - h)) / (2 * h), 1.5, 1e-6);
}

// --- The flight between two poses ---

TEST(InterpolatePose, StraightLineAndEndsExact) {
    const CameraPose a({0, 0, 0}, 0.0, 0.0), b({30, 40, -12}, 1.0, 0.4);
    expectPose(interpolatePose(a, b, 0.0), a, 0.0);
    expectPose(interpolatePose(a, b, 1.0), b, 0.0);
    for (double u : {0.1, 0.25, 0.5, 0.9}) {
        const Vec3 p = interpolatePose(a, b, u).position();
        // On the segment, at the fraction u of its length.
        EXPECT_NEAR(length(p - a.position()), u * length(b.position() - a.position()), 1e-9);
        EXPECT_NEAR(length(cross(p - a.position(), b.position() - a.position())), 0.0, 1e-9);
    }
}

TEST(InterpolatePose, SlerpTurnsAtAConstantRate) {
    // Same yaw, pitch 0 -> 60 degrees: slerp sweeps the angle linearly in u.
    const CameraPose a({0, 0, 0}, 0.3, 0.0), b({0, 0, 0}, 0.3, 60 * kDeg);
    for (double u : {0.25, 0.5, 0.75}) {
        const CameraPose p = interpolatePose(a, b, u);
        EXPECT_NEAR(p.pitch(), u * 60 * kDeg, 1e-9);
        EXPECT_NEAR(p.yaw(), 0.3, 1e-9);
    }
    // Level, yaw -2 -> 1 rad: the yaw sweeps linearly too.
    const CameraPose c({0, 0, 0}, -2.0, 0.0), d({0, 0, 0}, 1.0, 0.0);
    for (double u : {0.2, 0.5, 0.8}) {
        EXPECT_NEAR(interpolatePose(c, d, u).yaw(), -2.0 + 3.0 * u, 1e-9);
        EXPECT_NEAR(interpolatePose(c, d, u).pitch(), 0.0, 1e-12);
    }
}

TEST(InterpolatePose, YawAcrossPlusMinusPiTakesTheShortWay) {
    const CameraPose a({0, 0, 0}, 170 * kDeg, 0.0), b({0, 0, 0}, -170 * kDeg, 0.0);
    for (int k = 1; k < 100; ++k) {
        const double yaw = interpolatePose(a, b, k / 100.0).yaw();
        EXPECT_GE(std::abs(yaw), 170 * kDeg - 1e-9) << "turned the long way at u = " << k / 100.0;
    }
    EXPECT_NEAR(std::abs(interpolatePose(a, b, 0.5).yaw()), kPi, 1e-9);
}

// --- The timeline ---

TEST(NarrativePlayer, PosesAndStagesAtKnownTimes) {
    const Narrative n = tour();
    expectPose(at(n, 0.0).pose, n.nodes[0].pose);
    EXPECT_EQ(at(n, 0.0).stage, PlayerStage::FadeIn);
    EXPECT_EQ(at(n, 1.0).stage, PlayerStage::Dwell);
    EXPECT_EQ(at(n, 2.9).stage, PlayerStage::FadeOut);
    expectPose(at(n, 2.9).pose, n.nodes[0].pose); // the camera stands still at a node

    // The flight to node 1: eased position and slerped yaw.
    const PlayerFrame quarter = at(n, 3.0 + 1.0);
    EXPECT_EQ(quarter.stage, PlayerStage::Transition);
    EXPECT_EQ(quarter.node, 1);
    EXPECT_EQ(quarter.fromNode, 0);
    EXPECT_NEAR(quarter.progress, 0.25, 1e-12);
    EXPECT_NEAR(quarter.pose.position().x, 100.0 * cubicEase(0.25), 1e-9); // 15.625 mm, not 25
    EXPECT_NEAR(quarter.pose.position().x, 15.625, 1e-9);
    EXPECT_NEAR(quarter.pose.yaw(), cubicEase(0.25) * kPi / 2, 1e-9);
    const PlayerFrame half = at(n, 5.0);
    EXPECT_NEAR(half.pose.position().x, 50.0, 1e-9);
    EXPECT_NEAR(half.pose.yaw(), kPi / 4, 1e-9);
    EXPECT_NEAR(half.nodeArrival, 7.0, 1e-12);

    // Arrival: exactly node 1's pose, its overlays starting to fade in.
    const PlayerFrame arrival = at(n, 7.0);
    EXPECT_EQ(arrival.stage, PlayerStage::FadeIn);
    EXPECT_EQ(arrival.node, 1);
    expectPose(arrival.pose, n.nodes[1].pose, 0.0);
    EXPECT_NEAR(at(n, 14.0).pose.pitch(), 30 * kDeg, 1e-12);

    // The end: finished at the last node.
    EXPECT_EQ(duration(n, {}).value(), 17.0);
    const PlayerFrame end = at(n, 100.0);
    EXPECT_EQ(end.stage, PlayerStage::Finished);
    EXPECT_EQ(end.node, 2);
    expectPose(end.pose, n.nodes[2].pose, 0.0);
    EXPECT_EQ(end.overlayAlpha, 0.0);
}

TEST(NarrativePlayer, OverlaysFadeInStayAndFadeOut) {
    const Narrative n = tour();
    EXPECT_NEAR(at(n, 0.0).overlayAlpha, 0.0, 1e-12);
    EXPECT_NEAR(at(n, 0.25).overlayAlpha, 0.5, 1e-12);
    EXPECT_NEAR(at(n, 0.5).overlayAlpha, 1.0, 1e-12);
    EXPECT_NEAR(at(n, 2.4).overlayAlpha, 1.0, 1e-12);
    EXPECT_NEAR(at(n, 2.5 + 0.125).overlayAlpha, 0.75, 1e-12);
    EXPECT_NEAR(at(n, 4.0).overlayAlpha, 0.0, 1e-12); // none while flying
    // Instant fades: shown at once, gone at once.
    Narrative sharp = tour();
    sharp.nodes[0].fadeIn = sharp.nodes[0].fadeOut = 0.0;
    EXPECT_EQ(at(sharp, 0.0).overlayAlpha, 1.0);
    EXPECT_EQ(at(sharp, 1.99).overlayAlpha, 1.0);
    EXPECT_EQ(at(sharp, 2.0).stage, PlayerStage::Transition);
}

TEST(NarrativePlayer, DwellSetsHowLongANodeStays) {
    Narrative n = tour();
    n.nodes[0].dwell = 10.0; // fade-in to 0.5, dwell to 10.5, fade-out to 11
    EXPECT_EQ(at(n, 10.4).stage, PlayerStage::Dwell);
    EXPECT_EQ(at(n, 10.5).stage, PlayerStage::FadeOut);
    EXPECT_EQ(at(n, 11.0).stage, PlayerStage::Transition);
    EXPECT_EQ(duration(n, {}).value(), 25.0);
}

TEST(NarrativePlayer, WaitForKeyHoldsUntilAKeyPress) {
    Narrative n = tour();
    n.nodes[1].waitForKey = true; // arrives at 7, overlays shown from 7.5
    EXPECT_EQ(at(n, 500.0).stage, PlayerStage::WaitingForKey);
    EXPECT_EQ(at(n, 500.0).node, 1);
    EXPECT_EQ(at(n, 500.0).overlayAlpha, 1.0);
    EXPECT_FALSE(duration(n, {}).has_value());
    // A key at 20 s: fade-out to 20.5, flight to 24.5.
    EXPECT_EQ(at(n, 19.9, {20.0}).stage, PlayerStage::WaitingForKey);
    EXPECT_EQ(at(n, 20.2, {20.0}).stage, PlayerStage::FadeOut);
    EXPECT_EQ(at(n, 24.5, {20.0}).node, 2);
    EXPECT_EQ(at(n, 24.5, {20.0}).stage, PlayerStage::FadeIn);
    EXPECT_EQ(duration(n, {{20.0}}).value(), 27.5);
    // A key before the node was reached does not count; one during its fade-in
    // continues once the overlays are shown.
    EXPECT_EQ(at(n, 100.0, {5.0}).stage, PlayerStage::WaitingForKey);
    EXPECT_EQ(at(n, 7.6, {7.2}).stage, PlayerStage::FadeOut);
    // Key order does not matter; one press continues one node only.
    n.nodes[2].waitForKey = true;
    EXPECT_EQ(at(n, 100.0, {20.0}).stage, PlayerStage::WaitingForKey);
    EXPECT_EQ(at(n, 100.0, {20.0}).node, 2);
    EXPECT_EQ(at(n, 100.0, {30.0, 20.0}).stage, PlayerStage::Finished);
}

TEST(NarrativePlayer, LoopFliesBackAndRepeats) {
    const Narrative n = tour();
    PlayerOptions loop;
    loop.loop = true;
    loop.loopDuration = 3.0; // node 2 ends at 17, node 0 again at 20
    EXPECT_FALSE(duration(n, {}, loop).has_value());
    const PlayerFrame back = at(n, 18.5, {}, loop);
    EXPECT_EQ(back.stage, PlayerStage::Transition);
    EXPECT_EQ(back.fromNode, 2);
    EXPECT_EQ(back.node, 0);
    EXPECT_NEAR(back.pose.position().x, 50.0, 1e-9); // half way from (100, 100, 50) to 0
    EXPECT_NEAR(back.pose.position().y, 50.0, 1e-9);
    EXPECT_NEAR(back.pose.position().z, 25.0, 1e-9);
    // Cycles repeat exactly, also far ahead (cycles are skipped, not walked).
    for (double t : {0.3, 5.0, 8.0, 15.5}) {
        const PlayerFrame first = at(n, t, {}, loop), later = at(n, t + 20.0 * 1000, {}, loop);
        expectPose(later.pose, first.pose, 1e-6);
        EXPECT_EQ(later.stage, first.stage);
        EXPECT_EQ(later.cycle, 1000);
        EXPECT_NEAR(later.overlayAlpha, first.overlayAlpha, 1e-6);
    }
}

TEST(NarrativePlayer, EntryFlightStartsFromTheCamera) {
    const Narrative n = tour();
    PlayerOptions o;
    o.entryFrom = CameraPose({-50, 0, 0}, -1.0, 0.2);
    o.entryDuration = 2.0;
    expectPose(at(n, 0.0, {}, o).pose, *o.entryFrom, 0.0);
    EXPECT_EQ(at(n, 1.0, {}, o).fromNode, -1);
    EXPECT_NEAR(at(n, 1.0, {}, o).pose.position().x, -25.0, 1e-9);
    EXPECT_EQ(at(n, 2.0, {}, o).stage, PlayerStage::FadeIn);
    expectPose(at(n, 2.0, {}, o).pose, n.nodes[0].pose, 0.0);
    EXPECT_EQ(duration(n, {}, o).value(), 19.0);
}

TEST(NarrativePlayer, EmptyNarrativeIsFinished) {
    const PlayerFrame f = at(Narrative{}, 3.0);
    EXPECT_EQ(f.stage, PlayerStage::Finished);
    EXPECT_EQ(f.node, -1);
    NarrativePlayer p;
    EXPECT_FALSE(p.next());
    EXPECT_FALSE(p.previous());
    EXPECT_FALSE(p.jumpTo(0));
    EXPECT_FALSE(p.pressKey());
}

TEST(NarrativePlayer, PlayPauseAndAdvance) {
    NarrativePlayer p(tour());
    p.advance(1.0);
    EXPECT_EQ(p.time(), 0.0) << "paused players do not move";
    p.play();
    for (int k = 0; k < 60 * 5; ++k) p.advance(1.0 / 60.0);
    EXPECT_NEAR(p.time(), 5.0, 1e-9);
    EXPECT_NEAR(p.frame().pose.position().x, 50.0, 1e-6);
    p.pause();
    p.advance(3.0);
    EXPECT_NEAR(p.time(), 5.0, 1e-9);
    p.play();
    p.advance(100.0);
    EXPECT_TRUE(p.finished());
    EXPECT_FALSE(p.playing()) << "stops at the end";
}

TEST(NarrativePlayer, NextPreviousAndJump) {
    NarrativePlayer p(tour());
    p.seek(1.0);
    ASSERT_TRUE(p.next());
    EXPECT_EQ(p.time(), 7.0);
    EXPECT_EQ(p.frame().node, 1);
    EXPECT_EQ(p.frame().overlayAlpha, 0.0);
    p.seek(5.0); // in the flight to node 1: next arrives
    ASSERT_TRUE(p.next());
    EXPECT_EQ(p.time(), 7.0);
    p.seek(5.0); // previous goes back to the node it left
    ASSERT_TRUE(p.previous());
    EXPECT_EQ(p.time(), 0.0);
    ASSERT_TRUE(p.jumpTo(2));
    EXPECT_EQ(p.time(), 14.0);
    ASSERT_TRUE(p.previous());
    EXPECT_EQ(p.time(), 7.0);
    EXPECT_FALSE(p.jumpTo(3));
    EXPECT_FALSE(p.jumpTo(-1));
    ASSERT_TRUE(p.jumpTo(2));
    ASSERT_TRUE(p.next()); // the last node: to the end
    EXPECT_TRUE(p.finished());
    EXPECT_EQ(p.time(), 17.0);
    EXPECT_FALSE(p.next());
    ASSERT_TRUE(p.previous());
    EXPECT_EQ(p.time(), 14.0);
    p.seek(0.2); // node 0: previous starts it again
    ASSERT_TRUE(p.previous());
    EXPECT_EQ(p.time(), 0.0);
}

TEST(NarrativePlayer, NextWrapsWhenLooping) {
    PlayerOptions o;
    o.loop = true;
    NarrativePlayer p(tour(), o);
    ASSERT_TRUE(p.jumpTo(2));
    ASSERT_TRUE(p.next());
    EXPECT_EQ(p.frame().node, 0);
    EXPECT_EQ(p.frame().cycle, 1);
    EXPECT_EQ(p.frame().stage, PlayerStage::FadeIn);
    EXPECT_EQ(p.time(), 20.0);
    ASSERT_TRUE(p.previous()); // back over the seam to the last node
    EXPECT_EQ(p.frame().node, 2);
    EXPECT_EQ(p.time(), 14.0);
}

TEST(NarrativePlayer, KeysContinueOnlyWaitingNodes) {
    Narrative n = tour();
    n.nodes[1].waitForKey = true;
    NarrativePlayer p(n);
    p.seek(1.0);
    EXPECT_FALSE(p.pressKey()) << "node 0 does not wait";
    EXPECT_TRUE(p.keyPresses().empty());
    p.play();
    p.advance(30.0);
    EXPECT_EQ(p.frame().stage, PlayerStage::WaitingForKey);
    EXPECT_TRUE(p.playing()) << "waiting is not the end";
    ASSERT_TRUE(p.pressKey());
    p.advance(0.25);
    EXPECT_EQ(p.frame().stage, PlayerStage::FadeOut);
    EXPECT_NEAR(p.frame().overlayAlpha, 0.5, 1e-9);
    // Seeking back before the press forgets it: the node waits again.
    p.seek(8.0);
    EXPECT_TRUE(p.keyPresses().empty());
    p.advance(100.0);
    EXPECT_EQ(p.frame().stage, PlayerStage::WaitingForKey);
}

TEST(NarrativePlayer, JumpPastAWaitingNodeCountsItAsContinued) {
    Narrative n = tour();
    n.nodes[1].waitForKey = true;
    NarrativePlayer p(n);
    ASSERT_TRUE(p.jumpTo(2));
    // Node 1 continued as soon as its overlays were shown (7.5), then 0.5 + 4 s.
    EXPECT_EQ(p.time(), 12.0);
    EXPECT_EQ(p.frame().node, 2);
    ASSERT_TRUE(p.next());
    EXPECT_TRUE(p.finished());
}

TEST(NarrativePlayer, SameInputsSameFrames) {
    // Two players (lecturer and student) given the same operations agree exactly.
    Narrative n = tour();
    n.nodes[2].waitForKey = true;
    NarrativePlayer a(n), b(n);
    for (NarrativePlayer* p : {&a, &b}) {
        p->play();
        for (int k = 0; k < 1000; ++k) {
            p->advance(0.017);
            if (k == 900) p->pressKey();
        }
    }
    EXPECT_EQ(a.time(), b.time());
    EXPECT_EQ(a.keyPresses(), b.keyPresses());
    expectPose(a.frame().pose, b.frame().pose, 0.0);
    // And evaluate() alone, from the recorded presses, reproduces the frame.
    expectPose(evaluate(n, a.time(), a.keyPresses()).pose, a.frame().pose, 0.0);
}

TEST(NarrativePlayer, HandOverContinuesWithoutAJump) {
    const Narrative n = tour();
    const CameraPose mid = at(n, 4.3).pose;
    for (CameraMode mode : {CameraMode::Orbit, CameraMode::Usim, CameraMode::FirstPerson}) {
        CameraRig rig;
        rig.setMode(mode);
        rig.handle(InputEvent::keyDown(Key::Forward)); // held keys from before are forgotten
        handOver(rig, mid);
        expectPose(rig.pose(), mid, 1e-9);
        for (int k = 0; k < 30; ++k) rig.update(1.0 / 60.0);
        expectPose(rig.pose(), mid, 1e-9);
    }
}
