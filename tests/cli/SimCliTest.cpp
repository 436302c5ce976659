// atrium-sim run / bench as a user calls them (in-process, same code as main()).
#include "app/sim/SimCommands.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPhantom.h"
#include "sim/heart/MeshSeries.h"
#include "sim/heart/VolumeSeries.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace atrium::app;
namespace heart = atrium::heart;
namespace fs = std::filesystem;

namespace {

struct Result {
    int code;
    std::string out, err;
};

Result run(int (*command)(const std::vector<std::string>&, std::ostream&, std::ostream&), std::vector<std::string> args) {
    std::ostringstream out, err;
    const int code = command(args, out, err);
    return {code, out.str(), err.str()};
}

fs::path tempDir(const std::string& name) {
    const fs::path d = fs::temp_directory_path() / ("atrium-cli-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    return d;
}

} // namespace

TEST(SimCli, RunWritesSnapshotsAndStatsLines) {
    const fs::path out = tempDir("run");
    const Result r = run(runCommand, {std::string(ATRIUM_CONTENT_DIR) + "/scenes/hydrostatic.json", "--steps", "20",
                                      "--every", "10", "--out", out.string()});
    ASSERT_EQ(r.code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
        const auto j = nlohmann::json::parse(line);
        for (const char* key : {"particles", "mean_density_error", "max_density_error", "max_speed", "kinetic_energy"})
            EXPECT_TRUE(j.contains(key)) << key;
        EXPECT_TRUE(fs::exists(j.at("file").get<std::string>()));
        ++count;
    }
    EXPECT_EQ(count, 3) << "steps 0, 10 and 20";
    std::ifstream pvd(out / "particles.pvd");
    std::stringstream text;
    text << pvd.rdbuf();
    EXPECT_NE(text.str().find("particles_00000020.vtp"), std::string::npos);
    // A .vtp is VTK XML PolyData with the expected arrays.
    std::ifstream vtp(out / "particles_00000010.vtp");
    std::stringstream head;
    head << vtp.rdbuf();
    for (const char* tag : {"<VTKFile type=\"PolyData\"", "Name=\"velocity\"", "Name=\"density\"", "Name=\"pressure\""})
        EXPECT_NE(head.str().find(tag), std::string::npos) << tag;
    fs::remove_all(out);
}

TEST(SimCli, BadSceneNamesFileAndField) {
    const fs::path dir = tempDir("bad");
    fs::create_directories(dir);
    const fs::path file = dir / "broken.json";
    std::ofstream(file) << R"({"parameters": {"kernelRadius": "big"}})";
    const Result r = run(runCommand, {file.string(), "--steps", "5"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("broken.json"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("kernelRadius"), std::string::npos) << r.err;
    const Result missing = run(runCommand, {(dir / "nope.json").string(), "--steps", "5"});
    EXPECT_EQ(missing.code, 2);
    EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
    fs::remove_all(dir);
}

TEST(SimCli, UsageErrorsExitOne) {
    EXPECT_EQ(run(runCommand, {"scene.json"}).code, 1) << "no --steps";
    EXPECT_EQ(run(runCommand, {"scene.json", "--steps", "ten"}).code, 1);
    EXPECT_EQ(run(benchCommand, {"--backend", "opencl"}).code, 1);
    EXPECT_EQ(run(benchCommand, {"--frobnicate"}).code, 1);
    EXPECT_EQ(run(benchCommand, {"--scene", "teapot", "--particles", "100"}).code, 2);
}

TEST(SimCli, BenchPrintsTheAgreedJson) {
    const fs::path cache = tempDir("bench-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1); // the heart scene's pipeline: keep the user's cache out of it
    for (const char* scene : {"dam-break", "pulsing-sphere", "heart"}) {
        const Result r = run(benchCommand, {"--scene", scene, "--particles", "3000", "--steps", "3", "--warmup", "1", "--json"});
        ASSERT_EQ(r.code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        for (const char* key : {"backend", "device", "particles", "steps", "ns_per_particle_step", "neighbor_pairs_per_s",
                                "mean_neighbors", "stages_ms", "bytes_per_particle"})
            EXPECT_TRUE(j.contains(key)) << key;
        for (const char* stage : {"grid", "density", "force", "integrate", "boundary", "wall_update"})
            EXPECT_TRUE(j["stages_ms"].contains(stage)) << stage;
        EXPECT_EQ(j["backend"], "cpu");
        EXPECT_EQ(j["scene"], scene);
        EXPECT_NEAR(j["particles"].get<double>(), 3000.0, 900.0) << scene;
        EXPECT_GT(j["mean_neighbors"].get<double>(), 10.0) << "h = 2 spacings gives ~30 neighbours in the bulk";
        EXPECT_LT(j["mean_neighbors"].get<double>(), 40.0);
    }
    // The heart scene is the phantom's blood scene: the wall is re-posed while it runs,
    // and the pipeline's stages show on the progress line.
    const Result heart = run(benchCommand, {"--scene", "heart", "--particles", "3000", "--steps", "3", "--warmup", "0", "--json"});
    ASSERT_EQ(heart.code, 0) << heart.err;
    const auto j = nlohmann::json::parse(heart.out);
    EXPECT_TRUE(j["from_cache"].get<bool>()) << "the first heart bench above built and cached it";
    EXPECT_GT(j["ms_mesh_update"].get<double>(), 0.0);
    EXPECT_GT(j["mesh_updates_per_step"].get<double>(), 0.0);
    EXPECT_GT(j["stages_ms"]["wall_update"].get<double>(), 0.0);
    EXPECT_NE(heart.err.find("heart: loading cache"), std::string::npos) << heart.err;
    fs::remove_all(cache);
}

TEST(SimCli, CudaBackendRunsOrFailsClearly) {
    const Result r = run(benchCommand, {"--scene", "dam-break", "--particles", "500", "--steps", "1", "--backend", "cuda"});
    if (r.code == 0) { // a GPU is present: then the run must really have used it
        EXPECT_NE(r.out.find("\"backend\":\"cuda\""), std::string::npos) << r.out;
        return;
    }
    EXPECT_EQ(r.code, 4);
    EXPECT_NE(r.err.find("CUDA"), std::string::npos) << r.err;
}

TEST(SimCli, HeartRunsThePhantomAndReportsTheAgreedJson) {
    const fs::path cache = tempDir("heart-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1); // keep the user's cache out of it
    const Result r = run(heartCommand, {"--phantom", "adult", "--beats", "0.01", "--particles", "3000", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char* key : {"phases", "triangles", "lv_volume_ml", "ejection_fraction", "max_subframe_displacement_mm",
                            "particle_spacing_mm", "leaked_fraction_per_beat", "ms_per_step", "ms_mesh_update"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["phases"], 10);
    EXPECT_EQ(j["lv_volume_ml"].size(), 10u);
    EXPECT_NEAR(j["ejection_fraction"].get<double>(), 0.6, 0.03) << "the adult phantom's EF";
    EXPECT_NEAR(j["lv_volume_ml"][0].get<double>(), 120.0, 6.0) << "the adult phantom's EDV";
    EXPECT_LT(j["max_subframe_displacement_mm"].get<double>(), 0.5 * j["particle_spacing_mm"].get<double>());
    EXPECT_FALSE(j["from_cache"].get<bool>());
    // A second start reads the processed heart from the cache.
    const Result again = run(heartCommand, {"--phantom", "adult", "--beats", "0.01", "--particles", "3000", "--json"});
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_TRUE(nlohmann::json::parse(again.out)["from_cache"].get<bool>());
    fs::remove_all(cache);
}

TEST(SimCli, HeartCutsVolumesAtTheIsovalueGivenOrSuggested) {
    // A coarse phantom written as a volume series, as a scan would come: without
    // --isovalue the histogram's suggestion is used and reported; a higher one (blood is
    // the brighter side) gives a smaller blood pool.
    const fs::path dir = tempDir("heart-volumes"), cache = tempDir("heart-volumes-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    fs::create_directories(dir);
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 2.0;
    p.phases = 4;
    heart::writeVolumeSeries(heart::HeartPhantom(p).generate(), (dir / "heart_%02d.vti").string());
    const std::string pattern = (dir / "heart_%02d.vti").string();
    const Result suggested = run(heartCommand, {"--volumes", pattern, "--beats", "0.005", "--particles", "1000", "--json"});
    ASSERT_EQ(suggested.code, 0) << suggested.err;
    const auto s = nlohmann::json::parse(suggested.out);
    ASSERT_TRUE(s["isovalue"].is_number());
    const double iso = s["isovalue"].get<double>(), higher = iso * 1.15;
    const Result chosen = run(heartCommand, {"--volumes", pattern, "--isovalue", std::to_string(higher), "--beats",
                                             "0.005", "--particles", "1000", "--json"});
    ASSERT_EQ(chosen.code, 0) << chosen.err;
    const auto c = nlohmann::json::parse(chosen.out);
    EXPECT_NEAR(c["isovalue"].get<double>(), higher, 1e-3 * higher);
    EXPECT_LT(c["blood_pool_volume_ml"][0].get<double>(), s["blood_pool_volume_ml"][0].get<double>());
    EXPECT_EQ(run(heartCommand, {"--phantom", "adult", "--isovalue", "300"}).code, 1) << "--isovalue without --volumes";
    fs::remove_all(dir);
    fs::remove_all(cache);
}

TEST(SimCli, HeartSaysWhenItCappedOpenMeshes) {
    // A ventricle mesh series open where the valves were (here: a sphere with the fan
    // of one vertex removed, in two phases) is closed by capping, and the run says so.
    const fs::path dir = tempDir("heart-open"), cache = tempDir("heart-open-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    fs::create_directories(dir);
    for (int k = 0; k < 2; ++k) {
        atrium::sph::TriangleMesh m = atrium::sph::TriangleMesh::icosphere({0.f, 0.f, 0.f}, 30.f - 3.f * float(k), 3);
        std::erase_if(m.triangles, [](const auto& t) { return t[0] == 0 || t[1] == 0 || t[2] == 0; });
        heart::writeMesh(m, dir / ("open_" + std::to_string(k) + ".vtp"));
    }
    const Result r = run(heartCommand, {"--meshes", (dir / "open_%d.vtp").string(), "--beats", "0.005", "--particles",
                                        "1000", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["holes_capped"].get<int>(), 2) << "one hole per phase";
    EXPECT_NE(r.err.find("2 holes capped"), std::string::npos) << r.err;
    fs::remove_all(dir);
    fs::remove_all(cache);
}

TEST(SimCli, HeartWritesSnapshotsOfTheBloodAndTheWall) {
    const fs::path cache = tempDir("heart-out-cache"), out = tempDir("heart-out");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    const Result r = run(heartCommand, {"--beats", "0.01", "--particles", "2000", "--out", out.string(),
                                        "--outputs-per-beat", "300", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto snapshots = nlohmann::json::parse(r.out)["snapshots"].get<std::size_t>();
    EXPECT_GE(snapshots, 3u) << "300 a beat over 0.01 beat, and one at the start";
    std::size_t particleFiles = 0, wallFiles = 0;
    for (const auto& e : fs::directory_iterator(out)) {
        const std::string name = e.path().filename().string();
        particleFiles += name.rfind("particles_", 0) == 0 ? 1 : 0;
        if (name.rfind("wall_", 0) == 0) {
            ++wallFiles;
            std::ifstream in(e.path());
            const std::string head((std::istreambuf_iterator<char>(in)), {});
            EXPECT_NE(head.find("NumberOfPolys=\"1"), std::string::npos) << name << ": the wall's triangles";
        }
    }
    EXPECT_EQ(particleFiles, snapshots);
    EXPECT_EQ(wallFiles, snapshots);
    EXPECT_TRUE(fs::exists(out / "particles.pvd"));
    EXPECT_TRUE(fs::exists(out / "wall.pvd"));
    fs::remove_all(cache);
    fs::remove_all(out);
}

TEST(SimCli, HeartCanFillThroughTheAtrialInflow) {
    // Poyart 2016, 3.5.6: the still heart filled from the atrium before it beats. All its
    // blood then came through the emitter, and none of it leaked.
    const fs::path cache = tempDir("heart-fill-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    const Result r = run(heartCommand, {"--fill", "emitter", "--beats", "0.01", "--particles", "2000", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["fill"], "emitter");
    EXPECT_GT(j["particles"].get<double>(), 1000.0) << "the heart holds its blood";
    EXPECT_GE(j["emitted"].get<double>(), j["particles"].get<double>()) << "every particle came in through the inflow";
    EXPECT_EQ(j["leaked_fraction_per_beat"].get<double>(), 0.0);
    fs::remove_all(cache);
}

TEST(SimCli, HeartNamesTheMissingInput) {
    EXPECT_EQ(run(heartCommand, {"--phantom", "adult", "--fill", "poured"}).code, 1) << "unknown fill";
    EXPECT_EQ(run(heartCommand, {"--outputs-per-beat", "5"}).code, 1) << "snapshots without --out";
    const Result r = run(heartCommand, {"--volumes", "/nonexistent/heart_%02d.vti", "--beats", "0.01"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("/nonexistent"), std::string::npos) << r.err;
    EXPECT_EQ(run(heartCommand, {"--phantom", "adult", "--meshes", "x"}).code, 1) << "two sources";
    EXPECT_EQ(run(heartCommand, {"--phantom", "nosuch"}).code, 2) << "unknown preset";
}

TEST(SimCli, HeartBakesABeatTheViewerCanPlay) {
    const fs::path dir = tempDir("heart-bake"), cache = tempDir("heart-bake-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    fs::create_directories(dir);
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 2.0;
    p.phases = 4;
    heart::writeVolumeSeries(heart::HeartPhantom(p).generate(), (dir / "heart_%02d.vti").string());
    const std::string pattern = (dir / "heart_%02d.vti").string(), file = (dir / "beat.atriumflow").string();
    const Result r = run(heartCommand, {"--volumes", pattern, "--particles", "600", "--bake", file, "--settle-beats",
                                        "0", "--frames-per-beat", "4", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["frames_per_beat"], 4);
    EXPECT_NEAR(j["bytes_per_particle_frame"].get<double>(), 16.0, 1.0);
    EXPECT_GT(j["bake_seconds_per_beat"].get<double>(), 0.0);
    const heart::BakedBeat beat = heart::BakedBeat::load(file);
    EXPECT_EQ(beat.framesPerBeat(), 4);
    EXPECT_GT(beat.particles(0), 100u);
    EXPECT_NE(beat.key.find("heart-"), std::string::npos) << "the key names the heart's cache entry";
    EXPECT_NE(r.err.find("baking 100%"), std::string::npos) << "progress on stderr";

    EXPECT_EQ(run(heartCommand, {"--frames-per-beat", "4"}).code, 1) << "--frames-per-beat without --bake";
    EXPECT_EQ(run(heartCommand, {"--bake", file, "--beats", "2"}).code, 1);
    EXPECT_EQ(run(heartCommand, {"--bake", file, "--frames-per-beat", "1"}).code, 1);
    fs::remove_all(dir);
    fs::remove_all(cache);
}
