// atrium-session as a script calls it (in-process, the same code as main()): a headless
// lecturer serving the sample lecture, students following it, a recording replayed, a
// short load test, and the errors.
#include "app/session/SessionCommands.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

using namespace atrium::app;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Result {
    int code;
    std::string out, err;
};

Result session(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = sessionCommand(args, out, err);
    return {code, out.str(), err.str()};
}

/// A port that was free a moment ago.
int freePort() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(fd);
    return ntohs(a.sin_port);
}

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("atrium-session-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

} // namespace

TEST(SessionCli, ALecturerServesStudentsFollowAndTheRecordingReplays) {
    const int port = freePort();
    const std::string url = "ws://127.0.0.1:" + std::to_string(port);
    const fs::path recording = scratch("lecture.atriumrec");
    Result served;
    std::thread lecturer([&] {
        served = session({"serve", ATRIUM_SAMPLE_LECTURE, "--port", std::to_string(port), "--code", "CLI234", "--seconds",
                          "3", "--record", recording.string(), "--narrative", "1"});
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(800));
    const Result student = session({"follow", url, "--code", "CLI234", "--once", "--seconds", "5"});
    const Result wrong = session({"follow", url, "--code", "WRONG2", "--seconds", "5"});
    // The student page's URL, which the QR code holds, joins too.
    const std::string page = "http://127.0.0.1:" + std::to_string(port) + "/?code=CLI234";
    const Result byPage = session({"follow", page, "--code", "CLI234", "--once", "--seconds", "5"});
    lecturer.join();

    ASSERT_EQ(served.code, 0) << served.err;
    const json info = json::parse(served.out.substr(0, served.out.find('\n')));
    EXPECT_EQ(info["code"], "CLI234");
    EXPECT_EQ(info["port"], port);
    EXPECT_EQ(info["secret"].get<std::string>().size(), 20u);
    EXPECT_EQ(info["content"]["name"], "left-heart.atrium");
    EXPECT_EQ(info["narrative"], 1); // numbered from 1, as atrium --narrative K
    EXPECT_EQ(info["narrativeTitle"], "Through the left heart");
    const auto pages = info["pages"].get<std::vector<std::string>>();
    EXPECT_NE(std::find(pages.begin(), pages.end(), page), pages.end()) << info.dump();
    EXPECT_EQ(byPage.code, 0) << byPage.err;

    ASSERT_EQ(student.code, 0) << student.err;
    const std::string last = student.out.substr(student.out.rfind("{\"sequence\""));
    const json state = json::parse(last)["state"];
    EXPECT_EQ(state["content"]["hash"], info["content"]["hash"]);
    EXPECT_EQ(state["narrative"]["index"], 0);
    EXPECT_TRUE(state["narrative"]["playing"].get<bool>());
    EXPECT_FALSE(state["pose"].is_null());

    EXPECT_EQ(wrong.code, 3);
    EXPECT_NE(wrong.err.find("wrong join code"), std::string::npos) << wrong.err;

    const Result replayed = session({"replay", recording.string(), "--at", "1.0", "--every", "0.5"});
    ASSERT_EQ(replayed.code, 0) << replayed.err;
    const json summary = json::parse(replayed.out.substr(0, replayed.out.find('\n')));
    EXPECT_EQ(summary["content"]["hash"], info["content"]["hash"]);
    EXPECT_GE(summary["messages"].get<int>(), 4);
    EXPECT_NE(replayed.out.find("\"pose\""), std::string::npos);
}

TEST(SessionCli, ALoadTestReportsItsFigures) {
    const Result r = session({"loadtest", "--local", "--students", "10", "--seconds", "1", "--warmup", "0.2", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["students"], 10);
    EXPECT_GT(j["poses_received"].get<int>(), 10 * 30); // 10 students, about 60 poses a second each
    EXPECT_EQ(j["dropped"], 0);
    EXPECT_EQ(j["resyncs"], 0);
    EXPECT_GT(j["late_join_ms"].get<double>(), 0.0);
    EXPECT_GT(j["latency_ms"]["max"].get<double>(), 0.0);
    EXPECT_GT(j["bytes_per_s_per_student"]["mean"].get<double>(), 1000.0);
    EXPECT_TRUE(j.contains("server_cpu_us_per_student_per_s"));
}

TEST(SessionCli, ErrorsNameWhatIsWrong) {
    Result r = session({"serve", "/nonexistent/lecture.atrium", "--seconds", "1"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("/nonexistent/lecture.atrium"), std::string::npos) << r.err;

    r = session({"serve", ATRIUM_SAMPLE_LECTURE, "--narrative", "9", "--seconds", "1"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--narrative 9"), std::string::npos) << r.err;
    r = session({"serve", ATRIUM_SAMPLE_LECTURE, "--narrative", "0", "--seconds", "1"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("--narrative must be in [1, 4096]"), std::string::npos) << r.err;

    r = session({"follow", "http//nowhere", "--code", "ABCDEF"});
    EXPECT_EQ(r.code, 1);
    EXPECT_NE(r.err.find("not a ws:// or wss:// URL"), std::string::npos) << r.err;

    r = session({"follow", "ws://127.0.0.1:" + std::to_string(freePort()), "--code", "ABCDEF", "--seconds", "1"});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("could not join"), std::string::npos) << r.err;

    const fs::path bad = scratch("bad.atriumrec");
    std::ofstream(bad) << R"({"format":"atrium-session-recording","v":1,"session":"0123456789abcdef","content":null})"
                       << "\n{\"t\":1,\"m\":{\"v\":1,\"type\":\"pose\"}}\n";
    r = session({"replay", bad.string()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("bad.atriumrec:2:"), std::string::npos) << r.err;

    r = session({"teleport"});
    EXPECT_EQ(r.code, 1);
    r = session({"serve", ATRIUM_SAMPLE_LECTURE, "--code", "lower"});
    EXPECT_EQ(r.code, 1);
}
