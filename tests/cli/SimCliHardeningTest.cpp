// atrium-sim against careless and hostile use (issue 11): full disks, limits, bad numbers.
#include "app/sim/SimCommands.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace atrium::app;
namespace fs = std::filesystem;

namespace {

struct Result {
    int code;
    std::string out, err;
};

using Command = int (*)(const std::vector<std::string>&, std::ostream&, std::ostream&);

Result run(Command command, const std::vector<std::string>& args) {
    std::ostringstream out, err;
    const int code = command(args, out, err);
    return {code, out.str(), err.str()};
}

/// Runs the command in a child process whose files may not grow past `maxFileBytes`:
/// writes fail as on a full disk (EFBIG instead of ENOSPC).
Result runWithFileLimit(Command command, const std::vector<std::string>& args, rlim_t maxFileBytes, const fs::path& scratch) {
    const fs::path errFile = scratch / "stderr.txt", outFile = scratch / "stdout.txt";
    const pid_t child = ::fork();
    if (child == 0) {
        std::ofstream err(errFile), out(outFile); // opened before the limit: they may grow
        std::signal(SIGXFSZ, SIG_IGN);
        const rlimit limit{maxFileBytes, maxFileBytes};
        ::setrlimit(RLIMIT_FSIZE, &limit);
        const int code = command(args, out, err);
        out.flush();
        err.flush();
        ::_exit(code);
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    const auto slurp = [](const fs::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    };
    return {WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), slurp(outFile), slurp(errFile)};
}

fs::path tempDir(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("atrium-cli-hardening-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string scene(const char* name) { return std::string(ATRIUM_CONTENT_DIR) + "/scenes/" + name; }

} // namespace

TEST(SimCliHardening, FullDiskDuringRunExits4NamingTheFileAndKeepsEverySnapshotListed) {
    const fs::path scratch = tempDir("fulldisk");
    const fs::path out = scratch / "out";
    // The first snapshot (18 kB) fits, the next ones (70 kB) do not.
    const Result r = runWithFileLimit(runCommand,
                                      {scene("hydrostatic.json"), "--steps", "20", "--every", "5", "--out", out.string()},
                                      40000, scratch);
    EXPECT_EQ(r.code, 4) << r.err;
    EXPECT_NE(r.err.find((out / "particles_00000005.vtp").string() + ": cannot write"), std::string::npos) << r.err;
    // No stats line names a snapshot that was not written whole.
    std::istringstream lines(r.out);
    std::string line;
    int stats = 0;
    while (std::getline(lines, line)) {
        ++stats;
        EXPECT_EQ(line.find("particles_00000005"), std::string::npos) << line;
    }
    EXPECT_EQ(stats, 1);
    // The index lists the snapshot written before, every listed file is whole, nothing else is left.
    std::ifstream pvd(out / "particles.pvd");
    std::stringstream index;
    index << pvd.rdbuf();
    EXPECT_NE(index.str().find("particles_00000000.vtp"), std::string::npos) << index.str();
    EXPECT_NE(index.str().find("</VTKFile>"), std::string::npos);
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(out)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    EXPECT_EQ(names, (std::vector<std::string>{"particles.pvd", "particles_00000000.vtp"}));
    fs::remove_all(scratch);
}

TEST(SimCliHardening, TemporariesOfAKilledRunAreRemovedByTheNextOne) {
    const fs::path out = tempDir("stale");
    const pid_t gone = ::fork();
    if (gone == 0) ::_exit(0);
    ::waitpid(gone, nullptr, 0);
    const fs::path stale = out / ("particles_00000010.tmp-" + std::to_string(gone) + "-0123abcd.vtp");
    std::ofstream(stale) << "half a snapshot";
    const Result r = run(runCommand, {scene("hydrostatic.json"), "--steps", "2", "--out", out.string()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_FALSE(fs::exists(stale));
    fs::remove_all(out);
}

TEST(SimCliHardening, MaxMemoryIsCheckedAndNamedInTheRefusal) {
    const Result bad = run(runCommand, {scene("hydrostatic.json"), "--steps", "2", "--max-memory", "lots"});
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("--max-memory"), std::string::npos) << bad.err;
}
