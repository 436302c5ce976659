#pragma once
// Synthetic input for the camera tests: an 800 x 600 view and fixed-step clocks.

#include "narrative/CameraController.h"

#include <gtest/gtest.h>

#include <numbers>

namespace atrium::narrative::test {

inline constexpr double ViewWidth = 800.0;
inline constexpr double ViewHeight = 600.0;
inline constexpr double CentreX = ViewWidth / 2.0;
inline constexpr double CentreY = ViewHeight / 2.0;
inline constexpr double Pi = std::numbers::pi;

inline InputEvent moveTo(double x, double y) { return InputEvent::mouseMove(x, y, ViewWidth, ViewHeight); }
inline InputEvent press(MouseButton b, double x = CentreX, double y = CentreY) {
    return InputEvent::buttonDown(b, x, y, ViewWidth, ViewHeight);
}
inline InputEvent unpress(MouseButton b, double x = CentreX, double y = CentreY) {
    return InputEvent::buttonUp(b, x, y, ViewWidth, ViewHeight);
}

/// Presses and releases a key (one physical key press).
inline void tap(CameraController& c, Key k) {
    c.handle(InputEvent::keyDown(k));
    c.handle(InputEvent::keyUp(k));
}

/// n updates of dt seconds.
inline void run(CameraController& c, int n, double dt) {
    for (int i = 0; i < n; ++i) c.update(dt);
}

/// Updates of dt for `seconds` (rounded to whole steps).
inline void runFor(CameraController& c, double seconds, double dt) {
    run(c, static_cast<int>(seconds / dt + 0.5), dt);
}

inline void expectNear(const Vec3& a, const Vec3& b, double tolerance) {
    EXPECT_NEAR(a.x, b.x, tolerance);
    EXPECT_NEAR(a.y, b.y, tolerance);
    EXPECT_NEAR(a.z, b.z, tolerance);
}

} // namespace atrium::narrative::test
