// The hub and its followers wired together in memory (the rules; tests/session runs the
// same over real sockets): late join, who may drive, abuse, the floor, attention, resync.
#include "session/SessionFollower.h"
#include "session/SessionHub.h"

#include "SessionTestSupport.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

using namespace atrium;
using namespace atrium::session;

namespace {

/// Delivers the hub's output to followers and their output to the hub, in order.
class Classroom : public HubOutput {
public:
    explicit Classroom(HubOptions options) : hub(std::move(options), *this) {}

    void send(int connection, std::shared_ptr<const std::string> text) override {
        if (!closed_.count(connection)) inbox_[connection].push_back(*text);
    }
    void close(int connection, const std::string& reason) override {
        closeReasons[connection] = reason;
        closed_.insert(connection);
    }

    /// A student's connection: its follower, opened now.
    SessionFollower& join(int connection, std::string name, std::optional<std::string> secret = {}) {
        auto& f = followers.try_emplace(connection, FollowerOptions{hub.code(), std::move(name), std::move(secret)}).first->second;
        hub.opened(connection, now);
        f.connected(now);
        return f;
    }
    /// Sends raw text as `connection` (what a hostile client could).
    void raw(int connection, std::string_view text) { hub.received(connection, text, now); }
    /// Moves every queued message both ways until nothing is left.
    void pump() {
        for (bool moved = true; moved;) {
            moved = false;
            for (auto& [id, f] : followers) {
                if (closed_.count(id)) continue;
                for (const std::string& text : f.takeOutgoing()) {
                    hub.received(id, text, now);
                    moved = true;
                }
            }
            for (auto& [id, box] : inbox_) {
                while (!box.empty()) {
                    const std::string text = box.front();
                    box.pop_front();
                    if (dropNext.count(id) && dropNext[id]-- > 0) continue; // lose it
                    if (auto f = followers.find(id); f != followers.end()) f->second.received(text, now);
                    lastText[id] = text;
                    moved = true;
                }
            }
            for (int id : closed_)
                if (gone_.insert(id).second) {
                    hub.closed(id);
                    if (auto f = followers.find(id); f != followers.end()) f->second.disconnected();
                    moved = true;
                }
        }
    }
    bool isClosed(int connection) const { return closed_.count(connection) > 0; }

    double now = 1.0;
    SessionHub hub;
    std::map<int, SessionFollower> followers;
    std::map<int, std::string> closeReasons, lastText;
    std::map<int, int> dropNext;

private:
    std::map<int, std::deque<std::string>> inbox_;
    std::set<int> closed_, gone_;
};

HubOptions options(std::shared_ptr<const LecturerKey> key = nullptr) {
    HubOptions o;
    o.code = "HEART7";
    o.lecturer = std::move(key);
    o.content = ContentId{std::string(64, 'c'), "sample.atrium", 1000};
    return o;
}

msg::Narrative playing(double at) { return msg::Narrative{0, {0, 2.0, at, true, false, {}}}; }

} // namespace

TEST(SessionHub, ALateJoinerGetsOneSnapshotThenDeltas) {
    Classroom room(options());
    SessionFollower& early = room.join(1, "early");
    room.pump();
    ASSERT_TRUE(early.joined());
    room.hub.drive(playing(1.0), 1.0);
    room.hub.drive(msg::AttentionMode{0, Attention::Hold}, 1.0);
    room.hub.drive(msg::Pose{{1.5, narrative::CameraPose({1, 2, 3}, 0.1, 0.2)}}, 1.5);
    room.hub.drive(msg::Resource{0, "valve"}, 1.6);
    room.pump();
    EXPECT_EQ(early.state(), room.hub.state());

    room.now = 5.0;
    SessionFollower& late = room.join(2, "late");
    room.pump();
    EXPECT_EQ(late.counters().snapshots, 1u);
    EXPECT_EQ(late.state(), room.hub.state()); // everything said before it joined
    EXPECT_EQ(late.state().content->name, "sample.atrium");
    ASSERT_TRUE(late.poseAt(5.0));

    room.hub.drive(msg::PointerAt{0, Pointer{{4, 5, 6}, "here"}}, 5.5);
    room.pump();
    EXPECT_EQ(late.state(), room.hub.state());
    EXPECT_EQ(early.state(), room.hub.state());
    EXPECT_EQ(late.sequence(), room.hub.sequence());
    EXPECT_EQ(late.counters().dropped, 0u);
}

TEST(SessionHub, AStudentCannotDrive) {
    Classroom room(options());
    SessionFollower& student = room.join(1, "mallory");
    room.pump();
    EXPECT_FALSE(student.drive(msg::Pose{{2.0, narrative::CameraPose()}})); // the follower refuses to
    const SessionState before = room.hub.state();
    room.raw(1, encode(msg::Pose{{2.0, narrative::CameraPose({9, 9, 9}, 0, 0)}}));
    room.raw(1, encode(msg::AttentionMode{0, Attention::Hold}));
    room.raw(1, encode(msg::Floor{0, 1}));
    room.pump();
    EXPECT_EQ(room.hub.state(), before);
    EXPECT_EQ(room.hub.counters().dropped, 3u);
    EXPECT_NE(room.lastText[1].find("only the lecturer drives"), std::string::npos) << room.lastText[1];
    EXPECT_FALSE(room.isClosed(1)); // a few mistakes are not abuse
}

TEST(SessionHub, AWrongCodeClosesTheConnection) {
    Classroom room(options());
    room.hub.opened(1, 1.0);
    room.raw(1, encode(msg::Hello{"WRONG2", "guess", std::nullopt}));
    room.pump();
    EXPECT_TRUE(room.isClosed(1));
    EXPECT_EQ(room.closeReasons[1], "wrong join code");
    EXPECT_EQ(room.hub.joinedCount(), 0u);
}

TEST(SessionHub, GuessingTheCodeTurnsEveryoneAwayForAMoment) {
    Classroom room(options());
    for (int i = 0; i < 20; ++i) { // a burst of guesses
        room.hub.opened(100 + i, room.now);
        room.raw(100 + i, encode(msg::Hello{"GUESS" + std::to_string(i % 10), "x", std::nullopt}));
    }
    room.pump();
    SessionFollower& honest = room.join(1, "honest"); // the right code, but now
    room.pump();
    EXPECT_FALSE(honest.joined());
    EXPECT_EQ(room.closeReasons[1], "too many wrong join codes");
    room.now += 2.0; // the guesses stopped
    auto node = room.followers.extract(1);
    room.followers.insert({2, std::move(node.mapped())});
    room.hub.opened(2, room.now);
    room.followers.at(2).connected(room.now);
    room.pump();
    EXPECT_TRUE(room.followers.at(2).joined());
}

TEST(SessionHub, OnlyHelloComesFirst) {
    Classroom room(options());
    room.hub.opened(1, 1.0);
    room.raw(1, encode(msg::Resync{}));
    room.pump();
    EXPECT_NE(room.lastText[1].find("resync before hello"), std::string::npos);
    EXPECT_EQ(room.hub.joinedCount(), 0u);
}

TEST(SessionHub, FloodingAndGarbageCloseTheConnectionAndNoOneElseNotices) {
    Classroom room(options());
    SessionFollower& good = room.join(1, "good");
    room.join(2, "flood");
    room.pump();
    for (int i = 0; i < 500; ++i) room.raw(2, encode(msg::Ping{std::uint32_t(i), 1.0}));
    room.pump();
    EXPECT_TRUE(room.isClosed(2));
    EXPECT_EQ(room.closeReasons[2], "repeated refused messages");

    room.join(3, "garbage");
    room.pump();
    for (int i = 0; i < 20; ++i) room.raw(3, "{\"v\":1,\"type\":\"pose\",\"t\":[[[[[[[[[[[[1]]]]]]]]]]]]}");
    room.pump();
    EXPECT_TRUE(room.isClosed(3));

    room.join(4, "big");
    room.pump();
    room.raw(4, R"({"v":1,"type":"hello","code":"HEART7","name":")" + std::string(4000, 'x') + "\"}");
    room.pump();
    EXPECT_NE(room.lastText[4].find("exceeds the limit"), std::string::npos);

    room.hub.drive(playing(2.0), 2.0);
    room.pump();
    EXPECT_EQ(good.state(), room.hub.state());
    EXPECT_FALSE(room.isClosed(1));
    EXPECT_EQ(room.hub.counters().closedForAbuse, 2u);
}

TEST(SessionHub, ALecturerWithTheSecretDrivesFromAnotherMachine) {
    auto key = std::make_shared<const LecturerKey>(LecturerKey::fromSecret("s3cret-for-test"));
    Classroom room(options(key));
    SessionFollower& student = room.join(1, "student");
    SessionFollower& impostor = room.join(2, "impostor", std::string("guessed"));
    SessionFollower& lecturer = room.join(3, "Dr Harvey", std::string("s3cret-for-test"));
    room.pump();
    EXPECT_EQ(lecturer.role(), Role::Lecturer);
    EXPECT_EQ(impostor.role(), Role::Student);
    EXPECT_EQ(student.role(), Role::Student);
    ASSERT_TRUE(lecturer.drive(msg::View{0, ViewSettings{narrative::BloodColouring::Pressure}}));
    EXPECT_FALSE(impostor.drive(playing(1.0)));
    room.pump();
    EXPECT_EQ(room.hub.state().view.colouring, narrative::BloodColouring::Pressure);
    EXPECT_EQ(student.state(), room.hub.state());
    // The lecturer sees who is connected and who follows.
    ASSERT_TRUE(student.setFollowing(false));
    room.pump();
    const auto& roster = lecturer.roster();
    ASSERT_EQ(roster.size(), 3u);
    EXPECT_EQ(roster[0].name, "student");
    EXPECT_FALSE(roster[0].following);
    EXPECT_EQ(roster[2].role, Role::Lecturer);
    EXPECT_TRUE(student.roster().empty()); // students do not see each other
}

TEST(SessionHub, TheFloorIsHandedOverAndTakenBack) {
    Classroom room(options());
    SessionFollower& ana = room.join(1, "Ana");
    SessionFollower& ben = room.join(2, "Ben");
    room.pump();
    ASSERT_TRUE(room.hub.drive(msg::Floor{0, ana.memberId()}, 2.0));
    room.pump();
    EXPECT_TRUE(ana.maySteer());
    EXPECT_FALSE(ben.maySteer());
    ASSERT_TRUE(ana.drive(msg::Pose{{2.5, narrative::CameraPose({5, 5, 5}, 0, 0)}}));
    room.raw(1, encode(msg::AttentionMode{0, Attention::Hold})); // a presenter may not hold attention
    room.pump();
    ASSERT_TRUE(room.hub.state().pose);
    EXPECT_EQ(room.hub.state().pose->pose.position(), narrative::Vec3(5, 5, 5));
    EXPECT_EQ(ben.state().pose, room.hub.state().pose);
    EXPECT_EQ(room.hub.state().attention, Attention::Free);
    EXPECT_EQ(room.hub.roster()[0].role, Role::Presenter);

    ASSERT_TRUE(room.hub.drive(msg::Floor{0, std::nullopt}, 3.0)); // taken back
    room.pump();
    EXPECT_FALSE(ana.maySteer());
    room.raw(1, encode(msg::Pose{{3.5, narrative::CameraPose({7, 7, 7}, 0, 0)}}));
    room.pump();
    EXPECT_EQ(room.hub.state().pose->pose.position(), narrative::Vec3(5, 5, 5));
    EXPECT_FALSE(room.hub.drive(msg::Floor{0, 99}, 3.0)); // no such member

    // A presenter who leaves gives the floor back.
    room.hub.drive(msg::Floor{0, ben.memberId()}, 4.0);
    room.pump();
    room.raw(2, encode(msg::Leave{}));
    room.pump();
    EXPECT_FALSE(room.hub.state().floor);
    EXPECT_FALSE(ana.state().floor);
}

TEST(SessionHub, HoldingAttentionBringsExplorersBack) {
    Classroom room(options());
    SessionFollower& s = room.join(1, "s");
    room.pump();
    ASSERT_TRUE(s.setFollowing(false));
    room.pump();
    EXPECT_FALSE(room.hub.roster()[0].following);
    room.hub.drive(msg::AttentionMode{0, Attention::Hold}, 2.0);
    room.pump();
    EXPECT_TRUE(s.following());
    EXPECT_TRUE(room.hub.roster()[0].following);
    EXPECT_FALSE(s.setFollowing(false)); // held
    room.hub.drive(msg::AttentionMode{0, Attention::Free}, 3.0);
    room.pump();
    EXPECT_TRUE(s.setFollowing(false));
}

TEST(SessionHub, AHoldThatArrivesInASnapshotBringsTheExplorerBackAndTellsTheLecturer) {
    Classroom room(options());
    SessionFollower& s = room.join(1, "s");
    room.pump();
    ASSERT_TRUE(s.setFollowing(false));
    room.pump();
    room.dropNext[1] = 1;
    room.hub.drive(msg::AttentionMode{0, Attention::Hold}, 2.0); // lost: the next delta resyncs
    room.hub.drive(msg::Resource{0, "r"}, 2.0);
    room.pump();
    room.pump();
    EXPECT_EQ(s.counters().resyncs, 1u);
    EXPECT_TRUE(s.following());
    EXPECT_TRUE(room.hub.roster()[0].following) << "the roster must not show a held student as exploring";
}

TEST(SessionHub, ALostDeltaIsNoticedAndASnapshotRestoresTheState) {
    Classroom room(options());
    SessionFollower& s = room.join(1, "s");
    room.pump();
    room.dropNext[1] = 1;
    room.hub.drive(playing(1.0), 1.0); // lost on the way
    room.hub.drive(msg::Resource{0, "r"}, 1.0);
    room.pump();
    EXPECT_EQ(s.counters().resyncs, 1u);
    EXPECT_EQ(s.counters().snapshots, 2u);
    EXPECT_EQ(s.state(), room.hub.state());
    // A repeated delta is dropped as out of order.
    s.received(encode(msg::Resource{s.sequence(), "old"}), room.now);
    EXPECT_EQ(s.state(), room.hub.state());
}

TEST(SessionHub, AReconnectingStudentKeepsItsIdentity) {
    Classroom room(options());
    SessionFollower& s = room.join(1, "Ana");
    room.pump();
    const int id = s.memberId();
    room.raw(1, encode(msg::Leave{}));
    room.pump();
    EXPECT_EQ(room.hub.joinedCount(), 0u);
    room.hub.drive(playing(2.0), 2.0);
    // The same follower on a new connection.
    auto node = room.followers.extract(1);
    room.followers.insert({7, std::move(node.mapped())});
    SessionFollower& again = room.followers.at(7);
    room.hub.opened(7, 3.0);
    again.connected(3.0);
    room.pump();
    EXPECT_EQ(again.memberId(), id);
    EXPECT_EQ(again.state(), room.hub.state());
}
