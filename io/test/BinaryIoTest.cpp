#include "io/BinaryIo.h"

#include <gtest/gtest.h>

#include <array>
#include <sstream>

using namespace atrium;

TEST(BinaryIo, ValuesAreWrittenLittleEndianAndReadBack) {
    std::string bytes;
    io::ByteWriter w(bytes);
    w.value(std::uint32_t(0x01020304));
    w.value(-2.5);
    w.text("heart");
    const std::vector<std::array<float, 3>> points{{1.f, 2.f, 3.f}, {4.f, 5.f, 6.f}};
    w.counted<float>(points);
    EXPECT_EQ(bytes.substr(0, 4), std::string("\x04\x03\x02\x01", 4));
    EXPECT_EQ(bytes.size(), 4 + 8 + 8 + 5 + 8 + 24u);
    EXPECT_EQ(w.hash(), io::fnv1a(io::kFnvOffset, bytes.data(), bytes.size()));

    io::ByteReader r(bytes);
    EXPECT_EQ(r.value<std::uint32_t>("word"), 0x01020304u);
    EXPECT_EQ(r.value<double>("number"), -2.5);
    EXPECT_EQ(r.text("name"), "heart");
    EXPECT_EQ((r.counted<float, std::array<float, 3>>("points")), points);
    EXPECT_EQ(r.remaining(), 0u);
    EXPECT_EQ(r.consumed().size(), bytes.size());
}

TEST(BinaryIo, Fnv1aIsTheStandardHash) {
    // Reference values of FNV-1a 64 (Fowler, Noll, Vo).
    EXPECT_EQ(io::fnv1a(io::kFnvOffset, "", 0), 0xcbf29ce484222325ull);
    EXPECT_EQ(io::fnv1a(io::kFnvOffset, "a", 1), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(io::fnv1a(io::kFnvOffset, "foobar", 6), 0x85944171f73967e8ull);
    EXPECT_EQ(io::hex64(0xaf63dc4c8601ec8cull), "af63dc4c8601ec8c");
}

TEST(BinaryIo, ReadingPastTheEndNamesWhatAndWhere) {
    std::string bytes;
    io::ByteWriter(bytes).value(std::uint64_t(7));
    bytes += "abc";
    io::ByteReader r(bytes);
    try {
        r.text("the key text");
        FAIL() << "read 7 bytes of 3";
    } catch (const io::BinaryInputError& e) {
        EXPECT_EQ(std::string(e.what()), "truncated: the key text needs 7 bytes where 3 remain (at byte 8)");
        EXPECT_EQ(e.at(), 8u);
    }
    io::ByteReader empty(std::string_view{});
    EXPECT_THROW(empty.value<std::uint16_t>("version"), io::BinaryInputError);
}

TEST(BinaryIo, ADeclaredCountIsCheckedAgainstWhatRemainsBeforeAllocating) {
    // A count of 2^61 floats would ask for 8 EiB: refused from the bytes left, not by bad_alloc.
    for (const std::uint64_t count : {std::uint64_t(1) << 61, ~std::uint64_t(0), std::uint64_t(3)}) {
        std::string bytes;
        io::ByteWriter w(bytes);
        w.value(count);
        w.value(1.f);
        w.value(2.f);
        io::ByteReader r(bytes);
        try {
            r.counted<float, float>("values");
            FAIL() << count;
        } catch (const io::BinaryInputError& e) {
            EXPECT_NE(std::string(e.what()).find("values needs"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("where 8 remain"), std::string::npos) << e.what();
        }
    }
}

TEST(BinaryIo, StreamsHashWhatTheyCarryAndATruncatedStreamIsAnError) {
    std::ostringstream out;
    io::StreamWriter w(out);
    w.value(std::uint32_t(3));
    w.words<float>(std::vector<float>{1.f, 2.f, 3.f});
    const std::string bytes = out.str();
    EXPECT_EQ(w.hash(), io::fnv1a(io::kFnvOffset, bytes.data(), bytes.size()));

    std::istringstream in(bytes);
    io::StreamReader r(in);
    std::vector<float> v;
    r.words<float>(v, r.value<std::uint32_t>("count"), "values");
    EXPECT_EQ(v, (std::vector<float>{1.f, 2.f, 3.f}));
    EXPECT_EQ(r.hash(), w.hash());

    // A count far beyond the stream fails on the missing data after one chunk at most.
    std::istringstream shortIn(bytes.substr(0, 10));
    io::StreamReader s(shortIn);
    s.value<std::uint32_t>("count");
    EXPECT_THROW(s.words<float>(v, std::uint64_t(1) << 40, "values"), io::BinaryInputError);
    EXPECT_LE(v.capacity(), std::size_t(1) << 17);
}
