#pragma once
// Camera motion across the network, both ends.
//
// PoseSampler (lecturer): decides which poses to send. At most `maxRate` samples a
// second while the camera moves, none while it stands still; when it starts moving
// after standing, the still pose is sent again stamped just before the first moving
// one, so that a student interpolates from rest instead of smearing the motion over the
// whole pause. A move held back by the rate limit goes out on the next frame after the
// interval, so the resting pose at the end of a motion is always sent.
//
// PoseBuffer (student): an adaptive interpolation buffer. Samples carry the lecturer's
// session time t and arrive at the student's estimate of that clock (ClockSync) some
// lateness L later. The buffer plays the lecturer's motion back `delay` seconds behind
// the lecturer, interpolating between the two samples around that instant (position on
// the line, orientation by slerp). The delay adapts: it has to cover the gap between
// samples plus their lateness, so it follows an estimate of both as TCP's retransmit
// timer does (mean + 4 mean deviations, Jacobson 1988), within [minDelay, maxDelay], and
// changes at most `slew` seconds per second so that motion never jumps. On a quiet
// loopback it settles near one sample interval (about 20 ms at 60 Hz); under jitter it
// grows until motion stays smooth. OpenSpace, the closest peer, waits a fixed 0.2 s.

#include "session/Protocol.h"

#include <cstddef>
#include <deque>
#include <optional>

namespace atrium::session {

class PoseSampler {
public:
    struct Options {
        double maxRate = 60.0;        ///< samples per second at most while moving
        double positionEpsilon = 1e-4; ///< mm: a smaller move counts as still
        double angleEpsilon = 1e-6;    ///< radians
    };
    PoseSampler() = default;
    explicit PoseSampler(Options options) : options_(options) {}

    /// The samples to send for the camera at `pose` at session time `now` (0, 1 or 2).
    std::vector<PoseSample> update(const narrative::CameraPose& pose, double now);
    /// Forgets what was sent: the next update sends its pose (e.g. after a resync).
    void reset() { last_.reset(), nextDue_ = 0.0; }

private:
    bool same(const narrative::CameraPose& a, const narrative::CameraPose& b) const;
    Options options_;
    std::optional<PoseSample> last_; ///< the last sample sent
    double nextDue_ = 0.0;           ///< the earliest time of the next sample
};

class PoseBuffer {
public:
    struct Options {
        double minDelay = 0.008;  ///< seconds
        double maxDelay = 0.5;
        double initialDelay = 0.05;
        double slew = 0.1;        ///< seconds of delay change per second of playback, at most
        std::size_t capacity = 512;
    };
    PoseBuffer() = default;
    explicit PoseBuffer(Options options) : options_(options), delay_(options.initialDelay) {}

    /// A sample that arrived at session time `arrival` (the student's estimate). One
    /// not newer than the newest held is dropped (false).
    bool push(const PoseSample& sample, double arrival);
    /// The pose to show at session time `now` (the student's estimate): the lecturer's
    /// motion `delay()` seconds ago, interpolated; the newest sample once past it (the
    /// lecturer stands still); nullopt before any sample.
    std::optional<narrative::CameraPose> poseAt(double now);
    /// Forgets every sample (after a resync, or when the lecturer changed).
    void clear();

    double delay() const { return delay_; }
    /// The delay the buffer is moving towards.
    double targetDelay() const;
    std::size_t size() const { return samples_.size(); }
    std::optional<PoseSample> newest() const;

private:
    Options options_;
    std::deque<PoseSample> samples_;
    double delay_ = Options{}.initialDelay;
    double lateMean_ = 0, lateDev_ = 0, gapMean_ = 1.0 / 60.0;
    bool estimated_ = false;
    std::optional<double> lastNow_;
};

} // namespace atrium::session
