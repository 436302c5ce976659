// A save of a package that was killed before its rename leaves "NAME.tmp-*.atrium" (or,
// from builds before the one AtomicFile, ".NAME.atrium.tmp-*") beside it: the next save or
// opening of the package removes it (a live save's stays).

#include "io/AtomicFile.h"
#include "narrative/package/PackageError.h"
#include "PackageTestSupport.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

using namespace atrium::package;
using namespace atrium::package::test;

namespace {

/// The id of a process that has ended.
pid_t deadPid() {
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    return child;
}

std::size_t temporariesIn(const std::filesystem::path& dir) {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().filename().string().find(".tmp-") != std::string::npos) ++n;
    return n;
}

} // namespace

TEST(PackageTemporaries, AKilledSavesTemporaryGoesWhenThePackageIsNextSavedOrOpened) {
    ScratchFolder dir;
    ContentPackage p = sampleDraft();
    p.save(dir / "lecture.atrium");

    // The temporaries this build's writer makes carry the process, so that they can be told apart.
    const auto mine = atrium::io::createTemporaryBeside(dir / "lecture.atrium");
    EXPECT_EQ(mine.filename().string().rfind("lecture.tmp-" + std::to_string(::getpid()) + "-", 0), 0u) << mine;
    EXPECT_EQ(mine.extension(), ".atrium");
    std::filesystem::remove(mine);

    const auto killed = [&] { return dir / ("lecture.tmp-" + std::to_string(deadPid()) + "-00000000abcd.atrium"); };
    // What a build before the one AtomicFile left: a hidden name without the extension.
    const auto killedBefore = [&] { return dir / (".lecture.atrium.tmp-" + std::to_string(deadPid()) + "-00000000abcd"); };
    auto leftover = killed();
    writeAll(killedBefore(), "half a package");
    writeAll(leftover, "half a package");
    p.save(dir / "lecture.atrium");
    EXPECT_FALSE(std::filesystem::exists(leftover)) << "saving the package removes a killed save's temporary";
    EXPECT_EQ(temporariesIn(dir.path()), 0u);

    leftover = killedBefore();
    writeAll(leftover, "half a package");
    writeAll(killed(), "half a package");
    const ContentPackage again = ContentPackage::open(dir / "lecture.atrium");
    EXPECT_FALSE(std::filesystem::exists(leftover)) << "opening the package removes a killed save's temporary";
    EXPECT_EQ(again.manifest(), p.manifest());
    EXPECT_EQ(temporariesIn(dir.path()), 0u);
}
