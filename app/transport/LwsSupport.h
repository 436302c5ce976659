#pragma once
// What the session server and client share about libwebsockets: the session clock,
// writing one text message, libwebsockets' log routed to stderr at warning level, and
// ws:// URLs.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

struct lws;

namespace atrium::transport {

/// Seconds of a steady clock since the object was made.
class SessionClock {
public:
    double now() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
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
