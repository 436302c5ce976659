#include "session/SessionFollower.h"

#include "session/ClientText.h"
#include "session/LecturerAuth.h"

namespace atrium::session {

SessionFollower::SessionFollower(FollowerOptions options) : options_(std::move(options)), buffer_(options_.buffer) {}

void SessionFollower::connected(double now) {
    joined_ = false;
    open_ = true;
    lastHeard_ = now;
    snapshotSeen_ = false;
    awaitingSnapshot_ = true;
    farewell_.reset();
    pingsSent_ = 0;
    lastPing_ = -1e9;
    msg::Hello hello{options_.code, std::string(truncateUtf8(options_.name, kMaxNameBytes)), std::nullopt};
    if (member_ != 0) hello.resume = member_;
    queue(hello);
    tick(now);
}

void SessionFollower::disconnected() {
    joined_ = false;
    open_ = false;
    if (role_ == Role::Lecturer) role_ = Role::Student; // authenticate again on the next connection
}

void SessionFollower::tick(double now) {
    // Five quick pings to align the clock, then one per interval to follow drift.
    const double interval = pingsSent_ < 5 ? 0.05 : options_.pingInterval;
    if (now - lastPing_ < interval) return;
    lastPing_ = now;
    ++pingsSent_;
    queue(msg::Ping{nextPing_++, now});
}

std::vector<std::string> SessionFollower::takeOutgoing() { return std::exchange(outgoing_, {}); }

void SessionFollower::drop(const std::string& reason) {
    ++counters_.dropped;
    if (options_.log) options_.log("dropped: " + escapeClientText(reason));
}

void SessionFollower::received(std::string_view text, double now) {
    ++counters_.received;
    lastHeard_ = now;
    ParseResult parsed = parseMessage(text, kServerMessageLimits);
    if (!parsed) return drop(parsed.error);
    handle(std::move(*parsed.message), now);
}

void SessionFollower::handle(Message m, double now) {
    if (auto* welcome = std::get_if<msg::Welcome>(&m)) {
        if (welcome->session != session_) buffer_.clear(); // a new session (the server restarted)
        session_ = welcome->session;
        member_ = welcome->id;
        joined_ = true;
        role_ = Role::Student;
        if (options_.secret && welcome->challenge) {
            try {
                const LecturerKey key = LecturerKey::forChallenge(*options_.secret, *welcome->challenge);
                queue(msg::Auth{key.answer(*welcome->challenge, session_, member_)});
            } catch (const std::exception& e) {
                drop(std::string("welcome: cannot answer the lecturer challenge: ") + e.what());
            }
        }
        if (!following_) queue(msg::Status{false});
        return;
    }
    if (auto* error = std::get_if<msg::Error>(&m)) {
        if (options_.log) options_.log("the server refused a message: " + escapeClientText(error->reason));
        return;
    }
    if (auto* bye = std::get_if<msg::Bye>(&m)) {
        farewell_ = bye->reason;
        return;
    }
    if (!joined_) return drop(std::string(typeName(m)) + " before welcome");
    if (auto* pong = std::get_if<msg::Pong>(&m)) {
        clock_.addExchange(pong->t0, pong->ts, now);
        return;
    }
    if (auto* snapshot = std::get_if<msg::Snapshot>(&m)) {
        state_ = snapshot->state;
        seq_ = snapshot->seq;
        snapshotSeen_ = true;
        awaitingSnapshot_ = false;
        ++counters_.snapshots;
        if (state_.pose && clock_.synced()) buffer_.push(*state_.pose, lecturerNow(now));
        else if (state_.pose) buffer_.push(*state_.pose, state_.pose->t);
        followIfHeld();
        if (applied_) applied_(m);
        return;
    }
    if (auto* pose = std::get_if<msg::Pose>(&m)) {
        const double arrival = clock_.synced() ? lecturerNow(now) : pose->sample.t;
        if (!buffer_.push(pose->sample, arrival)) return drop("pose: out of order");
        state_.pose = pose->sample;
        if (poseArrived_) poseArrived_(pose->sample, arrival - pose->sample.t);
        return;
    }
    if (auto* result = std::get_if<msg::AuthResult>(&m)) {
        role_ = result->ok ? Role::Lecturer : Role::Student;
        if (!result->ok) drop("auth refused: " + result->reason);
        return;
    }
    if (auto* roster = std::get_if<msg::Roster>(&m)) {
        roster_ = roster->members;
        return;
    }
    if (isDrive(m)) {
        const std::uint64_t seq = sequenceOf(m);
        if (awaitingSnapshot_) return; // a fresh snapshot is on its way; it includes this
        if (seq <= seq_) return drop(std::string(typeName(m)) + ": out of order (seq " + std::to_string(seq) + " after " +
                                     std::to_string(seq_) + ")");
        if (seq != seq_ + 1) {
            drop(std::string(typeName(m)) + ": seq " + std::to_string(seq) + " after " + std::to_string(seq_) +
                 ", asking for a snapshot");
            ++counters_.resyncs;
            awaitingSnapshot_ = true;
            queue(msg::Resync{});
            return;
        }
        seq_ = seq;
        applyToState(state_, m);
        followIfHeld();
        if (applied_) applied_(m);
        return;
    }
    drop(std::string(typeName(m)) + ": not a message a server sends");
}

void SessionFollower::followIfHeld() {
    if (state_.attention != Attention::Hold || following_) return;
    following_ = true;
    queue(msg::Status{true});
}

std::optional<narrative::CameraPose> SessionFollower::poseAt(double now) {
    return buffer_.poseAt(clock_.synced() ? lecturerNow(now) : (state_.pose ? state_.pose->t : 0.0));
}

bool SessionFollower::setFollowing(bool following) {
    if (!following && state_.attention == Attention::Hold && !maySteer()) return false;
    if (following_ != following) {
        following_ = following;
        if (joined_) queue(msg::Status{following});
    }
    return true;
}

bool SessionFollower::drive(const Message& message) {
    if (!isDrive(message) || !joined_ || !maySteer()) return false;
    queue(message);
    return true;
}

} // namespace atrium::session
