#include "RawWebSocket.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace atrium::transport::test {

int connectLoopback(int port, const std::string& from) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in local{};
    local.sin_family = AF_INET;
    if (from != "127.0.0.1") {
        if (::inet_pton(AF_INET, from.c_str(), &local.sin_addr) != 1 ||
            ::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
            ::close(fd);
            throw std::runtime_error("cannot bind to " + from);
        }
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(std::uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        throw std::runtime_error("cannot connect to port " + std::to_string(port));
    }
    const int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

bool waitForPeerClose(int fd, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    char buffer[4096];
    for (;;) { // polls at least once, even with no time left
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, int(std::max<std::int64_t>(0, left.count()))) <= 0) return false;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) return true; // EOF or reset
    }
}

namespace {
bool writeAll(int fd, const std::string& bytes) {
    std::size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n <= 0) return false;
        done += std::size_t(n);
    }
    return true;
}
} // namespace

RawWebSocket::RawWebSocket(int port, const std::string& from) : fd_(connectLoopback(port, from)) {
    const std::string request = "GET / HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port) +
                                "\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                                "Sec-WebSocket-Protocol: atrium-session\r\n\r\n";
    if (!writeAll(fd_, request)) throw std::runtime_error("cannot send the upgrade");
    std::string response;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    char c;
    while (response.find("\r\n\r\n") == std::string::npos) {
        if (!readExact(&c, 1, deadline)) throw std::runtime_error("no upgrade response");
        response += c;
    }
    if (response.rfind("HTTP/1.1 101", 0) != 0) throw std::runtime_error("upgrade refused: " + response);
}

RawWebSocket::~RawWebSocket() {
    if (fd_ >= 0) ::close(fd_);
}

bool RawWebSocket::send(const std::string& payload, int opcode, bool masked) {
    std::string frame;
    frame += char(0x80 | opcode);
    const std::size_t n = payload.size();
    const char maskBit = masked ? char(0x80) : char(0);
    if (n < 126) {
        frame += char(maskBit | char(n));
    } else if (n < 65536) {
        frame += char(maskBit | 126);
        frame += char(n >> 8), frame += char(n & 0xff);
    } else {
        frame += char(maskBit | 127);
        for (int i = 7; i >= 0; --i) frame += char((std::uint64_t(n) >> (8 * i)) & 0xff);
    }
    const char mask[4] = {0x12, 0x34, 0x56, 0x78};
    if (masked) frame.append(mask, 4);
    for (std::size_t i = 0; i < n; ++i) frame += masked ? char(payload[i] ^ mask[i % 4]) : payload[i];
    return writeAll(fd_, frame);
}

void RawWebSocket::crashMidFrame(std::size_t announced) {
    std::string frame{char(0x81), char(0x80 | 127)};
    for (int i = 7; i >= 0; --i) frame += char((std::uint64_t(announced) >> (8 * i)) & 0xff);
    frame += std::string(4, '\x5a');            // the mask
    frame += std::string(100, '{');              // and a little of the payload
    writeAll(fd_, frame);
    const linger reset{1, 0};                    // close() sends RST
    ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &reset, sizeof reset);
    ::close(fd_);
    fd_ = -1;
    closed_ = true;
}

bool RawWebSocket::readExact(char* out, std::size_t n, std::chrono::steady_clock::time_point deadline) {
    std::size_t done = 0;
    while (done < n) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        if (left.count() <= 0) return false;
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, int(left.count())) <= 0) return false;
        const ssize_t got = ::recv(fd_, out + done, n - done, 0);
        if (got <= 0) {
            closed_ = true;
            return false;
        }
        done += std::size_t(got);
    }
    return true;
}

std::optional<std::string> RawWebSocket::receive(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
        unsigned char h[2];
        if (!readExact(reinterpret_cast<char*>(h), 2, deadline)) return std::nullopt;
        // A frame begun is read whole, however short the wait asked for: giving up half
        // way would read its payload as the next frame's header (a close frame's code
        // was lost so on a loaded machine, read as a close without one).
        const auto frameDeadline = std::max(deadline, std::chrono::steady_clock::now() + std::chrono::seconds(5));
        std::uint64_t len = h[1] & 0x7f;
        if (len == 126 || len == 127) {
            unsigned char ext[8];
            const int k = len == 126 ? 2 : 8;
            if (!readExact(reinterpret_cast<char*>(ext), std::size_t(k), frameDeadline)) return std::nullopt;
            len = 0;
            for (int i = 0; i < k; ++i) len = (len << 8) | ext[i];
        }
        std::string payload(len, '\0');
        if (len && !readExact(payload.data(), len, frameDeadline)) return std::nullopt;
        const int opcode = h[0] & 0x0f;
        if (opcode == 8) {
            closed_ = true;
            if (payload.size() >= 2) closeCode_ = (static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]);
            return std::nullopt;
        }
        if (opcode == 10) pongs_.push_back(payload);
        if (opcode == 1) return payload;
        // pings, pongs and continuation frames are not needed here
    }
}

std::optional<std::string> RawWebSocket::receiveContaining(const std::string& needle, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        auto m = receive(left);
        if (!m) return std::nullopt;
        if (m->find(needle) != std::string::npos) return m;
    }
    return std::nullopt;
}

bool RawWebSocket::closedByServer(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!closed_ && std::chrono::steady_clock::now() < deadline) receive(std::chrono::milliseconds(100));
    return closed_;
}

std::pair<int, std::string> httpGet(int port, const std::string& path) { return httpRequest(port, "GET", path); }

std::pair<int, std::string> httpRequest(int port, const std::string& method, const std::string& path) {
    const std::string response =
        httpExchange(port, method + " " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                               (method == "POST" || method == "PUT" ? "Content-Length: 0\r\n" : "") + "\r\n");
    const std::size_t end = response.find("\r\n\r\n");
    if (response.size() < 12 || end == std::string::npos) return {0, response};
    return {std::stoi(response.substr(9, 3)), response.substr(end + 4)};
}

std::string httpExchange(int port, const std::string& request) {
    const int fd = connectLoopback(port);
    writeAll(fd, request);
    std::string response;
    char buffer[65536];
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 5000) <= 0) break;
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        response.append(buffer, std::size_t(n));
        const std::size_t headers = response.find("\r\n\r\n");
        const std::size_t length = response.find("content-length: ");
        if (headers != std::string::npos && length != std::string::npos && length < headers &&
            response.size() - headers - 4 >= std::stoull(response.substr(length + 16)))
            break;
    }
    ::close(fd);
    return response;
}

} // namespace atrium::transport::test
