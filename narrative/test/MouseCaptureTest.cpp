// The space bar toggles between steering with the mouse and a released mouse for
// menus (Poyart 2016 5.2.1, both modes); while released the mouse does not steer.
#include "narrative/FirstPersonController.h"
#include "narrative/OrbitController.h"
#include "narrative/UsimController.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

namespace {

void expectSpaceToggles(CameraController& c) {
    EXPECT_FALSE(c.mouseCaptured()); // starts released: the cursor is free for menus
    c.handle(InputEvent::keyDown(Key::ToggleMouseCapture));
    EXPECT_TRUE(c.mouseCaptured());
    c.handle(InputEvent::keyUp(Key::ToggleMouseCapture));
    EXPECT_TRUE(c.mouseCaptured()); // the release of the key changes nothing
    tap(c, Key::ToggleMouseCapture);
    EXPECT_FALSE(c.mouseCaptured());
}

} // namespace

TEST(MouseCapture, SpaceTogglesInUsimMode) {
    UsimController c;
    expectSpaceToggles(c);
}

TEST(MouseCapture, SpaceTogglesInFirstPersonMode) {
    FirstPersonController c;
    expectSpaceToggles(c);
}

TEST(MouseCapture, ReleasedMouseDoesNotSteerInUsimMode) {
    UsimController c;
    tap(c, Key::ToggleMouseCapture);
    c.handle(moveTo(CentreX + 250, CentreY - 200));
    EXPECT_NE(c.yawRate(), 0.0);
    tap(c, Key::ToggleMouseCapture); // released
    EXPECT_EQ(c.yawRate(), 0.0);
    c.handle(moveTo(CentreX + 300, CentreY + 250));
    c.handle(press(MouseButton::Left, CentreX + 300, CentreY + 250));
    run(c, 60, 1.0 / 60.0);
    EXPECT_EQ(c.pose().yaw(), 0.0);
    EXPECT_EQ(c.pose().pitch(), 0.0);
    EXPECT_EQ(c.speed(), 0.0); // clicks on menus do not accelerate
    expectNear(c.pose().position(), {}, 0.0);

    tap(c, Key::ToggleMouseCapture); // captured again: no rotation until the pointer moves
    c.update(1.0 / 60.0);
    EXPECT_EQ(c.pose().yaw(), 0.0);
    c.handle(moveTo(CentreX + 300, CentreY));
    c.update(1.0 / 60.0);
    EXPECT_LT(c.pose().yaw(), 0.0);
}

TEST(MouseCapture, ReleasedMouseDoesNotSteerInFirstPersonMode) {
    FirstPersonController c;
    c.handle(moveTo(CentreX, CentreY));
    c.handle(moveTo(CentreX + 200, CentreY - 100)); // released from the start
    run(c, 60, 1.0 / 60.0);
    EXPECT_EQ(c.desiredYaw(), 0.0);
    EXPECT_EQ(c.pose().yaw(), 0.0);
    EXPECT_EQ(c.pose().pitch(), 0.0);

    tap(c, Key::ToggleMouseCapture);
    c.handle(moveTo(CentreX + 350, CentreY + 80)); // first move after capture: reference only
    EXPECT_EQ(c.desiredYaw(), 0.0);
    c.handle(moveTo(CentreX + 360, CentreY + 80));
    EXPECT_NEAR(c.desiredYaw(), -10 * c.mouseSensitivity(), 1e-15);

    tap(c, Key::ToggleMouseCapture); // released: moves are ignored again
    c.handle(moveTo(CentreX - 300, CentreY - 200));
    c.handle(moveTo(CentreX - 100, CentreY - 250));
    EXPECT_NEAR(c.desiredYaw(), -10 * c.mouseSensitivity(), 1e-15);
    EXPECT_EQ(c.desiredPitch(), 0.0);
}

TEST(MouseCapture, KeysStillMoveWhileReleased) {
    FirstPersonController c;
    ASSERT_FALSE(c.mouseCaptured());
    c.handle(InputEvent::keyDown(Key::Forward));
    run(c, 100, 0.01);
    EXPECT_NEAR(c.velocity().y, c.maxSpeed(), 1e-9);
}

TEST(MouseCapture, WarpDoesNotSteer) {
    FirstPersonController c;
    tap(c, Key::ToggleMouseCapture);
    c.handle(moveTo(CentreX, CentreY));
    c.handle(moveTo(CentreX + 40, CentreY));
    c.handle(InputEvent::mouseWarp(CentreX, CentreY, ViewWidth, ViewHeight)); // UI re-centres
    c.handle(moveTo(CentreX + 40, CentreY));
    EXPECT_NEAR(c.desiredYaw(), -80 * c.mouseSensitivity(), 1e-15);
}

TEST(MouseCapture, OrbitNeverCaptures) {
    OrbitController c;
    tap(c, Key::ToggleMouseCapture);
    EXPECT_FALSE(c.mouseCaptured());
}
