#pragma once
// A student's WebSocket client (libwebsockets): it carries session::SessionFollower over
// the network. One service thread runs libwebsockets and the followers; the app reads
// the state and the camera from its own thread (each call takes a short lock) and hears
// of changes through events, queued and announced by the notify callback.
//
// When the connection drops, the network goes silent (nothing, not even a pong, for
// ClientOptions::silenceLimit) or the lecturer's app restarts, the student keeps what it
// shows and reconnects with backoff (0.25 s doubling to 5 s, with jitter), says hello
// with its member id and resyncs from the fresh snapshot. An attempt the server does not
// answer within the silence limit (a stopped process whose kernel still accepts) is given
// up and tried again, and every attempt that ends, however libwebsockets reports it,
// leads to the next one. Only a wrong join code stops it for good. One client can hold several connections, each its own student (what
// `atrium-session loadtest` uses to act a classroom on one thread).

#include "session/SessionFollower.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace atrium::transport {

struct ClientOptions {
    std::string url;                   ///< ws://HOST:PORT or wss://HOST:PORT
    std::string code;
    std::string name;
    std::optional<std::string> secret; ///< the lecturer secret, to drive
    int connections = 1;               ///< students on this client
    bool reconnect = true;
    /// wss:// to a classroom's self-signed certificate: accept it without a CA.
    bool allowSelfSigned = false;
    session::PoseBuffer::Options buffer;
    /// Seconds of silence from the server (which answers a ping every second) after which
    /// the connection is closed and tried again: a dropped network is noticed in this time.
    double silenceLimit = 8.0;
    /// Log lines; called on the service thread.
    std::function<void(const std::string&)> log;
};

enum class LinkState {
    Connecting,   ///< first attempt, or reconnecting after a drop (state kept)
    Joined,       ///< welcomed; synced once the snapshot and the clock are in
    Refused,      ///< the server refused us (wrong join code): no more attempts
};

struct ClientEvent {
    enum class Kind { Joined, Applied, Disconnected, Refused };
    Kind kind = Kind::Applied;
    int connection = 0;
    std::optional<session::Message> message; ///< Applied: the snapshot or delta
    std::string reason;                      ///< Disconnected, Refused (escaped: it may quote the server)
};

class SessionClient {
public:
    /// Starts connecting (in the background). Throws std::invalid_argument for a bad URL
    /// and std::runtime_error when libwebsockets cannot start.
    explicit SessionClient(ClientOptions options);
    ~SessionClient();
    SessionClient(const SessionClient&) = delete;
    SessionClient& operator=(const SessionClient&) = delete;

    /// This client's steady clock, seconds (the `now` the pose and clock calls take).
    double now() const;
    int connections() const;

    LinkState link(int connection = 0) const;
    bool synced(int connection = 0) const;
    session::SessionState state(int connection = 0) const;
    std::uint64_t sequence(int connection = 0) const;
    int memberId(int connection = 0) const;
    session::Role role(int connection = 0) const;
    bool maySteer(int connection = 0) const;
    std::vector<session::Member> roster(int connection = 0) const;
    /// The lecturer's session time now.
    double lecturerNow(int connection = 0) const;
    /// The camera to show now, from the adaptive buffer.
    std::optional<narrative::CameraPose> pose(int connection = 0);
    double bufferDelay(int connection = 0) const;

    bool following(int connection = 0) const;
    /// False (nothing changes) while the lecturer holds attention.
    bool setFollowing(bool following, int connection = 0);
    /// Queues a drive message; false when this student may not drive.
    bool drive(const session::Message& message, int connection = 0);

    /// Events since the last call, in order.
    std::vector<ClientEvent> takeEvents();
    /// Called on the service thread when events are queued; it must not call back into
    /// the client (post to the UI thread instead).
    void setNotify(std::function<void()> notify);
    /// For measurements: every pose sample accepted, with its lateness in seconds.
    void setPoseArrived(std::function<void(int connection, const session::PoseSample&, double lateness)> f);
    std::uint64_t bytesReceived(int connection = 0) const;
    session::SessionFollower::Counters counters(int connection = 0) const;
    /// Drops a connection as a network fault would (it reconnects when allowed).
    void dropConnection(int connection = 0);

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

} // namespace atrium::transport
