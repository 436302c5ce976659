#include "app/session/NarrativeLecturer.h"

namespace atrium::app {

using namespace atrium::session;

namespace {
narrative::Narrative withoutWaits(narrative::Narrative n) {
    for (auto& node : n.nodes) node.waitForKey = false;
    return n;
}
} // namespace

NarrativeLecturer::NarrativeLecturer(transport::SessionServer& server, narrative::Narrative narrative, int index, bool loop)
    : server_(server), player_(withoutWaits(std::move(narrative)), narrative::PlayerOptions{loop}), index_(index) {}

void NarrativeLecturer::start() {
    sim_.at = server_.now();
    server_.drive(msg::Sim{0, sim_});
    server_.drive(msg::View{0, view_});
    player_.play();
    publishNarrative();
    step(0.0);
}

void NarrativeLecturer::publishNarrative() {
    NarrativeState s;
    s.index = index_;
    s.time = player_.time();
    s.at = server_.now();
    s.playing = player_.playing();
    s.loop = player_.options().loop;
    s.keys = player_.keyPresses();
    wasPlaying_ = s.playing;
    server_.drive(msg::Narrative{0, std::move(s)});
}

void NarrativeLecturer::applyNode(const narrative::ViewState& v) {
    const ViewSettings view = view_;
    if (v.colouring) view_.colouring = *v.colouring;
    if (v.fluid) view_.fluid = *v.fluid;
    if (v.wallOpacity) view_.opacity = *v.wallOpacity;
    if (v.clipping) view_.clipping = *v.clipping;
    if (v.wireframe) view_.wireframe = *v.wireframe;
    if (v.bloodVisible) view_.blood = *v.bloodVisible;
    if (!(view == view_)) server_.drive(msg::View{0, view_});

    const SimState sim = sim_;
    const double now = server_.now();
    if (v.heartRunning || v.heartPhase || v.heartRateBpm) {
        sim_.phase = sim_.phaseAt(now);
        sim_.at = now;
    }
    if (v.heartRateBpm) sim_.rateBpm = *v.heartRateBpm;
    if (v.heartPhase) sim_.phase = *v.heartPhase;
    if (v.heartRunning) sim_.running = *v.heartRunning;
    if (!(sim == sim_)) server_.drive(msg::Sim{0, sim_});
}

void NarrativeLecturer::resume() {
    yielded_ = false;
    const double now = server_.now();
    sim_.phase = sim_.phaseAt(now); // the heart kept its own time meanwhile
    sim_.at = now;
    server_.drive(msg::Sim{0, sim_});
    server_.drive(msg::View{0, view_});
    if (playingBeforeYield_) player_.play();
    publishNarrative();
    sampler_.reset(); // the camera is sent again even if it rests
}

void NarrativeLecturer::step(double dt) {
    if (server_.remoteDriving()) {
        if (!yielded_) {
            yielded_ = true;
            playingBeforeYield_ = player_.playing();
            player_.pause();
        }
        return;
    }
    if (yielded_) resume();
    player_.advance(dt);
    const narrative::PlayerFrame frame = player_.frame();
    for (const PoseSample& s : sampler_.update(frame.pose, server_.now())) server_.drive(msg::Pose{s});
    const bool atNode = frame.stage != narrative::PlayerStage::Transition && frame.node >= 0;
    if (atNode && frame.node != lastNode_) applyNode(player_.narrative().nodes[std::size_t(frame.node)].view);
    lastNode_ = atNode ? frame.node : -1;
    if (player_.playing() != wasPlaying_) publishNarrative(); // finished
}

} // namespace atrium::app
