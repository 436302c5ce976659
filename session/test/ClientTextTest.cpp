// What clients send, on its way to a log or a label: escaped, never split inside a UTF-8
// character; and the limits on names counted in bytes.
#include "session/ClientText.h"
#include "session/Recording.h"
#include "session/SessionFollower.h"
#include "session/SessionHub.h"

#include <gtest/gtest.h>

#include <vector>

using namespace atrium::session;

namespace {

/// Every byte of `s` is printable ASCII or part of a valid UTF-8 character that is not a
/// control: what a terminal or a log viewer shows as it is.
bool harmless(const std::string& s) {
    for (unsigned char c : s)
        if (c < 0x20 || c == 0x7f) return false;
    return s.find("\xC2\x85") == std::string::npos && s.find("\xE2\x80\xAE") == std::string::npos &&
           s.find("\xE2\x80\xA8") == std::string::npos;
}

class Sink : public HubOutput {
public:
    void send(int, std::shared_ptr<const std::string> text) override { sent.push_back(*text); }
    void close(int, const std::string&) override {}
    std::vector<std::string> sent;
};

} // namespace

TEST(ClientText, ControlCharactersBecomeVisibleEscapes) {
    EXPECT_EQ(escapeClientText("Ana"), "Ana");
    EXPECT_EQ(escapeClientText("Ana\nconnection 1: Eve authenticated as lecturer"),
              "Ana\\nconnection 1: Eve authenticated as lecturer");
    EXPECT_EQ(escapeClientText(std::string("a\0b", 3)), "a\\0b");
    EXPECT_EQ(escapeClientText("\x1b[31mred\x1b[0m\r\t\x7f"), "\\e[31mred\\e[0m\\r\\t\\x7F");
    EXPECT_EQ(escapeClientText("\xC2\x85next line"), "\\x85next line");             // C1 NEL
    EXPECT_EQ(escapeClientText("abc\xE2\x80\xAE" "cba"), "abc\\u{202E}cba");          // right-to-left override
    EXPECT_EQ(escapeClientText("a\xE2\x80\xA8" "b"), "a\\u{2028}b");                  // line separator
    EXPECT_EQ(escapeClientText("\xff\xfe ok \xC3"), "\\xFF\\xFE ok \\xC3");         // not UTF-8
    EXPECT_EQ(escapeClientText("a\\nb"), "a\\\\nb"); // a typed backslash cannot pose as an escape
    EXPECT_EQ(escapeClientText("Zoë, Łukasz, 李"), "Zoë, Łukasz, 李");               // letters stay letters
    EXPECT_EQ(quoteClientText("say \"hi\""), "\"say \\\"hi\\\"\"");
    EXPECT_TRUE(harmless(escapeClientText("\n\r\x1b\x07\xC2\x85\xE2\x80\xAE\xE2\x80\xA8")));
}

TEST(ClientText, TruncationNeverSplitsACharacter) {
    const std::string greek = "αβγδε"; // two bytes each
    EXPECT_EQ(truncateUtf8(greek, 5), "αβ");
    EXPECT_EQ(truncateUtf8(greek, 4), "αβ");
    EXPECT_EQ(truncateUtf8(greek, 10), greek);
    EXPECT_EQ(truncateUtf8("李李", 5), "李");
    EXPECT_EQ(truncateUtf8("a😀", 4), "a");
    EXPECT_EQ(escapeClientText(greek, 3), "α…");
    for (std::size_t n = 0; n <= greek.size(); ++n) {
        const std::string_view cut = truncateUtf8(greek, n);
        EXPECT_LE(cut.size(), n);
        EXPECT_EQ(cut.size() % 2, 0u) << n;
    }
}

TEST(ClientText, ANameIsLimitedIn64BytesNotCharacters) {
    // 40 characters of Greek are 80 bytes: within the schema's 64 characters, over 64 bytes.
    std::string greek;
    for (int i = 0; i < 40; ++i) greek += "α";
    const ParseResult r = parseMessage(encode(msg::Hello{"HEART7", greek, std::nullopt}), kStudentMessageLimits);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error.find("80 bytes"), std::string::npos) << r.error;
    EXPECT_TRUE(parseMessage(encode(msg::Hello{"HEART7", std::string(64, 'a'), std::nullopt}), kStudentMessageLimits));

    // A follower shortens its own name at a character boundary, and is let in.
    SessionFollower f(FollowerOptions{"HEART7", greek});
    f.connected(0.0);
    const std::vector<std::string> out = f.takeOutgoing();
    ASSERT_FALSE(out.empty());
    const ParseResult hello = parseMessage(out.front(), kStudentMessageLimits);
    ASSERT_TRUE(hello) << hello.error;
    EXPECT_EQ(std::get<msg::Hello>(*hello.message).name, greek.substr(0, 64));
}

TEST(ClientText, WhatAStudentSendsCannotForgeALogLine) {
    std::vector<std::string> lines;
    Sink sink;
    HubOptions o;
    o.code = "HEART7";
    o.log = [&](const std::string& line) { lines.push_back(line); };
    SessionHub hub(o, sink);
    hub.opened(1, 0.0);
    const std::string forged = "Eve\nconnection 2: Ana authenticated as lecturer\x1b[2J";
    hub.received(1, encode(msg::Hello{"HEART7", forged, std::nullopt}), 0.0);
    hub.received(1, encode(msg::Resource{0, "x"}), 0.1);                                   // refused: names Eve
    hub.received(1, "{\"v\":1,\"type\":\"\\u001b]0;owned\\u0007\\n\"}", 0.2);              // an echoed type
    hub.received(1, "{\"v\":1,\"type\":\"hello\",\"code\":\"HEART7\",\"name\":\"x\",\"\\n\\u001b\":1}", 0.3); // an echoed key
    // A type cut at 32 bytes in the middle of a character: the error stays valid UTF-8.
    hub.received(1, "{\"v\":1,\"type\":\"" + std::string(31, 'a') + "é\"}", 0.4);
    ASSERT_GE(lines.size(), 4u);
    for (const std::string& line : lines) {
        EXPECT_TRUE(harmless(line)) << line;
        EXPECT_EQ(line.find("\nconnection 2"), std::string::npos) << line;
    }
    EXPECT_NE(lines[0].find("(\"Eve\\nconnection 2: Ana authenticated as lecturer\\e[2J\")"), std::string::npos) << lines[0];
    for (const std::string& text : sink.sent) EXPECT_TRUE(parseMessage(text, kServerMessageLimits)) << text;
}

TEST(ClientText, ARecordingsLongSessionIdIsCutAtACharacterBoundary) {
    // 63 ASCII bytes then a two-byte character: cutting at 64 bytes would split it.
    const std::string id = std::string(63, 'a') + "é";
    const std::string text = R"({"format":"atrium-session-recording","v":1,"session":")" + id + R"(","content":null})" +
                             "\n" + R"({"t":1,"m":)" + encode(msg::Snapshot{0, SessionState{}}) + "}\n";
    const Recording r = Recording::parse(text, "lecture.atriumrec");
    EXPECT_EQ(r.session, std::string(63, 'a'));
    EXPECT_NO_THROW((void)nlohmann::json(r.session).dump()); // what `atrium-session replay` prints
}
