#include "session/PoseBuffer.h"

#include "narrative/NarrativePlayer.h"

#include <algorithm>
#include <cmath>

namespace atrium::session {

bool PoseSampler::same(const narrative::CameraPose& a, const narrative::CameraPose& b) const {
    return narrative::length(a.position() - b.position()) <= options_.positionEpsilon &&
           std::abs(narrative::wrapAngle(a.yaw() - b.yaw())) <= options_.angleEpsilon &&
           std::abs(a.pitch() - b.pitch()) <= options_.angleEpsilon;
}

std::vector<PoseSample> PoseSampler::update(const narrative::CameraPose& pose, double now) {
    std::vector<PoseSample> out;
    const double interval = 1.0 / options_.maxRate;
    if (last_ && (same(pose, last_->pose) || now < nextDue_)) return out; // still, or too soon
    // From rest (nothing sent for a while, as a move is sent within an interval):
    // anchor the start of the motion.
    if (last_ && now - last_->t > 2.0 * interval) out.push_back({now - interval, last_->pose});
    // Keep the cadence of maxRate whatever the frame rate; start it afresh after a pause.
    nextDue_ = now - nextDue_ < interval ? nextDue_ + interval : now + interval;
    last_ = PoseSample{now, pose};
    out.push_back(*last_);
    return out;
}

bool PoseBuffer::push(const PoseSample& sample, double arrival) {
    if (!samples_.empty() && !(sample.t > samples_.back().t)) return false;
    const double late = arrival - sample.t;
    if (!estimated_) {
        lateMean_ = late;
        lateDev_ = 0.0;
        estimated_ = true;
    } else {
        const double error = late - lateMean_;
        lateMean_ += error / 8.0;
        lateDev_ += (std::abs(error) - lateDev_) / 4.0;
    }
    if (!samples_.empty()) {
        // Gaps longer than a few frames are pauses, not the sample rate.
        const double gap = std::min(sample.t - samples_.back().t, 0.1);
        gapMean_ += (gap - gapMean_) / 8.0;
    }
    samples_.push_back(sample);
    while (samples_.size() > options_.capacity) samples_.pop_front();
    return true;
}

double PoseBuffer::targetDelay() const {
    return std::clamp(gapMean_ + std::max(0.0, lateMean_) + 4.0 * lateDev_, options_.minDelay, options_.maxDelay);
}

std::optional<narrative::CameraPose> PoseBuffer::poseAt(double now) {
    if (samples_.empty()) return std::nullopt;
    // Move the delay towards its target, no faster than the slew allows.
    const double dt = lastNow_ ? std::clamp(now - *lastNow_, 0.0, 1.0) : 0.0;
    lastNow_ = now;
    const double target = targetDelay();
    const double step = options_.slew * dt;
    delay_ += std::clamp(target - delay_, -step, step);

    const double t = now - delay_;
    // Samples older than the one just before t are no longer needed.
    while (samples_.size() > 2 && samples_[1].t <= t) samples_.pop_front();
    if (t <= samples_.front().t) return samples_.front().pose;
    if (samples_.size() == 1 || t >= samples_.back().t) return samples_.back().pose;
    const PoseSample& a = samples_[0];
    const PoseSample& b = samples_[1];
    const double u = (t - a.t) / (b.t - a.t);
    return narrative::interpolatePose(a.pose, b.pose, std::clamp(u, 0.0, 1.0));
}

void PoseBuffer::clear() {
    samples_.clear();
    lastNow_.reset();
}

std::optional<PoseSample> PoseBuffer::newest() const {
    if (samples_.empty()) return std::nullopt;
    return samples_.back();
}

} // namespace atrium::session
