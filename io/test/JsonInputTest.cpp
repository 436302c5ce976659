#include "io/JsonInput.h"

#include <gtest/gtest.h>

#include <string>

using namespace atrium;

namespace {

/// What parseJson says about `text`, or "" when it parses.
std::string errorOf(const std::string& text, const io::JsonLimits& limits = {}) {
    try {
        io::parseJson(text, "lecture/manifest.json", limits);
    } catch (const io::JsonInputError& e) {
        return e.what();
    }
    return {};
}

} // namespace

TEST(JsonInput, ParsesWithinItsLimits) {
    const auto j = io::parseJson(R"({"a": [1, {"b": "x"}]})", "f.json", {.maxBytes = 100, .maxDepth = 3});
    EXPECT_EQ(j["a"][1]["b"], "x");
}

TEST(JsonInput, TextLargerThanTheLimitIsRefusedUnread) {
    const std::string big = "[" + std::string(2000, ' ') + "]";
    EXPECT_EQ(errorOf(big, {.maxBytes = 1000}), "lecture/manifest.json: /: 2002 bytes, more than the 1000 it may have");
    EXPECT_EQ(errorOf(big, {.maxBytes = 2002}), "");
}

TEST(JsonInput, NestingPastTheLimitNamesWhereItGoesTooDeep) {
    io::JsonLimits limits{.maxDepth = 3};
    EXPECT_EQ(errorOf(R"({"a": [{"b": 1}]})", limits), "");
    EXPECT_EQ(errorOf(R"({"a": [{"b": [1]}]})", limits),
              "lecture/manifest.json: /a/0/b: nested deeper than 3 levels");
    // A hostile "[[[[...": refused at the limit, whatever follows, and cheap to count.
    const std::string hostile(1 << 20, '[');
    std::string pointer;
    for (int level = 0; level < 64; ++level) pointer += "/0";
    EXPECT_EQ(errorOf(hostile, {.maxBytes = 2u << 20, .maxDepth = 64}),
              "lecture/manifest.json: " + pointer + ": nested deeper than 64 levels");
    EXPECT_EQ(io::jsonNestingDepth(hostile, 64), 65);
    EXPECT_EQ(io::jsonNestingDepth(R"({"a": "[[[[", "b": [[]]})", 64), 3) << "brackets in strings do not count";
}

TEST(JsonInput, ErrorsNameTheFileAndThePointerOrTheLine) {
    // nlohmann's wording may vary; the file and the place may not (the parser stops on
    // the byte after "tru", the line's end).
    const std::string syntax = errorOf("{\n  \"title\": tru\n}");
    EXPECT_EQ(syntax.rfind("lecture/manifest.json: line 3, column 0: JSON syntax error: ", 0), 0u) << syntax;
    EXPECT_NE(syntax.find("invalid literal"), std::string::npos) << syntax;
    EXPECT_EQ(errorOf(R"({"files": [{"size": 1e400}]})"),
              "lecture/manifest.json: /files/0/size: number overflow parsing '1e400'");
    EXPECT_EQ(errorOf(R"({"a": 1, "a~/b": 2, "a~/b": 3})", {.rejectDuplicateKeys = true}),
              "lecture/manifest.json: /a~0~1b: duplicate key");
    EXPECT_EQ(errorOf(R"({"a": 1, "a": 2})"), "") << "duplicates are allowed unless refused";
    try {
        io::parseJson("[1, 2", "x.json");
        FAIL();
    } catch (const io::JsonInputError& e) {
        EXPECT_EQ(e.source(), "x.json");
        EXPECT_EQ(e.where(), "line 1, column 5");
        EXPECT_EQ(e.message().rfind("JSON syntax error: ", 0), 0u) << e.message();
    }
}
