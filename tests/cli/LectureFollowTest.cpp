// A lecturer without a window plays the sample lecture's narrative to 20 students over
// real sockets on loopback; at each node every student's camera must be within 1 mm and
// 0.1 degree of the lecturer's. The narrative runs four times faster than written (its
// camera poses still stream in real time), to keep the test short.
#include "app/session/NarrativeLecturer.h"
#include "app/transport/SessionClient.h"
#include "app/transport/SessionServer.h"
#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <cmath>
#include <numbers>
#include <set>
#include <thread>

using namespace atrium;
using namespace std::chrono_literals;

namespace {

double degreesBetween(const narrative::CameraPose& a, const narrative::CameraPose& b) {
    return 2.0 * std::asin(std::min(1.0, narrative::length(a.forward() - b.forward()) / 2.0)) * 180.0 / std::numbers::pi;
}

} // namespace

TEST(LectureFollow, TwentyStudentsAreAtEveryNodeWithTheLecturer) {
    const auto package = package::ContentPackage::open(ATRIUM_SAMPLE_LECTURE);
    const auto document = narrative::parseNarrativeDocument(package.narrativesDocument(), "narratives.json");
    const narrative::Narrative& tour = document.narratives.at(0);

    transport::ServerOptions o;
    o.package = ATRIUM_SAMPLE_LECTURE;
    transport::SessionServer server(o);
    transport::ClientOptions c;
    c.url = server.url("127.0.0.1");
    c.code = server.code();
    c.name = "student";
    c.connections = 20;
    transport::SessionClient students(c);
    const auto deadline = std::chrono::steady_clock::now() + 20s;
    auto allSynced = [&] {
        for (int i = 0; i < 20; ++i)
            if (!students.synced(i)) return false;
        return true;
    };
    while (!allSynced() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
    ASSERT_TRUE(allSynced());

    app::NarrativeLecturer lecturer(server, tour, 0, false);
    lecturer.start();
    std::set<int> checked;
    auto last = std::chrono::steady_clock::now();
    int restingFrames = 0;
    while (!lecturer.finished()) {
        std::this_thread::sleep_for(std::chrono::microseconds(16667));
        const auto now = std::chrono::steady_clock::now();
        lecturer.step(4.0 * std::chrono::duration<double>(now - last).count());
        last = now;
        const narrative::PlayerFrame f = lecturer.player().frame();
        const bool resting = f.stage == narrative::PlayerStage::Dwell || f.stage == narrative::PlayerStage::FadeOut;
        restingFrames = resting ? restingFrames + 1 : 0;
        if (!resting || checked.count(f.node) || restingFrames < 6) continue; // 0.1 s at rest
        for (int i = 0; i < 20; ++i) {
            const auto p = students.pose(i);
            ASSERT_TRUE(p) << "student " << i << " has no camera at node " << f.node;
            EXPECT_LT(narrative::length(p->position() - f.pose.position()), 1.0) << "student " << i << ", node " << f.node;
            EXPECT_LT(degreesBetween(*p, f.pose), 0.1) << "student " << i << ", node " << f.node;
            EXPECT_EQ(students.state(i).narrative.index, 0);
            EXPECT_TRUE(students.state(i).narrative.playing);
        }
        checked.insert(f.node);
    }
    EXPECT_EQ(checked.size(), tour.nodes.size()) << "every node was checked";
    // The end of the tour reaches the students too.
    const auto end = std::chrono::steady_clock::now() + 5s;
    while (students.state(19).narrative.playing && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(students.state(19).narrative.playing);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(students.counters(i).dropped, 0u) << "student " << i;
}

// A lecturer with the secret takes over a headless lecture: while they drive, the headless
// player stands back (students see only their camera, and nothing of theirs is refused as
// out of order); when they leave, the headless player takes the lecture back.
TEST(LectureFollow, AHeadlessLecturerStandsBackWhileARemoteLecturerDrives) {
    const auto package = package::ContentPackage::open(ATRIUM_SAMPLE_LECTURE);
    const auto document = narrative::parseNarrativeDocument(package.narrativesDocument(), "narratives.json");
    transport::ServerOptions o;
    o.package = ATRIUM_SAMPLE_LECTURE;
    transport::SessionServer server(o);
    transport::ClientOptions c;
    c.url = server.url("127.0.0.1");
    c.code = server.code();
    c.name = "student";
    transport::SessionClient student(c);
    std::mutex mutex;
    std::vector<session::PoseSample> seen; // every camera sample the student received
    student.setPoseArrived([&](int, const session::PoseSample& s, double) {
        std::lock_guard lock(mutex);
        seen.push_back(s);
    });
    c.name = "remote lecturer";
    c.secret = server.lecturerSecret();
    auto remote = std::make_unique<transport::SessionClient>(c);

    app::NarrativeLecturer lecturer(server, document.narratives.at(0), 0, true);
    lecturer.start();
    auto last = std::chrono::steady_clock::now();
    auto frame = [&] {
        std::this_thread::sleep_for(std::chrono::microseconds(16667));
        const auto now = std::chrono::steady_clock::now();
        lecturer.step(std::chrono::duration<double>(now - last).count());
        last = now;
    };
    auto runUntil = [&](const std::function<bool()>& done, std::chrono::seconds limit) {
        const auto deadline = std::chrono::steady_clock::now() + limit;
        while (!done() && std::chrono::steady_clock::now() < deadline) frame();
        return done();
    };
    ASSERT_TRUE(runUntil([&] { return student.synced() && remote->role() == session::Role::Lecturer; }, 20s));

    // The remote lecturer looks at the heart from far along +X, circling slowly, for a second.
    const auto remotePose = [](double t) {
        return narrative::CameraPose::lookAt({5000.0, 100.0 * std::sin(t), 0.0}, {0, 0, 0});
    };
    const auto isRemote = [](const session::PoseSample& s) { return s.pose.position().x > 4000.0; };
    // The remote lecturer first changes the view (what a lecturer taking over does first),
    // then moves the camera.
    session::ViewSettings view = student.state().view;
    view.wireframe = !view.wireframe;
    ASSERT_TRUE(remote->drive(session::msg::View{0, view}));
    EXPECT_TRUE(runUntil([&] { return lecturer.yielded(); }, 2s)) << "the headless player did not stand back";
    const double takeover = server.now();
    // The headless player's last camera sample is from before the takeover; the remote
    // lecturer's clock (aligned by pings, within a few ms) then stamps newer ones.
    runUntil([&] { return server.now() > takeover + 0.1; }, 1s);
    for (int i = 0; i < 60; ++i) {
        remote->drive(session::msg::Pose{{remote->lecturerNow(), remotePose(i / 60.0)}});
        frame();
    }
    EXPECT_TRUE(lecturer.yielded());
    EXPECT_TRUE(runUntil([&] {
        std::lock_guard lock(mutex);
        return !seen.empty() && isRemote(seen.back());
    }, 2s));
    {
        // From the first remote sample on, the students saw no other camera.
        std::lock_guard lock(mutex);
        const auto first = std::find_if(seen.begin(), seen.end(), isRemote);
        ASSERT_NE(first, seen.end()) << "the remote lecturer's camera never reached the student";
        const auto other = std::find_if(first, seen.end(), [&](const auto& s) { return !isRemote(s); });
        EXPECT_EQ(other, seen.end()) << "the headless camera interleaved with the remote lecturer's at t = "
                                     << (other == seen.end() ? 0.0 : other->t - takeover);
    }
    EXPECT_EQ(server.counters().dropped, 0u) << "the remote lecturer's messages were refused";

    // The remote lecturer leaves: the headless lecture resumes, playing, with its own camera.
    const double resumed = server.now();
    remote.reset();
    ASSERT_TRUE(runUntil([&] { return !lecturer.yielded(); }, 5s));
    ASSERT_TRUE(runUntil([&] {
        std::lock_guard lock(mutex);
        return !seen.empty() && !isRemote(seen.back()) && seen.back().t >= resumed;
    }, 5s)) << "the headless camera did not come back";
    EXPECT_TRUE(runUntil([&] { return student.state().narrative.playing && student.state().narrative.at >= resumed; }, 5s));
}
