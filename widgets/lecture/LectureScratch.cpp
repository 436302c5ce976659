#include "widgets/lecture/LectureScratch.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace atrium::widgets::scratch {

namespace fs = std::filesystem;

namespace {

constexpr const char* kPrefix = "atrium-lecture-";
constexpr const char* kOwnerFile = ".owner";

std::mutex& lock() {
    static std::mutex m;
    return m;
}

// This process's folder (empty until made) and the descriptor that holds its lock.
fs::path& folder() {
    static fs::path f;
    return f;
}
int ownerFd = -1;
pid_t ownerPid = 0; ///< the process that made the folder (a forked child inherits the memory, not the folder)
std::atomic<unsigned> folders{0};

/// The process id in "atrium-lecture-<pid>-XXXXXX", or 0 for another name (older builds
/// named them "atrium-lecture-XXXXXX").
pid_t pidInName(const std::string& name) {
    const std::string rest = name.substr(std::string(kPrefix).size());
    const auto dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash > 10) return 0;
    for (std::size_t i = 0; i < dash; ++i)
        if (rest[i] < '0' || rest[i] > '9') return 0;
    return pid_t(std::strtol(rest.substr(0, dash).c_str(), nullptr, 10));
}

bool processRuns(pid_t pid) { return pid > 0 && (::kill(pid, 0) == 0 || errno == EPERM); }

/// Whether the folder `dir` (named `name`) belongs to no running process.
bool isStale(const fs::path& dir, const std::string& name) {
    const int fd = ::open((dir / kOwnerFile).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        // Its owner holds the lock while it runs; the kernel drops it when it dies.
        const bool free = ::flock(fd, LOCK_EX | LOCK_NB) == 0;
        ::close(fd);
        return free;
    }
    if (const pid_t pid = pidInName(name)) return !processRuns(pid); // made, its lock not yet taken
    std::error_code ec;
    const auto age = fs::file_time_type::clock::now() - fs::last_write_time(dir, ec);
    return !ec && age > std::chrono::hours(1); // an older build's: no lock, no process id
}

} // namespace

std::size_t removeStale() {
    std::size_t removed = 0;
    std::error_code ec;
    const fs::path tmp = fs::temp_directory_path(ec);
    if (ec) return 0;
    const fs::path own = [] {
        std::lock_guard guard(lock());
        return folder();
    }();
    for (fs::directory_iterator it(tmp, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind(kPrefix, 0) != 0 || it->path() == own) continue;
        struct stat st {};
        // A real folder of this user's, never a link planted under the name.
        if (::lstat(it->path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
        if (!isStale(it->path(), name)) continue;
        std::error_code e2;
        if (fs::remove_all(it->path(), e2) > 0 && !e2) ++removed;
    }
    return removed;
}

fs::path processFolder() {
    {
        std::lock_guard guard(lock());
        if (!folder().empty()) return folder();
    }
    removeStale(); // what crashed runs left
    std::lock_guard guard(lock());
    if (!folder().empty()) return folder();
    std::string pattern = (fs::temp_directory_path() / (kPrefix + std::to_string(::getpid()) + "-XXXXXX")).string();
    if (!::mkdtemp(pattern.data()))
        throw fs::filesystem_error("cannot make a folder for the lecture's files", fs::path(pattern),
                                   std::error_code(errno, std::generic_category()));
    const fs::path made(pattern);
    // The lock lives as long as this process: never closed, dropped by the kernel at death.
    ownerFd = ::open((made / kOwnerFile).c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (ownerFd < 0 || ::flock(ownerFd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        std::error_code ignored;
        fs::remove_all(made, ignored);
        throw fs::filesystem_error("cannot lock the folder for the lecture's files", made,
                                   std::error_code(error, std::generic_category()));
    }
    folder() = made;
    ownerPid = ::getpid();
    static const bool registered = [] { return std::atexit(removeProcessFolder) == 0; }();
    (void)registered;
    return made;
}

fs::path newFolder(const char* prefix) {
    const fs::path made = processFolder() / (std::string(prefix) + std::to_string(folders.fetch_add(1) + 1));
    fs::create_directories(made);
    return made;
}

void removeProcessFolder() {
    std::lock_guard guard(lock());
    if (folder().empty() || ::getpid() != ownerPid) return; // never from a forked child
    std::error_code ignored;
    fs::remove_all(folder(), ignored);
    if (ownerFd >= 0) ::close(ownerFd);
    ownerFd = -1;
    folder().clear();
}

} // namespace atrium::widgets::scratch
