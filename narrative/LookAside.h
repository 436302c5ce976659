#pragma once
// Look-aside (Poyart 2016 5.3): look around without changing where you are going.
//
// While the look-aside key (Shift) is held, the movement axes (the directions that
// "forward" and "right" motion follow) stay fixed whatever the view does. On release
// they return to the view axes by plain linear vector interpolation over blendTime()
// seconds -- deliberately not spherical and not renormalised: after looking 180 degrees
// back, the motion slows to a stop and starts again forward along the same line,
// never sideways (with slerp it would swing through a full-speed sideways motion).
// The view itself is never turned back: the camera stays in the user's hands.
//
// Used by FirstPersonController and UsimController (the paper: it works best in
// first-person mode, but it can also be used in uSim mode).

#include "narrative/CameraPose.h"
#include "narrative/Vec3.h"

namespace atrium::narrative {

class LookAside {
public:
    /// Seconds for the movement axes to rejoin the view after release (the paper says
    /// "a small period of time" without a number; 0.5 s is our choice).
    static constexpr double DefaultBlendTime = 0.5;

    /// The look-aside key went down: freeze the movement axes where they are now (the
    /// view axes, or mid-blend the blended axes as they are, not renormalised).
    void press();
    /// The look-aside key went up: start blending the movement axes to the view.
    void release();
    /// Advances the blend by dt seconds and follows view (call after the view turned).
    void update(double dt, const CameraPose& view);
    /// Drops any hold or blend: the movement axes are view's axes again.
    void reset(const CameraPose& view);

    /// Direction of "forward" motion. Unit length, except during a blend, where it is
    /// the straight-line mix of the frozen and the view direction (shorter than 1).
    const Vec3& movementForward() const { return forward_; }
    /// Direction of "right" (strafe) motion; same rules as movementForward().
    const Vec3& movementRight() const { return right_; }

    bool held() const { return state_ == State::Held; }
    bool blending() const { return state_ == State::Blending; }

    double blendTime() const { return blendTime_; }
    /// seconds >= 0; 0 snaps the movement axes to the view on release.
    void setBlendTime(double seconds);

private:
    enum class State { FollowView, Held, Blending };
    State state_ = State::FollowView;
    Vec3 forward_{0.0, 1.0, 0.0};
    Vec3 right_{1.0, 0.0, 0.0};
    Vec3 frozenForward_{0.0, 1.0, 0.0};
    Vec3 frozenRight_{1.0, 0.0, 0.0};
    double blendElapsed_ = 0.0;
    double blendTime_ = DefaultBlendTime;
};

} // namespace atrium::narrative
