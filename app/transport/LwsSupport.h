#pragma once
// What the session server and client share about libwebsockets: the session clock,
// writing one text message, libwebsockets' log routed to stderr at warning level, and
// ws:// URLs.

#include <atomic>
#include <chrono>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

struct lws;
struct lws_context;

namespace atrium::transport {

/// Seconds of a steady clock since the object was made.
class SessionClock {
public:
    double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

/// libwebsockets' service loop on a thread of its own. Only that thread may call into
/// libwebsockets (but for lws_cancel_service): another thread leaves work in its owner's
/// queues under the owner's mutex, calls requestWake(), and wakeIfNeeded() once done.
class ServiceLoop {
public:
    /// Runs `context` on a new thread. The caller holds `mutex` - the one its callbacks
    /// take - until this returns, so the thread knows its own id before any callback.
    void start(lws_context* context, std::mutex& mutex);
    /// Stops and joins the thread, then destroys the context.
    void stop();
    lws_context* context() const { return context_; }
    bool onServiceThread() const { return std::this_thread::get_id() == id_; }
    bool stopping() const { return stopping_.load(); }
    void requestWake() { wake_ = true; }
    void wakeIfNeeded();
    std::thread& thread() { return thread_; }

private:
    lws_context* context_ = nullptr;
    std::thread thread_;
    std::thread::id id_;
    std::atomic<bool> stopping_{false};
    bool wake_ = false;
};

/// Writes `text` as one WebSocket text message (copied behind LWS_PRE); false on failure.
bool writeText(lws* wsi, std::string_view text);

/// Sends libwebsockets' errors and warnings to stderr, once per process.
void routeLwsLog();

/// A parsed ws://, wss://, http:// or https:// URL.
struct Url {
    bool secure = false;
    std::string host;
    int port = 0;
    std::string path = "/";
};
/// Nullopt for anything else (the reason in `error` when given).
std::optional<Url> parseUrl(std::string_view text, std::string* error = nullptr);

} // namespace atrium::transport
