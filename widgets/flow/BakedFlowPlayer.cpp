#include "widgets/flow/BakedFlowPlayer.h"

#include <cmath>

namespace atrium::widgets {

BakedFlowPlayer::BakedFlowPlayer(std::shared_ptr<const heart::BakedBeat> beat,
                                 std::shared_ptr<const heart::MovingHeartMesh> heart, double cycleSeconds,
                                 bool startPaused)
    : beat_(std::move(beat)), heart_(std::move(heart)), cycleSeconds_(beat_ ? beat_->cycleSeconds : cycleSeconds),
      paused_(startPaused) {
    if (!heart_) throw std::invalid_argument("BakedFlowPlayer: no heart");
    if (!(cycleSeconds_ > 0.0)) throw std::invalid_argument("BakedFlowPlayer: the cycle must be > 0 s");
    topology_.resize(std::size_t(heart_->phaseCount()));
    for (auto& t : topology_) t = nextWallTopology();
    publish();
}

void BakedFlowPlayer::advance(double seconds) {
    if (paused_ || !(seconds > 0.0)) return;
    const double step = seconds / cycleSeconds_;
    if (hold_) {
        // The phase still to go to the hold, in [0, 1).
        const double ahead = *hold_ - phase_ - std::floor(*hold_ - phase_);
        if (step >= ahead) {
            paused_ = true;
            const double at = *hold_;
            hold_.reset();
            return setPhase(at);
        }
    }
    setPhase(phase_ + step);
}

void BakedFlowPlayer::setPaused(bool paused) {
    paused_ = paused;
    hold_.reset();
    publish(); // the HUD says so
}

void BakedFlowPlayer::holdAtPhase(double phase) {
    hold_ = phase - std::floor(phase);
    paused_ = false;
}

void BakedFlowPlayer::stepOnce() { setPhase(phase_ + 1.0 / (beat_ ? beat_->framesPerBeat() : 60)); }

double BakedFlowPlayer::particleSpacingMm() const { return beat_ ? beat_->particleSpacingMm : 2.0; }

std::string BakedFlowPlayer::status() const {
    if (paused_) return "paused";
    if (hold_) return "beating on to phase " + std::to_string(int(std::lround(100 * *hold_))) + " %";
    return {};
}

void BakedFlowPlayer::setOrigin(std::string origin) {
    origin_ = std::move(origin);
    publish();
}

void BakedFlowPlayer::setPhase(double phase) {
    phase_ = phase - std::floor(phase);
    publish();
}

void BakedFlowPlayer::publish() {
    auto snap = std::make_shared<BloodSnapshot>();
    if (beat_) {
        beat_->sampleAt(phase_, frame_);
        snap->setBlood(frame_);
    }
    const int mesh = heart_->sample(phase_, cycleSeconds_, wall_, wallVelocity_);
    snap->setWall(wall_, 1.f);
    snap->wallTopology = topology_[std::size_t(mesh) % topology_.size()];
    snap->cyclePhase = phase_;
    snap->heartRateBpm = 60.0 / cycleSeconds_;
    snap->simulatedSeconds = phase_ * cycleSeconds_;
    snap->realTimeFactor = paused_ ? 0.0 : 1.0;
    snap->baked = beat_ != nullptr;
    snap->bakedOrigin = origin_;
    latest_ = std::move(snap);
    ++publications_;
}

} // namespace atrium::widgets
