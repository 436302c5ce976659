#pragma once
// First-person mode (Poyart 2016 5.2.2, with look-aside 5.3): mouse motion sets a
// desired yaw and pitch, and the camera approaches them exponentially; W/A/S/D (and
// E/Q for up/down) set a velocity that ramps linearly to and from a maximum speed.
//
// Orientation. A pointer move of (dx, dy) pixels while the mouse is captured changes
// the desired angles: yaw_d -= s dx (pointer right turns right), pitch_d -= s dy
// (pointer up looks up; pitch_d clamped to +-89 degrees), s = mouseSensitivity() in
// radians per pixel. Each update the current angles close the gap as
//   p <- p + (1 - exp(-k dt)) (p_desired - p),   k = approachRate() = 8 /s,
// the exact step of the paper's law p(t) = p0 e^{-kt} + p_d (1 - e^{-kt}) (eq. 5.1).
// The paper's stepwise form, eq. 5.2, dp = k dt |p_d - p|, is its first-order
// approximation; read the bars as a magnitude with the sign of (p_d - p) -- taken
// literally, the absolute value would never move p downwards. The exact step is
// the same at any frame rate and never overshoots, even for k dt > 1.
//
// Translation. Each of the three movement axes (forward/back, right/left, up/down)
// has a signed speed that moves linearly towards +-maxSpeed() (key held) or 0 (keys
// released or both opposing keys held) at maxSpeed() / rampTime() per second:
// 0 -> max in rampTime() = 0.66 s, max -> 0 in 0.66 s (paper). The combined speed is
// limited to maxSpeed(). Forward/right follow the look-aside movement axes (the view's
// forward, including pitch -- flight, no ground -- and its horizontal right, unless
// look-aside holds or blends them); up/down is along world +Z.
//
// While the mouse is released (Key::ToggleMouseCapture), pointer motion does not
// steer; the keys still move the camera and the view finishes its approach.

#include "narrative/CameraController.h"
#include "narrative/LookAside.h"

namespace atrium::narrative {

class FirstPersonController final : public CameraController {
public:
    static constexpr double DefaultApproachRate = 8.0;       ///< k, 1/s (paper: best results)
    static constexpr double DefaultRampTime = 0.66;          ///< s, 0 -> maxSpeed (paper)
    static constexpr double DefaultMouseSensitivity = 0.004; ///< rad per pixel (our choice)
    static constexpr double DefaultMaxSpeed = 1.0;           ///< world units/s (set per scene)

    FirstPersonController();
    explicit FirstPersonController(const CameraPose& pose);

    void handle(const InputEvent& event) override;
    void update(double dt) override;
    const CameraPose& pose() const override { return pose_; }
    /// Also sets the desired angles to the pose's (no approach afterwards) and resets
    /// look-aside to follow the new view (still held if Shift is down).
    void setPose(const CameraPose& pose) override;
    Vec3 velocity() const override { return velocity_; }
    bool mouseCaptured() const override { return captured_; }
    void setMouseCaptured(bool captured) override;
    void stop() override;

    /// Where the view is heading, radians (not wrapped; same conventions as CameraPose).
    double desiredYaw() const { return desiredYaw_; }
    double desiredPitch() const { return desiredPitch_; }

    double approachRate() const { return approachRate_; }
    void setApproachRate(double perSecond);
    double rampTime() const { return rampTime_; }
    /// seconds >= 0; 0 = instant speed changes.
    void setRampTime(double seconds);
    double maxSpeed() const { return maxSpeed_; }
    void setMaxSpeed(double worldUnitsPerSecond);
    double mouseSensitivity() const { return mouseSensitivity_; }
    void setMouseSensitivity(double radiansPerPixel);

    /// The look-aside state; set its blend time here (LookAside::setBlendTime).
    LookAside& lookAside() { return lookAside_; }
    const LookAside& lookAside() const { return lookAside_; }

private:
    void setKey(Key key, bool down);
    void pointerMoved(double x, double y);

    CameraPose pose_;
    LookAside lookAside_;
    Vec3 velocity_;
    // Unwrapped angles: the approach works on the plain difference desired - current.
    double yaw_ = 0.0, pitch_ = 0.0;
    double desiredYaw_ = 0.0, desiredPitch_ = 0.0;
    // Signed speeds along the movement axes, world units/s.
    double forwardSpeed_ = 0.0, rightSpeed_ = 0.0, upSpeed_ = 0.0;
    bool forwardHeld_ = false, backHeld_ = false, leftHeld_ = false, rightHeld_ = false;
    bool upHeld_ = false, downHeld_ = false, lookAsideHeld_ = false;
    bool captured_ = false;
    bool hasLastPointer_ = false;
    double lastX_ = 0.0, lastY_ = 0.0;
    double approachRate_ = DefaultApproachRate;
    double rampTime_ = DefaultRampTime;
    double maxSpeed_ = DefaultMaxSpeed;
    double mouseSensitivity_ = DefaultMouseSensitivity;
};

} // namespace atrium::narrative
