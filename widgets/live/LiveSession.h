#pragma once
// What the window needs from a live session's transport, as interfaces: widgets/ may not
// include app/, so app/viewer implements these over app/transport (libwebsockets) and
// hands a LiveSessionService to the window. Every call returns at once; the transport's
// own thread announces news through the notify callback, which may run on any thread
// (the window posts itself a queued call and then reads).

#include "session/Protocol.h"

#include <QString>
#include <QStringList>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace atrium::widgets {

/// The lecturer's end: a server on this machine.
class LiveHost {
public:
    virtual ~LiveHost() = default;
    virtual QString code() const = 0;
    virtual QString secret() const = 0;
    /// The SHA-256 fingerprint of a classroom's self-signed certificate (wss://), else empty.
    virtual QString fingerprint() const = 0;
    /// URLs students can use, the local network's first and loopback last.
    virtual QStringList urls() const = 0;
    /// The session clock (seconds), what pose samples are stamped with.
    virtual double now() const = 0;
    virtual bool drive(const session::Message& message) = 0;
    virtual session::SessionState state() const = 0;
    virtual std::vector<session::Member> roster() const = 0;
    /// Whether someone else drives: a lecturer on another machine (with the secret) or the
    /// student given the floor has driven and is still connected in that role
    /// (session::SessionHub::remoteDriving). This window then stands back.
    virtual bool remoteDriving() const = 0;
    /// Throws std::runtime_error naming the file. Returns where an unfinished recording
    /// to the same file (a lecture whose window crashed) was kept, or an empty path.
    virtual std::filesystem::path startRecording(const std::filesystem::path& file) = 0;
    virtual std::uint64_t stopRecording() = 0;
    virtual bool recording() const = 0;
    virtual void setNotify(std::function<void()> notify) = 0;
};

/// What a student's connection reports.
struct LiveEvent {
    enum class Kind { Joined, Applied, Disconnected, Refused };
    Kind kind = Kind::Applied;
    std::optional<session::Message> message; ///< Applied: the snapshot or delta
    QString reason;
};

/// A student's end: a connection to a lecturer's server (it reconnects by itself).
class LiveGuest {
public:
    virtual ~LiveGuest() = default;
    virtual QString url() const = 0;
    /// Whether a classroom's self-signed certificate is accepted (for downloads too).
    virtual bool allowsSelfSigned() const = 0;
    virtual bool joined() const = 0;
    virtual bool synced() const = 0;
    virtual session::SessionState state() const = 0;
    /// The lecturer's session time now.
    virtual double lecturerNow() const = 0;
    /// The camera to show now, from the adaptive buffer.
    virtual std::optional<narrative::CameraPose> pose() = 0;
    virtual bool following() const = 0;
    /// False while the lecturer holds attention (to explore).
    virtual bool setFollowing(bool following) = 0;
    /// A presenter (given the floor) or a lecturer with the secret may drive.
    virtual bool maySteer() const = 0;
    virtual bool drive(const session::Message& message) = 0;
    virtual int memberId() const = 0;
    virtual std::vector<LiveEvent> takeEvents() = 0;
    virtual void setNotify(std::function<void()> notify) = 0;
};

struct LiveHostOptions {
    int port = 0; ///< 0: any free port
    QString code; ///< the join code; empty: a new random one
    std::optional<std::filesystem::path> package;
    bool selfSigned = false; ///< wss:// with a classroom's self-signed certificate
};

struct LiveJoinOptions {
    QString url, code, name;
    std::optional<QString> secret;
    bool allowSelfSigned = false; ///< accept a classroom's self-signed certificate (wss://)
};

/// Makes hosts and guests; provided by app/viewer.
class LiveSessionService {
public:
    virtual ~LiveSessionService() = default;
    /// Throws std::runtime_error with a message for the user (port in use, ...).
    virtual std::unique_ptr<LiveHost> host(const LiveHostOptions& options) = 0;
    /// Throws std::invalid_argument for a bad URL.
    virtual std::unique_ptr<LiveGuest> join(const LiveJoinOptions& options) = 0;
};

} // namespace atrium::widgets
