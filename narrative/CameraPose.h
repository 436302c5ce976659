#pragma once
// The camera pose of the presentation model: a position and an orientation given by
// yaw and pitch in a global frame, as in Poyart 2016 5.2.2 ("the pitch and yaw
// components of the camera's orientation ... with respect to an arbitrary global
// orientation system"). There is no roll: the horizon stays level.
//
// Conventions (OpenSceneGraph's): world up is +Z. Angles are radians.
//  - yaw 0 looks along +Y; positive yaw turns left (counter-clockwise seen from +Z),
//    so yaw +pi/2 looks along -X and yaw -pi/2 along +X. Stored wrapped to [-pi, pi).
//  - pitch 0 is level, positive looks up; clamped to +-89 degrees so that forward never
//    becomes parallel to world up.
// Positions are in world units (millimetres for the heart scene).

#include "narrative/Vec3.h"

#include <numbers>

namespace atrium::narrative {

/// The world's up axis (+Z, OpenSceneGraph convention).
inline constexpr Vec3 WorldUp{0.0, 0.0, 1.0};

/// angle wrapped to [-pi, pi).
double wrapAngle(double radians);

class CameraPose {
public:
    /// Largest |pitch|: 89 degrees, in radians.
    static constexpr double MaxPitch = 89.0 * std::numbers::pi / 180.0;

    /// At the origin, looking along +Y.
    CameraPose() = default;
    /// yaw is wrapped, pitch clamped (see the file comment for the conventions).
    CameraPose(const Vec3& position, double yaw, double pitch);

    /// At eye, looking at target. A target straight above or below gives pitch
    /// +-MaxPitch; target == eye gives yaw 0, pitch 0.
    static CameraPose lookAt(const Vec3& eye, const Vec3& target);

    const Vec3& position() const { return position_; }
    void setPosition(const Vec3& position) { position_ = position; }

    /// Radians in [-pi, pi); 0 looks along +Y, positive turns left.
    double yaw() const { return yaw_; }
    void setYaw(double radians);

    /// Radians in [-MaxPitch, MaxPitch]; positive looks up.
    double pitch() const { return pitch_; }
    void setPitch(double radians);

    /// Unit view direction: (-sin yaw cos pitch, cos yaw cos pitch, sin pitch).
    Vec3 forward() const;
    /// Unit, horizontal, to the right of the view: forward x WorldUp normalised.
    Vec3 right() const;
    /// Unit camera up: right x forward (tilts with pitch; never below the horizon plane).
    Vec3 up() const;

    /// Exact equality (same position, yaw and pitch bits).
    bool operator==(const CameraPose&) const = default;

private:
    Vec3 position_;
    double yaw_ = 0.0;
    double pitch_ = 0.0;
};

} // namespace atrium::narrative
