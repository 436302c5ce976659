#include "narrative/AtomicFile.h"

#include "io/AtomicFile.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <stdexcept>
#include <utility>
#include <unistd.h>

namespace atrium::narrative {

namespace {

[[noreturn]] void ioError(const std::filesystem::path& file, const std::string& what, int error) {
    throw std::runtime_error(file.string() + ": " + what + ": " + std::strerror(error));
}

void syncFolder(const std::filesystem::path& folder) {
    const int fd = ::open(folder.empty() ? "." : folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return; // some file systems do not allow it; the rename itself is done
    ::fsync(fd);
    ::close(fd);
}

} // namespace

std::filesystem::path createTemporaryBeside(const std::filesystem::path& file, mode_t mode) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    const auto folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
    // What a save of this file that was killed before its rename left behind.
    io::removeStaleTemporariesOf(file);
    for (int attempt = 0; attempt < 100; ++attempt) {
        // The process id lets a later save tell a dead writer's temporary from a live one's.
        char suffix[40];
        std::snprintf(suffix, sizeof suffix, "%ld-%012llx", static_cast<long>(::getpid()),
                      static_cast<unsigned long long>(rng() & 0xffffffffffffULL));
        std::string name = ".";
        name += file.filename().string();
        name += ".tmp-";
        name += suffix;
        const auto candidate = folder / name;
        const int fd = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            ::close(fd);
            return candidate;
        }
        if (errno != EEXIST) ioError(file, "cannot create the temporary file " + candidate.string(), errno);
    }
    ioError(file, "cannot create a temporary file beside it", EEXIST);
}

void commitTemporary(const std::filesystem::path& file, const std::filesystem::path& target) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0 || ::fsync(fd) != 0) {
        const int error = errno;
        if (fd >= 0) ::close(fd);
        std::filesystem::remove(file);
        ioError(target, "cannot flush the new file to disk", error);
    }
    ::close(fd);
    if (::rename(file.c_str(), target.c_str()) != 0) {
        const int error = errno;
        std::filesystem::remove(file);
        ioError(target, "cannot replace the file", error);
    }
    syncFolder(target.parent_path());
}

AtomicFileWriter::AtomicFileWriter(const std::filesystem::path& file, mode_t mode)
    : file_(file), temporary_(createTemporaryBeside(file, mode)) {
    fd_ = ::open(temporary_.c_str(), O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
    if (fd_ < 0) fail("cannot write", errno);
}

AtomicFileWriter::~AtomicFileWriter() {
    if (fd_ >= 0) ::close(fd_);
    if (!temporary_.empty()) {
        std::error_code ec;
        std::filesystem::remove(temporary_, ec);
    }
}

void AtomicFileWriter::fail(const char* what, int error) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    std::error_code ec;
    std::filesystem::remove(temporary_, ec);
    temporary_.clear();
    ioError(file_, what, error);
}

void AtomicFileWriter::write(const char* p, std::size_t left) {
    while (left > 0) {
        const ssize_t n = ::write(fd_, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) fail("cannot write", n < 0 ? errno : EIO);
        p += n;
        left -= std::size_t(n);
    }
}

void AtomicFileWriter::commit() {
    if (::close(fd_) != 0) {
        const int error = errno;
        fd_ = -1;
        fail("cannot write", error);
    }
    fd_ = -1;
    commitTemporary(std::exchange(temporary_, {}), file_);
}

void writeFileAtomically(const std::filesystem::path& file, std::string_view bytes, mode_t mode) {
    AtomicFileWriter out(file, mode);
    out.write(bytes.data(), bytes.size());
    out.commit();
}

} // namespace atrium::narrative
