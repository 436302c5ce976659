#pragma once
// The lecturer's end of a live session, without sockets: what the server does with each
// connection and each message. The transport (app/session) only moves bytes: it tells
// the hub that a connection opened, received text or closed, and the hub answers through
// HubOutput (send, close). That keeps every rule here, testable without a network.
//
// The rules:
//  - a connection must say hello with the join code first; a wrong code closes it, and
//    wrong codes are limited for the whole server (a burst of 20, then one a second):
//    past that, every hello is turned away for a moment, so that guessing the code's 30
//    bits takes years;
//  - it then gets a welcome (its id, the session, the content, a lecturer challenge),
//    one snapshot of the whole state and, from then on, every delta (numbered `seq`)
//    and every camera pose sample;
//  - students may send only hello, ping, status (following or exploring), resync and
//    leave; auth with a correct answer makes a connection a lecturer; drive messages
//    are taken from a lecturer, or from the student holding the floor (not floor or
//    attention), and from the app that serves (drive());
//  - every message is bounded in size (by role) and rate; anything refused is dropped
//    with a logged reason and an error to its sender, and counts as a strike: repeated
//    abuse closes the connection. No input ends the hub or touches another connection.
//  - when the floor holder leaves, the floor returns to the lecturer.

#include "session/LecturerAuth.h"
#include "session/Protocol.h"
#include "session/RateLimit.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace atrium::session {

/// Where the hub's answers go (the transport). Called on the thread that calls the hub.
class HubOutput {
public:
    virtual ~HubOutput() = default;
    /// Queues `text` for `connection` (shared: a broadcast is encoded once).
    virtual void send(int connection, std::shared_ptr<const std::string> text) = 0;
    /// Closes `connection` once what is queued has gone.
    virtual void close(int connection, const std::string& reason) = 0;
};

struct HubOptions {
    std::string code;                            ///< the join code students give
    std::shared_ptr<const LecturerKey> lecturer; ///< null: no remote lecturer may authenticate
    std::optional<ContentId> content;
    std::string sessionId;                       ///< empty: a random one
    /// Receives one line per refused message or notable event ("connection 3: ...").
    std::function<void(const std::string&)> log;
};

class SessionHub {
public:
    SessionHub(HubOptions options, HubOutput& output);

    // ---- from the transport (times are session seconds) ----
    void opened(int connection, double now);
    void received(int connection, std::string_view text, double now);
    void closed(int connection);

    // ---- the app that serves is the lecturer ----
    /// Applies a drive message (pose, narrative, sim, view, attention, floor, resource,
    /// pointer) and sends it to everyone. False, with the reason logged, when it is not a
    /// drive message or names a floor holder that is not connected.
    bool drive(Message message, double now);
    /// Ends the session for everyone: a bye, then every connection is closed.
    void shutdown(const std::string& reason);

    const SessionState& state() const { return state_; }
    std::uint64_t sequence() const { return seq_; }
    const std::string& sessionId() const { return options_.sessionId; }
    const std::string& code() const { return options_.code; }
    /// The joined connections, by member id.
    std::vector<Member> roster() const;
    std::size_t joinedCount() const;
    /// Whether `connection` has said hello with the right code.
    bool joined(int connection) const;
    /// Whether a remote driver - an authenticated lecturer, or the student given the floor -
    /// has driven and is still connected in that role: the app that serves should then
    /// stand back (a headless player pauses) until they have gone.
    bool remoteDriving() const;
    /// The snapshot a late joiner would get now (for a recording's first line).
    msg::Snapshot snapshot() const { return {seq_, state_}; }

    /// Called with every message sent to all (poses and deltas) and its session time.
    void setBroadcastTap(std::function<void(double now, const std::string& text)> tap) { tap_ = std::move(tap); }
    /// Called whenever the roster changes (joins, leaves, following, roles).
    void setRosterChanged(std::function<void()> changed) { rosterChanged_ = std::move(changed); }

    struct Counters {
        std::uint64_t received = 0, dropped = 0, closedForAbuse = 0, broadcasts = 0;
    };
    const Counters& counters() const { return counters_; }

private:
    struct Connection {
        int member = 0; ///< 0 until hello
        std::string name;
        Role role = Role::Student;
        bool following = true;
        ConnectionGuard guard;
        std::optional<Challenge> challenge;
        int authFailures = 0;
        bool closing = false; ///< asked the transport to close it
        bool drove = false;   ///< has sent a drive message that was applied
    };

    void handle(int id, Connection& c, Message m, double now);
    void join(int id, Connection& c, const msg::Hello& hello, double now);
    /// Refuses a message: logs, answers with an error, strikes; closes on repeated abuse.
    void refuse(int id, Connection& c, const std::string& reason, double now);
    /// Asks the transport to close `id` (once) and reads nothing more from it.
    void close(int id, Connection& c, const std::string& reason);
    void sendTo(int id, const Message& m);
    void broadcast(const Message& m, double now);
    /// Applies a drive message to the state; the reason when it cannot.
    std::optional<std::string> apply(Message& m);
    void setRole(int member, Role role);
    void notifyRoster();
    void log(const std::string& line) const;
    Connection* byMember(int member);

    HubOptions options_;
    HubOutput& out_;
    SessionState state_;
    std::uint64_t seq_ = 0;
    double lastNow_ = 0.0; ///< the latest session time seen
    int nextMember_ = 1;
    std::map<int, Connection> connections_; ///< by transport connection id
    std::map<int, std::string> pastMembers_; ///< member id -> name, for resume after a drop
    std::function<void(double, const std::string&)> tap_;
    std::function<void()> rosterChanged_;
    Counters counters_;
    TokenBucket wrongCodes_{1.0, 20.0}; ///< wrong join codes the server tolerates
};

} // namespace atrium::session
