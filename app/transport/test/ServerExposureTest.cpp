// What a stranger can do to the lecturer's server over the network, on loopback: hold
// connections without joining, exhaust descriptors, send what RFC 6455 or the protocol
// forbid, or use other HTTP methods. Addresses 127.0.0.2 and up act as other machines.
#include "Polling.h"
#include "RawWebSocket.h"

#include "app/transport/SelfSignedCertificate.h"
#include "app/transport/SessionClient.h"
#include "app/transport/SessionServer.h"
#include "session/ContentIdentity.h"

#include <gtest/gtest.h>

#include <sys/resource.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>
#include <thread>

using namespace atrium;
using namespace atrium::session;
using namespace atrium::transport;
using atrium::transport::test::RawWebSocket;
using namespace std::chrono_literals;
using atrium::transport::test::waitFor;

namespace {

std::string hello(const std::string& code, const std::string& name) {
    return encode(msg::Hello{code, name, std::nullopt});
}

ClientOptions student(const std::string& url, const std::string& code) {
    ClientOptions o;
    o.url = url;
    o.code = code;
    o.name = "honest";
    return o;
}

/// CPU seconds process `pid` has used (user and system, from /proc).
double cpuSeconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::istringstream fields(stat.substr(stat.rfind(')') + 2)); // after "pid (name) "
    std::string field;
    double ticks = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i)
        if (i == 14 || i == 15) ticks += std::stod(field); // utime, stime
    return ticks / double(::sysconf(_SC_CLK_TCK));
}

/// Idle TCP connections (they never send a byte), closed when this goes.
struct IdleConnections {
    std::vector<int> fds;
    ~IdleConnections() {
        for (int fd : fds) ::close(fd);
    }
    /// Opens `count` from `from`; returns how many connected.
    int open(int port, const std::string& from, int count) {
        int opened = 0;
        for (int i = 0; i < count; ++i) {
            try {
                fds.push_back(test::connectLoopback(port, from));
                ++opened;
            } catch (const std::runtime_error&) {
            }
        }
        return opened;
    }
};

} // namespace

TEST(ServerExposure, AConnectionThatNeverSaysHelloIsClosed) {
    ServerOptions o;
    o.helloTimeout = 1.0;
    SessionServer server(o);
    // Upgraded and silent (every WebSocket library answers pings, so they look alive) ...
    std::vector<std::unique_ptr<RawWebSocket>> silent;
    for (int i = 0; i < 8; ++i) silent.push_back(std::make_unique<RawWebSocket>(server.port(), "127.0.0.2"));
    // ... and plain TCP that never sends its HTTP request.
    IdleConnections idle;
    ASSERT_EQ(idle.open(server.port(), "127.0.0.3", 8), 8);
    RawWebSocket joined(server.port());
    joined.send(hello(server.code(), "joined"));
    ASSERT_TRUE(joined.receiveContaining("snapshot"));

    for (auto& s : silent) {
        EXPECT_TRUE(s->closedByServer(4000ms)) << "a silent WebSocket was kept";
        EXPECT_EQ(s->closeCode(), 1000);
    }
    for (int fd : idle.fds) EXPECT_TRUE(test::waitForPeerClose(fd, 4000ms)) << "an idle TCP connection was kept";
    // The student who joined is still there.
    joined.send(encode(msg::Ping{1, 0.0}));
    EXPECT_TRUE(joined.receiveContaining("pong"));
    EXPECT_EQ(server.roster().size(), 1u);
}

TEST(ServerExposure, AConnectionThatNeverStartsItsTlsHandshakeIsClosed) {
    const auto folder = std::filesystem::temp_directory_path() / ("atrium-tls-idle-" + std::to_string(::getpid()));
    const SelfSigned cert = makeSelfSignedCertificate(folder, {"127.0.0.1"});
    ServerOptions o;
    o.tls = cert.files;
    o.helloTimeout = 1.0;
    {
        SessionServer server(o);
        IdleConnections idle;
        ASSERT_EQ(idle.open(server.port(), "127.0.0.2", 4), 4);
        for (int fd : idle.fds) EXPECT_TRUE(test::waitForPeerClose(fd, 4000ms)) << "an idle TLS connection was kept";
    }
    std::filesystem::remove_all(folder);
}

TEST(ServerExposure, ConnectionsThatHaveNotJoinedAreCappedPerAddressAndInAll) {
    ServerOptions o;
    o.helloTimeout = 30.0; // longer than the test: only the caps act
    o.maxWaitingPerAddress = 4;
    o.maxWaiting = 10;
    SessionServer server(o);

    // One address: four held, the rest refused as they arrive.
    IdleConnections one;
    one.open(server.port(), "127.0.0.2", 12);
    int closed = 0;
    for (int fd : one.fds) closed += test::waitForPeerClose(fd, 300ms);
    EXPECT_EQ(closed, 8);

    // Many addresses: past ten in all, the oldest make room for the newest.
    IdleConnections many;
    for (int a = 3; a < 9; ++a) many.open(server.port(), "127.0.0." + std::to_string(a), 3);
    EXPECT_TRUE(test::waitForPeerClose(one.fds.front(), 2000ms)) << "the oldest was not closed to make room";
    std::vector<int> stillOpen = many.fds;
    EXPECT_TRUE(waitFor([&] {
        std::erase_if(stillOpen, [](int fd) { return test::waitForPeerClose(fd, 0ms); });
        return stillOpen.size() <= 10;
    })) << stillOpen.size() << " connections that have not joined are held";

    // An honest student still joins while they are held.
    SessionClient s(student(server.url("127.0.0.1"), server.code()));
    EXPECT_TRUE(waitFor([&] { return s.synced(); }, 5000ms));
}

TEST(ServerExposure, StrangersCannotExhaustTheDescriptorsAndTheLogStaysQuiet) {
    // The server runs in a child process under a limit of 160 descriptors; its log lines
    // and its stderr (libwebsockets') come back through a pipe.
    int ports[2], logs[2];
    ASSERT_EQ(::pipe(ports), 0);
    ASSERT_EQ(::pipe(logs), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(ports[0]);
        ::close(logs[0]);
        ::dup2(logs[1], 2); // libwebsockets' own lines too
        rlimit r{160, 160};
        ::setrlimit(RLIMIT_NOFILE, &r);
        ServerOptions o;
        o.code = "FDFULL";
        o.helloTimeout = 20.0; // longer than the test: the limits act, not the timeout
        o.log = [fd = logs[1]](const std::string& line) { (void)!::write(fd, (line + "\n").data(), line.size() + 1); };
        SessionServer server(o);
        const int port = server.port();
        (void)!::write(ports[1], &port, sizeof port);
        for (;;) ::pause();
    }
    ::close(ports[1]);
    ::close(logs[1]);
    int port = 0;
    ASSERT_EQ(::read(ports[0], &port, sizeof port), ssize_t(sizeof port));
    ::close(ports[0]);
    struct Reap {
        pid_t pid;
        ~Reap() {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, nullptr, 0);
        }
    } reap{child};

    // 300 connections from ten addresses, thirty each: more than the server may hold.
    IdleConnections strangers;
    for (int a = 2; a < 12; ++a) strangers.open(port, "127.0.0." + std::to_string(a), 30);
    SessionClient s(student("ws://127.0.0.1:" + std::to_string(port), "FDFULL"));
    EXPECT_TRUE(waitFor([&] { return s.synced(); }, 8000ms)) << "an honest student was kept out";
    // While the strangers hold what they may, the server idles: no accept() failing in a loop.
    const double before = cpuSeconds(child);
    std::this_thread::sleep_for(1000ms);
    EXPECT_LT(cpuSeconds(child) - before, 0.3) << "the server is busy while strangers hold connections";

    std::string text;
    char buffer[65536];
    ::fcntl(logs[0], F_SETFL, O_NONBLOCK);
    for (ssize_t n; (n = ::read(logs[0], buffer, sizeof buffer)) > 0;) text.append(buffer, std::size_t(n));
    ::close(logs[0]);
    const auto lines = std::count(text.begin(), text.end(), '\n');
    EXPECT_LE(lines, 10) << text;
}

TEST(ServerExposure, BinaryFramesCloseTheConnectionWith1003) {
    SessionServer server(ServerOptions{});
    RawWebSocket bystander(server.port());
    bystander.send(hello(server.code(), "bystander"));
    ASSERT_TRUE(bystander.receiveContaining("snapshot"));
    RawWebSocket s(server.port());
    s.send(hello(server.code(), "binary"));
    ASSERT_TRUE(s.receiveContaining("snapshot"));
    s.send(encode(msg::Ping{1, 0.0}), 2); // the same JSON, as a binary frame
    EXPECT_TRUE(s.closedByServer());
    EXPECT_EQ(s.closeCode(), 1003);
    // Control frames are answered as RFC 6455 requires (a ping is not a data frame).
    bystander.send("are you there", 9);
    bystander.send(encode(msg::Ping{2, 0.0}));
    ASSERT_TRUE(bystander.receiveContaining("pong"));
    EXPECT_EQ(bystander.pongs(), std::vector<std::string>{"are you there"});
}

TEST(ServerExposure, OnlyGetServesThePackage) {
    const auto file = std::filesystem::temp_directory_path() / ("atrium-methods-" + std::to_string(::getpid()) + ".atrium");
    std::ofstream(file, std::ios::binary) << std::string(1000, 'p');
    ServerOptions o;
    o.package = file;
    {
        SessionServer server(o);
        const std::string path = "/package/" + server.content()->hash;
        EXPECT_EQ(test::httpGet(server.port(), path).first, 200);
        for (const char* method : {"POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"})
            EXPECT_EQ(test::httpRequest(server.port(), method, path).first, 405) << method;
        EXPECT_EQ(test::httpRequest(server.port(), "POST", "/").first, 405);
        EXPECT_EQ(test::httpGet(server.port(), "/package/0000").first, 404);
    }
    std::filesystem::remove(file);
}
