// The JSON Schema subset checker: each keyword accepts what conforms and rejects what
// does not, naming the JSON pointer; schemas with keywords it does not know are refused.

#include "narrative/JsonSchema.h"

#include <gtest/gtest.h>

#include <limits>

using atrium::narrative::JsonSchema;
using nlohmann::json;

namespace {

/// The error for `value` against `schema`, or "" when it conforms.
std::string errorOf(const json& schema, const json& value) {
    const auto e = JsonSchema(schema).check(value);
    return e ? *e : "";
}

} // namespace

TEST(JsonSchema, Types) {
    EXPECT_EQ(errorOf({{"type", "number"}}, 3), "");
    EXPECT_EQ(errorOf({{"type", "number"}}, 3.5), "");
    EXPECT_EQ(errorOf({{"type", "number"}}, "3"), ": expected number, got string");
    EXPECT_EQ(errorOf({{"type", "integer"}}, 3.0), "") << "3.0 is an integer in JSON Schema";
    EXPECT_EQ(errorOf({{"type", "integer"}}, 3.5), ": expected integer, got number");
    EXPECT_EQ(errorOf({{"type", "boolean"}}, 1), ": expected boolean, got integer");
    EXPECT_EQ(errorOf({{"type", json::array({"string", "null"})}}, nullptr), "");
    EXPECT_EQ(errorOf({{"type", json::array({"string", "null"})}}, 1), ": expected string or null, got integer");
    EXPECT_EQ(errorOf({{"type", "array"}}, json::object()), ": expected array, got object");
}

TEST(JsonSchema, NumbersAndStrings) {
    const json range{{"minimum", 0}, {"exclusiveMaximum", 1}};
    EXPECT_EQ(errorOf(range, 0), "");
    EXPECT_EQ(errorOf(range, 0.999), "");
    EXPECT_EQ(errorOf(range, 1), ": must be < 1");
    EXPECT_EQ(errorOf(range, -0.1), ": must be >= 0");
    EXPECT_EQ(errorOf({{"exclusiveMinimum", 0}}, 0), ": must be > 0");
    EXPECT_EQ(errorOf({{"maximum", 5}}, 5.5), ": must be <= 5");
    EXPECT_EQ(errorOf({{"type", "number"}}, std::numeric_limits<double>::infinity()), ": must be a finite number");
    EXPECT_EQ(errorOf({{"minLength", 2}, {"maxLength", 3}}, "ab"), "");
    EXPECT_EQ(errorOf({{"minLength", 2}}, "a"), ": must have at least 2 characters");
    EXPECT_EQ(errorOf({{"maxLength", 3}}, "abcd"), ": must have at most 3 characters");
    EXPECT_EQ(errorOf({{"maxLength", 3}}, "\xc3\xa9\xc3\xa9\xc3\xa9"), "") << "characters, not bytes";
}

TEST(JsonSchema, EnumAndConst) {
    EXPECT_EQ(errorOf({{"enum", {"a", "b"}}}, "b"), "");
    EXPECT_EQ(errorOf({{"enum", {"a", "b"}}}, "c"), ": must be one of \"a\", \"b\", got \"c\"");
    EXPECT_EQ(errorOf({{"const", 1}}, 1), "");
    EXPECT_EQ(errorOf({{"const", 1}}, 2), ": must be 1, got 2");
}

TEST(JsonSchema, ObjectsNameTheField) {
    const json schema{{"type", "object"},
                      {"required", {"a"}},
                      {"additionalProperties", false},
                      {"properties", {{"a", {{"type", "number"}}}, {"b/c~", {{"type", "string"}}}}}};
    EXPECT_EQ(errorOf(schema, {{"a", 1}, {"b/c~", "x"}}), "");
    EXPECT_EQ(errorOf(schema, {{"b/c~", "x"}}), "/a: required in the document but missing");
    EXPECT_EQ(errorOf(schema, {{"a", 1}, {"b/c~", 2}}), "/b~1c~0: expected string, got integer");
    EXPECT_EQ(errorOf(schema, {{"a", 1}, {"d", 2}}), "/d: unknown field in the document");
    // A schema for the other properties.
    EXPECT_EQ(errorOf({{"additionalProperties", {{"type", "number"}}}}, {{"x", 1}, {"y", "no"}}), "/y: expected number, got string");
}

TEST(JsonSchema, ArraysAndReferences) {
    const json schema{{"$defs", {{"vec3", {{"type", "array"}, {"minItems", 3}, {"maxItems", 3}, {"items", {{"type", "number"}}}}}}},
                      {"type", "object"},
                      {"properties", {{"points", {{"type", "array"}, {"items", {{"$ref", "#/$defs/vec3"}}}}}}}};
    EXPECT_EQ(errorOf(schema, {{"points", {{1, 2, 3}, {4, 5, 6}}}}), "");
    EXPECT_EQ(errorOf(schema, {{"points", {{1, 2, 3}, {4, 5}}}}), "/points/1: must have at least 3 items, has 2");
    EXPECT_EQ(errorOf(schema, {{"points", {{1, 2, 3, 4}}}}), "/points/0: must have at most 3 items, has 4");
    EXPECT_EQ(errorOf(schema, {{"points", {{1, "2", 3}}}}), "/points/0/1: expected number, got string");
}

TEST(JsonSchema, BooleanSchemas) {
    EXPECT_EQ(errorOf(true, 42), "");
    EXPECT_EQ(errorOf({{"properties", {{"x", false}}}}, {{"x", 1}}), "/x: not allowed here");
}

TEST(JsonSchema, RefusesWhatItCannotCheck) {
    EXPECT_THROW(JsonSchema(json{{"oneOf", json::array()}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"anyOf", json::array({true})}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"pattern", "(unclosed"}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"uniqueItems", 1}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"properties", {{"x", {{"patternProperties", json::object()}}}}}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"$ref", "#/$defs/missing"}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"$ref", "other.json#/x"}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"type", "float"}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"minItems", -1}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json{{"required", {1}}}), std::invalid_argument);
    EXPECT_THROW(JsonSchema(json(3)), std::invalid_argument);
    try {
        JsonSchema(json{{"properties", {{"x", {{"patternProperties", json::object()}}}}}});
    } catch (const std::invalid_argument& e) {
        EXPECT_STREQ(e.what(), "schema /properties/x/patternProperties: keyword not supported by this checker");
    }
}

TEST(JsonSchema, PatternsUniqueItemsAndOneOf) {
    const json name{{"type", "string"}, {"maxLength", 8}, {"pattern", "^[a-z]+(/[a-z]+)*$"}};
    EXPECT_EQ(errorOf(name, "media/a"), "");
    EXPECT_EQ(errorOf(name, "../a"), R"(: "../a" does not match the pattern ^[a-z]+(/[a-z]+)*$)");
    EXPECT_EQ(errorOf(name, "abcdefghij"), ": must have at most 8 characters") << "the length is checked first";
    const json unique{{"uniqueItems", true}, {"maxItems", 3}};
    EXPECT_EQ(errorOf(unique, json::array({1, 2, 3})), "");
    EXPECT_EQ(errorOf(unique, json::array({1, 2, 1})), "/2: repeats item 0");
    EXPECT_EQ(errorOf(unique, json::array({1, 1, 1, 1})), ": must have at most 3 items, has 4");
    const json either{{"oneOf", json::array({json{{"type", "string"}}, json{{"type", "number"}, {"minimum", 0}}})}};
    EXPECT_EQ(errorOf(either, "x"), "");
    EXPECT_EQ(errorOf(either, 2), "");
    EXPECT_EQ(errorOf(either, -2), ": matches none of the allowed forms (: expected string, got integer; or : must be >= 0)");
    EXPECT_EQ(errorOf(json{{"oneOf", json::array({true, json{{"type", "number"}}})}}, 1),
              ": matches more than one of the allowed forms");
}

TEST(JsonSchema, ASelfReferenceStopsAtItsDepthLimit) {
    const JsonSchema loop(json{{"$defs", {{"a", {{"$ref", "#/$defs/a"}}}}}, {"$ref", "#/$defs/a"}});
    const auto error = loop.check(1);
    ASSERT_TRUE(error);
    EXPECT_NE(error->find("nests deeper"), std::string::npos);
}
