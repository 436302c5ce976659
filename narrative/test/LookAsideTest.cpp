// Look-aside (Poyart 2016 5.3): Shift freezes the movement vector while the view turns;
// on release the movement vector returns to the view by linear (not spherical)
// interpolation, so a 180 degree look-aside slows to a stop and goes forward again
// without sideways motion.
#include "narrative/FirstPersonController.h"
#include "narrative/LookAside.h"
#include "narrative/UsimController.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

namespace {

constexpr double Dt = 1.0 / 60.0;
constexpr double MaxSpeed = 3.0;

/// Captured, flying forward along +Y at full speed.
FirstPersonController cruisingFirstPerson() {
    FirstPersonController c;
    c.setMaxSpeed(MaxSpeed);
    tap(c, Key::ToggleMouseCapture);
    c.handle(moveTo(CentreX, CentreY));
    c.handle(InputEvent::keyDown(Key::Forward));
    runFor(c, 1.0, Dt);
    expectNear(c.velocity(), {0, MaxSpeed, 0}, 1e-9);
    return c;
}

/// Pointer move that turns the desired yaw right by `radians`.
InputEvent turnRight(const FirstPersonController& c, double radians) {
    return moveTo(CentreX + radians / c.mouseSensitivity(), CentreY);
}

} // namespace

TEST(LookAside, MovementHeadingStaysFixedWhileTheViewTurns) {
    FirstPersonController c = cruisingFirstPerson();
    const Vec3 heading = normalized(c.velocity());
    c.handle(InputEvent::keyDown(Key::LookAside));
    c.handle(turnRight(c, Pi / 2));
    const Vec3 start = c.pose().position();
    for (int i = 0; i < 120; ++i) {
        c.update(Dt);
        EXPECT_NEAR(dot(normalized(c.velocity()), heading), 1.0, 1e-12) << "frame " << i;
        EXPECT_NEAR(length(c.velocity()), MaxSpeed, 1e-9);
    }
    // The view did turn (right: towards +X) ...
    expectNear(c.pose().forward(), {1, 0, 0}, 1e-3);
    // ... and the camera went on along its old heading.
    expectNear(c.pose().position() - start, heading * (MaxSpeed * 2.0), 1e-9);
    EXPECT_TRUE(c.lookAside().held());
}

TEST(LookAside, ReleaseAfterHalfTurnStopsAndGoesForwardWithoutSidewaysMotion) {
    FirstPersonController c = cruisingFirstPerson();
    const Vec3 oldHeading = normalized(c.velocity()); // +Y
    c.handle(InputEvent::keyDown(Key::LookAside));
    c.handle(turnRight(c, Pi));
    runFor(c, 5.0, Dt); // the view settles looking back (e^-40 of the turn left)
    const Vec3 newHeading = c.pose().forward();
    ASSERT_NEAR(dot(newHeading, oldHeading), -1.0, 1e-6);
    expectNear(c.velocity(), oldHeading * MaxSpeed, 1e-9); // still moving along the old heading

    c.handle(InputEvent::keyUp(Key::LookAside));
    const double blend = c.lookAside().blendTime();
    EXPECT_EQ(blend, LookAside::DefaultBlendTime);
    double slowest = MaxSpeed;
    const Vec3 lineOfTravel = oldHeading; // old and new heading lie on this one line
    const int frames = static_cast<int>(std::ceil(blend / Dt)) + 30;
    for (int i = 0; i < frames; ++i) {
        c.update(Dt);
        const Vec3 v = c.velocity();
        const Vec3 sideways = v - lineOfTravel * dot(v, lineOfTravel);
        EXPECT_LE(length(sideways), 0.05 * MaxSpeed) << "frame " << i;
        slowest = std::min(slowest, length(v));
    }
    EXPECT_LT(slowest, 0.05 * MaxSpeed); // came (close) to a stop half-way
    expectNear(c.velocity(), newHeading * MaxSpeed, 1e-9); // then forward along the new view
    EXPECT_FALSE(c.lookAside().blending());
}

TEST(LookAside, BlendIsLinearOverTheBlendTime) {
    FirstPersonController c = cruisingFirstPerson();
    c.lookAside().setBlendTime(0.25);
    c.handle(InputEvent::keyDown(Key::LookAside));
    c.handle(turnRight(c, Pi / 2));
    runFor(c, 5.0, Dt); // the view settles (e^-40 of the turn left)
    const Vec3 oldHeading{0, 1, 0};
    const Vec3 view = c.pose().forward(); // ~ +X
    c.handle(InputEvent::keyUp(Key::LookAside));
    const double dt = 0.125 / 10;
    run(c, 10, dt); // half way: the plain average of the two directions, not renormalised
    expectNear(c.velocity(), (oldHeading + view) * (0.5 * MaxSpeed), 1e-9);
    EXPECT_NEAR(length(c.velocity()), MaxSpeed / std::sqrt(2.0), 1e-3);
    run(c, 10, dt);
    expectNear(c.velocity(), c.pose().forward() * MaxSpeed, 1e-9);
}

TEST(LookAside, WorksInUsimMode) {
    UsimController c;
    tap(c, Key::ToggleMouseCapture);
    c.setSpeed(1.0);
    c.handle(InputEvent::keyDown(Key::LookAside));
    c.handle(moveTo(CentreX - 200, CentreY)); // turn left
    for (int i = 0; i < 60; ++i) {
        c.update(Dt);
        expectNear(c.velocity(), {0, 1, 0}, 1e-12);
    }
    EXPECT_GT(c.pose().yaw(), 0.5);
    c.handle(moveTo(CentreX, CentreY)); // stop turning
    c.handle(InputEvent::keyUp(Key::LookAside));
    runFor(c, c.lookAside().blendTime() + 0.05, Dt);
    expectNear(c.velocity(), c.pose().forward(), 1e-12);
}

TEST(LookAside, PressDuringBlendFreezesTheBlendedVector) {
    LookAside la;
    la.setBlendTime(1.0);
    const CameraPose ahead; // +Y
    const CameraPose left({}, Pi / 2, 0); // -X
    la.reset(ahead);
    la.press();
    la.update(0.1, left);
    expectNear(la.movementForward(), {0, 1, 0}, 0.0);
    la.release();
    la.update(0.5, left);
    const Vec3 mid{-0.5, 0.5, 0};
    expectNear(la.movementForward(), mid, 1e-12);
    la.press();
    la.update(5.0, ahead);
    expectNear(la.movementForward(), mid, 1e-12);
    EXPECT_TRUE(la.held());
}
