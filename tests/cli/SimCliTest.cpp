// atrium-sim run / bench as a user calls them (in-process, same code as main()).
#include "app/sim/SimCommands.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshSeries.h"
#include "sim/heart/VolumeSeries.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <numeric>
#include <optional>
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
                                "mean_neighbors", "stages_ms", "bytes_per_particle", "pressure_solver",
                                "simulated_seconds_per_wall_second", "solver_iterations_per_step"})
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
    EXPECT_TRUE(j["from_cache"].get<bool>()) << "the prepared heart (ctest's fixture), or the one the first heart bench above cached";
    EXPECT_GT(j["ms_mesh_update"].get<double>(), 0.0);
    EXPECT_GT(j["mesh_updates_per_step"].get<double>(), 0.0);
    EXPECT_GT(j["stages_ms"]["wall_update"].get<double>(), 0.0);
    EXPECT_NE(heart.err.find("heart: loading cache"), std::string::npos) << heart.err;
    fs::remove_all(cache);
}

// The divergence-free solver (DFSPH) is benchmarked on the generated scenes: its
// iterations are counted and it simulates time; the heart's blood does not run it yet.
TEST(SimCli, BenchRunsTheDivergenceFreeSolverOnTheGeneratedScenes) {
    const Result r = run(benchCommand, {"--scene", "dam-break", "--particles", "3000", "--steps", "3", "--warmup", "1",
                                        "--pressure-solver", "divergence-free", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["pressure_solver"], "divergence-free");
    EXPECT_GE(j["solver_iterations_per_step"].get<double>(), 2.0) << "the density solve iterates twice at least";
    EXPECT_GT(j["simulated_seconds_per_wall_second"].get<double>(), 0.0);

    const Result heart = run(benchCommand, {"--scene", "heart", "--pressure-solver", "divergence-free"});
    EXPECT_EQ(heart.code, 1);
    EXPECT_NE(heart.err.find("the heart's blood runs the weakly compressible solver"), std::string::npos) << heart.err;
    const Result bad = run(benchCommand, {"--scene", "dam-break", "--pressure-solver", "dfsph"});
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("--pressure-solver expects weakly-compressible or divergence-free, got 'dfsph'"), std::string::npos)
        << bad.err;
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

TEST(SimCli, HeartFourChamberPumpsTheLeftHeartAndWritesTheRightAsTheShell) {
    const fs::path cache = tempDir("heart-four-cache"), out = tempDir("heart-four-out");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    const Result r = run(heartCommand, {"--phantom", "four-chamber", "--beats", "0.005", "--particles", "2000", "--out",
                                        out.string(), "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_NEAR(j["lv_volume_ml"][0].get<double>(), 120.0, 6.0) << "the adult's ventricle";
    EXPECT_EQ(j["chambers"].size(), 1u) << "blood in the left heart only";
    EXPECT_EQ(j["shell"]["phases"], 25) << "the right heart, display only, at the phantom's phases";
    EXPECT_GT(j["shell"]["triangles"].get<int>(), 1000);
    EXPECT_TRUE(fs::exists(out / "shell.pvd"));
    fs::remove_all(out);
    fs::remove_all(cache);
}

TEST(SimCli, HeartRunsThePhantomAndReportsTheAgreedJson) {
    const fs::path cache = tempDir("heart-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1); // keep the user's cache out of it
    // Nor a shipped or prepared heart (an empty data folder): this run processes its own.
    const fs::path noHearts = tempDir("heart-no-shipped");
    fs::create_directories(noHearts);
    ::setenv("XDG_DATA_DIRS", noHearts.c_str(), 1);
    const Result r = run(heartCommand, {"--phantom", "adult", "--beats", "0.01", "--particles", "3000", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    for (const char* key : {"phases", "triangles", "lv_volume_ml", "ejection_fraction", "max_subframe_displacement_mm",
                            "particle_spacing_mm", "leaked_fraction_per_beat", "ms_per_step", "ms_mesh_update"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["phases"], 25) << "the phantom's images resolve the phases of the cycle (docs/heart-phantom.md)";
    EXPECT_EQ(j["lv_volume_ml"].size(), 25u);
    EXPECT_NEAR(j["ejection_fraction"].get<double>(), 0.6, 0.03) << "the adult phantom's EF";
    EXPECT_NEAR(j["lv_volume_ml"][0].get<double>(), 120.0, 6.0) << "the adult phantom's EDV";
    EXPECT_LT(j["max_subframe_displacement_mm"].get<double>(), 0.5 * j["particle_spacing_mm"].get<double>());
    EXPECT_FALSE(j["from_cache"].get<bool>());
    // The progress line counts the solver's steps, as its error messages do: its last
    // line names the step the run ended on.
    const std::size_t at = r.err.rfind("heart: beat ");
    ASSERT_NE(at, std::string::npos) << r.err;
    const std::size_t stepAt = r.err.find(", step ", at);
    ASSERT_NE(stepAt, std::string::npos) << r.err.substr(at);
    EXPECT_EQ(std::stoull(r.err.substr(stepAt + 7)), j["last_step"].get<std::uint64_t>()) << r.err.substr(at);
    EXPECT_GT(j["last_step"].get<std::uint64_t>(), j["steps"].get<std::uint64_t>()) << "the filling's steps count too";
    // What a reader needs to check the physiology from outside (issue 22): the cycle, each
    // valve's disc, and beyond the aortic valve the Windkessel's pressure at the phases of
    // the volumes, whose mean is (R + Zc) times the mean ejection (its net charge over a
    // period is zero; Westerhof et al. 2009), with R = 1.1 and Zc = 0.055 mmHg s/mL.
    EXPECT_NEAR(j["cycle_seconds"].get<double>(), 60.0 / 72.0, 1e-9) << "the adult phantom beats at 72 bpm";
    const auto& lv = j["chambers"][0];
    std::optional<nlohmann::json> aortic;
    for (const auto& v : lv["valves"]) {
        EXPECT_EQ(v["center_mm"].size(), 3u);
        EXPECT_GT(v["area_mm2"].get<double>(), 50.0) << v.dump();
        if (v["role"] == "outflow") aortic = v;
        else EXPECT_FALSE(v.contains("downstream_pressure_mmhg")) << "only beyond an outflow valve";
    }
    ASSERT_TRUE(aortic.has_value()) << lv.dump();
    const auto pressure = (*aortic)["downstream_pressure_mmhg"].get<std::vector<double>>();
    ASSERT_EQ(pressure.size(), lv["volume_ml"].size());
    const double stroke = lv["stroke_volume_ml"].get<double>();
    const double meanPressure = std::accumulate(pressure.begin(), pressure.end(), 0.0) / double(pressure.size());
    EXPECT_NEAR(meanPressure, (1.1 + 0.055) * stroke / j["cycle_seconds"].get<double>(), 0.02 * meanPressure);
    // The lumped model's chamber pressure at the same phases, and what the blood showed
    // over the beat run (a hundredth of a beat here: its first sample): the ventricle's
    // mean pressure, each valve's speed at its plane, the density error.
    EXPECT_EQ(lv["model_pressure_mmhg"].size(), lv["volume_ml"].size());
    ASSERT_FALSE(lv["pressure_mmhg"].empty());
    EXPECT_TRUE(lv["pressure_mmhg"][0].is_number());
    EXPECT_EQ(lv["blood_to_wall_volume"].size(), lv["pressure_mmhg"].size());
    EXPECT_TRUE((*aortic)["peak_speed_m_s"].is_number());
    EXPECT_FALSE((*aortic)["speed_p95_m_s"].empty());
    EXPECT_LT(j["density_error"]["p99_max"].get<double>(), 0.2) << "the blood at rest before the beat";
    // A second start reads the processed heart from the cache.
    const Result again = run(heartCommand, {"--phantom", "adult", "--beats", "0.01", "--particles", "3000", "--json"});
    ASSERT_EQ(again.code, 0) << again.err;
    EXPECT_TRUE(nlohmann::json::parse(again.out)["from_cache"].get<bool>());
    fs::remove_all(cache);
    fs::remove_all(noHearts);
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
    // A closed blood pool that changes volume is refused (it has no way out): at an EF
    // of 0.08 the pool (ventricle, atrium and aorta) changes by under 5 %.
    p.ejectionFraction = 0.08;
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

/// A ventricle-like series: a sphere of radius `radius(k)` per phase with holes cut
/// around the points `holes` (direction from the centre, radius of the hole in mm).
void writeSphereSeries(const fs::path& dir, const std::string& stem, int phases, const std::function<float(int)>& radius,
                       const std::vector<std::pair<atrium::sph::Vec3, float>>& holes, atrium::sph::Vec3 centre = {}) {
    for (int k = 0; k < phases; ++k) {
        const float r = radius(k);
        atrium::sph::TriangleMesh m = atrium::sph::TriangleMesh::icosphere(centre, r, 3);
        std::erase_if(m.triangles, [&](const auto& t) {
            for (const auto& [direction, size] : holes) {
                // The same triangles in every phase: judged on the unit sphere.
                const atrium::sph::Vec3 mid = (m.vertices[t[0]] + m.vertices[t[1]] + m.vertices[t[2]]) * (1.f / 3.f) - centre;
                if (length(normalized(mid) - normalized(direction)) * 30.f < size) return true;
            }
            return false;
        });
        char name[64];
        std::snprintf(name, sizeof name, "_%02d.vtp", k);
        heart::writeMesh(m, dir / (stem + name));
    }
}

TEST(SimCli, HeartMakesTheOpeningsOfAMeshSeriesValves) {
    // One opening alone: a two-way valve to a reservoir. The run says what each opening
    // became, and the JSON reports the chamber.
    const fs::path dir = tempDir("heart-open"), cache = tempDir("heart-open-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    fs::create_directories(dir);
    writeSphereSeries(dir, "lv", 4, [](int k) { return 30.f - 3.f * float(k % 3); }, {{{0.f, 0.f, 1.f}, 8.f}});
    const Result r = run(heartCommand, {"--meshes", (dir / "lv_%02d.vtp").string(), "--beats", "0.005", "--particles",
                                        "1000", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_NE(r.err.find("two-way valve"), std::string::npos) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["chambers"].size(), 1u);
    const auto& lv = j["chambers"][0];
    EXPECT_EQ(lv["name"], "lv");
    ASSERT_EQ(lv["valves"].size(), 1u);
    EXPECT_EQ(lv["valves"][0]["role"], "two-way");
    EXPECT_EQ(lv["volume_ml"].size(), 4u);
    EXPECT_EQ(lv["leaked"].get<double>(), j["leaked"].get<double>()) << "a lone chamber's leaks are the heart's";
    EXPECT_TRUE(lv["leaked_ml_per_beat"].is_number());
    EXPECT_GT(lv["ejection_fraction"].get<double>(), 0.2);
    EXPECT_TRUE(j.contains("lv_volume_ml")) << "a chamber named lv is the LV";
    EXPECT_EQ(j["holes_capped"].get<int>(), 0) << "the opening became a valve, not a cap";
    // --fill emitter fills through the opening's reservoir; --shell adds a display-only
    // surface written beside the wall.
    const fs::path out = tempDir("heart-open-out");
    const Result filled = run(heartCommand, {"--meshes", (dir / "lv_%02d.vtp").string(), "--fill", "emitter",
                                             "--shell", (dir / "lv_%02d.vtp").string(), "--out", out.string(),
                                             "--beats", "0.005", "--particles", "1000", "--json"});
    ASSERT_EQ(filled.code, 0) << filled.err;
    const auto f = nlohmann::json::parse(filled.out);
    EXPECT_GE(f["emitted"].get<double>(), f["particles_at_beat_start"].get<double>()) << "all its blood came in";
    EXPECT_GT(f["stages_ms"]["emit"].get<double>(), 0.0) << "the reservoir's emitter is timed";
    EXPECT_GT(f["stages_ms"]["boundary"].get<double>(), 0.0);
    // The particles asked for are met within 5 %, or the JSON says why not.
    const double met = f["particles_at_beat_start"].get<double>() / f["particles_asked"].get<double>();
    EXPECT_TRUE(std::fabs(met - 1.0) <= 0.05 || f.contains("particles_note")) << filled.out;
    EXPECT_EQ(f["shell"]["phases"], 4);
    EXPECT_TRUE(fs::exists(out / "shell.pvd"));
    fs::remove_all(out);
    // A still (single-file) mesh keeps its hole capped, as before valves.
    const Result still = run(heartCommand, {"--meshes", (dir / "lv_00.vtp").string(), "--beats", "0.005",
                                            "--particles", "1000", "--json"});
    ASSERT_EQ(still.code, 0) << still.err;
    EXPECT_EQ(nlohmann::json::parse(still.out)["holes_capped"].get<int>(), 1);
    EXPECT_NE(still.err.find("1 holes capped"), std::string::npos) << still.err;
    fs::remove_all(dir);
    fs::remove_all(cache);
}

TEST(SimCli, HeartReportsEachChamberOfSeveralSeries) {
    // Two ventricles side by side, each its own series with two openings: the larger the
    // inflow by rule; the second's roles swapped with --valves and named with --chamber.
    const fs::path dir = tempDir("heart-two"), cache = tempDir("heart-two-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    fs::create_directories(dir);
    const auto radius = [](int k) { return 28.f - 4.f * float(k % 3); };
    const std::vector<std::pair<atrium::sph::Vec3, float>> holes = {{{0.5f, 0.f, 1.f}, 9.f}, {{-0.5f, 0.f, 1.f}, 6.f}};
    writeSphereSeries(dir, "left", 4, radius, holes);
    writeSphereSeries(dir, "right", 4, radius, holes, {80.f, 0.f, 0.f});
    const Result r = run(heartCommand, {"--meshes", (dir / "left_%02d.vtp").string(), "--meshes",
                                        (dir / "right_%02d.vtp").string(), "--chamber", "RV", "--valves",
                                        "outflow,inflow", "--beats", "0.005", "--particles", "1500", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    ASSERT_EQ(j["chambers"].size(), 2u);
    EXPECT_EQ(j["chambers"][0]["name"], "left");
    EXPECT_EQ(j["chambers"][1]["name"], "RV");
    EXPECT_EQ(j["chambers"][0]["valves"][0]["role"], "inflow") << "the larger opening";
    EXPECT_EQ(j["chambers"][1]["valves"][0]["role"], "outflow") << "--valves: the larger is the outflow";
    for (const auto& c : j["chambers"]) {
        EXPECT_GT(c["stroke_volume_ml"].get<double>(), 20.0);
        EXPECT_TRUE(c.contains("end_diastole"));
        EXPECT_TRUE(c["valves"][0].contains("out_ml_per_beat"));
        EXPECT_TRUE(c["leaked"].is_null()) << "not attributed to a chamber: said so";
    }
    EXPECT_TRUE(j.contains("leaks_note"));
    EXPECT_TRUE(j.contains("lv_volume_ml")) << "'left' names the LV";
    // A repeated option is never silently ignored; --chamber belongs after its --meshes.
    EXPECT_EQ(run(heartCommand, {"--beats", "1", "--beats", "2"}).code, 1);
    EXPECT_EQ(run(heartCommand, {"--chamber", "LV", "--meshes", (dir / "left_%02d.vtp").string()}).code, 1);
    EXPECT_EQ(run(heartCommand, {"--meshes", (dir / "left_%02d.vtp").string(), "--chamber", "A", "--chamber", "B"}).code, 1);
    // A folder holding several series is refused, naming them.
    const Result folder = run(heartCommand, {"--meshes", dir.string(), "--beats", "0.005"});
    EXPECT_EQ(folder.code, 2);
    EXPECT_NE(folder.err.find("left (4 files)"), std::string::npos) << folder.err;
    EXPECT_NE(folder.err.find("right (4 files)"), std::string::npos) << folder.err;
    // ... which the viewer's mesh dialog splits into chambers by stem instead.
    const std::vector<heart::ChamberSeries> split = heart::chambersInDirectory(dir.string());
    ASSERT_EQ(split.size(), 2u);
    EXPECT_EQ(split[0].name, "left");
    EXPECT_EQ(split[1].pattern, (dir / "right_%02d.vtp").string());
    fs::remove_all(dir);
    fs::remove_all(cache);
}

TEST(SimCli, HeartRefusesAClosedSeriesThatSqueezes) {
    // A closed chamber whose volume falls by 27 % would squeeze its blood to 1.4 rho0:
    // refused before the first step, saying why; without an opening there is nothing
    // to fill through either.
    const fs::path dir = tempDir("heart-closed"), cache = tempDir("heart-closed-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    fs::create_directories(dir);
    writeSphereSeries(dir, "lv", 2, [](int k) { return 30.f - 3.f * float(k); }, {});
    const Result r = run(heartCommand, {"--meshes", (dir / "lv_%02d.vtp").string(), "--beats", "0.005", "--json"});
    EXPECT_EQ(r.code, 2);
    EXPECT_NE(r.err.find("is closed"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("Refused before the first step"), std::string::npos) << r.err;
    const Result fill = run(heartCommand, {"--meshes", (dir / "lv_%02d.vtp").string(), "--fill", "emitter"});
    EXPECT_EQ(fill.code, 2);
    EXPECT_NE(fill.err.find("has no opening"), std::string::npos) << fill.err;
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

TEST(SimCli, HeartRefillsTheAtriumWhenAsked) {
    const Result bad = run(heartCommand, {"--venous-refill", "1.5"});
    EXPECT_EQ(bad.code, 1);
    EXPECT_NE(bad.err.find("--venous-refill"), std::string::npos) << bad.err;
    // The refilling venous return runs from the beat's start (sph::Solver::setEmitterRefill,
    // whose own test holds what it adds): through the first systole here.
    const fs::path cache = tempDir("heart-refill-cache");
    ::setenv("XDG_CACHE_HOME", cache.c_str(), 1);
    const Result r = run(heartCommand, {"--venous-refill", "0.95", "--beats", "0.3", "--particles", "2000", "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_GT(nlohmann::json::parse(r.out)["particles"].get<double>(), 1000.0);
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
    p.ejectionFraction = 0.08; // a closed pool that changes by more than 5 % is refused
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
