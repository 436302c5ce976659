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

#include <chrono>
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
