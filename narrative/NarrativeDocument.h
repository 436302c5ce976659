#pragma once
// The narratives of one heart as a file: versioned JSON (nlohmann/json), checked on
// load against the JSON Schema shipped in narrative/schema/narratives.schema.json
// (embedded at build time), then against the model's own rules (validate()) and the
// presence of every media file. Format and example: docs/narratives.md.
//
// Loading is all or nothing: any error throws NarrativeDocumentError naming the source
// and the JSON pointer or file at fault, and no document is returned. Saving writes a
// temporary file beside the target and renames it into place.
//
// A content package (issue 13) stores this document unchanged; media paths are relative
// to the document's folder, or to the package root.

#include "narrative/Narrative.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::narrative {

struct NarrativeDocument {
    static constexpr int kVersion = 1;              ///< the version this build reads and writes
    static constexpr std::string_view kFormat = "atrium-narratives";
    static constexpr std::size_t kMaxFileBytes = 64u << 20; ///< larger files are refused before reading

    std::vector<Narrative> narratives;

    bool operator==(const NarrativeDocument&) const = default;
};

/// Any problem with a narrative document; what() starts with the source's name.
class NarrativeDocumentError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Tells whether a media path (relative, as written in the document) exists.
using MediaExists = std::function<bool(const std::string& relativePath)>;

/// The schema the loader checks, as shipped.
const nlohmann::json& narrativeDocumentSchema();

/// The document as JSON (what saveNarrativeDocument writes): every node field, and the
/// optional fields only when set; overlay fields only when they differ from the defaults.
nlohmann::json toJson(const NarrativeDocument& document);

/// Reads a document from parsed JSON. Checks, in order: format and version (an unknown
/// version is named as such), the schema, the model's rules, media paths (relative,
/// no "..") and, when `mediaExists` is given, that each media file exists. Throws
/// NarrativeDocumentError "SOURCE: /json/pointer: what is wrong" (or naming the file).
NarrativeDocument fromJson(const nlohmann::json& json, const std::string& source, const MediaExists& mediaExists = {});

/// Parses `text` (JSON syntax errors name the byte offset) and reads it with fromJson.
NarrativeDocument parseNarrativeDocument(std::string_view text, const std::string& source,
                                         const MediaExists& mediaExists = {});

/// Loads a file; media paths resolve against its folder and must exist there.
NarrativeDocument loadNarrativeDocument(const std::filesystem::path& path);

/// Writes the document atomically (a temporary file in the same folder, then a rename),
/// indented for people and diffs. Throws NarrativeDocumentError naming the file when it
/// cannot be written; the previous file is then untouched.
void saveNarrativeDocument(const NarrativeDocument& document, const std::filesystem::path& path);

/// Why `relativePath` is not an acceptable media path (empty, absolute, a backslash, a
/// "." or ".." component, a control character), or nullopt.
std::optional<std::string> checkMediaPath(const std::string& relativePath);

} // namespace atrium::narrative
