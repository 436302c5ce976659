#pragma once
// A baked beat: the blood of one settled cardiac cycle, simulated once and stored as
// particle frames evenly spaced in the cycle, so that a machine too slow to simulate
// the blood in real time (a laptop without a GPU: ~1/20 real time on 2 cores) plays it
// back at the true heart rate, in step with the wall (docs/baked-flow.md).
//
// Frame k holds the blood at cycle phase k / framesPerBeat. Particles carry no identity
// from frame to frame (the solver re-sorts them by cell and adds and removes blood), so
// a player moves each frame's particles along their own velocity to the moment shown
// (sampleAt): the last frame's forward, the next one's backward, whichever is nearer.
//
// Per particle and frame (16 bytes): position as 3 x u16 in the box `boxMm` (a step of
// box / 65535, ~2.5 um for a 160 mm heart), velocity as 3 x u16 in [-speedMax,
// speedMax], density error (rho/rho0 - 1) and pressure (Pa) as u16 each in their
// ranges over the beat. The file layout (little-endian) is in docs/baked-flow.md;
// reading checks every size against the bytes actually present before allocating, and
// a checksum over the whole file, so a truncated or corrupt file is refused with a
// message naming it and what is wrong. Writing goes through a temporary file renamed
// into place.

#include "sim/heart/HeartSimulation.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::heart {

/// A baked-beat file or buffer that cannot be read; what() names the file and the fault.
class BakedBeatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Thrown by bakeBeat when its progress callback asked it to stop.
class BakeCancelled : public std::runtime_error {
public:
    BakeCancelled() : std::runtime_error("heart: baking the beat was cancelled") {}
};

/// One moment of the blood, decoded: millimetres and the solver's units.
struct BloodFrame {
    std::vector<float> positionMm;   ///< xyz per particle
    std::vector<float> velocity;     ///< xyz per particle, m/s
    std::vector<float> densityError; ///< rho/rho0 - 1 per particle
    std::vector<float> pressure;     ///< Pa per particle
    std::size_t particles() const { return positionMm.size() / 3; }
};

class BakedBeat {
public:
    static constexpr std::uint32_t kFormatVersion = 1;
    static constexpr int kMinFrames = 2, kMaxFrames = 10000;
    static constexpr std::size_t kBytesPerParticle = 16;
    static constexpr std::size_t kMaxParticlesPerFrame = std::size_t(1) << 26;
    static constexpr std::size_t kMaxKeyBytes = 1 << 16;

    /// What the beat was baked from (heart, settings, format); compared as a whole to
    /// decide whether a cached bake still fits (see flowCacheKey).
    std::string key;
    double cycleSeconds = 0.8;
    double particleSpacingMm = 2.0;
    sph::Aabb boxMm;               ///< positions are quantised in this box

    BakedBeat() = default;
    /// Quantises `frames` (evenly spaced over one cycle, phase k / frames.size()).
    /// Throws std::invalid_argument for fewer than kMinFrames frames, more than
    /// kMaxFrames, an empty or non-finite box, or a non-finite value.
    BakedBeat(std::string key, double cycleSeconds, double particleSpacingMm, sph::Aabb boxMm,
              const std::vector<BloodFrame>& frames);

    int framesPerBeat() const { return int(frames_.size()); }
    std::size_t particles(int frame) const { return frames_[std::size_t(frame)].particles; }
    /// Decodes frame `k` (0 <= k < framesPerBeat()).
    void decode(int k, BloodFrame& out) const;
    /// The blood at cycle phase `phase` (wraps): the nearer frame's particles moved
    /// along their velocity to that moment.
    void sampleAt(double phase, BloodFrame& out) const;
    /// The frame sampleAt(phase) moves, and the seconds it moves it by (signed).
    std::pair<int, double> nearestFrame(double phase) const;
    /// Quantisation steps: position (mm), velocity (m/s), density error, pressure (Pa).
    double positionStepMm() const;
    double velocityStep() const { return 2.0 * speedMax_ / 65535.0; }
    double densityErrorStep() const { return (densityError_.max - densityError_.min) / 65535.0; }
    double pressureStep() const { return (pressure_.max - pressure_.min) / 65535.0; }

    /// The file's bytes, checksum included.
    std::string serialize() const;
    /// Reads serialize()'s bytes; `source` names them in errors. Throws BakedBeatError.
    static BakedBeat parse(std::span<const std::byte> bytes, const std::string& source);
    /// Writes atomically (temporary file, then rename). Throws BakedBeatError naming
    /// the file when any write fails.
    void save(const std::filesystem::path& file) const;
    /// Reads a file written by save(). Throws BakedBeatError naming the file.
    static BakedBeat load(const std::filesystem::path& file);

private:
    struct Range {
        float min = 0.f, max = 0.f;
    };
    struct Frame {
        std::size_t particles = 0;
        std::vector<std::uint16_t> data; ///< 8 x u16 per particle, as stored
    };
    std::vector<Frame> frames_;
    float speedMax_ = 0.f;
    Range densityError_, pressure_;
};

struct BakeSettings {
    double settleBeats = 1.0; ///< beats simulated and dropped first (the blood settles)
    int framesPerBeat = 60;   ///< frames stored over the beat (60 or more plays smoothly)
};

/// Simulates `settings.settleBeats` beats of `simulation`'s blood in `heart`, then one
/// more, stepping onto each of `framesPerBeat` evenly spaced moments to store it. The
/// blood's preparation counts as the first 5 % of the progress. `progress` gets the
/// fraction done; returning false cancels (BakeCancelled). Throws
/// sph::SimulationBlowUp if the blood blows up, std::invalid_argument for bad settings.
BakedBeat bakeBeat(const MovingHeartMesh& heart, double cycleSeconds, const HeartAnatomy& anatomy,
                   const HeartSimulationSettings& simulation, const BakeSettings& settings, std::string key,
                   const std::function<bool(double fraction)>& progress = {});

/// The simulation's blood as a frame: positions in mm, pressure physiological
/// (HeartSimulation::physiologicalPressure).
BloodFrame captureFrame(const HeartSimulation& simulation);

/// The key of a bake of `heartKey` (e.g. the heart's cache file name) with these
/// settings: every input that changes the blood, as text.
std::string flowCacheKey(const std::string& heartKey, double cycleSeconds, const HeartSimulationSettings& simulation,
                         const BakeSettings& settings);
/// The heart a beat was baked in: the `heart` line of its key (flowCacheKey's
/// `heartKey`, heartIdentity for atrium-sim's and the viewer's bakes), or empty.
std::string bakedHeartOf(const BakedBeat& beat);
/// The cache file of a bake with `key`: flow-<FNV-1a 64 of key>.atriumflow in `directory`.
std::filesystem::path flowCacheFile(const std::filesystem::path& directory, const std::string& key);

} // namespace atrium::heart
