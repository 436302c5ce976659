#include "app/sim/SimCommands.h"

#include "app/sim/CommandSupport.h"

#include "app/sim/BenchmarkScenes.h"
#include "app/sim/ParticleSnapshotWriter.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/HeartSimulation.h"
#include "sim/heart/MeshSeries.h"
#include "sim/heart/BeatProbe.h"
#include "io/AtomicFile.h"
#include "io/MemoryBudget.h"
#include "sim/sph/GridLimits.h"
#include "sim/sph/SceneFile.h"
#include "sim/sph/Solver.h"
#include "sim/sph/WallDistanceField.h"

#include <nlohmann/json.hpp>
#include <tbb/info.h>

#include <algorithm>
#include <numeric>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <map>
#include <memory>
#include <numbers>
#include <optional>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace atrium::app {

std::string usage() {
    return "usage:\n"
           "  atrium-sim run SCENE.json --steps N [--backend cpu|cuda] [--out DIR] [--every K]\n"
           "      Runs a scene (format: docs/scene-format.md). Every K steps (default N/10) prints a JSON\n"
           "      stats line and, with --out, writes DIR/particles_<step>.vtp and DIR/particles.pvd (ParaView).\n"
           "  atrium-sim bench --scene dam-break|pulsing-sphere|heart --particles N [--steps S] [--backend cpu|cuda]\n"
           "                   [--pressure-solver weakly-compressible|divergence-free] [--json]\n"
           "      Times S steps (default 100) after a warm-up and prints one JSON object, with the\n"
           "      simulated seconds per wall second. heart is the default\n"
           "      scene of `atrium-sim heart` (adult phantom, cached) with about N particles.\n"
           "  atrium-sim heart [--phantom NAME | --volumes PATTERN [--isovalue V] |\n"
           "                    --meshes PATTERN [--chamber NAME] [--valves ROLES] [--meshes ...]] [--shell PATTERN]\n"
           "                   [--beats B] [--particles N] [--backend cpu|cuda] [--cycle SECONDS] [--fill seeded|emitter]\n"
           "                   [--units mm|cm|m|um | --scale F] [--sound-speed C0] [--venous-refill F]\n"
           "                   [--out DIR [--outputs-per-beat N]]\n"
           "                   [--json]\n"
           "      Builds (or loads from the cache) the moving heart, fills it with about N particles of blood\n"
           "      and runs B beats (default 1); prints one JSON object with each chamber's volumes, valve\n"
           "      flows and end-diastoles, and what its last beat showed: each chamber's pressure, each\n"
           "      valve's speed, the density error (docs/physiology.md). --sound-speed: c0 in m/s.\n"
           "      --venous-refill F: the phantom's venous return also refills its atrium's blood where it\n"
           "      has thinned below F x rest density (0.95 keeps the ventricle full in rapid filling; 0: off,\n"
           "      the default; docs/physiology.md).\n"
           "      Phantoms: adult, athlete, heart-failure, child, aortic-stenosis, four-chamber,\n"
           "                mitral-regurgitation\n"
           "      (the adult with an aortic arch, and its right heart as a display-only shell, built and\n"
           "      written only with --out).\n"
           "      Volumes are cut at --isovalue V (blood brighter than wall), or at the value suggested\n"
           "      by their intensity histogram; the JSON gives the one used.\n"
           "      --meshes once per chamber (LV, RV; the same phase count). The openings of an open series\n"
           "      become valves: the larger of two is the inflow, one alone is two-way; --valves ROLES\n"
           "      (e.g. outflow,inflow: inflow, outflow, two-way or wall per opening, largest first) or a\n"
           "      sidecar STEM.valves.json overrides that; --chamber NAME names it (default: the file stem).\n"
           "      A closed series whose volume changes is refused (the blood would have no way out).\n"
           "      --shell PATTERN adds a display-only surface (the epicardium), written with --out; it\n"
           "      replaces the four-chamber phantom's right heart.\n"
           "      Files in other units than millimetres: --units cm|m|um or --scale F (mm per unit); a heart\n"
           "      outside 10-500 mm across is refused with the scale that would fit. --cycle: 0.2 to 5 s.\n"
           "      --fill seeded (default) places settled blood at once; emitter fills through the inflow\n"
           "      opening with the heart still first (Poyart 2016, 3.5.6; about a simulated second).\n"
           "      --out writes N (default 20) snapshots a beat: DIR/particles_<step>.vtp, DIR/wall_<step>.vtp\n"
           "      (and DIR/shell_<step>.vtp) and their collections particles.pvd and wall.pvd (ParaView).\n"
           "      --bake FILE [--frames-per-beat F] [--settle-beats S] simulates S beats (default 1), then\n"
           "      one more, and writes F frames (default 60) of it to FILE: a baked beat the viewer plays in\n"
           "      real time (atrium --flow-file FILE; format: docs/baked-flow.md). Replaces --beats and --out.\n"
           "  atrium-sim phantom-meshes PATTERN [--phantom NAME] [--ventricle] [--json]\n"
           "      Writes the phantom's surface per phase as a mesh series (PATTERN such as lv_%02d.vtk);\n"
           "      --ventricle cuts atrium and aorta away at the valves: an open ventricle series to try\n"
           "      `heart --meshes` on (its openings become valves; give --cycle the phantom's cycle).\n"
           "  atrium-sim backends\n"
           "      Says which backends this build and machine can run.\n"
           "  Every command takes --max-memory SIZE (e.g. 8G): the most memory an input file or scene may\n"
           "      declare (default: the memory available); more is refused with exit code 2.\n";
}

int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    return guarded(err, [&] {
        const Options o = Options::parse(args, {"--steps", "--backend", "--out", "--every", "--max-memory"}, {});
        applyMemoryLimit(o);
        if (o.positional.size() != 1) throw UsageError("run needs exactly one scene file");
        if (!o.get("--steps")) throw UsageError("run needs --steps N");
        const auto steps = std::uint64_t(o.integer("--steps", 0, 1));
        const auto every = std::uint64_t(o.integer("--every", std::max<long long>(1, (long long)steps / 10), 1));
        const sph::BackendKind backend = backendFrom(o);
        sph::Solver solver(sph::loadSceneFile(o.positional[0]), backend);
        std::optional<ParticleSnapshotWriter> writer;
        if (const auto dir = o.get("--out")) writer.emplace(*dir);

        err << "atrium-sim: " << solver.scene().name << " on " << solver.backendName() << " (" << solver.deviceName()
            << "), " << solver.particleCount() << " particles, rest density " << solver.restDensity() << " kg/m^3\n";
        ProgressLine progress(err, "run", steps);
        const auto output = [&] {
            nlohmann::json line = statsJson(solver);
            if (writer) {
                sph::HostParticles h;
                solver.read(sph::FieldAll, h);
                line["file"] = writer->write(h, solver.stepCount(), solver.time()).string();
            }
            out << line.dump() << "\n" << std::flush;
        };
        output();
        for (std::uint64_t i = 1; i <= steps; ++i) {
            solver.step();
            progress.update(i, solver);
            if (i % every == 0 || i == steps) output();
        }
        progress.finish();
        return 0;
    });
}

int benchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    return guarded(err, [&] {
        const Options o =
            Options::parse(args, {"--scene", "--particles", "--steps", "--backend", "--warmup", "--max-memory", "--pressure-solver"},
                           {"--json"});
        applyMemoryLimit(o);
        if (!o.positional.empty()) throw UsageError("bench takes no positional arguments");
        const std::string sceneName = o.get("--scene").value_or("dam-break");
        const auto particles = std::size_t(o.integer("--particles", 15000, 8));
        const auto steps = int(o.integer("--steps", 100, 1));
        const auto warmup = int(o.integer("--warmup", 20, 0));
        const bool json = o.get("--json").has_value();
        const sph::BackendKind backend = backendFrom(o);
        if (sceneName != "heart" && sceneName != "dam-break" && sceneName != "pulsing-sphere")
            throw std::invalid_argument("unknown benchmark scene '" + sceneName +
                                        "' (expected dam-break, pulsing-sphere or heart)");
        const std::string pressureSolver = o.get("--pressure-solver").value_or("weakly-compressible");
        if (pressureSolver != "weakly-compressible" && pressureSolver != "divergence-free")
            throw UsageError("--pressure-solver expects weakly-compressible or divergence-free, got '" + pressureSolver + "'");
        const bool divergenceFree = pressureSolver == "divergence-free";
        if (divergenceFree && sceneName == "heart")
            throw UsageError("--pressure-solver divergence-free: the heart's blood runs the weakly compressible solver "
                             "(its inflow, valves and suction rest on the equation of state); bench dam-break or "
                             "pulsing-sphere");

        // "heart": the default blood scene of `atrium-sim heart` (adult phantom, seeded
        // and relaxed, the beat starting at end-diastole); the generated scenes otherwise.
        std::optional<LoadedHeart> loaded;
        std::unique_ptr<heart::HeartSimulation> heartSim;
        std::unique_ptr<sph::Solver> plain;
        double spacingMm = 0.0;
        double poseBuildMs = 0.0; // heart: mean time to build one pose of the wall
        if (sceneName == "heart") {
            loaded.emplace(loadHeartShowingProgress(heart::HeartSource::fromPreset("adult"), err));
            heart::HeartSimulationSettings hs = bloodSettings(*loaded, particles, backend);
            hs.topUpSeconds = 0.0; // time the beat from end-diastole, as before the top-up existed
            spacingMm = hs.particleSpacingMm;
            heartSim = std::make_unique<heart::HeartSimulation>(loaded->moving, loaded->report.cycleSeconds,
                                                                loaded->anatomy, hs);
            // Every beat after the first restores the wall's poses instead of building
            // them; build them all first, so that the steps timed are such a beat's.
            const auto p0 = std::chrono::steady_clock::now();
            int shown = -10;
            heartSim->prepareWallPoses([&](double fraction) {
                if (int(100 * fraction) < shown + 10) return;
                shown = int(100 * fraction);
                err << "bench heart: building the wall's poses " << shown << "%\n" << std::flush;
            });
            const std::size_t built = heartSim->wallPoseStats().keptPoses;
            poseBuildMs = built ? std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - p0).count() /
                                      double(built)
                                : 0.0;
        } else {
            sph::Scene scene = benchmarkScene(sceneName, particles);
            if (divergenceFree) scene.parameters.pressureSolver = sph::PressureSolver::DivergenceFree;
            plain = std::make_unique<sph::Solver>(std::move(scene), backend);
        }
        sph::Solver& solver = heartSim ? heartSim->solver() : *plain;
        const auto step = [&] { heartSim ? heartSim->step() : solver.step(); };

        // The stages come from `steps` profiled steps; the time per step from as many
        // further steps run as a user's do, unprofiled (on a GPU, timing every stage
        // splits a kernel and waits after each stage). The wall's poses count over both.
        ProgressLine progress(err, "bench " + sceneName, std::uint64_t(warmup + 2 * steps));
        for (int i = 0; i < warmup; ++i) {
            step();
            progress.update(std::uint64_t(i + 1), solver);
        }
        const double meshMs0 = heartSim ? heartSim->meshUpdateMs() : 0.0;
        const std::uint64_t meshUpdates0 = heartSim ? heartSim->meshUpdates() : 0;
        const double beats0 = heartSim ? heartSim->beats() : 0.0;
        solver.synchronize();
        solver.setProfiling(true);
        solver.resetStageTimes();
        std::uint64_t profiledPairs = 0;
        for (int i = 0; i < steps; ++i) {
            step();
            profiledPairs += solver.lastNeighbourPairs();
            progress.update(std::uint64_t(warmup + i + 1), solver);
        }
        solver.synchronize();
        solver.setProfiling(false);
        std::uint64_t pairs = 0, particleSteps = 0;
        long solverIterations = 0;
        const double simulated0 = solver.time();
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < steps; ++i) {
            particleSteps += solver.particleCount();
            step();
            pairs += solver.lastNeighbourPairs();
            solverIterations += solver.lastPressureSolves().divergenceIterations + solver.lastPressureSolves().densityIterations;
            progress.update(std::uint64_t(warmup + steps + i + 1), solver);
        }
        solver.synchronize();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        progress.finish();

        const sph::StageTimes st = solver.stageTimes();
        const double meanParticles = double(particleSteps) / steps;
        nlohmann::json r = {
            {"scene", sceneName},
            {"backend", solver.backendName()},
            {"device", solver.deviceName()},
            {"threads", solver.backendName() == "cpu" ? tbb::info::default_concurrency() : 0},
            {"particles", std::lround(meanParticles)},
            {"steps", steps},
            {"ms_per_step", ms / steps},
            {"ns_per_particle_step", ms * 1e6 / double(particleSteps)},
            {"pressure_solver", pressureSolver},
            {"simulated_seconds_per_wall_second", (solver.time() - simulated0) / (ms * 1e-3)},
            {"solver_iterations_per_step", divergenceFree ? double(solverIterations) / steps : 0.0},
            {"neighbor_pairs_per_s", st.force > 0 ? double(profiledPairs) / (st.force * 1e-3) : 0.0},
            {"mean_neighbors", double(pairs) / double(particleSteps)},
            {"bytes_per_particle", solver.bytesPerParticle()},
            {"stages_ms", stagesJson(st, double(steps))},
        };
        if (heartSim) {
            // One re-pose of the heart wall - a kept pose restored, as in every beat after
            // the first (also in stages_ms.wall_update, amortised per step) - and what
            // building one costs: interpolated vertices and velocities, the wall field
            // built from them and its snapshot kept.
            const std::uint64_t updates = heartSim->meshUpdates() - meshUpdates0;
            r["ms_mesh_update"] = updates ? (heartSim->meshUpdateMs() - meshMs0) / double(updates) : 0.0;
            r["mesh_updates_per_step"] = double(updates) / (2.0 * steps);
            const heart::HeartSimulation::WallPoseStats poses = heartSim->wallPoseStats();
            r["ms_wall_pose_build"] = poseBuildMs;
            r["wall_poses_per_cycle"] = heartSim->wallPosesPerCycle();
            r["wall_poses_kept"] = poses.keptPoses;
            r["wall_pose_cache_bytes"] = poses.keptBytes;
            r["particle_spacing_mm"] = spacingMm;
            r["cycle_fraction"] = {beats0, heartSim->beats()}; // the part of the beat run
            r["from_cache"] = loaded->report.fromCache;
            if (const sph::TriangleMesh* wall = solver.wallMesh()) {
                // The stages (ms) of one rebuild of the current pose's field into a field
                // built once before (allocations and topology reused): one sample.
                sph::WallDistanceField field;
                field.build(*wall, nullptr, solver.wallFieldSettings());
                field.build(*wall, nullptr, solver.wallFieldSettings());
                const sph::WallDistanceField::BuildTimes& b = field.lastBuildTimes();
                r["wall_field_last_build_ms"] = {
                    {"mesh", b.meshMs}, {"band", b.bandMs}, {"sign", b.signMs}, {"thin_cells", b.thinMs}};
                r["wall_field_thin_cells"] = field.thinCellCount();
                r["wall_field_bytes"] = field.bytes();
            }
        }
        out << (json ? r.dump() : r.dump(2)) << "\n";
        return 0;
    });
}

} // namespace atrium::app
