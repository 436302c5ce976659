#pragma once
// Reading one JSON object from untrusted text (manifests, signatures, locks, the trust
// list) through io/JsonInput.h: more than 16 MiB, nesting deeper than 64, any syntax
// error, overflow or other value than an object is a PackageError(BadFile) naming
// `where` and the place in it.

#include "io/JsonInput.h"
#include "narrative/package/PackageError.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace atrium::package {

/// What a package's JSON may hold: as much as an entry may (PackageLimits), nested no
/// deeper than any manifest needs.
inline constexpr io::JsonLimits kPackageJsonLimits{.maxBytes = std::size_t(16) << 20, .maxDepth = 64};

inline nlohmann::json parseJsonObject(std::string_view text, const std::string& where) {
    nlohmann::json j;
    try {
        j = io::parseJson(text, where, kPackageJsonLimits);
    } catch (const io::JsonInputError& e) {
        throw PackageError(PackageError::Kind::BadFile, where + ": not valid JSON: " + e.where() + ": " + e.message());
    }
    if (!j.is_object()) throw PackageError(PackageError::Kind::BadFile, where + ": must be a JSON object");
    return j;
}

} // namespace atrium::package
