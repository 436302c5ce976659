#include "narrative/CameraPose.h"

#include <algorithm>
#include <cmath>

namespace atrium::narrative {

double wrapAngle(double radians) {
    constexpr double twoPi = 2.0 * std::numbers::pi;
    double wrapped = std::fmod(radians + std::numbers::pi, twoPi);
    if (wrapped < 0.0) wrapped += twoPi;
    wrapped -= std::numbers::pi;
    // fmod can round up to exactly +pi; keep the half-open interval.
    return wrapped >= std::numbers::pi ? -std::numbers::pi : wrapped;
}

CameraPose::CameraPose(const Vec3& position, double yaw, double pitch) : position_(position) {
    setYaw(yaw);
    setPitch(pitch);
}

CameraPose CameraPose::lookAt(const Vec3& eye, const Vec3& target) {
    const Vec3 d = normalized(target - eye);
    if (d == Vec3{}) return CameraPose(eye, 0.0, 0.0);
    const double horizontal = std::hypot(d.x, d.y);
    // Straight up or down: the yaw is undefined, keep 0.
    const double yaw = horizontal > 0.0 ? std::atan2(-d.x, d.y) : 0.0;
    return CameraPose(eye, yaw, std::atan2(d.z, horizontal));
}

void CameraPose::setYaw(double radians) { yaw_ = wrapAngle(radians); }

void CameraPose::setPitch(double radians) { pitch_ = std::clamp(radians, -MaxPitch, MaxPitch); }

Vec3 CameraPose::forward() const {
    const double c = std::cos(pitch_);
    return {-std::sin(yaw_) * c, std::cos(yaw_) * c, std::sin(pitch_)};
}

Vec3 CameraPose::right() const { return {std::cos(yaw_), std::sin(yaw_), 0.0}; }

Vec3 CameraPose::up() const { return cross(right(), forward()); }

} // namespace atrium::narrative
