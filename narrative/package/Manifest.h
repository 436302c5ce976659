#pragma once
// manifest.json of a content package: versioned JSON with a JSON Schema
// (manifest.schema.json beside this file, embedded at build time and checked on every
// load). It lists what the package is - its title, heart, narratives document, resource
// categories and resources, restriction flags, branding - and every file it
// holds. Format and example: docs/content-format.md.
//
// The heart is kept as the manifest states it (phantom preset, or a mesh or volume
// series stored inside the package): narrative/ does not know sim/, the viewer joins
// them. The narratives are issue 12's document, stored as it is in its own entry.

#include "narrative/Resource.h"
#include "narrative/Restrictions.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::package {

/// The heart a package shows.
struct HeartSpec {
    enum class Source { Phantom, Meshes, Volumes } source = Source::Phantom;
    std::string preset = "adult";     ///< Phantom: the preset's name
    std::vector<std::string> entries; ///< Meshes, Volumes: one entry per phase, in order
    std::optional<double> cycleSeconds;
    std::optional<double> isovalue;   ///< Volumes only
    bool operator==(const HeartSpec&) const = default;
};

/// One file the package holds besides manifest.json, signature.json and lock.json (a
/// picture, a sound, a heart phase, the narratives document), with its MIME type.
struct PackagedFile {
    std::string entry;
    std::string type;
    bool operator==(const PackagedFile&) const = default;
};

struct Manifest {
    static constexpr int kVersion = 1;

    std::string title;
    std::string description;
    std::string author;  ///< as the author wrote it; who signed is the signature's key
    std::string created; ///< "YYYY-MM-DD" or empty
    HeartSpec heart;
    std::string narratives; ///< entry of the narratives document, or empty
    std::vector<narrative::ResourceCategory> categories;
    std::vector<narrative::Resource> resources;
    narrative::Restrictions restrictions;
    narrative::Branding branding;
    std::vector<PackagedFile> files;
    std::string flow; ///< entry of a baked flow, or empty

    bool operator==(const Manifest&) const = default;

    const narrative::Resource* findResource(std::string_view id) const;
    const PackagedFile* findFile(std::string_view entry) const;
    /// Every entry the manifest refers to (heart, narratives, flow, resources' media,
    /// branding image), each once, with who refers to it ("resource 'mitral'").
    std::vector<std::pair<std::string, std::string>> references() const;
};

/// The schema, as shipped (manifest.schema.json).
const nlohmann::json& manifestSchema();

/// Parses and checks manifest text: JSON syntax, the schema, then what a schema cannot
/// say (unique resource ids and category names, known categories, each resource valid
/// for its kind, a valid expiry date). Throws PackageError(BadFile) whose message starts
/// with `where` and names the field ("manifest.json: /resources/2/radius: ...").
Manifest parseManifest(std::string_view text, const std::string& where = "manifest.json");

/// The manifest as JSON text (two-space indented, keys in a fixed order). Throws
/// PackageError(BadFile) if the manifest would not parse back (a resource without its
/// content, say), so nothing invalid is ever written.
std::string writeManifest(const Manifest& manifest);

/// The restriction flags as the manifest writes them (absent limits left out).
nlohmann::ordered_json restrictionsToJson(const narrative::Restrictions& restrictions);

/// The MIME type for an entry's file name extension (".svg" -> "image/svg+xml"), or
/// "application/octet-stream".
std::string mediaTypeFor(std::string_view entry);

/// The entry names a package reserves for itself.
inline constexpr const char* kManifestEntry = "manifest.json";

} // namespace atrium::package
