#pragma once
// Waiting in the transport's tests: for an event on another thread (a server's or
// client's service thread), never for a fixed time.
#include <chrono>
#include <thread>

namespace atrium::transport::test {

/// Polls `ready` every 5 ms for up to `limit`; true when it became true.
template <class F>
bool waitFor(F ready, std::chrono::milliseconds limit = std::chrono::milliseconds(5000)) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (ready()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return ready();
}

} // namespace atrium::transport::test
