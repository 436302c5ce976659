// Recordings: what a lecture sent, written as it goes, read back with every check of the
// wire, and replayed with seeking to the same states and poses.
#include "session/Recording.h"
#include "session/SessionHub.h"

#include "SessionTestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <sys/wait.h>
#include <unistd.h>

using namespace atrium;
using namespace atrium::session;
namespace fs = std::filesystem;

namespace {

class Nowhere : public HubOutput {
    void send(int, std::shared_ptr<const std::string>) override {}
    void close(int, const std::string&) override {}
};

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("atrium-recording-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

} // namespace

TEST(Recording, ALectureReplaysToTheSameStatesAndPoses) {
    Nowhere nowhere;
    HubOptions o;
    o.code = "ABCDEF";
    o.content = ContentId{std::string(64, 'e'), "lecture.atrium", 77};
    SessionHub hub(o, nowhere);
    hub.drive(msg::View{0, ViewSettings{narrative::BloodColouring::Speed}}, 0.5);
    const fs::path file = scratch("lecture.atriumrec");
    RecordingWriter writer(file, hub.sessionId(), hub.snapshot(), 1.0);
    hub.setBroadcastTap([&](double now, const std::string& text) { writer.append(now, text); });

    std::vector<std::pair<double, SessionState>> seen;
    std::vector<PoseSample> poses;
    for (int i = 0; i < 600; ++i) { // 10 s at 60 Hz, more than two checkpoints of messages
        const double t = 1.0 + i / 60.0;
        const PoseSample s{t, narrative::CameraPose({double(i), 0, 0}, 0.001 * i, 0)};
        hub.drive(msg::Pose{s}, t);
        poses.push_back(s);
        if (i % 50 == 0) hub.drive(msg::Narrative{0, {0, i / 60.0, t, true, false, {}}}, t);
        if (i == 300) hub.drive(msg::AttentionMode{0, Attention::Hold}, t);
        seen.emplace_back(t, hub.state());
    }
    EXPECT_FALSE(fs::exists(file)); // in place only when finished
    writer.finish();
    ASSERT_TRUE(fs::exists(file));

    const SessionReplay replay(Recording::read(file));
    EXPECT_EQ(replay.recording().content->name, "lecture.atrium");
    EXPECT_EQ(replay.recording().session, hub.sessionId());
    EXPECT_DOUBLE_EQ(replay.start(), 1.0);
    // Seek anywhere, in any order: the same state as the lecture had then.
    for (std::size_t k : {599u, 0u, 301u, 299u, 256u, 257u, 42u}) {
        EXPECT_EQ(replay.stateAt(seen[k].first), seen[k].second) << "at sample " << k;
        const auto pose = replay.poseAt(poses[k].t);
        ASSERT_TRUE(pose);
        EXPECT_EQ(pose->position(), poses[k].pose.position());
    }
    EXPECT_EQ(replay.stateAt(0.0).view.colouring, narrative::BloodColouring::Speed); // before: the first snapshot
    const auto between = replay.poseAt((poses[10].t + poses[11].t) / 2);
    EXPECT_NEAR(between->position().x, 10.5, 1e-9);
}

TEST(Recording, ABrokenRecordingIsRefusedNamingTheLine) {
    const std::string header =
        R"({"format":"atrium-session-recording","v":1,"session":"0123456789abcdef","content":null})";
    const std::string snapshot = R"({"t":1,"m":)" + encode(msg::Snapshot{0, SessionState{}}) + "}";
    const std::string pose = R"({"t":2,"m":{"v":1,"type":"pose","t":2,"p":[0,0,0],"yaw":0,"pitch":0}})";
    struct Case {
        std::string text, expected;
    };
    const std::vector<Case> cases = {
        {"", "empty file"},
        {"{}\n", ":1: not an Atrium session recording"},
        {header + "\n" + pose + "\n", ":2: the first message must be a snapshot"},
        {header + "\n" + snapshot + "\n" + R"({"t":0.5,"m":{}})" + "\n", ":3: /t: times must not decrease"},
        {header + "\n" + snapshot + "\n" + R"({"t":3,"m":{"v":1,"type":"ping","id":1,"t0":0}})" + "\n",
         ":3: /m: a ping message is not part of the state stream"},
        {header + "\n" + snapshot + "\n" + R"({"t":3,"m":{"v":1,"type":"pose"}})" + "\n", ":3: /m: pose: "},
        {header + "\n", "no snapshot"},
    };
    for (const auto& c : cases) {
        try {
            Recording::parse(c.text, "lecture.rec");
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const RecordingError& e) {
            EXPECT_NE(std::string(e.what()).find(c.expected), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind("lecture.rec", 0), 0u) << e.what();
        }
    }
    EXPECT_NO_THROW(Recording::parse(header + "\n" + snapshot + "\n" + pose + "\n", "ok.rec"));
}

TEST(Recording, ALectureWhoseWindowCrashesKeepsItsRecording) {
    const fs::path file = scratch("crashed.atriumrec");
    const fs::path partial = partialRecordingPath(file);
    fs::remove(file);
    fs::remove(partial);
    const auto pose = [](int i) {
        return encode(msg::Pose{PoseSample{1.0 + i, narrative::CameraPose({double(i), 0, 0}, 0, 0)}});
    };
    // A lecturer's process records 40 messages and dies without finishing.
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        RecordingWriter writer(file, "0123456789abcdef", msg::Snapshot{0, SessionState{}}, 1.0);
        for (int i = 0; i < 40; ++i) writer.append(1.0 + i, pose(i));
        std::abort();
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the recording process was to crash";
    EXPECT_FALSE(fs::exists(file));
    ASSERT_TRUE(fs::exists(partial));
    Recording r = Recording::read(partial);
    EXPECT_EQ(r.messages.size(), 41u) << "the snapshot and every message sent";
    EXPECT_FALSE(r.cutShort);

    // Cut in the middle of its last line (a machine that stopped mid-write): that line
    // is left out, and the recording says it was cut short.
    fs::resize_file(partial, fs::file_size(partial) - 10);
    r = Recording::read(partial);
    EXPECT_EQ(r.messages.size(), 40u);
    EXPECT_TRUE(r.cutShort);
    EXPECT_EQ(SessionReplay(std::move(r)).poseAt(39.0)->position().x, 38.0);

    // The next lecture recorded to the same file keeps the unfinished one beside it.
    RecordingWriter next(file, "fedcba9876543210", msg::Snapshot{0, SessionState{}}, 100.0);
    ASSERT_FALSE(next.recovered().empty());
    EXPECT_EQ(next.recovered().filename(), "crashed.recovered-1.atriumrec");
    EXPECT_EQ(Recording::read(next.recovered()).messages.size(), 40u);
    next.append(101.0, pose(1));
    next.finish();
    EXPECT_FALSE(fs::exists(partial));
    EXPECT_EQ(Recording::read(file).session, "fedcba9876543210");
    fs::remove(next.recovered());
}

