// First-person mode (Poyart 2016 5.2.2): exponential approach of the desired pitch and
// yaw with k = 8, W/A/S/D speed ramps of 0.66 s.
#include "narrative/FirstPersonController.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

namespace {

FirstPersonController capturedFirstPerson() {
    FirstPersonController c;
    tap(c, Key::ToggleMouseCapture);
    EXPECT_TRUE(c.mouseCaptured());
    c.handle(moveTo(CentreX, CentreY)); // reference position: does not steer
    return c;
}

} // namespace

TEST(FirstPersonController, DefaultsAreThePapers) {
    const FirstPersonController c;
    EXPECT_EQ(c.approachRate(), 8.0);
    EXPECT_EQ(c.rampTime(), 0.66);
}

TEST(FirstPersonController, PitchStepClosesAsExpMinusKt) {
    for (double dt : {1.0 / 30.0, 1.0 / 60.0, 1.0 / 144.0}) {
        FirstPersonController c = capturedFirstPerson();
        const double step = 0.5; // rad
        c.handle(moveTo(CentreX, CentreY - step / c.mouseSensitivity())); // pointer up: look up
        EXPECT_NEAR(c.desiredPitch(), step, 1e-12);
        EXPECT_EQ(c.pose().pitch(), 0.0); // nothing moves before update()

        const double k = 8.0;
        int frame = 0;
        for (double t : {0.05, 0.1, 0.125, 0.2, 0.3, 0.5, 0.8}) {
            for (; frame * dt < t - 1e-9; ++frame) c.update(dt);
            const double time = frame * dt;
            const double expected = step * (1.0 - std::exp(-k * time));
            EXPECT_NEAR(c.pose().pitch(), expected, 0.02 * step) << "dt " << dt << " t " << time;
        }
        EXPECT_NEAR(c.pose().yaw(), 0.0, 1e-15);
    }
}

TEST(FirstPersonController, YawStepClosesAsExpMinusKt) {
    FirstPersonController c = capturedFirstPerson();
    const double step = 1.2;
    c.handle(moveTo(CentreX + step / c.mouseSensitivity(), CentreY)); // pointer right: turn right
    EXPECT_NEAR(c.desiredYaw(), -step, 1e-12);
    const double dt = 1.0 / 60.0;
    for (int frame = 1; frame <= 60; ++frame) {
        c.update(dt);
        const double expected = -step * (1.0 - std::exp(-8.0 * frame * dt));
        EXPECT_NEAR(c.pose().yaw(), expected, 0.02 * step) << "frame " << frame;
    }
}

TEST(FirstPersonController, ViewStopsWhenTheMouseStops) {
    FirstPersonController c = capturedFirstPerson();
    c.handle(moveTo(CentreX + 100, CentreY + 40));
    run(c, 300, 1.0 / 60.0); // 5 s: e^-40 of the step remains
    const CameraPose settled = c.pose();
    run(c, 60, 1.0 / 60.0);
    EXPECT_NEAR(c.pose().yaw(), settled.yaw(), 1e-12);
    EXPECT_NEAR(c.pose().pitch(), settled.pitch(), 1e-12);
    EXPECT_NEAR(c.pose().yaw(), c.desiredYaw(), 1e-12);
}

TEST(FirstPersonController, ForwardSpeedRampsUpOverRampTime) {
    FirstPersonController c;
    c.setMaxSpeed(5.0);
    const double dt = 0.01;
    c.handle(InputEvent::keyDown(Key::Forward));
    run(c, 33, dt);
    EXPECT_NEAR(length(c.velocity()), 2.5, 1e-9); // linear: half way at 0.33 s
    run(c, 27, dt);                               // 0.60 s
    EXPECT_LT(length(c.velocity()), 0.95 * 5.0); // not much before 0.66 s
    run(c, 6, dt);                                // 0.66 s
    EXPECT_NEAR(length(c.velocity()), 5.0, 1e-9);
    run(c, 50, dt);
    EXPECT_NEAR(length(c.velocity()), 5.0, 1e-12); // limited
    expectNear(normalized(c.velocity()), c.pose().forward(), 1e-12);
}

TEST(FirstPersonController, ForwardSpeedRampsDownOverRampTime) {
    FirstPersonController c;
    c.setMaxSpeed(5.0);
    const double dt = 0.01;
    c.handle(InputEvent::keyDown(Key::Forward));
    run(c, 100, dt);
    c.handle(InputEvent::keyUp(Key::Forward));
    run(c, 33, dt);
    EXPECT_NEAR(length(c.velocity()), 2.5, 1e-9);
    run(c, 27, dt);
    EXPECT_GT(length(c.velocity()), 0.05 * 5.0);
    run(c, 6, dt);
    EXPECT_NEAR(length(c.velocity()), 0.0, 1e-9);
    const Vec3 stopped = c.pose().position();
    run(c, 10, dt);
    expectNear(c.pose().position(), stopped, 1e-12);
    // Distance travelled: ramp up 0.5 v t_r + 0.34 s at v + ramp down 0.5 v t_r.
    EXPECT_NEAR(stopped.y, 5.0 * (0.66 + 0.34), 0.01);
}

TEST(FirstPersonController, StrafeAndVerticalKeysMoveAlongRightAndWorldUp) {
    FirstPersonController c(CameraPose({0, 0, 0}, 0.7, 0.4));
    c.handle(InputEvent::keyDown(Key::Right));
    run(c, 100, 0.01);
    expectNear(c.velocity(), c.pose().right() * c.maxSpeed(), 1e-12);
    c.handle(InputEvent::keyUp(Key::Right));
    c.handle(InputEvent::keyDown(Key::Up));
    run(c, 100, 0.01);
    expectNear(c.velocity(), Vec3{0, 0, c.maxSpeed()}, 1e-12);
    c.handle(InputEvent::keyUp(Key::Up));
    c.handle(InputEvent::keyDown(Key::Left));
    c.handle(InputEvent::keyDown(Key::Down));
    run(c, 200, 0.01); // up -> down reverses through zero: 2 x 0.66 s
    const double s = c.maxSpeed() / std::sqrt(2.0); // combined speed limited to max
    expectNear(c.velocity(), c.pose().right() * -s + Vec3{0, 0, -s}, 1e-12);
}

TEST(FirstPersonController, OpposingKeysCancel) {
    FirstPersonController c;
    c.handle(InputEvent::keyDown(Key::Forward));
    c.handle(InputEvent::keyDown(Key::Back));
    run(c, 100, 0.01);
    EXPECT_EQ(length(c.velocity()), 0.0);
}

TEST(FirstPersonController, SetPoseJumpsWithoutApproach) {
    FirstPersonController c = capturedFirstPerson();
    const CameraPose target({1, 2, 3}, 2.0, -0.3);
    c.setPose(target);
    c.update(0.01);
    EXPECT_NEAR(c.pose().yaw(), 2.0, 1e-12);
    EXPECT_NEAR(c.pose().pitch(), -0.3, 1e-12);
    expectNear(c.pose().position(), {1, 2, 3}, 0.0);
}
