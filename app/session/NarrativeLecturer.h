#pragma once
// A lecturer without a window: plays one narrative of a package and drives a session
// server with it, as the viewer's lecturer would - camera samples at up to 60 Hz while
// the camera flies, none while it rests at a node; the narrative's playback state when
// it starts, loops or ends; and at each node the view and heart state the node sets.
// Nodes that wait for a key stay for their dwell time instead (nobody is there to press).
// Used by `atrium-session serve` and `loadtest --serve`.
//
// A remote lecturer who drives (with the secret, or a student given the floor) takes over:
// the player pauses where it is and sends nothing, so that students see one lecturer, not
// two interleaved. When every remote driver has gone, it resumes from where it paused and
// first republishes its whole state (narrative, heart, view and camera), since the remote
// lecturer changed them.

#include "app/transport/SessionServer.h"
#include "narrative/NarrativePlayer.h"
#include "session/PoseBuffer.h"

namespace atrium::app {

class NarrativeLecturer {
public:
    NarrativeLecturer(transport::SessionServer& server, narrative::Narrative narrative, int index, bool loop);
    /// Publishes the starting state and starts playing.
    void start();
    /// Moves on by `dt` seconds and publishes what changed.
    void step(double dt);
    bool finished() const { return player_.finished(); }
    /// Standing back while a remote lecturer drives.
    bool yielded() const { return yielded_; }
    const narrative::NarrativePlayer& player() const { return player_; }

private:
    void publishNarrative();
    void applyNode(const narrative::ViewState& view);
    /// Takes the lecture back after a remote driver has gone.
    void resume();

    transport::SessionServer& server_;
    narrative::NarrativePlayer player_;
    int index_;
    session::PoseSampler sampler_;
    session::ViewSettings view_;
    session::SimState sim_;
    int lastNode_ = -2;
    bool wasPlaying_ = false;
    bool yielded_ = false, playingBeforeYield_ = false;
};

} // namespace atrium::app
