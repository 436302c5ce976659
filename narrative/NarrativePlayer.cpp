#include "narrative/NarrativePlayer.h"

#include <algorithm>
#include <cmath>

namespace atrium::narrative {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

struct Quaternion {
    double w = 1.0, x = 0.0, y = 0.0, z = 0.0;
};

Quaternion operator*(const Quaternion& a, const Quaternion& b) {
    return {a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
            a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}

/// The rotation that turns +Y (the view at yaw 0, pitch 0) into the pose's forward:
/// pitch about X, then yaw about world Z.
Quaternion orientation(const CameraPose& p) {
    const Quaternion yaw{std::cos(0.5 * p.yaw()), 0.0, 0.0, std::sin(0.5 * p.yaw())};
    const Quaternion pitch{std::cos(0.5 * p.pitch()), std::sin(0.5 * p.pitch()), 0.0, 0.0};
    return yaw * pitch;
}

Quaternion slerp(Quaternion a, Quaternion b, double u) {
    double d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
    if (d < 0.0) { // q and -q are the same rotation: take the one the short way round
        b = {-b.w, -b.x, -b.y, -b.z};
        d = -d;
    }
    double ka = 1.0 - u, kb = u;
    if (d < 0.9995) { // otherwise nearly parallel: the linear blend is exact enough
        const double theta = std::acos(std::min(d, 1.0));
        const double s = std::sin(theta);
        ka = std::sin((1.0 - u) * theta) / s;
        kb = std::sin(u * theta) / s;
    }
    Quaternion q{ka * a.w + kb * b.w, ka * a.x + kb * b.x, ka * a.y + kb * b.y, ka * a.z + kb * b.z};
    const double n = std::sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
    return {q.w / n, q.x / n, q.y / n, q.z / n};
}

/// q applied to +Y.
Vec3 forwardOf(const Quaternion& q) {
    const Vec3 u{q.x, q.y, q.z}, v{0.0, 1.0, 0.0};
    const Vec3 t = 2.0 * cross(u, v);
    return v + q.w * t + cross(u, t);
}

/// One stretch of the timeline.
struct Stage {
    PlayerStage kind = PlayerStage::Finished;
    int node = -1, from = -1, cycle = 0;
    double start = 0.0, end = kInfinity;
    double arrival = 0.0; // when `node` is reached
    std::optional<double> heartPhase;
};

/// Calls visit(stage) for each stage in order until it returns false or the timeline
/// ends (Finished, or a wait with no key press to end it: both have end = infinity).
template <typename Visit>
void walk(const Narrative& n, std::span<const double> unsortedKeys, const PlayerOptions& o, Visit&& visit) {
    // Key presses in time order (a player records them so), read by a cursor that only
    // moves forward, as arrivals do: the walk is linear in nodes plus presses.
    std::vector<double> sorted;
    std::span<const double> keys = unsortedKeys;
    if (!std::is_sorted(keys.begin(), keys.end())) {
        sorted.assign(keys.begin(), keys.end());
        std::sort(sorted.begin(), sorted.end());
        keys = sorted;
    }
    std::size_t nextKey = 0;
    double c = 0.0;
    const int count = int(n.nodes.size());
    if (count == 0) {
        visit(Stage{});
        return;
    }
    if (o.entryFrom) {
        if (!visit(Stage{PlayerStage::Transition, 0, -1, 0, 0.0, o.entryDuration, o.entryDuration, {}})) return;
        c = o.entryDuration;
    }
    for (int cycle = 0;; ++cycle) {
        for (int i = 0; i < count; ++i) {
            const Node& node = n.nodes[std::size_t(i)];
            const double arrival = c;
            if (!visit(Stage{PlayerStage::FadeIn, i, i, cycle, c, c + node.fadeIn, arrival, {}})) return;
            c += node.fadeIn;
            if (node.waitForKey) {
                // The first press at or after the node's arrival continues it (and is used up).
                while (nextKey < keys.size() && keys[nextKey] < arrival) ++nextKey;
                double release = nextKey < keys.size() ? keys[nextKey++] : kInfinity;
                release = std::max(release, c);
                if (!visit(Stage{PlayerStage::WaitingForKey, i, i, cycle, c, release, arrival, {}}) || release == kInfinity)
                    return;
                c = release;
            } else {
                if (!visit(Stage{PlayerStage::Dwell, i, i, cycle, c, c + node.dwell, arrival, {}})) return;
                c += node.dwell;
            }
            if (!visit(Stage{PlayerStage::FadeOut, i, i, cycle, c, c + node.fadeOut, arrival, {}})) return;
            c += node.fadeOut;
            if (i + 1 < count) {
                const Transition& t = n.transitions[std::size_t(i)];
                if (!visit(Stage{PlayerStage::Transition, i + 1, i, cycle, c, c + t.duration, c + t.duration, t.heartPhase}))
                    return;
                c += t.duration;
            }
        }
        if (!o.loop) {
            visit(Stage{PlayerStage::Finished, count - 1, count - 1, cycle, c, kInfinity, c, {}});
            return;
        }
        if (!visit(Stage{PlayerStage::Transition, 0, count - 1, cycle + 1, c, c + o.loopDuration, c + o.loopDuration, {}}))
            return;
        c += o.loopDuration;
    }
}

/// A loop's cycle length (node 0's arrival to its next one) when it never waits for
/// a key, so that the same frame recurs every cycle; nullopt otherwise.
std::optional<double> fixedCycle(const Narrative& n, const PlayerOptions& o) {
    if (!o.loop || n.nodes.empty()) return std::nullopt;
    double length = o.loopDuration;
    for (std::size_t i = 0; i < n.nodes.size(); ++i) {
        const Node& node = n.nodes[i];
        if (node.waitForKey) return std::nullopt;
        length += node.fadeIn + node.dwell + node.fadeOut + (i + 1 < n.nodes.size() ? n.transitions[i].duration : 0.0);
    }
    return length;
}

double safeDuration(double seconds) { return std::isfinite(seconds) && seconds > 0.0 ? seconds : 1e-3; }

PlayerOptions sanitised(PlayerOptions o) {
    o.loopDuration = safeDuration(o.loopDuration);
    o.entryDuration = safeDuration(o.entryDuration);
    return o;
}

} // namespace

double cubicEase(double x) {
    x = std::clamp(x, 0.0, 1.0);
    // y = X - X^3 on X in [-1/sqrt 3, 1/sqrt 3] (turning points), where it runs from
    // -2/(3 sqrt 3) to +2/(3 sqrt 3); with s = 2x - 1 and X = s / sqrt 3 the rescaled
    // value (y + 2/(3 sqrt 3)) / (4/(3 sqrt 3)) is (2 + 3 s - s^3) / 4.
    const double s = 2.0 * x - 1.0;
    return (2.0 + 3.0 * s - s * s * s) / 4.0;
}

CameraPose interpolatePose(const CameraPose& a, const CameraPose& b, double u) {
    if (u <= 0.0) return a;
    if (u >= 1.0) return b;
    const Vec3 f = forwardOf(slerp(orientation(a), orientation(b), u));
    const double horizontal = std::hypot(f.x, f.y);
    // Straight up or down (only when flying over the top): keep the blend of the yaws.
    const double yaw = horizontal > 1e-9 ? std::atan2(-f.x, f.y) : a.yaw() + u * wrapAngle(b.yaw() - a.yaw());
    return CameraPose(lerp(a.position(), b.position(), u), yaw, std::atan2(f.z, horizontal));
}

void handOver(CameraController& controller, const CameraPose& pose) {
    controller.stop();
    controller.setPose(pose);
}

PlayerFrame evaluate(const Narrative& n, double t, std::span<const double> keys, const PlayerOptions& options) {
    const PlayerOptions o = sanitised(options);
    t = std::isfinite(t) ? std::max(t, 0.0) : 0.0;
    // A fixed loop: evaluate within the first cycle and shift the times back.
    int skipped = 0;
    double shift = 0.0;
    if (const std::optional<double> cycle = fixedCycle(n, o)) {
        const double first = o.entryFrom ? o.entryDuration : 0.0;
        if (t >= first + *cycle) {
            skipped = int(std::min(std::floor((t - first) / *cycle), 1e9));
            shift = skipped * *cycle;
            t -= shift;
        }
    }
    PlayerFrame f;
    if (o.entryFrom) f.pose = *o.entryFrom;
    walk(n, keys, o, [&](const Stage& s) {
        if (t >= s.end && s.kind != PlayerStage::Finished) return true;
        f.stage = s.kind;
        f.node = s.node;
        f.fromNode = s.from;
        f.cycle = s.cycle;
        f.stageStart = s.start;
        f.stageEnd = s.end;
        f.nodeArrival = s.arrival;
        f.heartPhase = s.heartPhase;
        const double length = s.end - s.start;
        f.progress = std::isfinite(length) && length > 0.0 ? std::clamp((t - s.start) / length, 0.0, 1.0) : 0.0;
        if (s.node < 0) return false;
        const Node& node = n.nodes[std::size_t(s.node)];
        switch (s.kind) {
        case PlayerStage::Transition: {
            const CameraPose from = s.from < 0 ? *o.entryFrom : n.nodes[std::size_t(s.from)].pose;
            f.pose = interpolatePose(from, node.pose, cubicEase(f.progress));
            f.overlayAlpha = 0.0;
            break;
        }
        case PlayerStage::FadeIn:
            f.pose = node.pose;
            f.overlayAlpha = length > 0.0 ? f.progress : 1.0;
            break;
        case PlayerStage::Dwell:
        case PlayerStage::WaitingForKey:
            f.pose = node.pose;
            f.overlayAlpha = 1.0;
            break;
        case PlayerStage::FadeOut:
            f.pose = node.pose;
            f.overlayAlpha = length > 0.0 ? 1.0 - f.progress : 0.0;
            break;
        case PlayerStage::Finished:
            f.pose = node.pose;
            f.overlayAlpha = 0.0;
            break;
        }
        return false;
    });
    f.cycle += skipped;
    f.stageStart += shift;
    f.stageEnd += shift;
    f.nodeArrival += shift;
    return f;
}

std::optional<double> duration(const Narrative& n, std::span<const double> keys, const PlayerOptions& options) {
    const PlayerOptions o = sanitised(options);
    if (o.loop && !n.nodes.empty()) return std::nullopt;
    std::optional<double> end;
    walk(n, keys, o, [&](const Stage& s) {
        if (s.kind == PlayerStage::Finished) end = s.start;
        return true;
    });
    return end;
}

NarrativePlayer::NarrativePlayer(Narrative narrative, PlayerOptions options)
    : narrative_(std::move(narrative)), options_(options) {}

void NarrativePlayer::advance(double dt) {
    if (!playing_ || !(dt > 0.0)) return;
    time_ += dt;
    if (finished()) playing_ = false;
}

void NarrativePlayer::seek(double seconds) {
    time_ = std::isfinite(seconds) ? std::max(seconds, 0.0) : 0.0;
    std::erase_if(keys_, [&](double k) { return k >= time_; });
}

bool NarrativePlayer::seekToNode(int node, int cycle) {
    const PlayerOptions o = sanitised(options_);
    // Walk to the node's fade-in; a wait on the way with no key press ends the walk:
    // count it as continued where its overlays were shown, and walk again.
    for (;;) {
        std::optional<double> target;
        std::optional<double> unanswered;
        walk(narrative_, keys_, o, [&](const Stage& s) {
            const bool reached = node < 0 ? s.kind == PlayerStage::Finished
                                          : s.kind == PlayerStage::FadeIn && s.node == node && s.cycle == cycle;
            if (reached) {
                target = s.start;
                return false;
            }
            if (s.kind == PlayerStage::WaitingForKey && s.end == kInfinity) unanswered = s.start;
            return true;
        });
        if (target) {
            seek(*target);
            return true;
        }
        if (!unanswered) return false;
        keys_.push_back(*unanswered);
    }
}

bool NarrativePlayer::jumpTo(int node) {
    if (node < 0 || node >= int(narrative_.nodes.size())) return false;
    const PlayerFrame f = frame();
    // A flight back to node 0 already belongs to the next cycle.
    return seekToNode(node, f.cycle);
}

bool NarrativePlayer::next() {
    const PlayerFrame f = frame();
    const int last = int(narrative_.nodes.size()) - 1;
    if (f.stage == PlayerStage::Finished) return false;
    if (f.stage == PlayerStage::Transition) return seekToNode(f.node, f.cycle);
    if (f.node < last) return seekToNode(f.node + 1, f.cycle);
    return options_.loop ? seekToNode(0, f.cycle + 1) : seekToNode(-1, 0);
}

bool NarrativePlayer::previous() {
    const PlayerFrame f = frame();
    if (f.node < 0) return false;
    const int last = int(narrative_.nodes.size()) - 1;
    if (f.stage == PlayerStage::Finished) return seekToNode(last, f.cycle);
    if (f.stage == PlayerStage::Transition) {
        if (f.fromNode < 0) return seekToNode(0, 0);
        // The flight back to node 0 leaves the last node of the cycle before.
        return seekToNode(f.fromNode, f.fromNode == last && f.node == 0 ? f.cycle - 1 : f.cycle);
    }
    if (f.node > 0) return seekToNode(f.node - 1, f.cycle);
    return f.cycle > 0 ? seekToNode(last, f.cycle - 1) : seekToNode(0, 0);
}

bool NarrativePlayer::pressKey() {
    const PlayerFrame f = frame();
    const bool waits = f.node >= 0 && narrative_.nodes[std::size_t(f.node)].waitForKey &&
                       (f.stage == PlayerStage::WaitingForKey || f.stage == PlayerStage::FadeIn);
    if (!waits) return false;
    keys_.push_back(time_);
    return true;
}

} // namespace atrium::narrative
