#pragma once
// uSim mode (Poyart 2016 5.2.1, with look-aside 5.3): one hand on the mouse steers
// and sets the speed, and the camera moves as smoothly as possible because the mouse
// sets angular velocity, not orientation.
//
// Steering. Let m be the pointer and c the centre of the view, and
// n = (m - c) / (viewportHeight / 2) the offset measured in half view heights (the
// same scale horizontally and vertically). The paper makes the mouse offset define
// the angular velocity and gives no law; we use a proportional law with a small
// radial dead zone d so that the camera can hold still without pixel-exact centring:
//   |n| <= d:  no rotation
//   |n| >  d:  angular velocity = turnRate() (|n| - d) / (1 - d) along n / |n|,
// which is continuous at the dead zone and equals turnRate() at half a view height
// from the centre. The horizontal part yaws about world up (pointer right of centre
// turns right), the vertical part pitches about the camera's x axis (pointer above
// centre looks up). A constant offset gives a constant angular velocity.
//
// Speed. The left button accelerates, the right button decelerates, at
// acceleration() world units/s^2, within [minSpeed(), maxSpeed()] (minSpeed 0 by
// default: decelerating stops the camera, it does not reverse). The speed is kept
// when the buttons are released. Flight only (the paper allows no ground mode for
// the heart): the camera moves along the view direction, pitch included, unless
// look-aside holds or blends the movement direction.
//
// While the mouse is released (Key::ToggleMouseCapture) the pointer neither steers
// nor changes the speed (clicks go to menus); the camera keeps flying at its speed.

#include "narrative/CameraController.h"
#include "narrative/LookAside.h"

namespace atrium::narrative {

class UsimController final : public CameraController {
public:
    static constexpr double DefaultTurnRate = 1.0;     ///< rad/s at half a view height from the centre
    static constexpr double DefaultDeadZone = 0.05;    ///< radius, in half view heights
    static constexpr double DefaultMaxSpeed = 1.0;     ///< world units/s (set per scene)
    static constexpr double DefaultAcceleration = 1.0; ///< world units/s^2 (set per scene)

    UsimController();
    explicit UsimController(const CameraPose& pose);

    void handle(const InputEvent& event) override;
    void update(double dt) override;
    const CameraPose& pose() const override { return pose_; }
    /// Keeps the speed; look-aside follows the new view (still held if Shift is down).
    void setPose(const CameraPose& pose) override;
    Vec3 velocity() const override { return velocity_; }
    bool mouseCaptured() const override { return captured_; }
    /// Either way the pointer offset is forgotten (no rotation until the next move)
    /// and held buttons are released.
    void setMouseCaptured(bool captured) override;
    void stop() override;

    /// Angular velocities from the current pointer offset, rad/s (0 while released).
    /// yawRate > 0 turns left; pitchRate > 0 looks up.
    double yawRate() const;
    double pitchRate() const;
    /// Signed speed along the movement direction, world units/s.
    double speed() const { return speed_; }
    void setSpeed(double worldUnitsPerSecond);

    double turnRate() const { return turnRate_; }
    void setTurnRate(double radiansPerSecond);
    double deadZone() const { return deadZone_; }
    /// In half view heights, clamped to [0, 0.9].
    void setDeadZone(double halfHeights);
    double acceleration() const { return acceleration_; }
    void setAcceleration(double worldUnitsPerSecondSquared);
    double maxSpeed() const { return maxSpeed_; }
    void setMaxSpeed(double worldUnitsPerSecond);
    double minSpeed() const { return minSpeed_; }
    /// A negative value lets the right button fly backwards; clamped to <= maxSpeed().
    void setMinSpeed(double worldUnitsPerSecond);

    LookAside& lookAside() { return lookAside_; }
    const LookAside& lookAside() const { return lookAside_; }

private:
    /// Offset gain g with angular velocity = -turnRate * g * (nx, ny); 0 in the dead zone.
    double offsetGain() const;

    CameraPose pose_;
    LookAside lookAside_;
    Vec3 velocity_;
    double offsetX_ = 0.0, offsetY_ = 0.0; // n, in half view heights, +y down
    double speed_ = 0.0;
    bool accelerating_ = false, decelerating_ = false, lookAsideHeld_ = false;
    bool captured_ = false;
    double turnRate_ = DefaultTurnRate;
    double deadZone_ = DefaultDeadZone;
    double acceleration_ = DefaultAcceleration;
    double maxSpeed_ = DefaultMaxSpeed;
    double minSpeed_ = 0.0;
};

} // namespace atrium::narrative
