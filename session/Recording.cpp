#include "session/Recording.h"

#include "session/ClientText.h"

#include "io/AtomicFile.h" // commitTemporary
#include "io/JsonInput.h"
#include "narrative/NarrativePlayer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace atrium::session {

using nlohmann::json;


std::filesystem::path partialRecordingPath(const std::filesystem::path& file) {
    return std::filesystem::path(file.string() + ".partial");
}

namespace {

[[noreturn]] void failOn(const std::filesystem::path& file, const char* what) {
    throw std::runtime_error(file.string() + ": " + what + ": " + std::strerror(errno));
}

/// A name beside `file` for an unfinished recording: NAME.recovered-N.atriumrec.
std::filesystem::path recoveredName(const std::filesystem::path& file) {
    const std::filesystem::path stem = file.parent_path() / file.stem();
    for (int n = 1;; ++n) {
        std::filesystem::path candidate(stem.string() + ".recovered-" + std::to_string(n) + ".atriumrec");
        std::error_code ec;
        if (!std::filesystem::exists(candidate, ec) && !ec) return candidate;
        if (n > 10000) throw std::runtime_error(file.string() + ": too many recovered recordings beside it");
    }
}

} // namespace

RecordingWriter::RecordingWriter(const std::filesystem::path& file, const std::string& session,
                                 const msg::Snapshot& start, double now)
    : file_(file), partial_(partialRecordingPath(file)), last_(now), lastSync_(now) {
    std::error_code ec;
    if (std::filesystem::exists(partial_, ec)) {
        // What a lecture whose window did not close left: kept, never overwritten.
        recovered_ = recoveredName(file);
        std::filesystem::rename(partial_, recovered_, ec);
        if (ec) throw std::runtime_error(partial_.string() + ": cannot keep this unfinished recording as " +
                                         recovered_.string() + ": " + ec.message());
    }
    fd_ = ::open(partial_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) failOn(partial_, "cannot create");
    const json header = {{"format", std::string(kRecordingFormat)}, {"v", kProtocolVersion}, {"session", session},
                         {"content", start.state.content ? json{{"hash", start.state.content->hash},
                                                                {"name", start.state.content->name},
                                                                {"bytes", start.state.content->bytes}}
                                                         : json(nullptr)}};
    write(header.dump() + "\n");
    append(now, encode(start));
}

RecordingWriter::~RecordingWriter() {
    if (fd_ >= 0) ::close(fd_); // the partial file stays: nothing recorded is lost
}

void RecordingWriter::write(const std::string& line) {
    std::size_t done = 0;
    while (done < line.size()) {
        const ssize_t n = ::write(fd_, line.data() + done, line.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) failOn(partial_, "cannot write");
        done += std::size_t(n);
    }
}

void RecordingWriter::append(double now, std::string_view messageText) {
    if (fd_ < 0) throw std::logic_error("recording " + file_.string() + " already finished");
    last_ = std::max(last_, now);
    std::string line = "{\"t\":" + json(last_).dump() + ",\"m\":";
    line.append(messageText);
    line += "}\n";
    write(line);
    ++messages_;
    // Each line is with the operating system already (a crashed window loses none); to
    // the disk every few seconds too, against a machine that stops.
    if (last_ - lastSync_ >= kSyncSeconds) {
        if (::fdatasync(fd_) != 0) failOn(partial_, "cannot sync to disk");
        lastSync_ = last_;
    }
}

void RecordingWriter::finish() {
    if (fd_ < 0) return;
    if (::close(std::exchange(fd_, -1)) != 0) failOn(partial_, "cannot write");
    io::commitTemporary(partial_, file_); // synced, renamed into place, folder synced
}

Recording Recording::read(const std::filesystem::path& file) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) throw RecordingError(file.string() + ": cannot read: " + ec.message());
    if (size > kMaxFileBytes)
        throw RecordingError(file.string() + ": " + std::to_string(size) + " bytes is larger than the limit of " +
                             std::to_string(kMaxFileBytes));
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    if (!in && !in.eof()) throw RecordingError(file.string() + ": cannot read");
    return parse(text.str(), file.string());
}

Recording Recording::parse(std::string_view text, const std::string& source) {
    Recording r;
    std::size_t lineNo = 0, pos = 0;
    auto fail = [&](const std::string& what) { return RecordingError(source + ":" + std::to_string(lineNo) + ": " + what); };
    double last = 0.0;
    while (pos < text.size()) {
        const std::size_t end = std::min(text.find('\n', pos), text.size());
        const std::string_view line = text.substr(pos, end - pos);
        const bool unterminated = end == text.size(); // a complete file ends with a newline
        pos = end + 1;
        ++lineNo;
        if (line.empty()) continue;
        if (line.size() > kServerMessageLimits.maxBytes + 64) throw fail("line longer than a message may be");
        json j;
        try {
            j = io::parseJson(line, source, {.maxBytes = kServerMessageLimits.maxBytes + 64, .maxDepth = kServerMessageLimits.maxDepth + 1}); // {"t", "m": message}
        } catch (const io::JsonInputError& e) {
            if (unterminated && lineNo > 1) { // cut off as it was written
                r.cutShort = true;
                break;
            }
            throw fail("not a JSON object (" + e.where() + ": " + e.message() + ")");
        }
        if (!j.is_object()) throw fail("not a JSON object");
        if (lineNo == 1) {
            const auto format = j.find("format");
            if (format == j.end() || !format->is_string() || format->get_ref<const std::string&>() != kRecordingFormat)
                throw fail("not an Atrium session recording");
            const auto v = j.find("v");
            if (v == j.end() || *v != kProtocolVersion) throw fail("recording version not supported");
            if (!j.contains("session") || !j["session"].is_string()) throw fail("/session: missing");
            r.session = std::string(truncateUtf8(j["session"].get<std::string>(), 64)); // stays UTF-8
            // The content is checked as a welcome's would be.
            const json probe = {{"v", kProtocolVersion}, {"type", "welcome"}, {"id", 1}, {"session", "0000000000000000"},
                                {"now", 0}, {"content", j.value("content", json(nullptr))}};
            ParseResult content = parseMessage(probe.dump());
            if (!content) throw fail("/content: " + content.error);
            r.content = std::get<msg::Welcome>(*content.message).content;
            continue;
        }
        const auto t = j.find("t");
        const auto m = j.find("m");
        if (t == j.end() || !t->is_number() || m == j.end()) throw fail("a line needs \"t\" and \"m\"");
        const double time = t->get<double>();
        if (!(time >= last) || time > 1e9) throw fail("/t: times must not decrease");
        last = time;
        ParseResult parsed = parseMessage(m->dump());
        if (!parsed) throw fail("/m: " + parsed.error);
        const bool snapshot = std::holds_alternative<msg::Snapshot>(*parsed.message);
        if (r.messages.empty() && !snapshot) throw fail("the first message must be a snapshot");
        if (!snapshot && !isDrive(*parsed.message)) throw fail("/m: a " + std::string(typeName(*parsed.message)) +
                                                             " message is not part of the state stream");
        r.messages.push_back({time, std::move(*parsed.message)});
    }
    if (lineNo == 0) throw RecordingError(source + ": empty file");
    if (r.messages.empty()) throw RecordingError(source + ": no snapshot");
    return r;
}

SessionReplay::SessionReplay(Recording recording) : recording_(std::move(recording)) {
    SessionState s;
    for (std::size_t i = 0; i < recording_.messages.size(); ++i) {
        const Message& m = recording_.messages[i].message;
        applyToState(s, m);
        if (const auto* p = std::get_if<msg::Pose>(&m)) {
            if (poses_.empty() || p->sample.t > poses_.back().t) poses_.push_back(p->sample);
        } else if (const auto* snap = std::get_if<msg::Snapshot>(&m); snap && snap->state.pose) {
            if (poses_.empty() || snap->state.pose->t > poses_.back().t) poses_.push_back(*snap->state.pose);
        }
        if (i % kCheckpoint == 0) checkpoints_.push_back(s);
    }
}

SessionState SessionReplay::stateAt(double t) const {
    const auto& ms = recording_.messages;
    // The last message at or before t.
    const auto upper = std::upper_bound(ms.begin(), ms.end(), t, [](double x, const RecordedMessage& m) { return x < m.t; });
    if (upper == ms.begin()) return checkpoints_.front(); // before the start: the first snapshot
    const std::size_t last = std::size_t(upper - ms.begin()) - 1;
    const std::size_t checkpoint = last / kCheckpoint;
    SessionState s = checkpoints_[checkpoint];
    for (std::size_t i = checkpoint * kCheckpoint + 1; i <= last; ++i) applyToState(s, ms[i].message);
    return s;
}

std::optional<narrative::CameraPose> SessionReplay::poseAt(double t) const {
    if (poses_.empty()) return std::nullopt;
    const auto after = std::upper_bound(poses_.begin(), poses_.end(), t, [](double x, const PoseSample& p) { return x < p.t; });
    if (after == poses_.begin()) return poses_.front().pose;
    if (after == poses_.end()) return poses_.back().pose;
    const PoseSample& a = *(after - 1);
    const PoseSample& b = *after;
    return narrative::interpolatePose(a.pose, b.pose, (t - a.t) / (b.t - a.t));
}

} // namespace atrium::session
