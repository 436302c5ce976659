#pragma once
// A student's end of a live session, without sockets: it says hello, keeps the session
// state from the snapshot and the deltas that follow, aligns its clock with the
// lecturer's by pings, buffers the camera samples, and tells the app what changed. The
// transport hands it what arrives and sends what it queues (takeOutgoing()).
//
// Deltas carry consecutive sequence numbers. One already seen is dropped (out of
// order); a gap means something was lost, so the follower asks for a fresh snapshot
// and ignores deltas until it comes. After a reconnect it says hello again with its
// member id and resyncs from the new snapshot, keeping its view meanwhile; when the
// server restarted (a new session id) the pose buffer starts afresh.
//
// A follower given the lecturer secret answers the server's challenge and, when
// accepted, may drive (drive()); one given the floor by the lecturer may drive too.

#include "session/ClockSync.h"
#include "session/PoseBuffer.h"
#include "session/Protocol.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace atrium::session {

struct FollowerOptions {
    std::string code;
    std::string name;
    std::optional<std::string> secret; ///< the lecturer secret, to drive from this client
    PoseBuffer::Options buffer;
    double pingInterval = 1.0;         ///< seconds between pings once the clock is aligned
    /// Seconds without a word from the server (it answers every ping) after which the link
    /// counts as dead: a network that drops without closing the socket, or a lecturer's
    /// machine that vanished, is noticed this long after, not after TCP's minutes.
    double silenceLimit = 8.0;
    /// Receives one line per dropped message or notable event.
    std::function<void(const std::string&)> log;
};

class SessionFollower {
public:
    explicit SessionFollower(FollowerOptions options);

    // ---- from the transport (times are this machine's steady clock, seconds) ----
    /// The socket is open: queues hello (with the member id after a reconnect).
    void connected(double now);
    void received(std::string_view text, double now);
    /// The socket closed: the state and the view stay until the next snapshot.
    void disconnected();
    /// Queues pings as they fall due (quickly at first, to align the clock).
    void tick(double now);
    /// The socket is open but the server has said nothing for silenceLimit seconds (not
    /// even a pong): the transport should close it and reconnect.
    bool silent(double now) const { return open_ && now - lastHeard_ > options_.silenceLimit; }
    /// What to send, in order; empties the queue.
    std::vector<std::string> takeOutgoing();

    // ---- state ----
    bool joined() const { return joined_; }
    /// A snapshot has arrived since the last (re)connect and the clock is aligned.
    bool synced() const { return snapshotSeen_ && clock_.synced(); }
    /// A server has said why it ends the connection (wrong code, session over, ...).
    const std::optional<std::string>& farewell() const { return farewell_; }
    const SessionState& state() const { return state_; }
    std::uint64_t sequence() const { return seq_; }
    int memberId() const { return member_; }
    Role role() const { return role_; }
    bool maySteer() const { return role_ == Role::Lecturer || (state_.floor && *state_.floor == member_); }
    const std::string& sessionId() const { return session_; }
    const std::vector<Member>& roster() const { return roster_; }
    const ClockSync& clock() const { return clock_; }
    /// The lecturer's session time at local time `now`.
    double lecturerNow(double now) const { return clock_.toServer(now); }
    /// The camera pose to show at local time `now` (from the buffer), if any sample came.
    std::optional<narrative::CameraPose> poseAt(double now);
    const PoseBuffer& poses() const { return buffer_; }

    // ---- the student's choices ----
    bool following() const { return following_; }
    /// Follow or explore. Exploring is refused (false) while the lecturer holds attention.
    bool setFollowing(bool following);

    // ---- driving, for a lecturer or the floor holder ----
    /// Queues a drive message; false when this client may not drive (nothing queued).
    bool drive(const Message& message);

    /// Called after each message that changed the state (a snapshot or a delta).
    void setApplied(std::function<void(const Message&)> applied) { applied_ = std::move(applied); }
    /// Called for every pose sample accepted, with its lateness (arrival minus stamp, in
    /// the lecturer's clock): what loadtest measures.
    void setPoseArrived(std::function<void(const PoseSample&, double lateness)> f) { poseArrived_ = std::move(f); }

    struct Counters {
        std::uint64_t received = 0, dropped = 0, resyncs = 0, snapshots = 0;
    };
    const Counters& counters() const { return counters_; }

private:
    void handle(Message m, double now);
    void drop(const std::string& reason);
    /// While the lecturer holds attention, an exploring student follows again (and says so).
    void followIfHeld();
    void queue(const Message& m) { outgoing_.push_back(encode(m)); }

    FollowerOptions options_;
    SessionState state_;
    std::uint64_t seq_ = 0;
    bool joined_ = false, snapshotSeen_ = false, awaitingSnapshot_ = false;
    bool open_ = false;     ///< between connected() and disconnected()
    double lastHeard_ = 0;  ///< when the socket opened or the last message arrived
    int member_ = 0;
    Role role_ = Role::Student;
    std::string session_;
    std::vector<Member> roster_;
    ClockSync clock_;
    PoseBuffer buffer_;
    bool following_ = true;
    std::uint32_t nextPing_ = 1;
    double lastPing_ = -1e9;
    int pingsSent_ = 0;
    std::optional<std::string> farewell_;
    std::vector<std::string> outgoing_;
    std::function<void(const Message&)> applied_;
    std::function<void(const PoseSample&, double)> poseArrived_;
    Counters counters_;
};

} // namespace atrium::session
