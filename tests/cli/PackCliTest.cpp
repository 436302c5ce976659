// atrium-pack as an author and a script call it (in-process, the same code as main()),
// on real package files.
#include "app/pack/PackCommands.h"
#include "narrative/package/ContentPackage.h"
#include "narrative/package/PackageCrypto.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <zip.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>
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

namespace {

/// The heart a flow must have been baked in to fit a phantom package.
std::string phantomHeart(const std::string& preset) {
    return atrium::heart::heartIdentity(atrium::heart::HeartSource::fromPreset(preset),
                                        atrium::heart::PipelineSettings::forBlood());
}

/// A small beat in the baked-flow format (docs/baked-flow.md): two particles over 4
/// frames (moved by `shift` mm), named as baked in `heart`.
void writeFlow(const fs::path& file, const std::string& heart, float shift = 0) {
    std::vector<atrium::heart::BloodFrame> frames(4);
    for (std::size_t k = 0; k < frames.size(); ++k) {
        const float x = float(k) + shift;
        frames[k].positionMm = {x, 0, 0, 1, 2, 3};
        frames[k].velocity = {0.1f, 0, 0, 0, 0.2f, 0};
        frames[k].densityError = {0.01f, -0.01f};
        frames[k].pressure = {10, 20};
    }
    atrium::sph::Aabb box;
    box.lo = {-10, -10, -10};
    box.hi = {10, 10, 10};
    const atrium::heart::BakedBeat beat(atrium::heart::flowCacheKey(heart, 0.8, {}, {}), 0.8, 2.0, box, frames);
    beat.save(file);
}

} // namespace

TEST_F(PackCli, SetFlowAddsACheckedBakedFlowThroughTheLock) {
    buildLocked();
    const std::string adult = phantomHeart("adult");
    writeFlow(path("beat.atriumflow"), adult);
    const std::string before = readAll(file());
    Result r = pack({"set-flow", file(), path("beat.atriumflow")});
    EXPECT_EQ(r.code, 3) << "locked: no password in a test";
    EXPECT_NE(r.err.find("locked"), std::string::npos) << r.err;
    r = pack({"set-flow", file(), path("beat.atriumflow"), "--password-file", path("wrong")});
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(readAll(file()), before) << "nothing changed on disk";
    EXPECT_TRUE(inspect()["flow"].is_null());

    // A damaged flow is refused by the viewer's own reader, naming the file.
    const std::string bytes = readAll(path("beat.atriumflow"));
    std::ofstream(path("cut.atriumflow"), std::ios::binary) << bytes.substr(0, bytes.size() - 40);
    r = pack({"set-flow", file(), path("cut.atriumflow"), "--password-file", path("password")});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("cut.atriumflow"), std::string::npos) << r.err;
    EXPECT_EQ(readAll(file()), before);
    // So is a flow baked in another heart than the package's, which the viewer would not play.
    writeFlow(path("athlete.atriumflow"), phantomHeart("athlete"));
    r = pack({"set-flow", file(), path("athlete.atriumflow"), "--password-file", path("password")});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("athlete.atriumflow: baked in another heart (" + phantomHeart("athlete")), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("than the package's (" + adult + ")"), std::string::npos) << r.err;
    EXPECT_EQ(readAll(file()), before);

    r = pack({"set-flow", file(), path("beat.atriumflow"), "--password-file", path("password")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("4 frames of up to 2 particles"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("baked in " + adult), std::string::npos) << r.out;
    json j = inspect();
    EXPECT_EQ(j["flow"], "flow/beat.atriumflow");
    EXPECT_EQ(j["locked"], true);
    r = pack({"verify", file()});
    EXPECT_EQ(r.code, 0) << "saving signed it again: " << r.err;
    EXPECT_NE(r.out.find("flow: 4 frames of up to 2 particles over 0.8 s, baked in " + adult + ", the package's heart"),
              std::string::npos)
        << r.out;
    EXPECT_NE(pack({"inspect", file()}).out.find("flow:         flow/beat.atriumflow"), std::string::npos);

    // Another flow replaces it under its own name; --remove takes it out.
    writeFlow(path("other.atriumflow"), adult, 1.5f);
    ASSERT_EQ(pack({"set-flow", file(), path("other.atriumflow"), "--as", "flow/beat-2.atriumflow", "--key", key()}).code, 0);
    j = inspect();
    EXPECT_EQ(j["flow"], "flow/beat-2.atriumflow");
    EXPECT_EQ(j["files"].size(), 2u) << "the old flow's file went with it";
    EXPECT_EQ(pack({"set-flow", file(), "--remove"}).code, 3) << "still locked";
    ASSERT_EQ(pack({"set-flow", file(), "--remove", "--key", key()}).code, 0);
    j = inspect();
    EXPECT_TRUE(j["flow"].is_null());
    EXPECT_EQ(j["files"].size(), 1u);
    EXPECT_EQ(pack({"set-flow", file(), "--remove", "--key", key()}).code, 3) << "no flow to remove";
    EXPECT_EQ(pack({"set-flow", file()}).code, 1) << "neither a flow nor --remove";
}

TEST_F(PackCli, CreateTakesAFlowFromTheManifestAndVerifyChecksIt) {
    // The manifest names the flow, and lists it among its files.
    const std::string manifest = readAll(path("src/manifest.json"));
    const auto withFlow = [&](const std::string& entry) {
        std::string m = manifest;
        m.replace(m.rfind("]"), 1, R"(, {"entry": ")" + entry + R"(", "type": "application/octet-stream"}], "flow": ")" + entry + "\"");
        std::ofstream(path("src/manifest.json")) << m;
    };
    fs::create_directories(path("src/flow"));
    writeFlow(path("src/flow/beat.atriumflow"), phantomHeart("adult"));
    withFlow("flow/beat.atriumflow");
    Result r = pack({"create", file(), "--manifest", path("src/manifest.json"), "--key", key()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(inspect()["flow"], "flow/beat.atriumflow");
    r = pack({"verify", file()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("flow: 4 frames"), std::string::npos) << r.out;

    // A byte of the flow changed after signing: tampered, naming the entry.
    {
        int error = 0;
        zip_t* z = zip_open(file().c_str(), 0, &error);
        ASSERT_NE(z, nullptr);
        std::string changed = readAll(path("src/flow/beat.atriumflow"));
        changed[40] = char(changed[40] ^ 1);
        zip_file_add(z, "flow/beat.atriumflow", zip_source_buffer(z, changed.data(), changed.size(), 0), ZIP_FL_OVERWRITE);
        ASSERT_EQ(zip_close(z), 0);
    }
    r = pack({"verify", file()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("flow/beat.atriumflow"), std::string::npos) << r.err;

    // A damaged flow that its author signed anyway (through the API, which cannot read
    // flows): verify names the package and the entry.
    fs::remove(file());
    {
        std::string cut = readAll(path("src/flow/beat.atriumflow"));
        cut.resize(cut.size() - 9);
        std::ofstream(path("cut.atriumflow"), std::ios::binary) << cut;
        atrium::package::ContentPackage p(atrium::package::parseManifest(manifest, "manifest.json"));
        ASSERT_TRUE(p.addFile("media/valve.svg", path("src/media/valve.svg")));
        ASSERT_TRUE(p.addFile("flow/cut.atriumflow", path("cut.atriumflow")));
        ASSERT_TRUE(p.setFlow("flow/cut.atriumflow"));
        ASSERT_TRUE(p.useSigningKey(atrium::package::SigningKey::load(key())));
        p.save(file());
    }
    r = pack({"verify", file()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("valves.atrium: flow/cut.atriumflow"), std::string::npos) << r.err;

    // A manifest whose flow was baked in another heart: refused, naming the field.
    writeFlow(path("src/flow/beat.atriumflow"), phantomHeart("athlete"));
    r = pack({"create", path("other.atrium"), "--manifest", path("src/manifest.json")});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("/flow: flow/beat.atriumflow: baked in another heart"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("other.atrium")));
}

TEST_F(PackCli, AMeshSeriesHeartIsPackedWithAFlowBakedInItWhereTheAuthorKeepsIt) {
    // Two phases under the author's own names; the flow names the heart by their bytes,
    // which atrium-pack finds again in the package's entries.
    fs::create_directories(path("src/series"));
    std::ofstream(path("src/series/lv_00.obj")) << "v 0 0 0\nv 10 0 0\nv 0 10 0\nv 0 0 10\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    std::ofstream(path("src/series/lv_01.obj")) << "v 0 0 0\nv 9 0 0\nv 0 9 0\nv 0 0 9\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";
    const std::string lv = atrium::heart::heartIdentity(
        atrium::heart::HeartSource::fromMeshes(path("src/series/lv_%02d.obj")), atrium::heart::PipelineSettings::forBlood());
    fs::create_directories(path("src/flow"));
    writeFlow(path("src/flow/lv.atriumflow"), lv);
    std::ofstream(path("src/manifest.json")) << R"({
      "format": "atrium-content", "version": 1, "title": "A ventricle", "author": "Dr Test",
      "heart": {"source": "meshes", "entries": ["series/lv_00.obj", "series/lv_01.obj"], "cycleSeconds": 0.8},
      "files": [{"entry": "series/lv_00.obj", "type": "model/obj"}, {"entry": "series/lv_01.obj", "type": "model/obj"},
                {"entry": "flow/lv.atriumflow", "type": "application/octet-stream"}],
      "flow": "flow/lv.atriumflow"
    })";
    Result r = pack({"create", file(), "--manifest", path("src/manifest.json"), "--key", key()});
    ASSERT_EQ(r.code, 0) << r.err;
    json j = inspect();
    EXPECT_EQ(j["heart"]["source"], "meshes");
    EXPECT_EQ(j["heart"]["phases"], 2);
    r = pack({"verify", file()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("baked in " + lv + ", the package's heart"), std::string::npos) << r.out;

    // The phases in the other order are another heart: its flow is refused.
    std::string manifest = readAll(path("src/manifest.json"));
    manifest.replace(manifest.find(R"("series/lv_00.obj", "series/lv_01.obj")"), 38, R"("series/lv_01.obj", "series/lv_00.obj")");
    std::ofstream(path("src/manifest.json")) << manifest;
    r = pack({"create", path("swapped.atrium"), "--manifest", path("src/manifest.json")});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("baked in another heart (" + lv + ")"), std::string::npos) << r.err;
}

TEST_F(PackCli, EveryPhantomPresetIsAHeartAManifestMayName) {
    // The schema (narrative/package) cannot include the phantom (sim/heart): its list of
    // presets is checked against the phantom's here, so that neither drifts.
    for (const std::string& preset : atrium::heart::HeartPhantom::presetNames()) {
        std::ofstream(path("src/manifest.json"), std::ios::trunc)
            << R"({"format": "atrium-content", "version": 1, "title": "x", "heart": {"source": "phantom", "preset": ")"
            << preset << R"("}})";
        fs::remove(file());
        const Result r = pack({"create", file(), "--manifest", path("src/manifest.json")});
        EXPECT_EQ(r.code, 0) << preset << ": " << r.err;
    }
}

TEST_F(PackCli, OnlyTheSignersKeyIsTheAuthorsOfAnUnlockedPackage) {
    // Issue 21 item 4: `--key attacker.key` lifted an expired package's flags and
    // re-signed it as the attacker's.
    ASSERT_EQ(pack({"create", file(), "--manifest", path("src/manifest.json"), "--key", key()}).code, 0);
    ASSERT_EQ(pack({"set-restrictions", file(), "--expires", "2020-01-01", "--key", key()}).code, 0);
    ASSERT_EQ(pack({"keygen", "--out", path("attacker.key")}).code, 0);
    const std::string before = readAll(file());

    Result r = pack({"extract", file(), path("out")});
    EXPECT_EQ(r.code, 3) << "expired for its audience";
    r = pack({"extract", file(), path("out"), "--key", path("attacker.key")});
    EXPECT_EQ(r.code, 3) << r.out;
    EXPECT_NE(r.err.find("is not its author's"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(path("out/manifest.json")));
    r = pack({"set-restrictions", file(), "--expires", "none", "--key", path("attacker.key")});
    EXPECT_EQ(r.code, 3);
    r = pack({"sign", file(), "--key", path("attacker.key")});
    EXPECT_EQ(r.code, 3);
    EXPECT_EQ(readAll(file()), before) << "nothing re-signed";

    r = pack({"extract", file(), path("out"), "--key", key()});
    EXPECT_EQ(r.code, 0) << r.err;
    r = pack({"set-restrictions", file(), "--expires", "none", "--key", key()});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(pack({"verify", file()}).code, 0) << "signed by its author still";

    // Nor may another key lock it, which would make that key its author.
    const std::string unexpired = readAll(file());
    r = pack({"lock", file(), "--key", path("attacker.key"), "--password-file", path("password")});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("cannot lock it"), std::string::npos) << r.err;
    EXPECT_EQ(readAll(file()), unexpired);
}

TEST_F(PackCli, TheTrustListIsWhatNamesAnAuthor) {
    // Issue 21 item 6.
    ASSERT_EQ(pack({"create", file(), "--manifest", path("src/manifest.json"), "--key", key()}).code, 0);
    // The manifest's author is a claim until the signer is trusted under that name.
    Result r = pack({"inspect", file()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.out.find("\" by Dr Test"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("its manifest says by Dr Test (a claim"), std::string::npos) << r.out;
    EXPECT_EQ(inspect()["authorVerified"], false);

    // A bare file name for the trust list is one in the current folder.
    const fs::path cwd = fs::current_path();
    fs::current_path(dir_);
    r = pack({"trust", file(), "--trusted", "tl.json"});
    fs::current_path(cwd);
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(fs::exists(path("tl.json")));
    r = pack({"inspect", file(), "--trusted", path("tl.json")});
    EXPECT_NE(r.out.find("\"Valves\" by Dr Test\n"), std::string::npos) << r.out;
    EXPECT_EQ(json::parse(pack({"inspect", file(), "--json", "--trusted", path("tl.json")}).out)["authorVerified"], true);

    // The edits that name the signer ask the trust list too.
    std::ofstream(path("extra.svg")) << "<svg xmlns='http://www.w3.org/2000/svg'/>";
    r = pack({"add-media", file(), path("extra.svg"), "--key", key(), "--trusted", path("tl.json")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("signed by Dr Test ("), std::string::npos) << r.out;
    r = pack({"set-restrictions", file(), "--narratives-locked", "yes", "--key", key(), "--trusted", path("tl.json")});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("signed by Dr Test ("), std::string::npos) << r.out;

    // A second key under a name already trusted: only on purpose.
    ASSERT_EQ(pack({"keygen", "--out", path("forger.key")}).code, 0);
    ASSERT_EQ(pack({"create", path("forged.atrium"), "--manifest", path("src/manifest.json"), "--key", path("forger.key")}).code, 0);
    const std::string list = readAll(path("tl.json"));
    r = pack({"trust", path("forged.atrium"), "--trusted", path("tl.json")});
    EXPECT_EQ(r.code, 3);
    EXPECT_NE(r.err.find("you already trust Dr Test with key"), std::string::npos) << r.err;
    EXPECT_EQ(readAll(path("tl.json")), list) << "the list is unchanged";
    r = pack({"trust", path("forged.atrium"), "--trusted", path("tl.json"), "--another-key"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.out.find("also trusted as Dr Test"), std::string::npos) << r.out;
}

TEST_F(PackCli, VerifyReadsAnUnsignedPackageThrough) {
    // Issue 21 item 8: an unsigned package's entries were never read before use.
    ASSERT_EQ(pack({"create", file(), "--manifest", path("src/manifest.json")}).code, 0);
    Result r = pack({"verify", file()});
    EXPECT_EQ(r.code, 3) << "unsigned";
    EXPECT_NE(r.out.find("contents intact, unsigned"), std::string::npos) << r.out;
    // media/valve.svg holds some 60 bytes; its headers now say 20.
    std::string bytes = readAll(file());
    int patched = 0;
    for (const auto& [signature, nameAt, sizeAt] : {std::tuple{std::string("PK\x03\x04", 4), 30, 22},
                                                    std::tuple{std::string("PK\x01\x02", 4), 46, 24}})
        for (std::size_t at = bytes.find(signature); at != std::string::npos; at = bytes.find(signature, at + 4))
            if (bytes.compare(at + std::size_t(nameAt), 15, "media/valve.svg") == 0) {
                bytes[at + std::size_t(sizeAt)] = 20;
                ++patched;
            }
    ASSERT_EQ(patched, 2);
    std::ofstream(file(), std::ios::binary | std::ios::trunc) << bytes;
    r = pack({"verify", file()});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("entry 'media/valve.svg'"), std::string::npos) << r.err;
    r = pack({"extract", file(), path("out")});
    EXPECT_EQ(r.code, 2);
    EXPECT_FALSE(fs::exists(path("out"))) << "refused before anything was written";
}
