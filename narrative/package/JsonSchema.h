#pragma once
// A validator for the subset of JSON Schema (draft 2020-12) that Atrium's schemas use.
// Debian ships no C++ JSON Schema validator, and the manifest's schema is small, so this
// checks the keywords below and rejects a schema that uses any other (so a schema
// cannot silently promise more than is checked):
//
//   type (a name or a list), enum, const, properties, required, additionalProperties
//   (false or a schema), items, minItems, maxItems, uniqueItems, minimum, maximum,
//   exclusiveMinimum, exclusiveMaximum, minLength, maxLength (in code points), pattern
//   (ECMAScript, searched), $ref to "#/$defs/NAME", allOf, anyOf, oneOf, not,
//   and the annotations $schema, $id, $comment, title, description, default, examples,
//   format (not checked), $defs.
//
// Errors name the place as a JSON pointer ("/resources/3/radius: 0 is below the
// minimum 1e-06").

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace atrium::package {

class JsonSchema {
public:
    /// Takes a schema; throws std::invalid_argument if it uses a keyword not listed
    /// above or a $ref that does not resolve.
    explicit JsonSchema(nlohmann::json schema);

    /// The problems of `document`, at most `maxErrors` of them; empty when it is valid.
    std::vector<std::string> validate(const nlohmann::json& document, std::size_t maxErrors = 20) const;

private:
    nlohmann::json schema_;
};

} // namespace atrium::package
