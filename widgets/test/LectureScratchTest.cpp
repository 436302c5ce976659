// The lecture's scratch folder (widgets/lecture/LectureScratch.h): made once per process, gone
// at exit (std::exit included), and what ended processes left is removed at the next
// start while the folders of running ones stay. Real processes, real locks.

#include "widgets/lecture/LectureScratch.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <csignal>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace atrium::widgets;
namespace fs = std::filesystem;

namespace {

/// A private temporary folder, made TMPDIR for the test's duration.
class PrivateTmp {
public:
    PrivateTmp() {
        path_ = fs::temp_directory_path() / ("atrium-scratch-test-" + std::to_string(std::random_device{}()));
        fs::create_directories(path_);
        if (const char* old = std::getenv("TMPDIR")) old_ = old;
        ::setenv("TMPDIR", path_.c_str(), 1);
    }
    ~PrivateTmp() {
        if (old_.empty()) ::unsetenv("TMPDIR");
        else ::setenv("TMPDIR", old_.c_str(), 1);
        std::error_code ec;
        fs::remove_all(path_, ec);
    }
    const fs::path& path() const { return path_; }
    std::vector<std::string> lectureFolders() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(path_))
            if (e.path().filename().string().rfind("atrium-lecture-", 0) == 0) names.push_back(e.path().filename().string());
        return names;
    }

private:
    fs::path path_;
    std::string old_;
};

pid_t endedProcess() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
}

/// A child process that holds `folder`/.owner locked, as a running viewer does, until killed.
pid_t holdOwnerLock(const fs::path& folder) {
    int ready[2];
    if (::pipe(ready) != 0) return -1;
    const pid_t child = ::fork();
    if (child == 0) {
        const int fd = ::open((folder / ".owner").c_str(), O_RDWR | O_CREAT, 0600);
        if (fd < 0 || ::flock(fd, LOCK_EX) != 0) ::_exit(1);
        const char c = 1;
        [[maybe_unused]] auto n = ::write(ready[1], &c, 1);
        for (;;) ::pause();
    }
    char c = 0;
    [[maybe_unused]] auto n = ::read(ready[0], &c, 1); // the lock is taken
    ::close(ready[0]);
    ::close(ready[1]);
    return child;
}

} // namespace

TEST(LectureScratch, TheProcessFolderGoesWithStdExit) {
    PrivateTmp tmp;
    // The child makes its folder, fills it, and ends through std::exit as the headless
    // viewer does; it reports the folder so that the parent knows one was made.
    EXPECT_EXIT(
        {
            const fs::path dir = scratch::newFolder("lecture-");
            std::ofstream(dir / "media.bin") << std::string(1 << 16, 'x');
            std::fprintf(stderr, "made %s\n", dir.c_str());
            std::exit(0);
        },
        ::testing::ExitedWithCode(0), "made .*atrium-lecture-[0-9]+-.*/lecture-1");
    EXPECT_TRUE(tmp.lectureFolders().empty()) << "left behind: " << tmp.lectureFolders().front();
}

TEST(LectureScratch, OneFolderPerProcessPrivateAndLocked) {
    PrivateTmp tmp;
    const fs::path a = scratch::newFolder("lecture-"), b = scratch::newFolder("lecture-");
    EXPECT_NE(a, b);
    EXPECT_EQ(a.parent_path(), b.parent_path());
    EXPECT_EQ(a.parent_path(), scratch::processFolder());
    EXPECT_EQ(a.parent_path().parent_path(), tmp.path());
    EXPECT_EQ(fs::status(a.parent_path()).permissions() & fs::perms::all, fs::perms::owner_all);
    // Another process's sweep sees it as running (its lock is held) and leaves it.
    const pid_t sweeper = ::fork();
    if (sweeper == 0) {
        scratch::removeStale();
        ::_exit(0);
    }
    ::waitpid(sweeper, nullptr, 0);
    EXPECT_TRUE(fs::exists(a));
    // A forked child that ends through exit() (its atexit handlers run) leaves it too.
    const pid_t child = ::fork();
    if (child == 0) std::exit(0);
    ::waitpid(child, nullptr, 0);
    EXPECT_TRUE(fs::exists(a));
    scratch::removeProcessFolder();
    EXPECT_FALSE(fs::exists(a.parent_path()));
}

TEST(LectureScratch, WhatEndedProcessesLeftIsRemovedAndRunningOnesStay) {
    PrivateTmp tmp;
    const auto make = [&](const std::string& name) {
        const fs::path dir = tmp.path() / name;
        fs::create_directories(dir / "lecture-1" / "media");
        std::ofstream(dir / "lecture-1" / "media" / "big.bin") << "x";
        return dir;
    };
    // Left by processes that ended: one killed before it locked (its pid in the name),
    // one killed while holding its lock, and an older build's untouched for hours.
    const fs::path killedEarly = make("atrium-lecture-" + std::to_string(endedProcess()) + "-AbCdEf");
    const fs::path killedLocked = make("atrium-lecture-" + std::to_string(::getpid() + 0) + "-KiLlEd");
    const pid_t holder = holdOwnerLock(killedLocked);
    ASSERT_GT(holder, 0);
    const fs::path olderBuild = make("atrium-lecture-Xy12Zw");
    fs::last_write_time(olderBuild, fs::file_time_type::clock::now() - std::chrono::hours(3));
    // Kept: a running viewer's (lock held), an older build's in use, a link planted under the name.
    const fs::path running = make("atrium-lecture-1-RuNnIn");
    const pid_t runner = holdOwnerLock(running);
    ASSERT_GT(runner, 0);
    const fs::path recent = make("atrium-lecture-Qw34Er");
    fs::create_directory_symlink(recent, tmp.path() / "atrium-lecture-link");

    ::kill(holder, SIGKILL);
    ::waitpid(holder, nullptr, 0);
    EXPECT_EQ(scratch::removeStale(), 3u);
    EXPECT_FALSE(fs::exists(killedEarly));
    EXPECT_FALSE(fs::exists(killedLocked)) << "its owner died holding the lock";
    EXPECT_FALSE(fs::exists(olderBuild));
    EXPECT_TRUE(fs::exists(running / "lecture-1" / "media" / "big.bin"));
    EXPECT_TRUE(fs::exists(recent / "lecture-1" / "media" / "big.bin"));
    EXPECT_TRUE(fs::is_symlink(tmp.path() / "atrium-lecture-link"));

    // Once the running one is killed, the next start removes its folder too.
    ::kill(runner, SIGKILL);
    ::waitpid(runner, nullptr, 0);
    EXPECT_EQ(scratch::removeStale(), 1u);
    EXPECT_FALSE(fs::exists(running));
}
