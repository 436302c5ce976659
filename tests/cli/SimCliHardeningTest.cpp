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

TEST(SimCliHardening, HeartOptionsAreCheckedBeforeTheHeartLoads) {
    // A typo in --backend was reported only after the heart had loaded (minutes).
    const Result backend = run(heartCommand, {"--meshes", "/nonexistent/lv_%02d.ply", "--backend", "gpu"});
    EXPECT_EQ(backend.code, 1);
    EXPECT_NE(backend.err.find("--backend expects cpu or cuda, got 'gpu'"), std::string::npos) << backend.err;
    const Result cycle = run(heartCommand, {"--meshes", "/nonexistent/lv_%02d.ply", "--cycle", "60"});
    EXPECT_EQ(cycle.code, 1);
    EXPECT_NE(cycle.err.find("--cycle expects seconds in [0.2, 5]"), std::string::npos) << cycle.err;
    // --cycle was silently ignored for phantoms.
    const Result phantom = run(heartCommand, {"--phantom", "adult", "--cycle", "1"});
    EXPECT_EQ(phantom.code, 1);
    EXPECT_NE(phantom.err.find("--cycle goes with --volumes or --meshes"), std::string::npos) << phantom.err;
    const Result units = run(heartCommand, {"--meshes", "/nonexistent/lv_%02d.ply", "--units", "inch"});
    EXPECT_EQ(units.code, 1);
    EXPECT_NE(units.err.find("--units: unknown unit 'inch'"), std::string::npos) << units.err;
    const Result both = run(heartCommand, {"--meshes", "x.ply", "--units", "m", "--scale", "1000"});
    EXPECT_EQ(both.code, 1);
}

TEST(SimCliHardening, AParticleBudgetBeyondMemoryNamesTheOption) {
    // 2e9 particles passed and died in std::bad_alloc.
    const Result r = run(heartCommand, {"--phantom", "adult", "--particles", "2000000000", "--max-memory", "2G"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("--particles 2000000000: the blood of the adult phantom needs about"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("memory limit of 2.0 GiB (--max-memory)"), std::string::npos) << r.err;
    // With memory to spare, the neighbour grid's limit (GridLimits.h) names the option too.
    const Result grid = run(heartCommand, {"--phantom", "adult", "--particles", "200000000", "--max-memory", "1T"});
    EXPECT_EQ(grid.code, 2) << grid.err;
    EXPECT_NE(grid.err.find("--particles 200000000: the adult phantom is"), std::string::npos) << grid.err;
    EXPECT_NE(grid.err.find("(limit 67108864): use fewer --particles"), std::string::npos) << grid.err;
}
