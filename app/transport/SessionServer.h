#pragma once
// The lecturer's WebSocket server (libwebsockets): it carries session::SessionHub to
// the network. One service thread runs libwebsockets and the hub; the app that serves
// drives from its own thread through drive(), which is queued and wakes the service
// loop; what the app should hear about (the roster, log lines) is queued the other way
// and announced through the notify callback, so the UI thread never waits on a socket.
//
// The same port serves plain HTTP: GET /package/<hash> sends the session's package
// file (when it has one), so that a student without it can download it by the hash the
// welcome names, and the student page and its content are served by the fixed paths of
// StudentPageRoutes.h; other paths are 404, other methods 405, a path longer than
// kMaxRequestPathBytes 414, and every response carries a strict Content-Security-Policy.
// With a certificate and key it speaks TLS (wss:// and https://).
//
// Strangers hold nothing for long (ConnectionAdmission.h): a connection must join within
// a few seconds, those that have not joined are capped per address and in all, and a
// reserve of descriptors is kept. Only text frames are taken: a binary frame closes the
// connection (1003).
//
// Per connection: incoming messages are capped in size before they are buffered (the
// hub then bounds them by role and rate), and outgoing ones queue; a student whose
// queue passes kMaxQueued messages is too slow to follow and is closed, to reconnect
// and resync from a fresh snapshot.

#include "session/Recording.h"
#include "session/SessionHub.h"

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace atrium::transport {

/// A certificate and its private key, PEM files, for wss://.
struct TlsFiles {
    std::filesystem::path certificate, privateKey;
};

struct ServerOptions {
    int port = 0;                   ///< 0: a free port chosen by the system
    std::string interface;          ///< empty: every interface
    std::string code;               ///< the join code; empty: a random one
    std::string lecturerSecret;     ///< drives from another machine; empty: a random one
    std::optional<std::filesystem::path> package; ///< served by hash, and named in the welcome
    std::optional<TlsFiles> tls;
    /// The heart's wall for the student page (session::encodeStudentWall), or null with
    /// the reason the page then shows.
    std::shared_ptr<const std::string> studentWall;
    std::string studentWallMissing = "this lecture server was started without the heart's wall";
    /// The narratives for the student page (app/session/StudentNarratives.h), or null.
    std::shared_ptr<const std::string> studentNarratives;
    /// Seconds a connection has to say hello (an HTTP request, to be read), and how many
    /// that have not joined one address and all may hold (see ConnectionAdmission.h).
    double helloTimeout = 5.0;
    std::size_t maxWaitingPerAddress = 32;
    std::size_t maxWaiting = 256;
    /// Log lines (refused messages, joins); called on the service thread.
    std::function<void(const std::string&)> log;
};

/// Thrown when the server cannot start (the port is taken, a bad certificate, ...).
class TransportError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class SessionServer {
public:
    static constexpr std::size_t kMaxQueued = 2048;

    /// Starts listening and the service thread. Throws TransportError.
    explicit SessionServer(ServerOptions options);
    /// Says bye to everyone, then stops.
    ~SessionServer();
    SessionServer(const SessionServer&) = delete;
    SessionServer& operator=(const SessionServer&) = delete;

    int port() const { return port_; }
    const std::string& code() const { return code_; }
    const std::string& lecturerSecret() const { return secret_; }
    const std::string& sessionId() const { return sessionId_; }
    bool secure() const { return options_.tls.has_value(); }
    /// ws://HOST:PORT (wss:// with TLS) for `host`, e.g. this machine's address.
    std::string url(const std::string& host) const;
    /// The student page with the join code, http://HOST:PORT/?code=CODE (https:// with
    /// TLS): what a browser opens, and what the QR code holds.
    std::string pageUrl(const std::string& host) const;
    const std::optional<session::ContentId>& content() const { return content_; }

    /// Seconds on the session clock (since the server started): what poses are stamped with.
    double now() const;

    /// Applies and broadcasts a drive message (thread-safe, returns at once). False when it
    /// is refused (not a drive message, a floor holder that is not connected).
    bool drive(session::Message message);

    session::SessionState state() const;
    std::vector<session::Member> roster() const;
    session::SessionHub::Counters counters() const;
    /// A remote lecturer (or the floor holder) is driving: see SessionHub::remoteDriving().
    bool remoteDriving() const;
    /// CPU seconds the service thread has used (what serving costs, for measurements).
    double serviceCpuSeconds() const;

    /// Records every message sent to all, from the current state on, into `file` (in
    /// place when stopped). Throws std::runtime_error naming the file.
    std::filesystem::path startRecording(const std::filesystem::path& file);
    /// Finishes the recording; returns how many messages it holds (0 without one).
    std::uint64_t stopRecording();
    bool recording() const;

    /// Called on the service thread when the roster changed or a line was logged; the
    /// UI then reads roster() (e.g. through a queued call to its own thread).
    void setNotify(std::function<void()> notify);

    struct Impl;

private:
    ServerOptions options_;
    std::string code_, secret_, sessionId_;
    std::optional<session::ContentId> content_;
    int port_ = 0;
    std::unique_ptr<Impl> impl_;
};

/// This machine's addresses a student on the local network could reach (IPv4 first,
/// loopback last).
std::vector<std::string> localAddresses();

} // namespace atrium::transport
