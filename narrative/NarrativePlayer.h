#pragma once
// Playing a narrative (Poyart 2016 5.4). What is on screen is a pure function of the
// narrative, the playback clock and the times of the key presses that continued
// wait-for-key nodes: evaluate() below. It is deterministic, so a lecturer's player and
// the students' players given the same inputs show the same frame, and a video export
// can render any instant without playing up to it. NarrativePlayer holds that state
// (clock, playing or paused, key presses) and offers play, pause, next, previous, jump,
// seek and loop on top of it.
//
// The timeline. For each node i: fade-in (node.fadeIn s, overlays 0 -> 1), then dwell
// (node.dwell s; or, with waitForKey, until a key press at or after the node's arrival),
// then fade-out (node.fadeOut s, overlays 1 -> 0), then the transition to node i + 1
// (its duration) with the camera flying; the camera stands still at a node. After the
// last node the tour is finished, or, looping, flies back to node 0 (loopDuration) and
// starts its next cycle. With an entry pose the timeline begins with a flight from it
// to node 0 (entryDuration), so that playing from wherever the camera is does not jump.
//
// The flight (5.4.1): the position moves on the straight line between the nodes and
// the orientation turns by quaternion slerp, both driven by cubicEase() of the linear
// progress; the slerp takes the short way, so a yaw crossing +-pi turns through pi.

#include "narrative/CameraController.h"
#include "narrative/Narrative.h"

#include <limits>
#include <optional>
#include <span>
#include <vector>

namespace atrium::narrative {

/// The ease of 5.4.1: y = x - x^3 with the x axis scaled so that its turning points
/// x = -+1/sqrt(3) fall at 0 and 1, and the y axis so that its minimum and maximum
/// fall at 0 and 1. For x in [0, 1] this works out to 3 x^2 - 2 x^3; x outside [0, 1]
/// is clamped. Symmetric (e(1 - x) = 1 - e(x)), monotonic, flat at both ends.
double cubicEase(double x);

/// The pose a fraction `u` (0..1, already eased) of the way from `a` to `b`: position on
/// the straight line, orientation by quaternion slerp the short way round (no roll, so
/// the result is read back as yaw and pitch).
CameraPose interpolatePose(const CameraPose& a, const CameraPose& b, double u);

/// Hands the camera over to `controller` at `pose` with no jump: it comes to rest there
/// (held keys and speeds forgotten) and continues from it. For when a narrative stops
/// or the user takes the mouse.
void handOver(CameraController& controller, const CameraPose& pose);

struct PlayerOptions {
    bool loop = false;             ///< after the last node, fly back to node 0 and go on
    double loopDuration = 3.0;     ///< seconds of the flight back, > 0
    /// Start with a flight from this pose to node 0 (e.g. the camera when play was pressed).
    std::optional<CameraPose> entryFrom;
    double entryDuration = 2.0;    ///< seconds, > 0
    bool operator==(const PlayerOptions&) const = default;
};

enum class PlayerStage {
    Transition,    ///< flying to `node` (from `fromNode`, or from the entry pose when -1)
    FadeIn,        ///< at `node`, overlays fading in
    Dwell,         ///< at `node`, overlays shown for the dwell time
    WaitingForKey, ///< at `node`, overlays shown until a key press
    FadeOut,       ///< at `node`, overlays fading out
    Finished,      ///< after the last node (or an empty narrative): the camera rests there
};

/// What the player shows at one instant.
struct PlayerFrame {
    PlayerStage stage = PlayerStage::Finished;
    int node = -1;      ///< the node shown, or flown to in a Transition; -1: none (empty narrative)
    int fromNode = -1;  ///< Transition: the node flown from; -1 from the entry pose
    int cycle = 0;      ///< completed loops
    CameraPose pose;
    double stageStart = 0.0; ///< timeline seconds
    double stageEnd = 0.0;   ///< timeline seconds; +infinity while waiting for a key, or finished
    double progress = 0.0;   ///< linear fraction of the stage done (0 for unbounded stages)
    double overlayAlpha = 0.0; ///< opacity of `node`'s overlays, 0..1
    /// When the camera reached (or reaches, in a Transition) `node`: media of the node
    /// play from `time - nodeArrival + item.startOffset`.
    double nodeArrival = 0.0;
    /// Transition only: the heart phase the flight brings the heart to.
    std::optional<double> heartPhase;
};

/// The pure player: the frame at timeline second `t` (clamped to >= 0), given the key
/// presses (timeline seconds, any order) and options. An empty narrative gives a
/// Finished frame at node -1 (at the entry pose, if any).
PlayerFrame evaluate(const Narrative& narrative, double t, std::span<const double> keyPresses,
                     const PlayerOptions& options = {});

/// The total length of the timeline (the start of Finished), or nullopt when it is
/// unbounded: looping, or waiting for a key that was not pressed.
std::optional<double> duration(const Narrative& narrative, std::span<const double> keyPresses,
                               const PlayerOptions& options = {});

class NarrativePlayer {
public:
    NarrativePlayer() = default;
    explicit NarrativePlayer(Narrative narrative, PlayerOptions options = {});

    const Narrative& narrative() const { return narrative_; }
    const PlayerOptions& options() const { return options_; }
    void setLoop(bool loop) { options_.loop = loop; }

    void play() { playing_ = true; }
    void pause() { playing_ = false; }
    bool playing() const { return playing_; }
    /// Moves the clock on by dt seconds while playing (dt <= 0 does nothing). Stops
    /// playing when the tour is finished.
    void advance(double dt);

    double time() const { return time_; }
    /// Sets the clock (clamped to >= 0). Key presses at or after it are forgotten: what
    /// follows is played again.
    void seek(double seconds);
    /// Arrives at `node` now, overlays starting to fade in, in the current loop cycle.
    /// Waits before it count as continued. False for an index out of range.
    bool jumpTo(int node);
    /// From a flight: arrive at its destination. At a node: go to the next one (at the
    /// last, to the end, or to node 0 when looping). False when already finished.
    bool next();
    /// From a flight: back to the node it left. At a node: the one before (node 0: its
    /// start again). Finished: the last node.
    bool previous();
    /// A key press: continues a node that waits for one (also during its fade-in).
    /// Returns false, and records nothing, when no node is waiting.
    bool pressKey();
    const std::vector<double>& keyPresses() const { return keys_; }

    PlayerFrame frame() const { return evaluate(narrative_, time_, keys_, options_); }
    bool finished() const { return frame().stage == PlayerStage::Finished; }

private:
    /// Seeks to where node `node` of loop `cycle` starts (or to the end for node -1),
    /// counting unanswered waits on the way as continued.
    bool seekToNode(int node, int cycle);

    Narrative narrative_;
    PlayerOptions options_;
    double time_ = 0.0;
    bool playing_ = false;
    std::vector<double> keys_;
};

} // namespace atrium::narrative
