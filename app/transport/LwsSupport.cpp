#include "app/transport/LwsSupport.h"

#include "session/ClientText.h"

#include <libwebsockets.h>

#include <charconv>
#include <cstdio>
#include <mutex>
#include <vector>

namespace atrium::transport {

void ServiceLoop::start(lws_context* context, std::mutex& mutex) {
    context_ = context;
    thread_ = std::thread([this, &mutex] {
        { std::lock_guard wait(mutex); } // until start() has returned
        while (!stopping_.load())
            if (lws_service(context_, 0) < 0) break;
    });
    id_ = thread_.get_id();
}

void ServiceLoop::stop() {
    if (!context_) return;
    stopping_ = true;
    lws_cancel_service(context_);
    thread_.join();
    lws_context_destroy(context_);
    context_ = nullptr;
}

void ServiceLoop::wakeIfNeeded() {
    if (wake_ && context_) lws_cancel_service(context_);
    wake_ = false;
}

bool writeText(lws* wsi, std::string_view text) {
    thread_local std::vector<unsigned char> buffer;
    buffer.resize(LWS_PRE + text.size());
    std::copy(text.begin(), text.end(), buffer.begin() + LWS_PRE);
    return lws_write(wsi, buffer.data() + LWS_PRE, text.size(), LWS_WRITE_TEXT) >= int(text.size());
}

void routeLwsLog() {
    static std::once_flag once;
    std::call_once(once, [] {
        // Its lines may quote what a client sent (a header, a path): escaped like all client text.
        // A line repeated within 10 s (an accept() failing in a loop) is counted, not written.
        lws_set_log_level(LLL_ERR | LLL_WARN, [](int level, const char* line) {
            static std::mutex mutex;
            static std::string last;
            static std::chrono::steady_clock::time_point lastWritten;
            static std::size_t repeats = 0;
            std::string_view text(line);
            if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
            const auto now = std::chrono::steady_clock::now();
            std::lock_guard lock(mutex);
            if (text == last && now - lastWritten < std::chrono::seconds(10)) {
                ++repeats;
                return;
            }
            if (repeats > 0)
                std::fprintf(stderr, "libwebsockets: the line above came %zu more time(s)\n", repeats);
            repeats = 0;
            last = text;
            lastWritten = now;
            std::fprintf(stderr, "libwebsockets %s: %s\n", level == LLL_ERR ? "error" : "warning",
                         session::escapeClientText(text, 512).c_str());
        });
    });
}

std::optional<Url> parseUrl(std::string_view text, std::string* error) {
    auto fail = [&](const std::string& why) -> std::optional<Url> {
        if (error) *error = why;
        return std::nullopt;
    };
    std::string quoted = "\"";
    quoted.append(text);
    quoted += '"';
    Url url;
    std::string_view rest;
    int defaultPort = 0;
    for (auto [scheme, secure, port] : {std::tuple{"ws://", false, 80}, std::tuple{"wss://", true, 443},
                                        std::tuple{"http://", false, 80}, std::tuple{"https://", true, 443}}) {
        if (text.rfind(scheme, 0) == 0) {
            rest = text.substr(std::string_view(scheme).size());
            url.secure = secure;
            defaultPort = port;
        }
    }
    if (defaultPort == 0) return fail(quoted + " is not a ws:// or wss:// URL");
    const std::size_t slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    if (slash != std::string_view::npos) url.path = std::string(rest.substr(slash));
    std::string_view portText;
    if (!authority.empty() && authority.front() == '[') { // [IPv6]:port
        const std::size_t close = authority.find(']');
        if (close == std::string_view::npos) return fail("unclosed [ in " + quoted);
        url.host = std::string(authority.substr(1, close - 1));
        if (close + 1 < authority.size() && authority[close + 1] == ':') portText = authority.substr(close + 2);
    } else {
        const std::size_t colon = authority.rfind(':');
        url.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) portText = authority.substr(colon + 1);
    }
    if (url.host.empty()) return fail("no host in " + quoted);
    url.port = defaultPort;
    if (!portText.empty()) {
        const auto [end, ec] = std::from_chars(portText.data(), portText.data() + portText.size(), url.port);
        if (ec != std::errc() || end != portText.data() + portText.size() || url.port < 1 || url.port > 65535)
            return fail("bad port in " + quoted);
    }
    return url;
}

} // namespace atrium::transport
