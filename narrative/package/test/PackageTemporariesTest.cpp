// A save of a package that was killed before its rename leaves ".NAME.atrium.tmp-*"
// beside it: the next save or opening of the package removes it (a live save's stays).

#include "narrative/AtomicFile.h"
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
    const auto mine = atrium::narrative::createTemporaryBeside(dir / "lecture.atrium");
    EXPECT_NE(mine.filename().string().find(".lecture.atrium.tmp-" + std::to_string(::getpid()) + "-"), std::string::npos)
        << mine;
    std::filesystem::remove(mine);

    const auto killed = [&] { return dir / (".lecture.atrium.tmp-" + std::to_string(deadPid()) + "-00000000abcd"); };
    auto leftover = killed();
    writeAll(leftover, "half a package");
    p.save(dir / "lecture.atrium");
    EXPECT_FALSE(std::filesystem::exists(leftover)) << "saving the package removes a killed save's temporary";
    EXPECT_EQ(temporariesIn(dir.path()), 0u);

    leftover = killed();
    writeAll(leftover, "half a package");
    const ContentPackage again = ContentPackage::open(dir / "lecture.atrium");
    EXPECT_FALSE(std::filesystem::exists(leftover)) << "opening the package removes a killed save's temporary";
    EXPECT_EQ(again.manifest(), p.manifest());
}
