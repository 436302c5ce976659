#pragma once
// A deliberately plain WebSocket client over a POSIX socket, for tests that must send
// what no well-behaved client would: messages past the size limit, floods, garbage,
// drive messages from a student. RFC 6455 framing only, no extensions.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace atrium::transport::test {

class RawWebSocket {
public:
    /// Connects to 127.0.0.1:port from the loopback address `from` (any of 127.0.0.0/8,
    /// to act as another machine) and upgrades; throws std::runtime_error on failure.
    explicit RawWebSocket(int port, const std::string& from = "127.0.0.1");
    ~RawWebSocket();
    RawWebSocket(const RawWebSocket&) = delete;
    RawWebSocket& operator=(const RawWebSocket&) = delete;

    /// Sends one frame (text by default), masked as a client must unless `masked` is false;
    /// false when the socket is closed.
    bool send(const std::string& payload, int opcode = 1, bool masked = true);
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
    /// The status code of the server's close frame (0 before one came, or without a code).
    int closeCode() const { return closeCode_; }
    /// The payloads of the pongs received so far, in order.
    const std::vector<std::string>& pongs() const { return pongs_; }

private:
    bool readExact(char* out, std::size_t n, std::chrono::steady_clock::time_point deadline);
    int fd_ = -1;
    bool closed_ = false;
    int closeCode_ = 0;
    std::vector<std::string> pongs_;
};

/// A TCP connection to 127.0.0.1:port from the loopback address `from`, that says nothing:
/// the descriptor (throws std::runtime_error when the connection fails).
int connectLoopback(int port, const std::string& from = "127.0.0.1");
/// Waits until the peer closes `fd` (reads EOF or a reset), up to `timeout`; true if it did.
bool waitForPeerClose(int fd, std::chrono::milliseconds timeout);

/// GET `path` from 127.0.0.1:port over plain HTTP/1.1: the status code and the body.
std::pair<int, std::string> httpGet(int port, const std::string& path);
/// The same with another method (POST, PUT, DELETE, HEAD, ...).
std::pair<int, std::string> httpRequest(int port, const std::string& method, const std::string& path);
/// Sends `request` as it is and returns the whole response, headers included (empty when
/// the server hangs up without answering).
std::string httpExchange(int port, const std::string& request);

} // namespace atrium::transport::test
