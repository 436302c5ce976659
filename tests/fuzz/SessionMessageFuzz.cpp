// Fuzz target for the live session's message parser (session/Protocol.h) and what
// consumes it: the lecturer's hub and a student's follower.
//
// Contract checked: parseMessage never throws, whatever the bytes and limits; a message
// that parses survives a round trip (encode, parse again: the same message and the same
// text); the hub and a follower fed the text never throw and keep a state that still
// encodes to a valid snapshot.

#include "session/SessionFollower.h"
#include "session/SessionHub.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

struct FuzzFailure : std::logic_error {
    using std::logic_error::logic_error;
};

class Discard : public atrium::session::HubOutput {
    void send(int, std::shared_ptr<const std::string>) override {}
    void close(int, const std::string&) override {}
};

void checkState(const atrium::session::SessionState& state, const char* who) {
    using namespace atrium::session;
    const std::string text = encode(msg::Snapshot{1, state});
    if (!parseMessage(text)) throw FuzzFailure(std::string(who) + " holds a state that does not encode validly: " + text);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace atrium::session;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const MessageLimits& limits : {kStudentMessageLimits, kDriverMessageLimits, kServerMessageLimits}) {
        const ParseResult r = parseMessage(text, limits);
        if (!r) {
            if (r.error.empty()) throw FuzzFailure("refused without a reason");
            continue;
        }
        const std::string again = encode(*r.message);
        const ParseResult back = parseMessage(again, kServerMessageLimits);
        if (!back) throw FuzzFailure("a message that parsed does not parse back: " + back.error + "\n" + again);
        if (!(*back.message == *r.message) || encode(*back.message) != again)
            throw FuzzFailure("round trip changed the message:\n" + again + "\n" + encode(*back.message));
    }

    // The hub: the text from a joined student, from a stranger, and as a lecturer's drive.
    Discard out;
    HubOptions options;
    options.code = "ABCDEF";
    SessionHub hub(options, out);
    hub.opened(1, 0.0);
    hub.received(1, encode(msg::Hello{"ABCDEF", "s", std::nullopt}), 0.0);
    hub.received(1, text, 0.1);
    hub.opened(2, 0.0);
    hub.received(2, text, 0.1);
    if (const ParseResult r = parseMessage(text, kDriverMessageLimits); r && isDrive(*r.message)) hub.drive(*r.message, 0.2);
    checkState(hub.state(), "the hub");

    // A follower, before and after joining.
    SessionFollower follower(FollowerOptions{"ABCDEF", "s"});
    follower.connected(0.0);
    follower.received(text, 0.1);
    follower.received(encode(msg::Welcome{1, "0123456789abcdef", 0.0, std::nullopt, std::nullopt}), 0.2);
    follower.received(encode(msg::Snapshot{0, SessionState{}}), 0.3);
    follower.received(text, 0.4);
    follower.poseAt(0.5);
    checkState(follower.state(), "the follower");
    return 0;
}
