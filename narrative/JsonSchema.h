#pragma once
// A JSON Schema checker for the subset of JSON Schema (draft 2020-12) that Atrium's
// document schemas use, so that the schema file shipped beside a format is the one
// that is checked on load. Debian 12 packages no C++ validator for nlohmann/json short
// of valijson, which drags in Qt 5 and Poco; this subset is small and tested keyword by
// keyword (narrative/test/JsonSchemaTest.cpp).
//
// Supported keywords: type (a name or a list), enum, const, properties, required,
// additionalProperties (boolean or schema), items, minItems, maxItems, uniqueItems,
// minLength, maxLength, pattern (ECMAScript, searched, checked after maxLength),
// minimum, maximum, exclusiveMinimum, exclusiveMaximum, oneOf, $ref to
// "#/$defs/NAME", and the annotations $schema, $id, $defs, $comment, title,
// description, default, examples. A schema using any other keyword is refused when
// it is loaded, so a rule the checker does not know can never be skipped silently.
//
// Errors name the place as a JSON pointer (RFC 6901) into the checked document.

#include <nlohmann/json.hpp>

#include <map>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>

namespace atrium::narrative {

class JsonSchema {
public:
    /// Takes a schema; throws std::invalid_argument naming the schema pointer of an
    /// unsupported keyword, a malformed value or a $ref that does not resolve.
    explicit JsonSchema(nlohmann::json schema);

    /// The first violation as "POINTER: what is wrong" (the pointer is "" for the
    /// root), or nullopt when `document` conforms.
    std::optional<std::string> check(const nlohmann::json& document) const;

    const nlohmann::json& schema() const { return schema_; }

private:
    std::optional<std::string> check(const nlohmann::json& schema, const nlohmann::json& value, const std::string& at,
                                     int depth) const;
    void verify(const nlohmann::json& schema, const std::string& at);
    const nlohmann::json& resolve(const std::string& ref, const std::string& at) const;

    nlohmann::json schema_;
    std::map<std::string, std::regex> patterns_; ///< every pattern, compiled once when the schema is loaded
};

/// `token` escaped for a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string jsonPointerToken(const std::string& token);

} // namespace atrium::narrative
