#include "io/AtomicFile.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace atrium;
namespace fs = std::filesystem;

namespace {

struct TempDir {
    fs::path path = fs::temp_directory_path() / ("atrium_io_" + std::to_string(::getpid()) + "_" +
                                                 std::to_string(std::random_device{}()));
    TempDir() { fs::create_directories(path); }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::size_t entries(const fs::path& dir) {
    return std::size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}));
}

} // namespace

TEST(AtomicFile, ReplacesTheTargetWholeAndLeavesNoTemporary) {
    TempDir dir;
    const fs::path file = dir.path / "sub" / "index.pvd";
    io::writeFileAtomically(file, "first");
    io::writeFileAtomically(file, "second version");
    EXPECT_EQ(slurp(file), "second version");
    EXPECT_EQ(entries(file.parent_path()), 1u);
}

TEST(AtomicFile, TemporaryKeepsTheExtensionAndIsRemovedWithoutCommit) {
    TempDir dir;
    fs::path temp;
    {
        io::AtomicFile atomic(dir.path / "snap.vtp");
        temp = atomic.temporary();
        EXPECT_EQ(temp.extension(), ".vtp");
        EXPECT_TRUE(io::isTemporaryName(temp.filename().string()));
        std::ofstream(temp) << "partial";
    }
    EXPECT_FALSE(fs::exists(temp));
    EXPECT_FALSE(fs::exists(dir.path / "snap.vtp"));
}

TEST(AtomicFile, CommitRefusesAShortOrUnfinishedFileAndKeepsTheOldOne) {
    TempDir dir;
    const fs::path file = dir.path / "a.vtp";
    io::writeFileAtomically(file, "old whole file</VTKFile>\n");
    {
        io::AtomicFile atomic(file);
        std::ofstream(atomic.temporary()) << "<VTKFile> trunc";
        try {
            atomic.commit(1, "</VTKFile>\n");
            FAIL() << "an unfinished file was committed";
        } catch (const io::WriteError& e) {
            EXPECT_EQ(std::string(e.what()).rfind(file.string(), 0), 0u) << e.what();
            EXPECT_EQ(e.file(), file);
        }
    }
    {
        io::AtomicFile atomic(file);
        std::ofstream(atomic.temporary()) << "1234";
        EXPECT_THROW(atomic.commit(100), io::WriteError);
    }
    EXPECT_EQ(slurp(file), "old whole file</VTKFile>\n");
    EXPECT_EQ(entries(dir.path), 1u);
}

TEST(AtomicFile, AFullDiskIsAWriteErrorNamingTheFile) {
    // RLIMIT_FSIZE makes writes past 1000 bytes fail as on a full disk, in a child.
    TempDir dir;
    const fs::path file = dir.path / "big.bin";
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{1000, 1000};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
            io::writeFileAtomically(file, std::string(100000, 'x'));
        } catch (const io::WriteError& e) {
            ::_exit(std::string(e.what()).rfind(file.string(), 0) == 0 ? 4 : 5);
        }
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 4);
    EXPECT_FALSE(fs::exists(file));
    EXPECT_EQ(entries(dir.path), 0u) << "the temporary was left behind";
}

TEST(AtomicFile, StaleTemporariesOfDeadProcessesAreRemoved) {
    TempDir dir;
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0); // a pid that no longer runs
    const fs::path dead = dir.path / ("heart-1.tmp-" + std::to_string(child) + "-00ab.atriumheart");
    const fs::path mine = dir.path / ("heart-2.tmp-" + std::to_string(::getpid()) + "-00cd.atriumheart");
    const fs::path other = dir.path / "heart-3.atriumheart";
    for (const auto& p : {dead, mine, other}) std::ofstream(p) << "x";
    EXPECT_EQ(io::removeStaleTemporaries(dir.path), 1u);
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_TRUE(fs::exists(mine));
    EXPECT_TRUE(fs::exists(other));
    EXPECT_FALSE(io::isTemporaryName("particles_00000010.vtp"));
}

TEST(AtomicFile, TheStaleTemporariesOfOneFileAreRemovedAndNothingElse) {
    TempDir dir;
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0); // a pid that no longer runs
    const std::string dead = std::to_string(child), me = std::to_string(::getpid());
    const fs::path target = dir.path / "k.atrium";
    // A killed save of k.atrium by either writer, and one of an older build (no pid, old).
    const fs::path killed = dir.path / (".k.atrium.tmp-" + dead + "-0123456789ab");
    const fs::path killedIo = dir.path / ("k.tmp-" + dead + "-00ab.atrium");
    const fs::path legacyOld = dir.path / ".k.atrium.tmp-0123456789ab";
    // Kept: a save under way (this process), a fresh one without pid, another file's, the
    // author's own files whose names only look alike.
    const fs::path underWay = dir.path / (".k.atrium.tmp-" + me + "-0123456789ab");
    const fs::path legacyFresh = dir.path / ".k.atrium.tmp-abcdef012345";
    const fs::path otherFile = dir.path / (".other.atrium.tmp-" + dead + "-0123456789ab");
    const fs::path lookAlike = dir.path / "k.tmp-notes.atrium";
    for (const auto& p : {target, killed, killedIo, legacyOld, underWay, legacyFresh, otherFile, lookAlike}) std::ofstream(p) << "x";
    fs::last_write_time(legacyOld, fs::file_time_type::clock::now() - std::chrono::hours(2));
    EXPECT_EQ(io::removeStaleTemporariesOf(target), 3u);
    for (const auto& p : {killed, killedIo, legacyOld}) EXPECT_FALSE(fs::exists(p)) << p;
    for (const auto& p : {target, underWay, legacyFresh, otherFile, lookAlike}) EXPECT_TRUE(fs::exists(p)) << p;
}

TEST(AtomicFile, AWriterKilledBeforeItsRenameLeavesATemporaryThatTheNextWriteRemoves) {
    TempDir dir;
    const fs::path file = dir.path / "k.atrium";
    io::writeFileAtomically(file, "the saved package");
    // A child starts a save, says so through a pipe, and is killed before its rename.
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ::close(ready[0]);
        io::AtomicFile atomic(file);
        atomic.write("half of a new package");
        const char done = 1;
        (void)!::write(ready[1], &done, 1);
        ::pause();
        ::_exit(0);
    }
    ::close(ready[1]);
    char done = 0;
    ASSERT_EQ(::read(ready[0], &done, 1), 1);
    ::close(ready[0]);
    ::kill(child, SIGKILL);
    ::waitpid(child, nullptr, 0);
    ASSERT_EQ(entries(dir.path), 2u) << "the killed writer left its temporary";
    EXPECT_EQ(slurp(file), "the saved package") << "a kill before the rename leaves the old file";

    io::writeFileAtomically(file, "the next save");
    EXPECT_EQ(slurp(file), "the next save");
    EXPECT_EQ(entries(dir.path), 1u) << "the next write of the file removes the killed writer's temporary";
}

TEST(AtomicFile, AFailedWriteLeavesTheOldFileIntactAndNoTemporary) {
    // The write fails half way (RLIMIT_FSIZE, as on a full disk) over an existing file.
    TempDir dir;
    const fs::path file = dir.path / "narratives.json";
    io::writeFileAtomically(file, "the old document");
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{1000, 1000};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        try {
            io::AtomicFile atomic(file);
            for (int i = 0; i < 100; ++i) atomic.write(std::string(100, 'x'));
            atomic.commit();
        } catch (const io::WriteError& e) {
            const bool named = std::string(e.what()).rfind(file.string(), 0) == 0;
            ::_exit(named && e.why().find("disk full") != std::string::npos ? 4 : 5);
        }
        ::_exit(0);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 4) << "the failed write is a WriteError naming the file and why";
    EXPECT_EQ(slurp(file), "the old document");
    EXPECT_EQ(entries(dir.path), 1u) << "the temporary was left behind";
}

TEST(AtomicFile, TheNewFileHasThePermissionsAskedForAndATemporaryIsNeverSharedOrFollowed) {
    TempDir dir;
    const fs::path key = dir.path / "lecturer.key";
    const mode_t before = ::umask(022);
    io::writeFileAtomically(key, "secret", {.mode = 0600});
    ::umask(before);
    EXPECT_EQ(fs::status(key).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
    // A folder that does not exist is an error when the caller says so, and names the file.
    const fs::path elsewhere = dir.path / "no-such-folder" / "x.json";
    try {
        io::writeFileAtomically(elsewhere, "{}", {.createDirectory = false});
        FAIL() << "a missing folder was created";
    } catch (const io::WriteError& e) {
        EXPECT_EQ(e.file(), elsewhere);
    }
    EXPECT_FALSE(fs::exists(elsewhere.parent_path()));
    // Two writers of one file get two temporaries, each created empty by its writer.
    io::AtomicFile a(dir.path / "doc.json"), b(dir.path / "doc.json");
    EXPECT_NE(a.temporary(), b.temporary());
    EXPECT_EQ(fs::file_size(a.temporary()), 0u);
    a.write("{}");
    a.commit();
    EXPECT_EQ(slurp(dir.path / "doc.json"), "{}");
}

TEST(AtomicFile, AnEmptyFileIsCommittedWhenTheCallerSaysSo) {
    TempDir dir;
    io::writeFileAtomically(dir.path / "empty.txt", "");
    EXPECT_TRUE(fs::exists(dir.path / "empty.txt"));
    EXPECT_EQ(fs::file_size(dir.path / "empty.txt"), 0u);
    io::AtomicFile nothing(dir.path / "nothing.txt");
    EXPECT_THROW(nothing.commit(), io::WriteError) << "by default a file holds at least one byte";
    EXPECT_EQ(entries(dir.path), 1u);
}
