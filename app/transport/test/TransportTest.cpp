// The live session over real sockets on loopback: a lecturer and students, late join,
// drops and restarts, who may drive, abuse, the package by hash, recording.
#include "LoopbackRelay.h"
#include "Polling.h"
#include "RawWebSocket.h"

#include "app/transport/SessionClient.h"
#include "app/transport/SelfSignedCertificate.h"
#include "app/transport/SessionServer.h"
#include "session/Recording.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <thread>

using namespace atrium;
using namespace atrium::session;
using namespace atrium::transport;
using atrium::transport::test::RawWebSocket;
using narrative::CameraPose;
using namespace std::chrono_literals;
using atrium::transport::test::waitFor;

namespace {

ClientOptions student(const SessionServer& server, int connections = 1) {
    ClientOptions o;
    o.url = server.url("127.0.0.1");
    o.code = server.code();
    o.name = "student";
    o.connections = connections;
    return o;
}

bool allSynced(const SessionClient& c) {
    for (int i = 0; i < c.connections(); ++i)
        if (!c.synced(i)) return false;
    return true;
}

CameraPose circling(double t) {
    const double a = 2 * std::numbers::pi * t / 4.0;
    return CameraPose::lookAt({100 * std::cos(a), 100 * std::sin(a), 20}, {0, 0, 0});
}

double degreesBetween(const CameraPose& a, const CameraPose& b) {
    return 2.0 * std::asin(std::min(1.0, narrative::length(a.forward() - b.forward()) / 2.0)) * 180.0 / std::numbers::pi;
}

/// Moves the lecturer's camera for `seconds` at 60 Hz, ending at rest at `circling(end)`.
void moveCamera(SessionServer& server, double seconds) {
    PoseSampler sampler;
    const auto start = std::chrono::steady_clock::now();
    for (;;) {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        const double t = std::min(elapsed, seconds);
        for (const PoseSample& s : sampler.update(circling(t), server.now())) server.drive(msg::Pose{s});
        if (elapsed >= seconds) break;
        std::this_thread::sleep_for(std::chrono::microseconds(16667));
    }
    // One more frame at rest sends the resting pose if the rate held it back.
    std::this_thread::sleep_for(20ms);
    for (const PoseSample& s : sampler.update(circling(seconds), server.now())) server.drive(msg::Pose{s});
}

} // namespace

TEST(Transport, StudentsFollowTheLecturerToTheMillimetre) {
    SessionServer server(ServerOptions{});
    SessionClient students(student(server, 8));
    ASSERT_TRUE(waitFor([&] { return allSynced(students); }));
    EXPECT_EQ(server.roster().size(), 8u);

    server.drive(msg::Narrative{0, {0, 0.0, server.now(), true, false, {}}});
    server.drive(msg::View{0, ViewSettings{narrative::BloodColouring::Pressure}});
    moveCamera(server, 0.5);
    const CameraPose rest = circling(0.5);
    ASSERT_TRUE(waitFor([&] {
        for (int i = 0; i < 8; ++i) {
            const auto p = students.pose(i);
            if (!p || narrative::length(p->position() - rest.position()) > 1.0 || degreesBetween(*p, rest) > 0.1) return false;
            if (students.sequence(i) != 2) return false;
        }
        return true;
    }));
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(students.state(i).narrative, server.state().narrative);
        EXPECT_EQ(students.state(i).view.colouring, narrative::BloodColouring::Pressure);
        EXPECT_LT(students.bufferDelay(i), 0.1);
    }
}

TEST(Transport, ALateJoinerConverges) {
    SessionServer server(ServerOptions{});
    server.drive(msg::Narrative{0, {1, 4.0, server.now(), false, true, {1.0, 2.0}}});
    server.drive(msg::AttentionMode{0, Attention::Hold});
    server.drive(msg::Pose{{server.now(), circling(1.0)}});
    const auto start = std::chrono::steady_clock::now();
    SessionClient late(student(server));
    ASSERT_TRUE(waitFor([&] {
        const auto p = late.pose();
        return late.synced() && late.state() == server.state() && p && narrative::length(p->position() - circling(1.0).position()) < 1.0;
    }));
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::cout << "late join converged in " << ms << " ms on loopback\n";
    EXPECT_TRUE(late.following());
    EXPECT_FALSE(late.setFollowing(false)); // attention is held
}

TEST(Transport, AStudentReconnectsAfterADropAndKeepsItsIdentity) {
    SessionServer server(ServerOptions{});
    SessionClient s(student(server));
    ASSERT_TRUE(waitFor([&] { return s.synced(); }));
    const int id = s.memberId();
    s.dropConnection();
    ASSERT_TRUE(waitFor([&] { return server.roster().empty(); }));
    server.drive(msg::Resource{0, "valve"}); // said while the student was away
    ASSERT_TRUE(waitFor([&] { return s.synced() && s.state().resource == std::optional<std::string>("valve"); }));
    EXPECT_EQ(s.memberId(), id);
    bool disconnected = false;
    for (const ClientEvent& e : s.takeEvents()) disconnected |= e.kind == ClientEvent::Kind::Disconnected;
    EXPECT_TRUE(disconnected);
}

TEST(Transport, StudentsResyncWhenTheLecturersAppRestarts) {
    ServerOptions o;
    o.code = "RSTRT2";
    auto server = std::make_unique<SessionServer>(o);
    const int port = server->port();
    server->drive(msg::View{0, ViewSettings{narrative::BloodColouring::Speed}});
    SessionClient s(student(*server));
    ASSERT_TRUE(waitFor([&] { return s.synced() && s.state().view.colouring == narrative::BloodColouring::Speed; }));
    const std::string firstSession = server->sessionId();

    server.reset(); // the lecturer's app goes away
    ASSERT_TRUE(waitFor([&] { return s.link() == LinkState::Connecting; }));
    EXPECT_EQ(s.state().view.colouring, narrative::BloodColouring::Speed); // the view is kept meanwhile

    std::this_thread::sleep_for(300ms);
    o.port = port;
    server = std::make_unique<SessionServer>(o); // and comes back on the same port
    server->drive(msg::View{0, ViewSettings{narrative::BloodColouring::DensityError}});
    ASSERT_TRUE(waitFor([&] { return s.synced() && s.state().view.colouring == narrative::BloodColouring::DensityError; },
                        10000ms));
    EXPECT_NE(server->sessionId(), firstSession);
}

TEST(Transport, AStudentNoticesANetworkThatDropsSilentlyAndResyncs) {
    SessionServer server(ServerOptions{});
    test::LoopbackRelay network(server.port());
    ClientOptions o = student(server);
    o.url = "ws://127.0.0.1:" + std::to_string(network.port());
    o.silenceLimit = 2.0;
    SessionClient s(o);
    server.drive(msg::View{0, ViewSettings{narrative::BloodColouring::Speed}});
    ASSERT_TRUE(waitFor([&] { return s.synced() && s.state().view.colouring == narrative::BloodColouring::Speed; }));
    s.takeEvents();

    network.cut(); // no socket closes: only silence tells
    server.drive(msg::Resource{0, "said-while-cut-off"});
    std::string why;
    ASSERT_TRUE(waitFor([&] {
        for (const ClientEvent& e : s.takeEvents())
            if (e.kind == ClientEvent::Kind::Disconnected) why = e.reason;
        return !why.empty();
    }, 6000ms)) << "the student did not notice the silent network";
    EXPECT_NE(why.find("no word from the server"), std::string::npos) << why;
    EXPECT_EQ(s.state().view.colouring, narrative::BloodColouring::Speed); // the view is kept meanwhile
    EXPECT_FALSE(s.state().resource);

    network.mend();
    ASSERT_TRUE(waitFor([&] { return s.synced() && s.state().resource == std::optional<std::string>("said-while-cut-off"); },
                        10000ms));
}

TEST(Transport, AWrongCodeIsRefusedForGood) {
    SessionServer server(ServerOptions{});
    ClientOptions o = student(server);
    o.code = "WRONG9";
    SessionClient s(o);
    ASSERT_TRUE(waitFor([&] { return s.link() == LinkState::Refused; }));
    std::this_thread::sleep_for(600ms);
    EXPECT_EQ(s.link(), LinkState::Refused); // no retries
    EXPECT_TRUE(server.roster().empty());
}

TEST(Transport, AStudentWhoIsNotTheLecturerCannotDrive) {
    SessionServer server(ServerOptions{});
    SessionClient watcher(student(server));
    RawWebSocket raw(server.port());
    ASSERT_TRUE(raw.send(encode(msg::Hello{server.code(), "mallory", std::nullopt})));
    ASSERT_TRUE(raw.receiveContaining("\"snapshot\""));
    ASSERT_TRUE(raw.send(encode(msg::Pose{{1.0, CameraPose({9, 9, 9}, 0, 0)}})));
    ASSERT_TRUE(raw.send(encode(msg::AttentionMode{0, Attention::Hold})));
    ASSERT_TRUE(raw.send(encode(msg::Auth{std::string(64, 'a')}))); // a guessed answer
    const auto error = raw.receiveContaining("only the lecturer drives");
    ASSERT_TRUE(error);
    ASSERT_TRUE(raw.receiveContaining("wrong lecturer secret"));
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(server.state().pose);
    EXPECT_EQ(server.state().attention, Attention::Free);
    ASSERT_TRUE(waitFor([&] { return watcher.synced(); }));
    EXPECT_FALSE(watcher.state().pose);
}

TEST(Transport, TheLecturerSecretDrivesFromAnotherMachine) {
    SessionServer server(ServerOptions{});
    ClientOptions o = student(server);
    o.secret = server.lecturerSecret();
    o.name = "Dr Harvey";
    SessionClient lecturer(o);
    SessionClient s(student(server));
    ASSERT_TRUE(waitFor([&] { return lecturer.role() == Role::Lecturer && s.synced(); }));
    ASSERT_TRUE(lecturer.drive(msg::Resource{0, "mitral"}));
    ASSERT_TRUE(waitFor([&] { return s.state().resource == std::optional<std::string>("mitral"); }));
    EXPECT_EQ(server.state().resource, std::optional<std::string>("mitral"));
    ASSERT_TRUE(waitFor([&] { return lecturer.roster().size() == 2; }));
}

TEST(Transport, OversizeFloodingAndGarbageAreRefusedAndNobodyElseNotices) {
    SessionServer server(ServerOptions{});
    SessionClient good(student(server));
    ASSERT_TRUE(waitFor([&] { return good.synced(); }));

    RawWebSocket big(server.port());
    big.send(encode(msg::Hello{server.code(), "big", std::nullopt}));
    big.send(R"({"v":1,"type":"status","following":false,"x":")" + std::string(200000, 'x') + "\"}");
    EXPECT_TRUE(big.receiveContaining("exceeds the limit"));

    RawWebSocket flood(server.port());
    flood.send(encode(msg::Hello{server.code(), "flood", std::nullopt}));
    for (int i = 0; i < 2000 && flood.send(encode(msg::Ping{std::uint32_t(i), 1.0})); ++i) {
    }
    EXPECT_TRUE(flood.closedByServer());

    RawWebSocket garbage(server.port());
    garbage.send(encode(msg::Hello{server.code(), "garbage", std::nullopt}));
    for (int i = 0; i < 30; ++i) garbage.send("{{{{ not json"); // text nonsense: struck until closed
    EXPECT_TRUE(garbage.closedByServer());

    RawWebSocket binary(server.port()); // binary frames close at once (ServerExposureTest.cpp)
    binary.send(encode(msg::Hello{server.code(), "binary", std::nullopt}));
    binary.send(std::string("\xff\xfe{{{{", 6), 2);
    EXPECT_TRUE(binary.closedByServer());

    server.drive(msg::Resource{0, "still-here"});
    ASSERT_TRUE(waitFor([&] { return good.state().resource == std::optional<std::string>("still-here"); }));
    EXPECT_EQ(good.link(), LinkState::Joined);
    EXPECT_GE(server.counters().closedForAbuse, 2u);
}

TEST(Transport, AStudentsCrashAffectsNoOneElse) {
    SessionServer server(ServerOptions{});
    SessionClient others(student(server, 3));
    ASSERT_TRUE(waitFor([&] { return allSynced(others); }));
    {
        RawWebSocket crashing(server.port());
        ASSERT_TRUE(crashing.send(encode(msg::Hello{server.code(), "crashing", std::nullopt})));
        ASSERT_TRUE(crashing.receiveContaining("\"snapshot\""));
        ASSERT_TRUE(waitFor([&] { return server.roster().size() == 4; }));
        crashing.crashMidFrame(); // half a message, then a reset connection
    }
    ASSERT_TRUE(waitFor([&] { return server.roster().size() == 3; })) << "the crashed student is still on the roster";
    server.drive(msg::Resource{0, "after-the-crash"});
    ASSERT_TRUE(waitFor([&] {
        for (int i = 0; i < 3; ++i)
            if (others.state(i).resource != std::optional<std::string>("after-the-crash")) return false;
        return true;
    }));
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(others.link(i), LinkState::Joined);
        EXPECT_EQ(others.counters(i).resyncs, 0u);
    }
}

TEST(Transport, ThePackageIsServedByItsHash) {
    const auto file = std::filesystem::temp_directory_path() / ("atrium-transport-" + std::to_string(::getpid()) + ".atrium");
    std::string bytes;
    for (int i = 0; i < 300000; ++i) bytes += char(i * 7);
    std::ofstream(file, std::ios::binary) << bytes;
    ServerOptions o;
    o.package = file;
    SessionServer server(o);
    ASSERT_TRUE(server.content());
    EXPECT_EQ(server.content()->bytes, bytes.size());
    const auto [status, body] = test::httpGet(server.port(), "/package/" + server.content()->hash);
    EXPECT_EQ(status, 200);
    EXPECT_EQ(body.size(), bytes.size());
    EXPECT_TRUE(body == bytes);
    EXPECT_EQ(test::httpGet(server.port(), "/package/" + std::string(64, '0')).first, 404);
    EXPECT_EQ(test::httpGet(server.port(), "/../../etc/passwd").first, 404);
    SessionClient s(student(server));
    ASSERT_TRUE(waitFor([&] { return s.synced(); }));
    EXPECT_EQ(s.state().content, server.content()); // the welcome and snapshot name it
    std::filesystem::remove(file);
}

TEST(Transport, ARecordingReplaysToTheSamePoses) {
    const auto file = std::filesystem::temp_directory_path() / ("atrium-transport-" + std::to_string(::getpid()) + ".atriumrec");
    SessionServer server(ServerOptions{});
    server.startRecording(file);
    moveCamera(server, 0.3);
    server.drive(msg::Narrative{0, {0, 1.0, server.now(), true, false, {}}});
    const SessionState atEnd = server.state();
    EXPECT_GT(server.stopRecording(), 10u);
    const SessionReplay replay(Recording::read(file));
    EXPECT_EQ(replay.stateAt(replay.end()), atEnd);
    const auto last = replay.poseAt(replay.end());
    ASSERT_TRUE(last);
    EXPECT_LT(narrative::length(last->position() - circling(0.3).position()), 1e-9);
    std::filesystem::remove(file);
}

TEST(Transport, TheServerRefusesATakenPort) {
    SessionServer first(ServerOptions{});
    ServerOptions o;
    o.port = first.port();
    EXPECT_THROW(SessionServer second(o), TransportError);
}

TEST(Transport, AClassroomLecturesOverTlsWithASelfSignedCertificate) {
    const auto folder = std::filesystem::temp_directory_path() / ("atrium-tls-" + std::to_string(::getpid()));
    const SelfSigned cert = makeSelfSignedCertificate(folder, {"127.0.0.1", "localhost"});
    EXPECT_EQ(cert.fingerprint.size(), 32u * 3 - 1);
    EXPECT_EQ(std::filesystem::status(cert.files.privateKey).permissions() & std::filesystem::perms::others_read,
              std::filesystem::perms::none);
    ServerOptions o;
    o.tls = cert.files;
    SessionServer server(o);
    EXPECT_EQ(server.url("127.0.0.1").rfind("wss://", 0), 0u);
    ClientOptions trusting = student(server);
    trusting.allowSelfSigned = true;
    SessionClient s(trusting);
    ASSERT_TRUE(waitFor([&] { return s.synced(); }));
    server.drive(msg::Resource{0, "over-tls"});
    ASSERT_TRUE(waitFor([&] { return s.state().resource == std::optional<std::string>("over-tls"); }));

    // A client that insists on a certificate authority does not get in.
    SessionClient strict(student(server));
    std::this_thread::sleep_for(1500ms);
    EXPECT_FALSE(strict.synced());
    EXPECT_EQ(server.roster().size(), 1u);
    std::filesystem::remove_all(folder);
}
