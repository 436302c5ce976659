#include "narrative/OrbitController.h"

#include <algorithm>
#include <cmath>

namespace atrium::narrative {

OrbitController::OrbitController() { placeCamera(); }

void OrbitController::placeCamera() { pose_.setPosition(centre_ - pose_.forward() * distance_); }

void OrbitController::setPose(const CameraPose& pose) {
    pose_ = pose;
    centre_ = pose.position() + pose.forward() * distance_;
}

void OrbitController::setLookAt(const Vec3& eye, const Vec3& centre) {
    const CameraPose aim = eye == centre ? CameraPose(eye, pose_.yaw(), pose_.pitch()) : CameraPose::lookAt(eye, centre);
    pose_.setYaw(aim.yaw());
    pose_.setPitch(aim.pitch());
    centre_ = centre;
    // Along the (pitch-clamped) view direction, so the camera really looks at centre.
    distance_ = std::clamp(length(eye - centre), minDistance_, maxDistance_);
    placeCamera();
}

void OrbitController::setDistance(double worldUnits) {
    distance_ = std::clamp(worldUnits, minDistance_, maxDistance_);
    placeCamera();
}

void OrbitController::setDistanceLimits(double minDistance, double maxDistance) {
    minDistance_ = std::max(minDistance, 1e-12);
    maxDistance_ = std::max(maxDistance, minDistance_);
    setDistance(distance_);
}

void OrbitController::setZoomPerNotch(double factor) { zoomPerNotch_ = std::clamp(factor, 1e-3, 0.999); }

void OrbitController::setVerticalFieldOfView(double radians) {
    verticalFieldOfView_ = std::clamp(radians, 1e-3, std::numbers::pi - 1e-3);
}

void OrbitController::stop() { rotating_ = zooming_ = panning_ = false; }

void OrbitController::update(double) {}

void OrbitController::handle(const InputEvent& event) {
    switch (event.type) {
    case InputType::ButtonDown:
    case InputType::ButtonUp: {
        const bool down = event.type == InputType::ButtonDown;
        switch (event.button) {
        case MouseButton::Left: rotating_ = down; break;
        case MouseButton::Right: zooming_ = down; break;
        case MouseButton::Middle: panning_ = down; break;
        }
        lastX_ = event.x;
        lastY_ = event.y;
        break;
    }
    case InputType::MouseWarp:
        lastX_ = event.x;
        lastY_ = event.y;
        break;
    case InputType::MouseMove: {
        const double dx = event.x - lastX_, dy = event.y - lastY_;
        lastX_ = event.x;
        lastY_ = event.y;
        if (rotating_) {
            pose_.setYaw(pose_.yaw() - rotateSensitivity_ * dx);
            pose_.setPitch(pose_.pitch() - rotateSensitivity_ * dy);
        }
        if (zooming_) distance_ = std::clamp(distance_ * std::exp(zoomPerPixel_ * dy), minDistance_, maxDistance_);
        if (panning_ && event.viewportHeight > 0.0) {
            const double perPixel = 2.0 * distance_ * std::tan(0.5 * verticalFieldOfView_) / event.viewportHeight;
            centre_ -= pose_.right() * (dx * perPixel) - pose_.up() * (dy * perPixel);
        }
        if (rotating_ || zooming_ || panning_) placeCamera();
        break;
    }
    case InputType::Wheel:
        setDistance(distance_ * std::pow(zoomPerNotch_, event.wheelNotches));
        break;
    case InputType::KeyDown:
    case InputType::KeyUp: break;
    }
}

} // namespace atrium::narrative
