#include "sim/io/AtomicFile.h"

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

std::size_t removeStaleTemporaries(const fs::path& directory) {
    std::size_t removed = 0;
    std::error_code ec;
    const auto now = fs::file_time_type::clock::now();
    for (fs::directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        std::smatch match;
        if (!std::regex_match(name, match, temporaryPattern())) continue;
        std::error_code e2;
        if (!it->is_regular_file(e2)) continue;
        const long pid = std::strtol(match[1].str().c_str(), nullptr, 10);
        const bool alive = pid > 0 && pid != ::getpid() && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
        const auto age = now - fs::last_write_time(it->path(), e2);
        const bool old = !e2 && age > std::chrono::hours(24);
        if (pid == ::getpid() || (alive && !old)) continue;
        if (fs::remove(it->path(), e2)) ++removed;
    }
    return removed;
}

} // namespace atrium::io
