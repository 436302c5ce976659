// CameraPose conventions: +Z up, yaw 0 along +Y, positive yaw turns left, pitch clamp.
#include "narrative/CameraPose.h"

#include "CameraTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace atrium::narrative;
using namespace atrium::narrative::test;

TEST(CameraPose, YawZeroLooksAlongPlusYWithZUp) {
    const CameraPose pose;
    expectNear(pose.forward(), {0, 1, 0}, 1e-15);
    expectNear(pose.right(), {1, 0, 0}, 1e-15);
    expectNear(pose.up(), {0, 0, 1}, 1e-15);
}

TEST(CameraPose, PositiveYawTurnsLeft) {
    expectNear(CameraPose({}, Pi / 2, 0).forward(), {-1, 0, 0}, 1e-15);
    expectNear(CameraPose({}, -Pi / 2, 0).forward(), {1, 0, 0}, 1e-15);
}

TEST(CameraPose, PositivePitchLooksUp) {
    const CameraPose pose({}, 0, 0.3);
    expectNear(pose.forward(), {0, std::cos(0.3), std::sin(0.3)}, 1e-15);
    EXPECT_GT(pose.up().z, 0.0);
    EXPECT_LT(pose.up().y, 0.0);
}

TEST(CameraPose, AxesAreOrthonormalAndRightHanded) {
    for (double yaw = -3.0; yaw <= 3.0; yaw += 0.7) {
        for (double pitch = -1.5; pitch <= 1.5; pitch += 0.5) {
            const CameraPose p({1, 2, 3}, yaw, pitch);
            const Vec3 f = p.forward(), r = p.right(), u = p.up();
            EXPECT_NEAR(length(f), 1.0, 1e-12);
            EXPECT_NEAR(length(r), 1.0, 1e-12);
            EXPECT_NEAR(length(u), 1.0, 1e-12);
            EXPECT_NEAR(dot(f, r), 0.0, 1e-12);
            EXPECT_NEAR(dot(f, u), 0.0, 1e-12);
            EXPECT_NEAR(r.z, 0.0, 1e-15); // no roll: right stays horizontal
            expectNear(cross(r, f), u, 1e-12);
        }
    }
}

TEST(CameraPose, PitchIsClampedTo89Degrees) {
    const double limit = 89.0 * Pi / 180.0;
    EXPECT_DOUBLE_EQ(CameraPose({}, 0, 2.0).pitch(), limit);
    EXPECT_DOUBLE_EQ(CameraPose({}, 0, -2.0).pitch(), -limit);
    CameraPose p;
    p.setPitch(1.0);
    EXPECT_DOUBLE_EQ(p.pitch(), 1.0);
}

TEST(CameraPose, YawIsWrappedKeepingTheDirection) {
    const CameraPose p({}, 3 * Pi + 0.25, 0);
    EXPECT_GE(p.yaw(), -Pi);
    EXPECT_LT(p.yaw(), Pi);
    expectNear(p.forward(), CameraPose({}, Pi + 0.25, 0).forward(), 1e-12);
    EXPECT_NEAR(wrapAngle(Pi), -Pi, 1e-15);
}

TEST(CameraPose, LookAtPointsForwardAtTheTarget) {
    const Vec3 eye{1, -2, 3}, target{-4, 5, 1};
    const CameraPose p = CameraPose::lookAt(eye, target);
    expectNear(p.position(), eye, 0.0);
    expectNear(p.forward(), normalized(target - eye), 1e-12);

    const CameraPose up = CameraPose::lookAt({0, 0, 0}, {0, 0, 10});
    EXPECT_DOUBLE_EQ(up.pitch(), CameraPose::MaxPitch);
    const CameraPose same = CameraPose::lookAt(eye, eye);
    EXPECT_EQ(same.yaw(), 0.0);
    EXPECT_EQ(same.pitch(), 0.0);
}
