#pragma once
// Reading JSON from untrusted text: the one entry point for every file and message that
// Atrium parses (scene files, content manifests and their signatures, narrative
// documents, session messages and recordings, the heart's sidecars and cache).
//
// The size is checked before anything is read and the nesting depth before each level
// is parsed, so that a hostile "[[[[..." or a gigabyte of JSON costs nothing to refuse.
// Every error names the source (a file's path, "message", a package entry) and where in
// it the problem is: the JSON Pointer of the value being read, or the line and column
// of a syntax error.

#include <nlohmann/json.hpp>

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>

namespace atrium::io {

/// What a JSON input may hold.
struct JsonLimits {
    std::size_t maxBytes = std::size_t(16) << 20; ///< text longer than this is refused unread
    int maxDepth = 64;                            ///< arrays and objects nested deeper are refused
    bool rejectDuplicateKeys = false;             ///< an object naming a key twice is an error
};

/// JSON that cannot be read within its limits. what() is "SOURCE: WHERE: MESSAGE".
class JsonInputError : public std::runtime_error {
public:
    JsonInputError(std::string source, std::string where, std::string message);
    /// The file or stream at fault.
    const std::string& source() const noexcept { return source_; }
    /// A JSON Pointer ("/planes/2/normal", "/" for the whole document), or "line L,
    /// column C" for a syntax error.
    const std::string& where() const noexcept { return where_; }
    /// What is wrong, without the source and the place.
    const std::string& message() const noexcept { return message_; }

private:
    std::string source_, where_, message_;
};

/// Parses `text` (one JSON value) from `source` within `limits`. Throws JsonInputError.
nlohmann::json parseJson(std::string_view text, const std::string& source, const JsonLimits& limits = {});

/// Deepest nesting of arrays and objects in `text`, counted outside strings, stopping as
/// soon as it passes `limit`: a quick refusal without parsing.
int jsonNestingDepth(std::string_view text, int limit);

/// `key` as a JSON Pointer token ("~" -> "~0", "/" -> "~1").
std::string jsonPointerToken(std::string_view key);

} // namespace atrium::io
