// A student's side against a server that misbehaves. A stalled one: the server process is
// stopped (SIGSTOP, as a laptop that sleeps or a debugger that halts it) for longer than
// every timeout on the way, then resumed; the student must join again by itself (an
// attempt that timed out waiting for the upgrade used to end without a retry). A hostile
// one: what it says must not reach the student's log or screen as it is.
#include "Polling.h"

#include "app/transport/SessionClient.h"
#include "app/transport/SessionServer.h"

#include <gtest/gtest.h>

#include <openssl/evp.h>
#include <openssl/sha.h>

#include <arpa/inet.h>
#include <csignal>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <mutex>
#include <vector>

#include <chrono>
#include <thread>

using namespace atrium;
using namespace atrium::session;
using namespace atrium::transport;
using namespace std::chrono_literals;
using atrium::transport::test::waitFor;

namespace {

/// A session server in a child process of its own, so that it can be stopped and resumed
/// as a whole (its service thread and its sockets' backlog, as a real lecturer's app).
class ServerProcess {
public:
    explicit ServerProcess(const std::string& code) {
        int fds[2];
        if (::pipe(fds) != 0) throw std::runtime_error("pipe");
        pid_ = ::fork();
        if (pid_ == 0) {
            ::close(fds[0]);
            ServerOptions o;
            o.code = code;
            SessionServer server(o);
            server.drive(msg::Resource{0, "before-the-stall"});
            const int port = server.port();
            (void)!::write(fds[1], &port, sizeof port);
            for (;;) ::pause(); // until killed
        }
        ::close(fds[1]);
        if (::read(fds[0], &port_, sizeof port_) != sizeof port_) port_ = 0;
        ::close(fds[0]);
    }
    ~ServerProcess() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    int port() const { return port_; }
    void stop() { ::kill(pid_, SIGSTOP); }
    void resume() { ::kill(pid_, SIGCONT); }

private:
    pid_t pid_ = -1;
    int port_ = 0;
};

} // namespace

TEST(Reconnect, AStudentJoinsAgainAfterTheServerWasStoppedForLong) {
    ServerProcess server("STALL1");
    ASSERT_GT(server.port(), 0);
    ClientOptions o;
    o.url = "ws://127.0.0.1:" + std::to_string(server.port());
    o.code = "STALL1";
    o.name = "patient";
    o.silenceLimit = 2.0;
    SessionClient s(o);
    ASSERT_TRUE(waitFor([&] { return s.synced() && s.state().resource; }, 5000ms));
    s.takeEvents();

    server.stop();
    bool noticed = false;
    ASSERT_TRUE(waitFor([&] {
        for (const ClientEvent& e : s.takeEvents()) noticed |= e.kind == ClientEvent::Kind::Disconnected;
        return noticed;
    }, 6000ms)) << "the student did not notice the silence";
    // The server stays stopped past libwebsockets' own wait for an upgrade (5 s) while the
    // student keeps trying: each attempt connects (the kernel still accepts) and hears nothing.
    std::this_thread::sleep_for(8s);
    server.resume();
    EXPECT_TRUE(waitFor([&] { return s.link() == LinkState::Joined && s.synced(); }, 8000ms))
        << "the student did not come back after the server resumed";
}

namespace {

/// A hostile "lecturer's server" on loopback: it upgrades one connection, says bye with a
/// reason full of terminal escapes and a forged log line, and hangs up.
class HostileServer {
public:
    HostileServer() {
        listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t size = sizeof a;
        if (::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener_, 4) != 0 ||
            ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &size) != 0)
            throw std::runtime_error("cannot listen");
        port_ = ntohs(a.sin_port);
        thread_ = std::thread([this] { serveOne(); });
    }
    ~HostileServer() {
        ::shutdown(listener_, SHUT_RDWR);
        ::close(listener_);
        thread_.join();
    }
    int port() const { return port_; }

private:
    void serveOne() {
        pollfd p{listener_, POLLIN, 0};
        if (::poll(&p, 1, 5000) <= 0) return;
        const int fd = ::accept(listener_, nullptr, nullptr);
        if (fd < 0) return;
        std::string request;
        char c;
        while (request.find("\r\n\r\n") == std::string::npos && ::recv(fd, &c, 1, 0) == 1) request += c;
        const std::string header = "Sec-WebSocket-Key: ";
        const auto at = request.find(header);
        const std::string key = at == std::string::npos ? "" : request.substr(at + header.size(), 24);
        const std::string accept = websocketAccept(key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11");
        std::string out = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                          "Sec-WebSocket-Accept: " + accept + "\r\nSec-WebSocket-Protocol: atrium-session\r\n\r\n";
        const std::string bye = R"({"v":1,"type":"bye","reason":"\u001b[2J\u001b]0;owned\u0007gone\natrium-session: forged"})";
        out += char(0x81);
        out += char(bye.size());
        out += bye;
        (void)!::send(fd, out.data(), out.size(), MSG_NOSIGNAL);
        std::this_thread::sleep_for(200ms);
        ::close(fd);
    }
    static std::string websocketAccept(const std::string& text) {
        unsigned char digest[SHA_DIGEST_LENGTH];
        SHA1(reinterpret_cast<const unsigned char*>(text.data()), text.size(), digest);
        unsigned char encoded[64] = {};
        EVP_EncodeBlock(encoded, digest, SHA_DIGEST_LENGTH);
        return reinterpret_cast<char*>(encoded);
    }
    int listener_ = -1, port_ = 0;
    std::thread thread_;
};

} // namespace

TEST(Reconnect, WhatTheServerSaysIsEscapedBeforeItIsShownOrLogged) {
    HostileServer hostile;
    std::vector<std::string> lines;
    std::mutex mutex;
    ClientOptions o;
    o.url = "ws://127.0.0.1:" + std::to_string(hostile.port());
    o.code = "HOSTILE";
    o.reconnect = false; // the bye ends it: its reason comes back as the Refused event's
    o.log = [&](const std::string& line) {
        std::lock_guard lock(mutex);
        lines.push_back(line);
    };
    SessionClient s(o);
    std::string reason;
    ASSERT_TRUE(waitFor([&] {
        for (const ClientEvent& e : s.takeEvents())
            if (e.kind == ClientEvent::Kind::Refused) reason = e.reason;
        return !reason.empty();
    }, 5000ms));
    EXPECT_NE(reason.find("gone"), std::string::npos) << reason;
    std::lock_guard lock(mutex);
    lines.push_back(reason);
    for (const std::string& line : lines)
        for (unsigned char c : line) EXPECT_GE(c, 0x20) << "a control character reached the student's log: " << line;
}
