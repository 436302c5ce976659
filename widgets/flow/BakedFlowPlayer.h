#pragma once
// Plays a baked beat (heart::BakedBeat) at the true heart rate: each frame of the view
// moves the phase on by the wall-clock time over the cycle, samples the blood there
// and poses the wall at the same phase, so that blood and wall loop together. Runs on
// the UI thread (sampling 15k particles and posing the wall take about a millisecond).
// Seekable by phase (setPhase): the cardiac-cycle panel scrubs it while paused, and a
// live lecture can hold it to the lecturer's heart. Without a beat it shows the wall
// alone, beating in real time (while a beat is baked).

#include "sim/heart/BakedBeat.h"
#include "widgets/view/BloodSource.h"

#include <memory>

namespace atrium::widgets {

class BakedFlowPlayer : public BloodSource {
public:
    /// `beat` may be null (the wall alone, at `cycleSeconds`); with one, its own cycle
    /// is used. `heart` must be the heart the beat was baked in.
    BakedFlowPlayer(std::shared_ptr<const heart::BakedBeat> beat, std::shared_ptr<const heart::MovingHeartMesh> heart,
                    double cycleSeconds, bool startPaused = false);

    std::shared_ptr<const BloodSnapshot> latest() const override { return latest_; }
    std::uint64_t publications() const override { return publications_; }
    void advance(double seconds) override;
    void setPaused(bool paused) override;
    bool paused() const override { return paused_; }
    void stepOnce() override;
    void holdAtPhase(double phase) override;
    std::optional<double> pendingHold() const override { return hold_; }
    double particleSpacingMm() const override;
    std::string status() const override;

    /// Where the beat comes from, for the HUD ("the lecture"; empty: baked here).
    void setOrigin(std::string origin);
    /// Shows phase `phase` of the cycle (wraps) now.
    void setPhase(double phase);
    double phase() const { return phase_; }
    double cycleSeconds() const { return cycleSeconds_; }
    const heart::BakedBeat* beat() const { return beat_.get(); }

private:
    void publish();

    std::shared_ptr<const heart::BakedBeat> beat_;
    std::shared_ptr<const heart::MovingHeartMesh> heart_;
    double cycleSeconds_;
    std::string origin_;
    double phase_ = 0.0;
    bool paused_;
    std::optional<double> hold_;
    std::shared_ptr<const BloodSnapshot> latest_;
    std::uint64_t publications_ = 0;
    std::vector<std::uint64_t> topology_; // per phase mesh of the heart
    heart::BloodFrame frame_;
    sph::TriangleMesh wall_;
    std::vector<sph::Vec3> wallVelocity_;
};

} // namespace atrium::widgets
