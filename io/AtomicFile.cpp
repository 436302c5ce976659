#include "io/AtomicFile.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

namespace atrium::io {

namespace fs = std::filesystem;

namespace {

const std::regex& temporaryPattern() {
    static const std::regex pattern(R"(^.*\.tmp-([0-9]+)-[0-9a-f]+(\.[^.]*)?$)");
    return pattern;
}

std::string hex(std::uint64_t v) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
    return text;
}

/// fsync of a file or directory; errno text on failure, empty on success.
std::string syncPath(const fs::path& path, bool directory) {
    const int fd = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
    if (fd < 0) return std::strerror(errno);
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    // Some file systems cannot sync a directory (EINVAL): not a write error.
    if (rc != 0 && !(directory && (err == EINVAL || err == EBADF))) return std::strerror(err);
    return {};
}

} // namespace

WriteError::WriteError(const fs::path& file, const std::string& why)
    : std::runtime_error(file.string() + ": " + why), file_(file), why_(why) {}

AtomicFile::AtomicFile(fs::path target) : target_(std::move(target)) {
    const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw WriteError(target_, "cannot create the directory " + dir.string() + ": " + ec.message());
    static thread_local std::mt19937_64 random{std::random_device{}()};
    temp_ = dir / (target_.stem().string() + ".tmp-" + std::to_string(::getpid()) + "-" + hex(random()) +
                   target_.extension().string());
}

AtomicFile::~AtomicFile() {
    if (committed_) return;
    std::error_code ignored;
    fs::remove(temp_, ignored);
}

void AtomicFile::commit(std::uintmax_t minimumBytes, std::string_view expectedEnding) {
    const auto failWith = [&](const std::string& why) {
        std::error_code ignored;
        fs::remove(temp_, ignored);
        throw WriteError(target_, why);
    };
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(temp_, ec);
    if (ec) failWith("the file was not written (" + ec.message() + ")");
    if (size < minimumBytes)
        failWith("only " + std::to_string(size) + " of at least " + std::to_string(minimumBytes) +
                 " bytes were written (disk full?)");
    if (!expectedEnding.empty()) {
        std::string tail(expectedEnding.size(), '\0');
        std::ifstream in(temp_, std::ios::binary);
        if (size >= tail.size()) {
            in.seekg(std::streamoff(size - tail.size()));
            in.read(tail.data(), std::streamsize(tail.size()));
        }
        if (!in || size < tail.size() || tail != expectedEnding)
            failWith("the file is incomplete: it does not end as it must (disk full?)");
    }
    if (const std::string why = syncPath(temp_, false); !why.empty()) failWith("cannot flush the file to disk: " + why);
    fs::rename(temp_, target_, ec);
    if (ec) failWith("cannot rename " + temp_.string() + " into place: " + ec.message());
    committed_ = true;
    syncPath(target_.has_parent_path() ? target_.parent_path() : fs::path("."), true);
}

void writeFileAtomically(const fs::path& file, std::string_view bytes) {
    AtomicFile atomic(file);
    {
        std::ofstream out(atomic.temporary(), std::ios::binary | std::ios::trunc);
        if (!out) throw WriteError(file, "cannot create " + atomic.temporary().string() + ": " + std::strerror(errno));
        out.write(bytes.data(), std::streamsize(bytes.size()));
        out.close();
        if (!out) throw WriteError(file, "write failed (disk full or not writable?)");
    }
    atomic.commit(bytes.size());
}

bool isTemporaryName(const std::string& fileName) { return std::regex_match(fileName, temporaryPattern()); }

namespace {

/// Removes the temporary `entry` written by process `pid` (0: unknown) when that process
/// is gone or the file is older than `maxAge`. True when removed.
bool removeIfStale(const fs::directory_entry& entry, long pid, std::chrono::hours maxAge) {
    std::error_code ec;
    if (entry.is_symlink(ec) || !entry.is_regular_file(ec)) return false;
    if (pid == ::getpid()) return false; // a save of ours, under way
    const bool alive = pid > 0 && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(entry.path(), ec);
    const bool old = !ec && age > maxAge;
    if ((pid > 0 && alive && !old) || (pid <= 0 && !old)) return false;
    return fs::remove(entry.path(), ec);
}

/// "<pid>-<hex>" -> pid; "<hex>" -> 0; anything else -> -1.
long pidOfSuffix(const std::string& suffix) {
    static const std::regex withPid(R"(^([0-9]+)-[0-9a-f]+$)"), withoutPid(R"(^[0-9a-f]+$)");
    std::smatch match;
    if (std::regex_match(suffix, match, withPid)) return std::strtol(match[1].str().c_str(), nullptr, 10);
    return std::regex_match(suffix, withoutPid) ? 0 : -1;
}

} // namespace

std::size_t removeStaleTemporaries(const fs::path& directory) {
    std::size_t removed = 0;
    std::error_code ec;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::smatch match;
        if (!std::regex_match(name, match, temporaryPattern())) continue;
        const long pid = std::strtol(match[1].str().c_str(), nullptr, 10);
        if (pid > 0 && removeIfStale(*it, pid, std::chrono::hours(24))) ++removed;
    }
    return removed;
}

std::size_t removeStaleTemporariesOf(const fs::path& file) {
    const fs::path directory = file.has_parent_path() ? file.parent_path() : fs::path(".");
    const std::string name = file.filename().string(), stem = file.stem().string(), ext = file.extension().string();
    const std::string hidden = "." + name + ".tmp-", plain = stem + ".tmp-";
    std::size_t removed = 0;
    std::error_code ec;
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string entry = it->path().filename().string();
        long pid = -1;
        if (entry.rfind(hidden, 0) == 0) {
            pid = pidOfSuffix(entry.substr(hidden.size()));
        } else if (entry.rfind(plain, 0) == 0 && entry.size() > plain.size() + ext.size() &&
                   entry.compare(entry.size() - ext.size(), ext.size(), ext) == 0) {
            pid = pidOfSuffix(entry.substr(plain.size(), entry.size() - plain.size() - ext.size()));
            if (pid == 0) continue; // AtomicFile's always carry the process
        }
        if (pid < 0) continue;
        if (removeIfStale(*it, pid, std::chrono::hours(pid > 0 ? 24 : 1))) ++removed;
    }
    return removed;
}

} // namespace atrium::io
