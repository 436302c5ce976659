#include "io/JsonInput.h"

#include <algorithm>
#include <functional>
#include <set>
#include <utility>
#include <vector>

namespace atrium::io {

using nlohmann::json;

JsonInputError::JsonInputError(std::string source, std::string where, std::string message)
    : std::runtime_error(source + ": " + where + ": " + message), source_(std::move(source)), where_(std::move(where)),
      message_(std::move(message)) {}

std::string jsonPointerToken(std::string_view key) {
    std::string out;
    out.reserve(key.size());
    for (const char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

int jsonNestingDepth(std::string_view text, int limit) {
    int depth = 0, deepest = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\') ++i;
            else if (c == '"') inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            deepest = std::max(deepest, ++depth);
            if (deepest > limit) return deepest;
        } else if (c == ']' || c == '}') {
            --depth;
        }
    }
    return deepest;
}

namespace {

/// The parser's callback: tracks the JSON Pointer of the value being read (for the
/// errors the parser raises without one), refuses a level past the limit before it is
/// parsed and, when asked, a key named twice.
class PointerTracker {
public:
    PointerTracker(const std::string& source, const JsonLimits& limits) : source_(source), limits_(limits) {}

    std::string pointer() const {
        std::string p;
        for (const Frame& f : frames_) p += f.isArray ? "/" + std::to_string(f.index) : "/" + jsonPointerToken(f.key);
        return p.empty() ? "/" : p;
    }

    bool operator()(int /*depth*/, json::parse_event_t event, json& parsed) {
        switch (event) {
        case json::parse_event_t::object_start:
        case json::parse_event_t::array_start:
            if (frames_.size() >= std::size_t(std::max(limits_.maxDepth, 0)))
                throw JsonInputError(source_, pointer(), "nested deeper than " + std::to_string(limits_.maxDepth) + " levels");
            frames_.push_back(Frame{event == json::parse_event_t::array_start, 0, {}, {}});
            break;
        case json::parse_event_t::key: {
            Frame& f = frames_.back();
            f.key = parsed.get<std::string>();
            if (limits_.rejectDuplicateKeys && !f.keys.insert(f.key).second)
                throw JsonInputError(source_, pointer(), "duplicate key");
            break;
        }
        case json::parse_event_t::object_end:
        case json::parse_event_t::array_end:
            if (!frames_.empty()) frames_.pop_back();
            advance();
            break;
        case json::parse_event_t::value:
            advance();
            break;
        }
        return true;
    }

private:
    struct Frame {
        bool isArray = false;
        std::size_t index = 0;
        std::string key;
        std::set<std::string> keys;
    };
    void advance() {
        if (!frames_.empty() && frames_.back().isArray) ++frames_.back().index;
    }

    const std::string& source_;
    const JsonLimits& limits_;
    std::vector<Frame> frames_;
};

/// nlohmann's message without its "[json.exception.parse_error.101] parse error at
/// line 1, column 2: " prefix.
std::string plainMessage(const std::string& what) {
    const std::size_t at = what.find("parse error");
    const std::size_t colon = at == std::string::npos ? std::string::npos : what.find(": ", at);
    if (colon != std::string::npos) return what.substr(colon + 2);
    const std::size_t bracket = what.find("] ");
    return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

} // namespace

json parseJson(std::string_view text, const std::string& source, const JsonLimits& limits) {
    if (text.size() > limits.maxBytes)
        throw JsonInputError(source, "/", std::to_string(text.size()) + " bytes, more than the " +
                                              std::to_string(limits.maxBytes) + " it may have");
    PointerTracker tracker(source, limits);
    try {
        return json::parse(text.begin(), text.end(), std::ref(tracker), /*allow_exceptions=*/true,
                           /*ignore_comments=*/false);
    } catch (const json::parse_error& e) {
        // Line and column as nlohmann counts them: the position of the last read byte.
        const std::size_t end = std::min<std::size_t>(e.byte, text.size());
        std::size_t line = 1, lineStart = 0;
        for (std::size_t i = 0; i < end; ++i)
            if (text[i] == '\n') {
                ++line;
                lineStart = i + 1;
            }
        throw JsonInputError(source, "line " + std::to_string(line) + ", column " + std::to_string(end - lineStart),
                             "JSON syntax error: " + plainMessage(e.what()));
    } catch (const json::out_of_range& e) {
        // Number literals too large for a double ("1e400").
        throw JsonInputError(source, tracker.pointer(), plainMessage(e.what()));
    } catch (const json::exception& e) {
        throw JsonInputError(source, tracker.pointer(), std::string("invalid JSON: ") + e.what());
    }
}

} // namespace atrium::io
