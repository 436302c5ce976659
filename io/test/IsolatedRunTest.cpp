#include "io/IsolatedRun.h"

#include "io/MemoryBudget.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace atrium;

namespace {

std::string failureOf(const std::function<void(std::string&)>& work, double seconds = 30.0) {
    try {
        io::runIsolated(work, seconds);
    } catch (const io::IsolatedRunFailed& e) {
        return e.what();
    }
    ADD_FAILURE() << "the run did not fail";
    return {};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

} // namespace

TEST(IsolatedRun, ResultAndPrintedTextComeBack) {
    const io::IsolatedOutput out = io::runIsolated(
        [](std::string& result) {
            std::cout << "a library's chatter\n";
            std::fprintf(stderr, "and its warning\n");
            result = std::string("bytes\0with\0zeros", 16);
        },
        30.0);
    EXPECT_EQ(out.result, std::string("bytes\0with\0zeros", 16));
    EXPECT_TRUE(has(out.printed, "a library's chatter")) << out.printed;
    EXPECT_TRUE(has(out.printed, "and its warning")) << out.printed;
}

TEST(IsolatedRun, ACrashIsAnErrorWithTheSignalAndWhatWasPrinted) {
    const std::string what = failureOf([](std::string&) {
        std::fprintf(stderr, "reading the appended data\n");
        std::raise(SIGSEGV);
    });
    EXPECT_TRUE(has(what, "crashed (signal 11")) << what;
    EXPECT_TRUE(has(what, "reading the appended data")) << what;
}

TEST(IsolatedRun, AnExceptionKeepsItsMessage) {
    EXPECT_EQ(failureOf([](std::string&) { throw std::runtime_error("file.vti: unreadable"); }), "file.vti: unreadable");
}

TEST(IsolatedRun, AHangIsStoppedAtTheTimeLimit) {
    const auto start = std::chrono::steady_clock::now();
    const std::string what = failureOf([](std::string&) { std::this_thread::sleep_for(std::chrono::hours(1)); }, 1.0);
    EXPECT_TRUE(has(what, "gave up after 1 s")) << what;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
}

#if !defined(__SANITIZE_ADDRESS__)
TEST(IsolatedRun, AllocatingBeyondTheBudgetIsRefusedInTheChild) {
    io::setMemoryBudget(64ull << 20, "--max-memory");
    const std::string what = failureOf([](std::string&) {
        std::vector<char> huge(std::size_t(8) << 30, 1);
        std::printf("%d", huge[12345]);
    });
    io::setMemoryBudget(0);
    EXPECT_TRUE(has(what, "ran out of memory (limit 64.0 MiB, --max-memory")) << what;
}
#endif
