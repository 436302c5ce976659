#pragma once
// A lecture's state stream as a file, to replay later with seeking.
//
// Format (JSON lines, UTF-8): the first line is a header
//   {"format": "atrium-session-recording", "v": 1, "session": "...", "content": {...} | null}
// and each following line one message as it went to every student, with its session time:
//   {"t": 12.345, "m": {"v": 1, "type": "pose", ...}}
// The first message is a snapshot; times never decrease. Every message is checked by the
// protocol's parser as on the wire, so a recording is as untrusted as a socket.
//
// RecordingWriter writes to a temporary file beside the target, line by line, and renames
// it into place when the lecture ends (narrative/AtomicFile.h). SessionReplay folds the
// messages into the session state at any instant and interpolates the camera between
// its samples: the same messages drive the same players as in the live lecture.

#include "session/Protocol.h"

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::narrative {
class AtomicFileWriter;
}

namespace atrium::session {

inline constexpr std::string_view kRecordingFormat = "atrium-session-recording";

/// A recording that cannot be read: what() names the file, the line and what is wrong.
class RecordingError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class RecordingWriter {
public:
    /// Starts `file` (written in place when finish() is called) with the header and the
    /// state at session time `now`. Throws std::runtime_error naming the file on failure.
    RecordingWriter(const std::filesystem::path& file, const std::string& session, const msg::Snapshot& start, double now);
    ~RecordingWriter();
    /// Appends one message as sent at session time `now` (its text as encoded).
    void append(double now, std::string_view messageText);
    /// Renames the file into place; nothing more may be appended.
    void finish();
    std::uint64_t messages() const { return messages_; }

private:
    std::unique_ptr<narrative::AtomicFileWriter> out_;
    std::filesystem::path file_;
    double last_ = 0.0;
    std::uint64_t messages_ = 0;
};

struct RecordedMessage {
    double t = 0.0;
    Message message;
};

struct Recording {
    static constexpr std::uintmax_t kMaxFileBytes = 2ull << 30; ///< larger files are refused before reading
    std::string session;
    std::optional<ContentId> content;
    std::vector<RecordedMessage> messages; ///< the first is a snapshot

    /// Reads and checks a recording; throws RecordingError.
    static Recording read(const std::filesystem::path& file);
    /// The same from text (`source` names it in errors).
    static Recording parse(std::string_view text, const std::string& source);
    double start() const { return messages.empty() ? 0.0 : messages.front().t; }
    double end() const { return messages.empty() ? 0.0 : messages.back().t; }
};

class SessionReplay {
public:
    explicit SessionReplay(Recording recording);
    const Recording& recording() const { return recording_; }
    double start() const { return recording_.start(); }
    double end() const { return recording_.end(); }
    /// The session state at session time `t` (every message at or before it applied).
    SessionState stateAt(double t) const;
    /// The camera at session time `t`, interpolated between the samples around it.
    std::optional<narrative::CameraPose> poseAt(double t) const;

private:
    Recording recording_;
    std::vector<PoseSample> poses_;
    /// The state after message i, kept for every kCheckpoint-th message (seeking).
    static constexpr std::size_t kCheckpoint = 256;
    std::vector<SessionState> checkpoints_;
};

} // namespace atrium::session
