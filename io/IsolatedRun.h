#pragma once
// Runs work that may crash, hang or exhaust memory on hostile input - a third-party
// reader on an untrusted file - in a child process, so that none of these takes the
// program down with it.
//
// The child is a fork() of the caller: it runs `work`, which writes its result as bytes,
// and exits without running the parent's destructors. Its address space is limited to
// what it already holds plus the memory budget (MemoryBudget.h), its time to
// `timeoutSeconds`, and what it prints on stdout and stderr (a library's own warnings) is
// captured and returned instead of reaching the terminal.
//
// The child has only the calling thread: `work` must not rely on a thread pool that the
// parent started (VTK's SMP tools: select their Sequential backend first).

#include <functional>
#include <stdexcept>
#include <string>

namespace atrium::io {

/// The isolated work did not finish: what() says how (an exception's message, a crash
/// with its signal, the memory limit, the time limit) and, after "; ", what it printed.
class IsolatedRunFailed : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

struct IsolatedOutput {
    std::string result;  ///< what `work` wrote
    std::string printed; ///< what the child wrote to stdout and stderr
};

/// Runs `work(result)` in a child process. Throws IsolatedRunFailed when it throws, crashes,
/// runs out of memory or time.
IsolatedOutput runIsolated(const std::function<void(std::string& result)>& work, double timeoutSeconds);

} // namespace atrium::io
