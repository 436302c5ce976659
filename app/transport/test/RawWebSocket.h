#pragma once
// A deliberately plain WebSocket client over a POSIX socket, for tests that must send
// what no well-behaved client would: messages past the size limit, floods, garbage,
// drive messages from a student. RFC 6455 framing only, no extensions.

#include <chrono>
#include <optional>
#include <string>

namespace atrium::transport::test {

class RawWebSocket {
public:
    /// Connects to 127.0.0.1:port and upgrades; throws std::runtime_error on failure.
    explicit RawWebSocket(int port);
    ~RawWebSocket();
    RawWebSocket(const RawWebSocket&) = delete;
    RawWebSocket& operator=(const RawWebSocket&) = delete;

    /// Sends one frame (text by default); false when the socket is closed.
    bool send(const std::string& payload, int opcode = 1);
    /// The next text message, or nullopt on timeout or close.
    std::optional<std::string> receive(std::chrono::milliseconds timeout = std::chrono::milliseconds(2000));
    /// Reads until a message containing `needle` arrives (or timeout / close).
    std::optional<std::string> receiveContaining(const std::string& needle,
                                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));
    /// Dies as a crashing app does: announces a text frame of `announced` bytes, sends a
    /// few of them, and resets the connection (no close frame, no FIN).
    void crashMidFrame(std::size_t announced = 10000);
    /// True once the server closed the connection (reads until then, up to timeout).
    bool closedByServer(std::chrono::milliseconds timeout = std::chrono::milliseconds(3000));

private:
    bool readExact(char* out, std::size_t n, std::chrono::steady_clock::time_point deadline);
    int fd_ = -1;
    bool closed_ = false;
};

/// GET `path` from 127.0.0.1:port over plain HTTP/1.1: the status code and the body.
std::pair<int, std::string> httpGet(int port, const std::string& path);

} // namespace atrium::transport::test
