#include "narrative/UsimController.h"

#include <algorithm>
#include <cmath>

namespace atrium::narrative {

UsimController::UsimController() : UsimController(CameraPose{}) {}

UsimController::UsimController(const CameraPose& pose) { setPose(pose); }

void UsimController::setPose(const CameraPose& pose) {
    pose_ = pose;
    lookAside_.reset(pose_);
    if (lookAsideHeld_) lookAside_.press();
}

void UsimController::setMouseCaptured(bool captured) {
    captured_ = captured;
    offsetX_ = offsetY_ = 0.0;
    accelerating_ = decelerating_ = false;
}

void UsimController::stop() {
    offsetX_ = offsetY_ = 0.0;
    accelerating_ = decelerating_ = lookAsideHeld_ = false;
    speed_ = 0.0;
    velocity_ = {};
    lookAside_.reset(pose_);
}

void UsimController::setSpeed(double worldUnitsPerSecond) {
    speed_ = std::clamp(worldUnitsPerSecond, minSpeed_, maxSpeed_);
}
void UsimController::setTurnRate(double radiansPerSecond) { turnRate_ = radiansPerSecond; }
void UsimController::setDeadZone(double halfHeights) { deadZone_ = std::clamp(halfHeights, 0.0, 0.9); }
void UsimController::setAcceleration(double a) { acceleration_ = std::max(a, 0.0); }
void UsimController::setMaxSpeed(double worldUnitsPerSecond) {
    maxSpeed_ = std::max(worldUnitsPerSecond, 0.0);
    minSpeed_ = std::min(minSpeed_, maxSpeed_);
    speed_ = std::clamp(speed_, minSpeed_, maxSpeed_);
}
void UsimController::setMinSpeed(double worldUnitsPerSecond) {
    minSpeed_ = std::min(worldUnitsPerSecond, maxSpeed_);
    speed_ = std::clamp(speed_, minSpeed_, maxSpeed_);
}

double UsimController::offsetGain() const {
    const double r = std::hypot(offsetX_, offsetY_);
    if (!captured_ || r <= deadZone_) return 0.0;
    return (r - deadZone_) / ((1.0 - deadZone_) * r);
}

double UsimController::yawRate() const { return -turnRate_ * offsetGain() * offsetX_; }
double UsimController::pitchRate() const { return -turnRate_ * offsetGain() * offsetY_; }

void UsimController::handle(const InputEvent& event) {
    switch (event.type) {
    case InputType::MouseMove:
    case InputType::MouseWarp:
    case InputType::ButtonDown:
    case InputType::ButtonUp:
        if (!captured_ || !(event.viewportHeight > 0.0)) break;
        {
            const double halfHeight = 0.5 * event.viewportHeight;
            offsetX_ = (event.x - 0.5 * event.viewportWidth) / halfHeight;
            offsetY_ = (event.y - 0.5 * event.viewportHeight) / halfHeight;
        }
        if (event.type == InputType::ButtonDown || event.type == InputType::ButtonUp) {
            const bool down = event.type == InputType::ButtonDown;
            if (event.button == MouseButton::Left) accelerating_ = down;
            else if (event.button == MouseButton::Right) decelerating_ = down;
        }
        break;
    case InputType::KeyDown:
    case InputType::KeyUp: {
        const bool down = event.type == InputType::KeyDown;
        if (event.key == Key::ToggleMouseCapture) {
            if (down) setMouseCaptured(!captured_);
        } else if (event.key == Key::LookAside && down != lookAsideHeld_) {
            lookAsideHeld_ = down;
            if (down) lookAside_.press();
            else lookAside_.release();
        }
        break;
    }
    case InputType::Wheel: break;
    }
}

void UsimController::update(double dt) {
    if (!(dt > 0.0)) return;

    // Angular velocity from the pointer offset, integrated: yaw about world up,
    // pitch about the camera's x axis (pose clamps pitch to +-89 degrees).
    pose_.setYaw(pose_.yaw() + yawRate() * dt);
    pose_.setPitch(pose_.pitch() + pitchRate() * dt);
    lookAside_.update(dt, pose_);

    const double change = acceleration_ * dt * ((accelerating_ ? 1.0 : 0.0) - (decelerating_ ? 1.0 : 0.0));
    speed_ = std::clamp(speed_ + change, minSpeed_, maxSpeed_);
    velocity_ = lookAside_.movementForward() * speed_;
    pose_.setPosition(pose_.position() + velocity_ * dt);
}

} // namespace atrium::narrative
