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
// RecordingWriter writes to FILE.partial beside the target, line by line as the lecture
// goes (each line reaches the operating system at once, and the disk every few seconds),
// and renames it into place when the lecture ends. A lecture whose window crashed leaves
// FILE.partial: it replays as it is, its last line dropped if cut in the middle, and
// the next recording to FILE first keeps it as NAME.recovered-N.atriumrec. SessionReplay folds the
// messages into the session state at any instant and interpolates the camera between
// its samples: the same messages drive the same players as in the live lecture.

#include "session/Protocol.h"

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::session {

inline constexpr std::string_view kRecordingFormat = "atrium-session-recording";

/// A recording that cannot be read: what() names the file, the line and what is wrong.
class RecordingError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Where a recording to `file` is written until it is finished.
std::filesystem::path partialRecordingPath(const std::filesystem::path& file);

class RecordingWriter {
public:
    /// Starts `file` (as partialRecordingPath(file) until finish()) with the header and
    /// the state at session time `now`. A partial recording left there by a lecture that
    /// did not end is kept first (recovered()). Throws std::runtime_error naming the
    /// file on failure.
    RecordingWriter(const std::filesystem::path& file, const std::string& session, const msg::Snapshot& start, double now);
    /// Without finish() the partial file stays, readable (a crash leaves it the same).
    ~RecordingWriter();
    RecordingWriter(const RecordingWriter&) = delete;
    RecordingWriter& operator=(const RecordingWriter&) = delete;
    /// Appends one message as sent at session time `now` (its text as encoded).
    void append(double now, std::string_view messageText);
    /// Syncs the file to disk and renames it into place; nothing more may be appended.
    void finish();
    std::uint64_t messages() const { return messages_; }
    /// Where an earlier, unfinished recording to the same file was kept (empty: none).
    const std::filesystem::path& recovered() const { return recovered_; }

private:
    void write(const std::string& line);
    static constexpr double kSyncSeconds = 5.0; ///< session time between syncs to disk

    std::filesystem::path file_, partial_, recovered_;
    int fd_ = -1;
    double last_ = 0.0, lastSync_ = 0.0;
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
    /// The file ended in the middle of a line (a lecture cut short): that line is left out.
    bool cutShort = false;

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
