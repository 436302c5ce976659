#pragma once
// Reading one JSON object from untrusted text (manifests, signatures, locks, the trust
// list): any syntax error, overflow or other value than an object is a
// PackageError(BadFile) naming `where`.

#include "narrative/package/PackageError.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace atrium::package {

inline nlohmann::json parseJsonObject(std::string_view text, const std::string& where) {
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(text.begin(), text.end());
    } catch (const nlohmann::json::exception& e) {
        throw PackageError(PackageError::Kind::BadFile, where + ": not valid JSON: " + e.what());
    }
    if (!j.is_object()) throw PackageError(PackageError::Kind::BadFile, where + ": must be a JSON object");
    return j;
}

} // namespace atrium::package
