// uSim mode (Poyart 2016 5.2.1): the pointer offset from the view centre sets the
// angular velocity; left button accelerates, right decelerates; flight only.
#include "narrative/UsimController.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

namespace {

UsimController capturedUsim() {
    UsimController c;
    c.handle(InputEvent::keyDown(Key::ToggleMouseCapture));
    EXPECT_TRUE(c.mouseCaptured());
    return c;
}

/// The proportional law with the dead zone, in rad/s, for an offset in half heights.
double expectedRate(const UsimController& c, double offset) {
    return c.turnRate() * (std::abs(offset) - c.deadZone()) / (1.0 - c.deadZone());
}

} // namespace

TEST(UsimController, ConstantMouseOffsetGivesConstantYawRate) {
    UsimController c = capturedUsim();
    c.handle(moveTo(CentreX + 150, CentreY)); // right of centre: half a half-height
    const double dt = 1.0 / 60.0;
    const double rate = -expectedRate(c, 0.5); // turning right: yaw decreases
    EXPECT_NEAR(c.yawRate(), rate, 1e-12);
    EXPECT_DOUBLE_EQ(c.pitchRate(), 0.0);

    double previous = c.pose().yaw();
    for (int i = 0; i < 60; ++i) {
        c.update(dt);
        EXPECT_NEAR(wrapAngle(c.pose().yaw() - previous), rate * dt, 1e-12) << "frame " << i;
        previous = c.pose().yaw();
    }
    EXPECT_NEAR(c.pose().yaw(), rate * 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(c.pose().pitch(), 0.0);
}

TEST(UsimController, ConstantMouseOffsetGivesConstantPitchRate) {
    UsimController c = capturedUsim();
    c.handle(moveTo(CentreX, CentreY - 60)); // above centre: look up
    const double dt = 1.0 / 50.0;
    const double rate = expectedRate(c, 0.2);
    EXPECT_NEAR(c.pitchRate(), rate, 1e-12);
    double previous = c.pose().pitch();
    for (int i = 0; i < 25; ++i) { // 0.5 s, far from the 89 degree clamp
        c.update(dt);
        EXPECT_NEAR(c.pose().pitch() - previous, rate * dt, 1e-12) << "frame " << i;
        previous = c.pose().pitch();
    }
    EXPECT_NEAR(c.pose().yaw(), 0.0, 1e-15);
}

TEST(UsimController, AngularVelocityIsProportionalToOffset) {
    UsimController c = capturedUsim();
    c.setDeadZone(0.0);
    c.handle(moveTo(CentreX - 50, CentreY));
    const double small = c.yawRate();
    c.handle(moveTo(CentreX - 100, CentreY));
    EXPECT_GT(small, 0.0); // left of centre turns left
    EXPECT_NEAR(c.yawRate(), 2.0 * small, 1e-12);
    c.handle(moveTo(CentreX - 300, CentreY)); // half a view height: the turn rate
    EXPECT_NEAR(c.yawRate(), c.turnRate(), 1e-12);
}

TEST(UsimController, DeadZoneHoldsStill) {
    UsimController c = capturedUsim();
    const double inside = 0.9 * c.deadZone() * CentreY;
    c.handle(moveTo(CentreX + inside * 0.6, CentreY + inside * 0.8));
    EXPECT_EQ(c.yawRate(), 0.0);
    EXPECT_EQ(c.pitchRate(), 0.0);
    run(c, 30, 1.0 / 30.0);
    EXPECT_EQ(c.pose().yaw(), 0.0);
    EXPECT_EQ(c.pose().pitch(), 0.0);
}

TEST(UsimController, LeftButtonAcceleratesRightButtonDecelerates) {
    UsimController c = capturedUsim();
    c.setMaxSpeed(10.0);
    c.setAcceleration(2.0);
    const double dt = 0.01;
    c.handle(press(MouseButton::Left));
    run(c, 100, dt);
    EXPECT_NEAR(c.speed(), 2.0, 1e-9);
    c.handle(unpress(MouseButton::Left));
    run(c, 100, dt);
    EXPECT_NEAR(c.speed(), 2.0, 1e-9); // speed is kept
    expectNear(c.velocity(), {0, 2.0, 0}, 1e-9);

    c.handle(press(MouseButton::Right));
    run(c, 50, dt);
    EXPECT_NEAR(c.speed(), 1.0, 1e-9);
    run(c, 100, dt);
    EXPECT_EQ(c.speed(), 0.0); // decelerating stops, it does not reverse
    c.handle(unpress(MouseButton::Right));

    c.handle(press(MouseButton::Left));
    run(c, 1000, dt);
    EXPECT_DOUBLE_EQ(c.speed(), 10.0); // limited to maxSpeed
}

TEST(UsimController, FliesAlongTheViewDirection) {
    UsimController c(CameraPose({0, 0, 0}, 0.4, -0.6));
    c.setSpeed(1.0);
    run(c, 100, 0.01);
    expectNear(c.velocity(), c.pose().forward(), 1e-12); // flight: pitch included
    expectNear(c.pose().position(), c.pose().forward() * 1.0, 1e-9);
}
