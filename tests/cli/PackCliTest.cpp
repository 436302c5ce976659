// atrium-pack as an author and a script call it (in-process, the same code as main()),
// on real package files.
#include "app/pack/PackCommands.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zip.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace atrium::app;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

struct Result {
    int code;
    std::string out, err;
};

Result pack(std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = packCommand(args, out, err);
    return {code, out.str(), err.str()};
}

std::string readAll(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// A folder with an author key, a manifest with one image resource and its picture.
class PackCli : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() / ("atrium-pack-cli-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_ / "src/media");
        std::ofstream(dir_ / "src/media/valve.svg") << "<svg xmlns='http://www.w3.org/2000/svg' width='8' height='8'/>";
        std::ofstream(dir_ / "src/manifest.json") << R"({
          "format": "atrium-content", "version": 1, "title": "Valves", "author": "Dr Test",
          "heart": {"source": "phantom", "preset": "adult"},
          "categories": [{"name": "Valves", "colour": "#b03a2e"}],
          "resources": [{"id": "valve", "name": "Mitral valve", "kind": "image", "media": "media/valve.svg",
                         "category": "Valves", "target": [0, 0, 0], "centre": [0, -50, 0], "radius": 20}],
          "restrictions": {"resourcesLocked": true, "brandingRequired": true},
          "branding": {"text": "Test college"},
          "files": [{"entry": "media/valve.svg", "type": "image/svg+xml"}]
        })";
        std::ofstream(dir_ / "password") << "s3cret\n";
        std::ofstream(dir_ / "wrong") << "S3cret\n";
        ::setenv("XDG_CONFIG_HOME", (dir_ / "config").c_str(), 1);
        ::unsetenv("ATRIUM_PACK_PASSWORD");
        ASSERT_EQ(pack({"keygen", "--out", key(), "--author", "Dr Test"}).code, 0);
    }
    void TearDown() override { fs::remove_all(dir_); }

    std::string key() const { return (dir_ / "author.key").string(); }
    std::string file() const { return (dir_ / "valves.atrium").string(); }
    std::string path(const std::string& name) const { return (dir_ / name).string(); }

    /// Creates, signs and locks the package.
    void buildLocked() {
        ASSERT_EQ(pack({"create", file(), "--manifest", path("src/manifest.json"), "--key", key()}).code, 0);
        const Result r = pack({"lock", file(), "--key", key(), "--password-file", path("password")});
        ASSERT_EQ(r.code, 0) << r.err;
    }

    json inspect() {
        const Result r = pack({"inspect", file(), "--json"});
        EXPECT_EQ(r.code, 0) << r.err;
        return json::parse(r.out);
    }

    fs::path dir_;
};

} // namespace

TEST_F(PackCli, CreateLockInspect) {
    buildLocked();
    const json j = inspect();
    EXPECT_EQ(j["title"], "Valves");
    EXPECT_EQ(j["resources"], 1);
    EXPECT_EQ(j["locked"], true);
    EXPECT_EQ(j["restrictions"]["resourcesLocked"], true);
    EXPECT_EQ(j["restrictions"]["narrativesLocked"], false);
    EXPECT_EQ(j["signature"]["state"], "signed");
    EXPECT_EQ(j["signature"]["trusted"], false);
    EXPECT_EQ(j["signature"]["fingerprint"].get<std::string>().size(), 39u);
    EXPECT_EQ(j["narratives"].size(), 0u);

    const Result human = pack({"inspect", file()});
    EXPECT_EQ(human.code, 0);
    EXPECT_NE(human.out.find("locked:       yes"), std::string::npos) << human.out;

    const Result verify = pack({"verify", file()});
    EXPECT_EQ(verify.code, 0) << verify.err;
    EXPECT_NE(verify.out.find("intact, signed by an unknown author"), std::string::npos);
    EXPECT_EQ(pack({"verify", file(), "--require-trusted"}).code, 3);
    ASSERT_EQ(pack({"trust", file(), "--name", "Dr Test"}).code, 0);
    const Result trusted = pack({"verify", file(), "--require-trusted"});
    EXPECT_EQ(trusted.code, 0);
    EXPECT_NE(trusted.out.find("signed by Dr Test"), std::string::npos) << trusted.out;
    EXPECT_EQ(inspect()["signature"]["trustedAs"], "Dr Test");
}

TEST_F(PackCli, ALockedPackageRefusesEditsWithoutItsPassword) {
    buildLocked();
    const std::string before = readAll(file());
    std::ofstream(path("extra.svg")) << "<svg xmlns='http://www.w3.org/2000/svg'/>";

    Result r = pack({"add-media", file(), path("extra.svg"), "--password-file", path("wrong")});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("wrong password"), std::string::npos) << r.err;
    r = pack({"set-restrictions", file(), "--resources-locked", "no"});
    EXPECT_EQ(r.code, 3) << "no password in a test (stdin is not a terminal)";
    r = pack({"add-media", file(), path("extra.svg"), "--key", path("other.key")});
    EXPECT_EQ(r.code, 4) << "a key file that does not exist";
    ASSERT_EQ(pack({"keygen", "--out", path("other.key")}).code, 0);
    r = pack({"add-media", file(), path("extra.svg"), "--key", path("other.key")});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("cannot sign it"), std::string::npos) << r.err;
    EXPECT_EQ(readAll(file()), before) << "nothing changed on disk";

    ::setenv("ATRIUM_PACK_PASSWORD", "s3cret", 1);
    r = pack({"add-media", file(), path("extra.svg")});
    ::unsetenv("ATRIUM_PACK_PASSWORD");
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(pack({"verify", file()}).code, 0) << "saving re-signed it";
    EXPECT_EQ(inspect()["files"].size(), 2u);

    r = pack({"set-restrictions", file(), "--max-resolution", "1280x720", "--expires", "2030-01-31", "--key", key()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(inspect()["restrictions"]["maxResolution"], json::array({1280, 720}));
    EXPECT_EQ(inspect()["restrictions"]["expires"], "2030-01-31");

    r = pack({"unlock", file(), "--password-file", path("password")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(inspect()["locked"], false);
    EXPECT_EQ(pack({"verify", file()}).code, 0) << "still signed by the author";
}

TEST_F(PackCli, TamperedFilesExitTwoNamingTheEntry) {
    buildLocked();
    int error = 0;
    zip_t* z = zip_open(file().c_str(), 0, &error);
    ASSERT_NE(z, nullptr);
    static const std::string changed = "<svg xmlns='http://www.w3.org/2000/svg' width='9' height='8'/>";
    zip_file_add(z, "media/valve.svg", zip_source_buffer(z, changed.data(), changed.size(), 0), ZIP_FL_OVERWRITE);
    ASSERT_EQ(zip_close(z), 0);
    Result r = pack({"verify", file()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("entry 'media/valve.svg': tampered"), std::string::npos) << r.err;
    r = pack({"inspect", file(), "--json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(json::parse(r.out)["signature"]["state"], "tampered");
    std::ofstream(file(), std::ios::trunc) << "not a zip";
    r = pack({"inspect", file()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("not a readable zip archive"), std::string::npos) << r.err;
}

TEST_F(PackCli, ExtractThenCreateRebuildsThePackage) {
    buildLocked();
    Result r = pack({"extract", file(), path("out")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(dir_ / "out/media/valve.svg"));
    r = pack({"create", path("again.atrium"), "--manifest", path("out/manifest.json")});
    ASSERT_EQ(r.code, 0) << r.err;
    r = pack({"inspect", path("again.atrium"), "--json"});
    const json again = json::parse(r.out);
    EXPECT_EQ(again["resources"], 1);
    EXPECT_EQ(again["signature"]["state"], "unsigned");
    EXPECT_EQ(pack({"verify", path("again.atrium")}).code, 3) << "verify refuses an unsigned package";
}

TEST_F(PackCli, BadCommandLinesExitOne) {
    EXPECT_EQ(pack({}).code, 1);
    EXPECT_EQ(pack({"frobnicate"}).code, 1);
    EXPECT_EQ(pack({"inspect"}).code, 1);
    EXPECT_EQ(pack({"inspect", "a", "b"}).code, 1);
    EXPECT_EQ(pack({"inspect", "a", "--colour"}).code, 1);
    EXPECT_EQ(pack({"create", file()}).code, 1);
    buildLocked();
    EXPECT_EQ(pack({"set-restrictions", file(), "--narratives-locked", "maybe"}).code, 1);
    EXPECT_EQ(pack({"set-restrictions", file(), "--max-resolution", "big"}).code, 1);
    EXPECT_EQ(pack({"set-restrictions", file(), "--expires", "2030-02-30"}).code, 1);
    EXPECT_EQ(pack({"keygen", "--out", key()}).code, 4) << "an existing key is not replaced without --force";
    const Result help = pack({"--help"});
    EXPECT_EQ(help.code, 0);
    EXPECT_NE(help.out.find("atrium-pack keygen"), std::string::npos);
}

TEST_F(PackCli, BadManifestsExitTwoNamingTheField) {
    std::ofstream(path("src/manifest.json"), std::ios::trunc)
        << R"({"format": "atrium-content", "version": 1, "title": "", "heart": {"source": "phantom", "preset": "adult"}})";
    Result r = pack({"create", file(), "--manifest", path("src/manifest.json")});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("/title"), std::string::npos) << r.err;
    std::ofstream(path("src/manifest.json"), std::ios::trunc)
        << R"({"format": "atrium-content", "version": 1, "title": "x", "heart": {"source": "phantom", "preset": "adult"},
              "files": [{"entry": "media/absent.png", "type": "image/png"}]})";
    r = pack({"create", file(), "--manifest", path("src/manifest.json")});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("media/absent.png"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(file()));
}
