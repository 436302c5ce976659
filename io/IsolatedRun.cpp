#include "io/IsolatedRun.h"

#include "io/MemoryBudget.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <new>

#include <fcntl.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define ATRIUM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ATRIUM_ASAN 1
#endif
#endif

namespace atrium::io {
namespace {

/// Bytes of address space the process holds now (VmSize).
std::uint64_t addressSpaceBytes() {
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    statm >> pages;
    return pages * std::uint64_t(sysconf(_SC_PAGESIZE));
}

void writeAll(int fd, const char* data, std::size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, data, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return;
        data += w;
        n -= std::size_t(w);
    }
}

[[noreturn]] void child(int resultFd, int printFd, const std::function<void(std::string&)>& work,
                        std::uint64_t limit) {
    ::dup2(printFd, STDOUT_FILENO);
    ::dup2(printFd, STDERR_FILENO);
    ::close(printFd);
#ifndef ATRIUM_ASAN
    const rlimit memory{limit, limit};
    ::setrlimit(RLIMIT_AS, &memory);
#else
    (void)limit; // ASan reserves terabytes of address space: no limit there
#endif
    std::string result;
    char status = 'O';
    try {
        work(result);
    } catch (const std::bad_alloc&) {
        status = 'M';
        result = "out of memory";
    } catch (const std::exception& e) {
        status = 'E';
        result = e.what();
    } catch (...) {
        status = 'E';
        result = "unknown exception";
    }
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    writeAll(resultFd, &status, 1);
    writeAll(resultFd, result.data(), result.size());
    ::_exit(0);
}

std::string trimmedPrinted(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    if (text.size() > 2000) text = text.substr(0, 2000) + " ...";
    return text;
}

} // namespace

IsolatedOutput runIsolated(const std::function<void(std::string&)>& work, double timeoutSeconds) {
    int result[2], printed[2];
    if (::pipe2(result, O_CLOEXEC) != 0) throw IsolatedRunFailed(std::string("cannot create a pipe: ") + std::strerror(errno));
    if (::pipe2(printed, O_CLOEXEC) != 0) {
        ::close(result[0]);
        ::close(result[1]);
        throw IsolatedRunFailed(std::string("cannot create a pipe: ") + std::strerror(errno));
    }
    const std::uint64_t limit = addressSpaceBytes() + memoryBudgetBytes();
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid < 0) {
        for (int fd : {result[0], result[1], printed[0], printed[1]}) ::close(fd);
        throw IsolatedRunFailed(std::string("cannot start a process: ") + std::strerror(errno));
    }
    if (pid == 0) {
        ::close(result[0]);
        ::close(printed[0]);
        child(result[1], printed[1], work, limit);
    }
    ::close(result[1]);
    ::close(printed[1]);

    IsolatedOutput out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeoutSeconds);
    bool open[2] = {true, true};
    bool timedOut = false;
    char buffer[1 << 16];
    while (open[0] || open[1]) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) {
            timedOut = true;
            break;
        }
        pollfd fds[2] = {{result[0], short(open[0] ? POLLIN : 0), 0}, {printed[0], short(open[1] ? POLLIN : 0), 0}};
        const int ready = ::poll(fds, 2, int(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready < 0) break;
        for (int k = 0; k < 2; ++k) {
            if (!open[k] || fds[k].revents == 0) continue;
            const ssize_t n = ::read(fds[k].fd, buffer, sizeof buffer);
            if (n > 0) (k == 0 ? out.result : out.printed).append(buffer, std::size_t(n));
            else if (n == 0 || errno != EINTR) open[k] = false;
        }
    }
    if (timedOut) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    ::close(result[0]);
    ::close(printed[0]);

    const std::string said = trimmedPrinted(out.printed);
    const std::string tail = said.empty() ? std::string() : "; it printed: " + said;
    if (timedOut)
        throw IsolatedRunFailed("gave up after " + std::to_string(int(timeoutSeconds)) + " s (a corrupt file can make a reader loop)" + tail);
    if (WIFSIGNALED(status))
        throw IsolatedRunFailed(std::string("the reader crashed (signal ") + std::to_string(WTERMSIG(status)) + ", " +
                                strsignal(WTERMSIG(status)) + ")" + tail);
    if (out.result.empty())
        throw IsolatedRunFailed("the reader stopped without a result (exit status " +
                                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")" + tail);
    const char kind = out.result.front();
    out.result.erase(0, 1);
    if (kind == 'M')
        throw IsolatedRunFailed("the reader ran out of memory (limit " + formatBytes(double(memoryBudgetBytes())) + ", " +
                                memoryBudgetSource() + "; set another with --max-memory)" + tail);
    if (kind != 'O') throw IsolatedRunFailed(out.result + tail);
    out.printed = said;
    return out;
}

} // namespace atrium::io
