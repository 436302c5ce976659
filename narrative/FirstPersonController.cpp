#include "narrative/FirstPersonController.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace atrium::narrative {

namespace {

/// speed moved towards target by at most maxChange.
double rampTowards(double speed, double target, double maxChange) {
    if (speed < target) return std::min(speed + maxChange, target);
    return std::max(speed - maxChange, target);
}

double axisTarget(bool positive, bool negative, double maxSpeed) {
    return (positive == negative) ? 0.0 : (positive ? maxSpeed : -maxSpeed);
}

} // namespace

FirstPersonController::FirstPersonController() : FirstPersonController(CameraPose{}) {}

FirstPersonController::FirstPersonController(const CameraPose& pose) { setPose(pose); }

void FirstPersonController::setPose(const CameraPose& pose) {
    pose_ = pose;
    yaw_ = desiredYaw_ = pose.yaw();
    pitch_ = desiredPitch_ = pose.pitch();
    lookAside_.reset(pose_);
    if (lookAsideHeld_) lookAside_.press();
}

void FirstPersonController::setMouseCaptured(bool captured) {
    captured_ = captured;
    hasLastPointer_ = false; // the first move after a change only sets the reference
}

void FirstPersonController::stop() {
    forwardHeld_ = backHeld_ = leftHeld_ = rightHeld_ = upHeld_ = downHeld_ = false;
    lookAsideHeld_ = false;
    forwardSpeed_ = rightSpeed_ = upSpeed_ = 0.0;
    velocity_ = {};
    yaw_ = desiredYaw_ = pose_.yaw();
    pitch_ = desiredPitch_ = pose_.pitch();
    lookAside_.reset(pose_);
    hasLastPointer_ = false;
}

void FirstPersonController::setApproachRate(double perSecond) { approachRate_ = std::max(perSecond, 0.0); }
void FirstPersonController::setRampTime(double seconds) { rampTime_ = std::max(seconds, 0.0); }
void FirstPersonController::setMaxSpeed(double worldUnitsPerSecond) { maxSpeed_ = std::max(worldUnitsPerSecond, 0.0); }
void FirstPersonController::setMouseSensitivity(double radiansPerPixel) { mouseSensitivity_ = radiansPerPixel; }

void FirstPersonController::pointerMoved(double x, double y) {
    if (!captured_) {
        hasLastPointer_ = false;
        return;
    }
    if (hasLastPointer_) {
        desiredYaw_ -= mouseSensitivity_ * (x - lastX_);
        desiredPitch_ = std::clamp(desiredPitch_ - mouseSensitivity_ * (y - lastY_), -CameraPose::MaxPitch,
                                   CameraPose::MaxPitch);
    }
    lastX_ = x;
    lastY_ = y;
    hasLastPointer_ = true;
}

void FirstPersonController::setKey(Key key, bool down) {
    switch (key) {
    case Key::Forward: forwardHeld_ = down; break;
    case Key::Back: backHeld_ = down; break;
    case Key::Left: leftHeld_ = down; break;
    case Key::Right: rightHeld_ = down; break;
    case Key::Up: upHeld_ = down; break;
    case Key::Down: downHeld_ = down; break;
    case Key::LookAside:
        if (down == lookAsideHeld_) break;
        lookAsideHeld_ = down;
        if (down) lookAside_.press();
        else lookAside_.release();
        break;
    case Key::ToggleMouseCapture:
        if (down) setMouseCaptured(!captured_);
        break;
    }
}

void FirstPersonController::handle(const InputEvent& event) {
    switch (event.type) {
    case InputType::MouseMove: pointerMoved(event.x, event.y); break;
    case InputType::MouseWarp:
        lastX_ = event.x;
        lastY_ = event.y;
        hasLastPointer_ = captured_;
        break;
    case InputType::KeyDown: setKey(event.key, true); break;
    case InputType::KeyUp: setKey(event.key, false); break;
    case InputType::ButtonDown:
    case InputType::ButtonUp:
    case InputType::Wheel: break;
    }
}

void FirstPersonController::update(double dt) {
    if (!(dt > 0.0)) return;

    // Orientation: exact exponential approach (eq. 5.1; eq. 5.2 to first order).
    const double closed = 1.0 - std::exp(-approachRate_ * dt);
    yaw_ += closed * (desiredYaw_ - yaw_);
    pitch_ += closed * (desiredPitch_ - pitch_);
    // Keep the unwrapped pair near zero without changing their difference.
    constexpr double twoPi = 2.0 * std::numbers::pi;
    if (std::abs(yaw_) > twoPi) {
        const double turns = twoPi * std::round(yaw_ / twoPi);
        yaw_ -= turns;
        desiredYaw_ -= turns;
    }
    pose_.setYaw(yaw_);
    pose_.setPitch(pitch_);
    lookAside_.update(dt, pose_);

    // Translation: linear speed ramps (0.66 s from rest to maxSpeed).
    const double maxChange =
        rampTime_ > 0.0 ? maxSpeed_ * dt / rampTime_ : std::numeric_limits<double>::infinity();
    forwardSpeed_ = rampTowards(forwardSpeed_, axisTarget(forwardHeld_, backHeld_, maxSpeed_), maxChange);
    rightSpeed_ = rampTowards(rightSpeed_, axisTarget(rightHeld_, leftHeld_, maxSpeed_), maxChange);
    upSpeed_ = rampTowards(upSpeed_, axisTarget(upHeld_, downHeld_, maxSpeed_), maxChange);

    double f = forwardSpeed_, r = rightSpeed_, u = upSpeed_;
    const double speed = std::sqrt(f * f + r * r + u * u);
    if (speed > maxSpeed_ && speed > 0.0) {
        const double scale = maxSpeed_ / speed;
        f *= scale;
        r *= scale;
        u *= scale;
    }
    velocity_ = lookAside_.movementForward() * f + lookAside_.movementRight() * r + WorldUp * u;
    pose_.setPosition(pose_.position() + velocity_ * dt);
}

} // namespace atrium::narrative
