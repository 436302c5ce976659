#include "io/MemoryBudget.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

using namespace atrium;

TEST(MemoryBudget, ParsesSizesWithBinarySuffixes) {
    EXPECT_EQ(io::parseByteSize("1000"), 1000u);
    EXPECT_EQ(io::parseByteSize("64k"), 64u * 1024);
    EXPECT_EQ(io::parseByteSize("512M"), 512ull << 20);
    EXPECT_EQ(io::parseByteSize("8G"), 8ull << 30);
    EXPECT_EQ(io::parseByteSize("1.5GiB"), 3ull << 29);
    EXPECT_EQ(io::parseByteSize("2 gb"), 2ull << 30);
    for (const char* bad : {"", "G", "-1G", "0", "1e30", "8 apples", "nan"})
        EXPECT_THROW(io::parseByteSize(bad), std::invalid_argument) << bad;
}

TEST(MemoryBudget, AvailableMemoryIsPlausible) {
    const std::uint64_t bytes = io::availableMemoryBytes();
    EXPECT_GT(bytes, 16ull << 20);
    EXPECT_LT(bytes, 1ull << 50);
}

TEST(MemoryBudget, SetLimitWinsAndIsNamedInTheRefusal) {
    io::setMemoryBudget(100ull << 20, "--max-memory");
    EXPECT_EQ(io::memoryBudgetBytes(), 100ull << 20);
    EXPECT_TRUE(io::fitsMemoryBudget(99.0 * (1 << 20)));
    EXPECT_FALSE(io::fitsMemoryBudget(101.0 * (1 << 20)));
    const std::string text = io::overBudgetText(16.0 * (1ull << 30));
    EXPECT_NE(text.find("16.0 GiB"), std::string::npos) << text;
    EXPECT_NE(text.find("100.0 MiB"), std::string::npos) << text;
    EXPECT_NE(text.find("--max-memory"), std::string::npos) << text;
    io::setMemoryBudget(0);
}

TEST(MemoryBudget, EnvironmentVariableSetsTheLimit) {
    ::setenv("ATRIUM_MAX_MEMORY", "3M", 1);
    EXPECT_EQ(io::memoryBudgetBytes(), 3ull << 20);
    EXPECT_EQ(io::memoryBudgetSource(), "ATRIUM_MAX_MEMORY");
    ::setenv("ATRIUM_MAX_MEMORY", "lots", 1);
    EXPECT_GT(io::memoryBudgetBytes(), 3ull << 20); // the available memory again
    EXPECT_NE(io::memoryBudgetSource().find("not a size"), std::string::npos);
    ::unsetenv("ATRIUM_MAX_MEMORY");
    EXPECT_FALSE(io::fitsMemoryBudget(1e30));
}
