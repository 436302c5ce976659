// The rig: mode switches keep the pose, home restores it.
#include "narrative/CameraRig.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

namespace {

void expectSamePose(const CameraPose& a, const CameraPose& b, double tolerance) {
    expectNear(a.position(), b.position(), tolerance);
    EXPECT_NEAR(wrapAngle(a.yaw() - b.yaw()), 0.0, tolerance);
    EXPECT_NEAR(a.pitch(), b.pitch(), tolerance);
}

/// Flies and turns the rig in its current mode.
void wander(CameraRig& rig) {
    if (!rig.mouseCaptured()) tap(rig, Key::ToggleMouseCapture);
    rig.handle(press(MouseButton::Left, CentreX + 120, CentreY + 50));
    rig.handle(moveTo(CentreX + 200, CentreY + 80));
    rig.handle(InputEvent::keyDown(Key::Forward));
    run(rig, 90, 1.0 / 60.0);
    rig.handle(InputEvent::keyUp(Key::Forward));
    rig.handle(unpress(MouseButton::Left, CentreX + 200, CentreY + 80));
}

} // namespace

TEST(CameraRig, HomeRestoresThePoseInEveryMode) {
    for (CameraMode mode : {CameraMode::FirstPerson, CameraMode::Usim, CameraMode::Orbit}) {
        CameraRig rig;
        const CameraPose home({5, -40, 12}, 0.2, -0.1);
        rig.setHome(home);
        rig.setMode(mode);
        rig.goHome();
        wander(rig);
        const CameraPose away = rig.pose();
        EXPECT_GT(length(away.position() - home.position()) + std::abs(away.yaw() - home.yaw()), 1e-3);
        rig.goHome();
        expectSamePose(rig.pose(), home, 1e-12);
        run(rig, 60, 1.0 / 60.0); // and stays there: at rest, no stale keys or buttons
        expectSamePose(rig.pose(), home, 1e-12);
        expectNear(rig.velocity(), {}, 0.0);
    }
}

TEST(CameraRig, HomeWithCentreRestoresTheOrbitCentre) {
    CameraRig rig;
    const Vec3 eye{0, -100, 20}, centre{0, 0, 20};
    rig.setHome(eye, centre);
    rig.setMode(CameraMode::Orbit);
    rig.handle(InputEvent::wheel(4));
    rig.handle(press(MouseButton::Middle));
    rig.handle(moveTo(CentreX + 90, CentreY));
    rig.handle(unpress(MouseButton::Middle, CentreX + 90, CentreY));
    rig.goHome();
    expectNear(rig.pose().position(), eye, 1e-9);
    expectNear(rig.orbit().centre(), centre, 1e-9);
    EXPECT_NEAR(rig.orbit().distance(), 100.0, 1e-9);
}

TEST(CameraRig, SwitchingModeKeepsThePose) {
    CameraRig rig;
    rig.setPose(CameraPose({1, 2, 3}, 0.5, 0.1));
    wander(rig);
    for (CameraMode mode : {CameraMode::Orbit, CameraMode::Usim, CameraMode::FirstPerson, CameraMode::Orbit}) {
        const CameraPose before = rig.pose();
        rig.setMode(mode);
        EXPECT_EQ(rig.mode(), mode);
        expectSamePose(rig.pose(), before, 1e-12);
    }
}

TEST(CameraRig, SwitchingModeDropsHeldKeysAndCarriesCapture) {
    CameraRig rig;
    tap(rig, Key::ToggleMouseCapture);
    rig.handle(InputEvent::keyDown(Key::Forward));
    run(rig, 30, 1.0 / 60.0);
    rig.setMode(CameraMode::Usim);
    EXPECT_TRUE(rig.mouseCaptured());
    rig.handle(InputEvent::keyUp(Key::Forward)); // lands in uSim mode
    rig.setMode(CameraMode::FirstPerson);
    const CameraPose pose = rig.pose();
    run(rig, 60, 1.0 / 60.0);
    expectSamePose(rig.pose(), pose, 0.0); // forward is not stuck down
    rig.setMode(CameraMode::Orbit);
    EXPECT_FALSE(rig.mouseCaptured());
    rig.setMode(CameraMode::FirstPerson);
    EXPECT_FALSE(rig.mouseCaptured());
}
