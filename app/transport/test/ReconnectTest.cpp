// A student's way back after the lecturer's machine stalled: the server process is
// stopped (SIGSTOP, as a laptop that sleeps or a debugger that halts it) for longer than
// every timeout on the way, then resumed; the student must join again by itself. (An
// attempt that timed out waiting for the upgrade used to end without a retry.)
#include "app/transport/SessionClient.h"
#include "app/transport/SessionServer.h"

#include <gtest/gtest.h>

#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

using namespace atrium;
using namespace atrium::session;
using namespace atrium::transport;
using namespace std::chrono_literals;

namespace {

template <class F>
bool waitFor(F ready, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
        if (ready()) return true;
        std::this_thread::sleep_for(10ms);
    }
    return ready();
}

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
