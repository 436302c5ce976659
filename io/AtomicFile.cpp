#include "io/AtomicFile.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <random>
#include <regex>
#include <utility>

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

fs::path createTemporaryBeside(const fs::path& file, mode_t mode) {
    static thread_local std::mt19937_64 random{std::random_device{}()};
    const fs::path dir = file.has_parent_path() ? file.parent_path() : fs::path(".");
    // What a save of this file that was killed before its rename left behind.
    removeStaleTemporariesOf(file);
    const std::string stem = file.stem().string() + ".tmp-" + std::to_string(::getpid()) + "-";
    for (int attempt = 0; attempt < 100; ++attempt) {
        // The process id lets a later save tell a dead writer's temporary from a live one's.
        const fs::path candidate = dir / (stem + hex(random()) + file.extension().string());
        // Exclusive and no link followed: nobody else owns or redirects this name.
        const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            ::close(fd);
            return candidate;
        }
        if (errno != EEXIST)
            throw WriteError(file, "cannot create the temporary file " + candidate.string() + ": " + std::strerror(errno));
    }
    throw WriteError(file, "cannot create a temporary file beside it: " + std::string(std::strerror(EEXIST)));
}

void commitTemporary(const fs::path& temporary, const fs::path& target) {
    const auto failWith = [&](const std::string& why) {
        std::error_code ignored;
        fs::remove(temporary, ignored);
        throw WriteError(target, why);
    };
    if (const std::string why = syncPath(temporary, false); !why.empty()) failWith("cannot flush the file to disk: " + why);
    std::error_code ec;
    fs::rename(temporary, target, ec);
    if (ec) failWith("cannot rename " + temporary.string() + " into place: " + ec.message());
    syncPath(target.has_parent_path() ? target.parent_path() : fs::path("."), true);
}

AtomicFile::AtomicFile(fs::path target, WriteOptions options) : target_(std::move(target)) {
    if (options.createDirectory) {
        const fs::path dir = target_.has_parent_path() ? target_.parent_path() : fs::path(".");
        std::error_code ec;
        fs::create_directories(dir, ec);
        if (ec) throw WriteError(target_, "cannot create the directory " + dir.string() + ": " + ec.message());
    }
    temp_ = createTemporaryBeside(target_, options.mode);
}

AtomicFile::~AtomicFile() {
    if (fd_ >= 0) ::close(fd_);
    if (committed_) return;
    std::error_code ignored;
    fs::remove(temp_, ignored);
}

void AtomicFile::fail(const std::string& why) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    std::error_code ignored;
    fs::remove(temp_, ignored);
    throw WriteError(target_, why);
}

void AtomicFile::write(const char* data, std::size_t size) {
    if (committed_) throw WriteError(target_, "written after it was committed");
    if (fd_ < 0) {
        fd_ = ::open(temp_.c_str(), O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
        if (fd_ < 0) fail("cannot write " + temp_.string() + ": " + std::strerror(errno));
    }
    while (size > 0) {
        const ssize_t n = ::write(fd_, data, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail(std::string("write failed (disk full or not writable?): ") + std::strerror(n < 0 ? errno : EIO));
        data += n;
        size -= std::size_t(n);
        written_ += std::uintmax_t(n);
    }
}

void AtomicFile::commit(std::uintmax_t minimumBytes, std::string_view expectedEnding) {
    if (fd_ >= 0 && ::close(std::exchange(fd_, -1)) != 0)
        fail(std::string("write failed (disk full or not writable?): ") + std::strerror(errno));
    minimumBytes = std::max(minimumBytes, written_);
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(temp_, ec);
    if (ec) fail("the file was not written (" + ec.message() + ")");
    if (size < minimumBytes)
        fail("only " + std::to_string(size) + " of at least " + std::to_string(minimumBytes) +
             " bytes were written (disk full?)");
    if (!expectedEnding.empty()) {
        std::string tail(expectedEnding.size(), '\0');
        std::ifstream in(temp_, std::ios::binary);
        if (size >= tail.size()) {
            in.seekg(std::streamoff(size - tail.size()));
            in.read(tail.data(), std::streamsize(tail.size()));
        }
        if (!in || size < tail.size() || tail != expectedEnding)
            fail("the file is incomplete: it does not end as it must (disk full?)");
    }
    committed_ = true; // commitTemporary removes the temporary itself when it fails
    commitTemporary(temp_, target_);
}

void writeFileAtomically(const fs::path& file, std::string_view bytes, WriteOptions options) {
    AtomicFile atomic(file, options);
    atomic.write(bytes);
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
