// The wire protocol: every message survives a round trip, and untrusted text is refused
// with a reason naming the type and the place, never with an exception.
#include "session/Protocol.h"

#include "SessionTestSupport.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace atrium;
using namespace atrium::session;

namespace {

SessionState sampleState() {
    SessionState s;
    s.content = ContentId{std::string(64, 'a'), "heart.atrium", 12345};
    s.narrative = {1, 12.5, 30.0, true, false, {3.0, 7.5}};
    s.sim = {true, 0.25, 30.0, 72.0, 20000, 42, 4.0, 12.0, 2};
    s.view.colouring = narrative::BloodColouring::Speed;
    s.view.clipping = {true, -0.25};
    s.attention = Attention::Hold;
    s.floor = 3;
    s.resource = "valve-video";
    s.pointer = Pointer{{1, 2, 3}, "mitral valve"};
    s.pose = PoseSample{31.0, narrative::CameraPose({10, -20, 30}, 0.5, -0.2)};
    return s;
}

std::vector<Message> everyMessage() {
    return {msg::Hello{"ABC234", "Ana", 4},
            msg::Hello{"ABC234", "", std::nullopt},
            msg::Auth{std::string(64, 'f')},
            msg::Ping{7, 1.5},
            msg::Status{false},
            msg::Leave{},
            msg::Resync{},
            msg::Welcome{5, "0123456789abcdef", 3.25, ContentId{std::string(64, '0'), "x.atrium", 9},
                         Challenge{std::string(64, '1'), std::string(32, '2'), 2, 67108864}},
            msg::Welcome{5, "0123456789abcdef", 3.25, std::nullopt, std::nullopt},
            msg::Pong{7, 1.5, 100.25},
            msg::AuthResult{true, "lecturer"},
            msg::Snapshot{17, sampleState()},
            msg::Snapshot{0, SessionState{}},
            msg::Roster{{{1, "Ana", Role::Student, true}, {2, "Ben", Role::Presenter, false}, {3, "Dr C", Role::Lecturer, true}}},
            msg::Error{"no"},
            msg::Bye{"session over"},
            msg::Pose{PoseSample{2.5, narrative::CameraPose({1, 2, 3}, -3.0, 1.2)}},
            msg::Narrative{3, {0, 1, 2, false, true, {}, std::nullopt}},
            msg::Narrative{3, {0, 1, 2, true, false, {0.5}, narrative::CameraPose({1, 2, 3}, 0.25, -0.5)}},
            msg::Narrative{0, {-1, 0, 0, false, false, {}}},
            msg::Sim{4, sampleState().sim},
            msg::View{5, sampleState().view},
            msg::AttentionMode{6, Attention::Hold},
            msg::Floor{7, 3},
            msg::Floor{8, std::nullopt},
            msg::Resource{9, "r1"},
            msg::Resource{10, std::nullopt},
            msg::PointerAt{11, Pointer{{0, 0, 0}, ""}},
            msg::PointerAt{12, std::nullopt}};
}

} // namespace

TEST(Protocol, EveryMessageRoundTrips) {
    for (const Message& m : everyMessage()) {
        const std::string text = encode(m);
        const ParseResult r = parseMessage(text);
        ASSERT_TRUE(r) << text << "\n" << r.error;
        EXPECT_EQ(*r.message, m) << text;
        EXPECT_EQ(encode(*r.message), text);
    }
}

TEST(Protocol, OnlySnapshotsAndDriveMessagesChangeTheState) {
    const SessionState changed = sampleState();
    for (const Message& m : everyMessage()) {
        SessionState s = changed;
        applyToState(s, m);
        if (!isDrive(m) && !std::holds_alternative<msg::Snapshot>(m)) {
            EXPECT_EQ(s, changed) << typeName(m);
        }
    }
    SessionState s;
    applyToState(s, msg::Floor{1, 4});
    EXPECT_EQ(s.floor, 4);
    applyToState(s, msg::Pose{PoseSample{9.0, narrative::CameraPose({1, 1, 1}, 0, 0)}});
    ASSERT_TRUE(s.pose);
    EXPECT_EQ(s.pose->t, 9.0);
    applyToState(s, msg::Snapshot{3, changed});
    EXPECT_EQ(s, changed);
    EXPECT_TRUE(isDrive(msg::Pose{}));
    EXPECT_FALSE(isDrive(msg::Hello{}));
    EXPECT_FALSE(isDrive(msg::Snapshot{}));
}

TEST(Protocol, TimelineAndPhaseRunOnWhilePlaying) {
    NarrativeState n{0, 10.0, 100.0, true, false, {}};
    EXPECT_DOUBLE_EQ(n.timeAt(102.5), 12.5);
    n.playing = false;
    EXPECT_DOUBLE_EQ(n.timeAt(102.5), 10.0);
    SimState s;
    s.phase = 0.9;
    s.at = 10.0;
    s.rateBpm = 60.0;
    EXPECT_NEAR(s.phaseAt(10.3), 0.2, 1e-12); // wraps past 1
    s.running = false;
    EXPECT_DOUBLE_EQ(s.phaseAt(10.3), 0.9);
}

TEST(Protocol, RefusesOversizedAndDeepMessagesBeforeParsing) {
    const std::string big = R"({"v":1,"type":"error","reason":")" + std::string(600, 'x') + "\"}";
    const ParseResult r = parseMessage(big, kStudentMessageLimits);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error.find("exceeds the limit of 512"), std::string::npos) << r.error;

    const std::string deep = std::string(5000, '[') + std::string(5000, ']');
    const ParseResult d = parseMessage(deep);
    ASSERT_FALSE(d);
    EXPECT_NE(d.error.find("nested deeper"), std::string::npos) << d.error;
}

TEST(Protocol, NamesWhatIsWrong) {
    struct Case {
        std::string text, expected;
    };
    const std::vector<Case> cases = {
        {"not json", "not JSON"},
        {"[1,2]", "not a JSON object"},
        {R"({"type":"ping"})", "/v: missing protocol version"},
        {R"({"v":2,"type":"ping","id":1,"t0":0})", "protocol version 2 is not supported"},
        {R"({"v":1,"type":"teleport"})", "unknown message type \"teleport\""},
        {R"({"v":1,"type":"ping","id":1})", "ping: "},
        {R"({"v":1,"type":"pose","t":1,"p":[0,0,1e9],"yaw":0,"pitch":0})", "pose: /p/2"},
        {R"({"v":1,"type":"pose","t":1,"p":[0,0,0],"yaw":0,"pitch":0,"extra":1})", "pose: "},
        {R"({"v":1,"type":"hello","code":"abc","name":"x"})", "hello: /code"},
        {R"({"v":1,"type":"view","state":{"colouring":"green","fluid":"spheres","opacity":1,"clip":false,"clipOffset":0,"wireframe":false,"blood":true}})",
         "view: /state/colouring"},
        {R"({"v":1,"type":"sim","state":{"running":true,"phase":1.0,"at":0,"rateBpm":75,"particles":15000,"seed":1,"viscosity":3.5,"soundSpeed":10,"resets":0}})",
         "sim: /state/phase"},
    };
    for (const auto& c : cases) {
        const ParseResult r = parseMessage(c.text);
        ASSERT_FALSE(r) << c.text;
        EXPECT_NE(r.error.find(c.expected), std::string::npos) << c.text << "\n -> " << r.error;
    }
}

TEST(Protocol, ASnapshotOfALargeStateFitsTheServerLimit) {
    SessionState s = sampleState();
    s.narrative.keys.assign(1024, 1e8);
    const std::string text = encode(msg::Snapshot{1, s});
    EXPECT_LT(text.size(), kDriverMessageLimits.maxBytes * 2);
    EXPECT_TRUE(parseMessage(text)) << parseMessage(text).error;
    s.narrative.keys.push_back(1.0); // one key too many
    EXPECT_FALSE(parseMessage(encode(msg::Snapshot{1, s})));
}

TEST(Protocol, SchemaShipsWithEveryType) {
    const auto& defs = messageSchema()["$defs"];
    for (const Message& m : everyMessage()) EXPECT_TRUE(defs.contains(std::string(typeName(m)))) << typeName(m);
}
