#include "narrative/LookAside.h"

#include <algorithm>

namespace atrium::narrative {

void LookAside::press() {
    frozenForward_ = forward_;
    frozenRight_ = right_;
    state_ = State::Held;
}

void LookAside::release() {
    if (state_ != State::Held) return;
    state_ = State::Blending;
    blendElapsed_ = 0.0;
}

void LookAside::update(double dt, const CameraPose& view) {
    switch (state_) {
    case State::Held:
        return;
    case State::Blending: {
        blendElapsed_ += std::max(dt, 0.0);
        const double s = blendTime_ > 0.0 ? std::min(blendElapsed_ / blendTime_, 1.0) : 1.0;
        if (s < 1.0) {
            // Linear, not spherical, and not renormalised (Poyart 2016 5.3).
            forward_ = lerp(frozenForward_, view.forward(), s);
            right_ = lerp(frozenRight_, view.right(), s);
            return;
        }
        state_ = State::FollowView;
        [[fallthrough]];
    }
    case State::FollowView:
        forward_ = view.forward();
        right_ = view.right();
        return;
    }
}

void LookAside::reset(const CameraPose& view) {
    state_ = State::FollowView;
    forward_ = view.forward();
    right_ = view.right();
}

void LookAside::setBlendTime(double seconds) { blendTime_ = std::max(seconds, 0.0); }

} // namespace atrium::narrative
