// Orbit mode: left drag rotates about the centre at a fixed distance, right drag and
// the wheel zoom, middle drag pans; the camera always looks at the centre.
#include "narrative/OrbitController.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

namespace {

const Vec3 Centre{10, 20, 30};

OrbitController orbitAtTen() {
    OrbitController c;
    c.setLookAt(Centre + Vec3{0, -10, 0}, Centre);
    EXPECT_NEAR(c.distance(), 10.0, 1e-12);
    expectNear(c.centre(), Centre, 0.0);
    return c;
}

void expectLooksAtCentre(const OrbitController& c) {
    expectNear(c.pose().position() + c.pose().forward() * c.distance(), c.centre(), 1e-9);
}

} // namespace

TEST(OrbitController, LeftDragRotatesAboutTheCentreKeepingTheDistance) {
    OrbitController c = orbitAtTen();
    const CameraPose before = c.pose();
    c.handle(press(MouseButton::Left, 400, 300));
    for (int i = 1; i <= 20; ++i) { // a drag right and up, in 20 moves
        c.handle(moveTo(400 + 5 * i, 300 - 3 * i));
        EXPECT_NEAR(length(c.pose().position() - Centre), 10.0, 1e-9);
        expectLooksAtCentre(c);
    }
    c.handle(unpress(MouseButton::Left, 500, 240));
    const double s = c.rotateSensitivity();
    EXPECT_NEAR(c.pose().yaw(), before.yaw() - 100 * s, 1e-12); // dragged right: scene turns right
    EXPECT_NEAR(c.pose().pitch(), before.pitch() + 60 * s, 1e-12); // dragged up: camera goes below
    EXPECT_LT(c.pose().position().z, Centre.z);
    expectNear(c.centre(), Centre, 1e-12);

    const CameraPose after = c.pose();
    c.handle(moveTo(100, 100)); // no button: nothing
    c.update(1.0);
    expectNear(c.pose().position(), after.position(), 0.0);
}

TEST(OrbitController, PitchIsClampedOverThePoles) {
    OrbitController c = orbitAtTen();
    c.handle(press(MouseButton::Left, 400, 300));
    c.handle(moveTo(400, 300 + 10000));
    EXPECT_DOUBLE_EQ(c.pose().pitch(), -CameraPose::MaxPitch);
    EXPECT_NEAR(length(c.pose().position() - Centre), 10.0, 1e-9);
}

TEST(OrbitController, WheelZoomsTowardsTheCentre) {
    OrbitController c = orbitAtTen();
    const Vec3 direction = c.pose().forward();
    c.handle(InputEvent::wheel(1.0)); // rolled away from the user: closer
    EXPECT_NEAR(c.distance(), 10.0 * c.zoomPerNotch(), 1e-12);
    expectNear(c.pose().forward(), direction, 1e-15);
    expectLooksAtCentre(c);
    c.handle(InputEvent::wheel(-3.0));
    EXPECT_NEAR(c.distance(), 10.0 / (c.zoomPerNotch() * c.zoomPerNotch()), 1e-9);
    c.handle(InputEvent::wheel(1000.0));
    EXPECT_EQ(c.distance(), c.minDistance()); // never through the centre
}

TEST(OrbitController, RightDragZooms) {
    OrbitController c = orbitAtTen();
    c.handle(press(MouseButton::Right, 400, 300));
    c.handle(moveTo(400, 200)); // up: closer
    c.handle(unpress(MouseButton::Right, 400, 200));
    EXPECT_NEAR(c.distance(), 10.0 * std::exp(-100 * c.zoomPerPixel()), 1e-12);
    expectLooksAtCentre(c);
    expectNear(c.centre(), Centre, 1e-12);
}

TEST(OrbitController, MiddleDragPansTheCentreWithThePointer) {
    OrbitController c = orbitAtTen();
    const CameraPose before = c.pose();
    c.handle(press(MouseButton::Middle, 400, 300));
    c.handle(moveTo(460, 330)); // right and down
    c.handle(unpress(MouseButton::Middle, 460, 330));
    const double perPixel = 2.0 * 10.0 * std::tan(0.5 * c.verticalFieldOfView()) / ViewHeight;
    // The scene follows the pointer: the camera (and centre) move left and up.
    expectNear(c.centre(), Centre - before.right() * (60 * perPixel) + before.up() * (30 * perPixel), 1e-12);
    EXPECT_NEAR(c.distance(), 10.0, 1e-12);
    EXPECT_EQ(c.pose().yaw(), before.yaw());
    EXPECT_EQ(c.pose().pitch(), before.pitch());
    expectLooksAtCentre(c);
}

TEST(OrbitController, SetPoseKeepsTheDistance) {
    OrbitController c = orbitAtTen();
    const CameraPose pose({1, 1, 1}, 0.3, 0.2);
    c.setPose(pose);
    expectNear(c.pose().position(), pose.position(), 0.0);
    EXPECT_NEAR(c.distance(), 10.0, 1e-12);
    expectLooksAtCentre(c);
}
