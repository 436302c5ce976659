#include "app/sim/SimCommands.h"

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
namespace {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// --flag value pairs and bare flags after the positional arguments. An option given
/// twice is an error (never silently ignored) unless it is `repeatable`; `sequence`
/// keeps every option in the order given, for options that belong to the one before.
struct Options {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;
    std::map<std::string, std::vector<std::string>> repeated;
    std::vector<std::pair<std::string, std::string>> sequence;

    static Options parse(const std::vector<std::string>& args, const std::vector<std::string>& withValue,
                         const std::vector<std::string>& bare, const std::vector<std::string>& repeatable = {}) {
        Options o;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a.rfind("--", 0) != 0) {
                o.positional.push_back(a);
                continue;
            }
            std::string value(1, '1');
            if (std::find(bare.begin(), bare.end(), a) != bare.end()) {
            } else if (std::find(withValue.begin(), withValue.end(), a) != withValue.end()) {
                if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
                value = args[++i];
            } else {
                throw UsageError("unknown option " + a);
            }
            if (std::find(repeatable.begin(), repeatable.end(), a) != repeatable.end()) {
                o.repeated[a].push_back(value);
                if (o.repeated[a].size() == 1) o.values[a] = value;
            } else if (!o.values.emplace(a, value).second) {
                throw UsageError(a + " is given twice");
            }
            o.sequence.emplace_back(a, value);
        }
        return o;
    }

    std::optional<std::string> get(const std::string& key) const {
        const auto it = values.find(key);
        return it == values.end() ? std::nullopt : std::optional(it->second);
    }

    long long integer(const std::string& key, long long fallback, long long minimum) const {
        const auto v = get(key);
        if (!v) return fallback;
        std::size_t used = 0;
        long long n = 0;
        try {
            n = std::stoll(*v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v->size()) throw UsageError(key + " expects an integer, got '" + *v + "'");
        if (n < minimum) throw UsageError(key + " must be at least " + std::to_string(minimum));
        return n;
    }

    /// A finite number, if given (all of the value must be one).
    std::optional<double> number(const std::string& key) const {
        const auto v = get(key);
        if (!v) return std::nullopt;
        std::size_t used = 0;
        double x = 0.0;
        try {
            x = std::stod(*v, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != v->size() || !std::isfinite(x)) throw UsageError(key + " expects a number, got '" + *v + "'");
        return x;
    }

    /// A number > 0 (`what` names its unit in the error, e.g. "seconds").
    double positive(const std::string& key, double fallback, const std::string& what) const {
        const std::optional<double> x = number(key);
        if (!x) return fallback;
        if (!(*x > 0.0)) throw UsageError(key + " expects " + what + " > 0, got '" + *get(key) + "'");
        return *x;
    }
};

/// --max-memory SIZE: the budget that declared sizes are checked against (MemoryBudget.h).
void applyMemoryLimit(const Options& o) {
    if (const auto v = o.get("--max-memory")) {
        try {
            io::setMemoryBudget(io::parseByteSize(*v), "--max-memory");
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--max-memory: ") + e.what());
        }
    }
}

/// Cycle lengths --cycle accepts: heart rates of 12 to 300 bpm.
constexpr double kMinCycleSeconds = 0.2, kMaxCycleSeconds = 5.0;

/// --scale F or --units mm|cm|m|um: millimetres per unit of the heart's files.
double scaleFrom(const Options& o) {
    if (o.get("--scale") && o.get("--units")) throw UsageError("give one of --scale and --units");
    if ((o.get("--scale") || o.get("--units")) && !o.get("--volumes") && !o.get("--meshes"))
        throw UsageError("--scale and --units go with --volumes or --meshes (the phantom is in millimetres)");
    if (const auto unit = o.get("--units")) {
        try {
            return heart::unitScale(*unit);
        } catch (const std::invalid_argument& e) {
            throw UsageError(std::string("--units: ") + e.what());
        }
    }
    return o.positive("--scale", 1.0, "a factor");
}

sph::BackendKind backendFrom(const Options& o) {
    const std::string b = o.get("--backend").value_or("cpu");
    if (b == "cpu") return sph::BackendKind::Cpu;
    if (b == "cuda") return sph::BackendKind::Cuda;
    throw UsageError("--backend expects cpu or cuda, got '" + b + "'");
}

/// A one-line progress display on the terminal; periodic lines when not a terminal.
class ProgressLine {
public:
    ProgressLine(std::ostream& err, std::string label, std::uint64_t total)
        : err_(err), label_(std::move(label)), total_(total), tty_(isatty(STDERR_FILENO) == 1),
          start_(std::chrono::steady_clock::now()) {}

    void update(std::uint64_t done, const sph::Solver& solver) {
        const int percent = total_ ? int(100 * done / total_) : 100;
        if (!tty_ && percent < lastPercent_ + 10 && done != total_) return;
        if (tty_ && done != total_ && done % 16 != 0) return;
        lastPercent_ = percent;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        std::ostringstream line;
        line << label_ << ": step " << done << "/" << total_ << " (" << percent << "%), t = " << std::setprecision(4)
             << solver.time() << " s, " << solver.particleCount() << " particles, " << std::setprecision(3)
             << (seconds > 0 ? double(done) / seconds : 0.0) << " steps/s";
        err_ << (tty_ ? "\r" : "") << line.str() << (tty_ ? "\033[K" : "\n") << std::flush;
    }

    /// For runs counted in beats: the beat reached and the solver's own step count,
    /// the one its messages (a blow-up's included) name.
    void updateBeats(double done, double total, const sph::Solver& solver) {
        const int permille = total > 0 ? int(1000 * std::min(done / total, 1.0)) : 1000;
        const bool last = done >= total;
        if (!tty_ && permille < 10 * lastPercent_ + 100 && !last) return;
        if (tty_ && !last && solver.stepCount() % 16 != 0) return;
        lastPercent_ = permille / 10;
        const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        std::ostringstream line;
        line << label_ << ": beat " << std::setprecision(3) << done << "/" << total << " (" << permille / 10
             << "%), step " << solver.stepCount() << ", t = " << std::setprecision(4) << solver.time() << " s, "
             << solver.particleCount() << " particles, " << std::setprecision(3)
             << (seconds > 0 ? double(solver.stepCount() - firstStep(solver)) / seconds : 0.0) << " steps/s";
        err_ << (tty_ ? "\r" : "") << line.str() << (tty_ ? "\033[K" : "\n") << std::flush;
    }

    void finish() {
        if (tty_) err_ << "\n";
    }

private:
    std::ostream& err_;
    std::string label_;
    std::uint64_t total_;
    bool tty_;
    int lastPercent_ = -100;
    std::chrono::steady_clock::time_point start_;
    std::optional<std::uint64_t> firstStep_;
    std::uint64_t firstStep(const sph::Solver& solver) {
        if (!firstStep_) firstStep_ = solver.stepCount();
        return *firstStep_;
    }
};

/// A solver's stage times, in ms per step over `steps` steps.
nlohmann::json stagesJson(const sph::StageTimes& st, double steps) {
    const auto perStep = [&](double v) { return steps > 0 ? v / steps : 0.0; };
    return {{"grid", perStep(st.grid)},
            {"density", perStep(st.density)},
            {"force", perStep(st.force)},
            {"integrate", perStep(st.integrate)},
            {"boundary", perStep(st.boundary)},
            {"wall_update", perStep(st.wallUpdate)},
            {"emit", perStep(st.emit)}};
}

nlohmann::json statsJson(const sph::Solver& solver) {
    const sph::SimulationStats s = solver.stats();
    const sph::ParticleAccounting& a = solver.accounting();
    return {{"step", s.step},
            {"time", s.time},
            {"particles", s.particles},
            {"mean_density_error", s.meanDensityError},
            {"max_density_error", s.maxDensityError},
            {"max_speed", s.maxSpeed},
            {"kinetic_energy", s.kineticEnergy},
            {"emitted", a.emitted},
            {"removed_by_outlets", a.removedByOutlets},
            {"leaked", a.leaked}};
}

/// A moving heart from loadHeart (read from the cache when it holds it), with what the
/// blood scene needs besides: the pipeline's report and, for a phantom, its valves,
/// inflow and outlet (scans and mesh series carry none).
struct LoadedHeart {
    heart::MovingHeartMesh moving;
    heart::PipelineReport report;
    heart::HeartAnatomy anatomy;
};

/// Runs the heart pipeline (or loads its cached result) for `source`, showing each
/// stage on a progress line on `err`.
LoadedHeart loadHeartShowingProgress(const heart::HeartSource& source, std::ostream& err) {
    const heart::PipelineSettings settings = heart::PipelineSettings::forBlood();
    heart::PipelineReport report;
    std::string lastStage;
    const bool tty = isatty(STDERR_FILENO) == 1;
    heart::MovingHeartMesh moving =
        heart::loadHeart(source, settings, &report, [&](const std::string& stage, double fraction) {
            if (stage != lastStage || tty) {
                err << (tty ? "\r" : "") << "heart: " << stage << " " << int(100 * fraction) << "%"
                    << (tty ? "\033[K" : "\n") << std::flush;
                lastStage = stage;
            }
        });
    if (tty) err << "\n";
    heart::HeartAnatomy anatomy = report.anatomy; // the phantom's valves, a mesh series' openings
    return {std::move(moving), std::move(report), std::move(anatomy)};
}

/// Blood-scene settings for about `particles` particles: the spacing (mm) that fills
/// the heart's whole blood pool at its first pose (ventricle, atrium and aortic root)
/// with that many lattice points. Seeding keeps those at least a margin inside the
/// wall, so somewhat fewer particles start.
heart::HeartSimulationSettings bloodSettings(const LoadedHeart& h, std::size_t particles, sph::BackendKind backend) {
    heart::HeartSimulationSettings settings =
        heart::HeartSimulationSettings::forParticleBudget(h.report.bloodPoolVolumeMl.front(), particles);
    settings.backend = backend;
    // Room for the inflow that a beat adds to the seeded pool, however large the budget.
    settings.maxParticles = std::max(settings.maxParticles, particles + particles / 2);
    return settings;
}

/// The blood `settings` asks for must fit the memory budget and the neighbour grid's
/// limit (GridLimits.h); otherwise std::invalid_argument (exit 2) names the heart and what
/// to change.
void requireFeasibleBlood(const LoadedHeart& h, const heart::HeartSimulationSettings& settings,
                          const heart::HeartSource& source, std::size_t particles) {
    const std::string name = source.kind == heart::HeartSource::Kind::Phantom ? "the " + source.phantomPreset + " phantom"
                                                                              : source.pattern;
    const double bytes = double(settings.maxParticles) * sph::kBytesPerParticle;
    if (!io::fitsMemoryBudget(bytes))
        throw std::invalid_argument("--particles " + std::to_string(particles) + ": the blood of " + name + " " +
                                    io::overBudgetText(bytes) + "; use fewer --particles");
    sph::Aabb box{h.moving.phaseMesh(0).vertices.front(), h.moving.phaseMesh(0).vertices.front()};
    for (int k = 0; k < h.moving.phaseCount(); ++k) {
        const sph::Aabb b = h.moving.phaseMesh(k).bounds();
        box.lo = componentMin(box.lo, b.lo);
        box.hi = componentMax(box.hi, b.hi);
    }
    // As HeartSimulation pads its domain: four kernel radii (two spacings each) a side.
    const double kernelMm = 2.0 * settings.particleSpacingMm, pad = 4.0 * kernelMm;
    box.lo -= sph::Vec3{float(pad), float(pad), float(pad)};
    box.hi += sph::Vec3{float(pad), float(pad), float(pad)};
    const double cells = sph::gridCellCount(box, kernelMm);
    if (cells > sph::kMaxGridCells) {
        std::ostringstream m;
        m << "--particles " << particles << ": " << name << " is " << std::setprecision(3) << box.size().x << " x "
          << box.size().y << " x " << box.size().z << " mm with its margin; at " << settings.particleSpacingMm
          << " mm between particles the blood's neighbour grid would need " << cells << " cells (limit "
          << std::uint64_t(sph::kMaxGridCells) << "): use fewer --particles";
        throw std::invalid_argument(m.str());
    }
}

int guarded(std::ostream& err, const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& e) {
        err << "atrium-sim: " << e.what() << "\n\n" << usage();
        return 1;
    } catch (const sph::SceneError& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 2;
    } catch (const heart::VolumeError& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 2;
    } catch (const heart::MeshError& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 2;
    } catch (const sph::SimulationBlowUp& e) {
        err << "\natrium-sim: " << e.what() << "\n";
        return 3;
    } catch (const io::WriteError& e) {
        err << "\natrium-sim: " << e.what() << "\n"; // names the file
        return 4;
    } catch (const std::exception& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 4;
    }
}

/// `atrium-sim heart --bake FILE`: bakes a beat of `loaded`'s blood with `hs` and writes
/// it; prints what it cost (baking time per beat, bytes per particle-frame).
int bakeHeart(const heart::HeartSource& source, const LoadedHeart& loaded, const heart::HeartSimulationSettings& hs,
              const heart::BakeSettings& bake, const std::string& file, bool compact, std::ostream& out,
              std::ostream& err) {
    const std::string key = heart::flowCacheKey(heart::heartIdentity(source, heart::PipelineSettings::forBlood()),
                                                loaded.report.cycleSeconds, hs, bake);
    const bool tty = isatty(STDERR_FILENO) == 1;
    int lastPercent = -1;
    const auto t0 = std::chrono::steady_clock::now();
    const heart::BakedBeat beat =
        heart::bakeBeat(loaded.moving, loaded.report.cycleSeconds, loaded.anatomy, hs, bake, key, [&](double f) {
            const int percent = int(100 * f);
            if (percent != lastPercent && (tty || percent % 10 == 0)) {
                err << (tty ? "\r" : "") << "heart: baking " << percent << "%" << (tty ? "\033[K" : "\n") << std::flush;
                lastPercent = percent;
            }
            return true;
        });
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (tty) err << "\n";
    beat.save(file);
    std::size_t particleFrames = 0;
    for (int k = 0; k < beat.framesPerBeat(); ++k) particleFrames += beat.particles(k);
    const auto bytes = std::filesystem::file_size(file);
    const nlohmann::json r = {
        {"baked", file},
        {"heart", heart::bakedHeartOf(beat)},
        {"frames_per_beat", beat.framesPerBeat()},
        {"cycle_seconds", beat.cycleSeconds},
        {"mean_particles", double(particleFrames) / beat.framesPerBeat()},
        {"particle_spacing_mm", beat.particleSpacingMm},
        {"bytes", bytes},
        {"bytes_per_particle_frame", double(bytes) / double(std::max<std::size_t>(particleFrames, 1))},
        {"position_step_mm", beat.positionStepMm()},
        {"bake_seconds", seconds},
        {"bake_seconds_per_beat", seconds / (std::ceil(bake.settleBeats) + 1.0)},
        {"backend", hs.backend == sph::BackendKind::Cuda ? "cuda" : "cpu"},
    };
    out << (compact ? r.dump() : r.dump(2)) << "\n";
    return 0;
}

} // namespace

std::string usage() {
    return "usage:\n"
           "  atrium-sim run SCENE.json --steps N [--backend cpu|cuda] [--out DIR] [--every K]\n"
           "      Runs a scene (format: docs/scene-format.md). Every K steps (default N/10) prints a JSON\n"
           "      stats line and, with --out, writes DIR/particles_<step>.vtp and DIR/particles.pvd (ParaView).\n"
           "  atrium-sim bench --scene dam-break|pulsing-sphere|heart --particles N [--steps S] [--backend cpu|cuda] [--json]\n"
           "      Times S steps (default 100) after a warm-up and prints one JSON object. heart is the default\n"
           "      scene of `atrium-sim heart` (adult phantom, cached) with about N particles.\n"
           "  atrium-sim heart [--phantom NAME | --volumes PATTERN [--isovalue V] |\n"
           "                    --meshes PATTERN [--chamber NAME] [--valves ROLES] [--meshes ...]] [--shell PATTERN]\n"
           "                   [--beats B] [--particles N] [--backend cpu|cuda] [--cycle SECONDS] [--fill seeded|emitter]\n"
           "                   [--units mm|cm|m|um | --scale F] [--sound-speed C0] [--out DIR [--outputs-per-beat N]]\n"
           "                   [--json]\n"
           "      Builds (or loads from the cache) the moving heart, fills it with about N particles of blood\n"
           "      and runs B beats (default 1); prints one JSON object with each chamber's volumes, valve\n"
           "      flows and end-diastoles, and what its last beat showed: each chamber's pressure, each\n"
           "      valve's speed, the density error (docs/physiology.md). --sound-speed: c0 in m/s.\n"
           "      Phantoms: adult, athlete, heart-failure, child, aortic-stenosis, four-chamber\n"
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
            Options::parse(args, {"--scene", "--particles", "--steps", "--backend", "--warmup", "--max-memory"}, {"--json"});
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
            plain = std::make_unique<sph::Solver>(benchmarkScene(sceneName, particles), backend);
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
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < steps; ++i) {
            particleSteps += solver.particleCount();
            step();
            pairs += solver.lastNeighbourPairs();
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

namespace {

/// The chambers of `--meshes` options, each with the `--chamber` and `--valves` that
/// follow it.
std::vector<heart::ChamberSeries> meshChambers(const Options& o) {
    std::vector<heart::ChamberSeries> chambers;
    std::vector<bool> named, ruled;
    for (const auto& [key, value] : o.sequence) {
        if (key == "--meshes") {
            chambers.push_back({value, {}, {}});
            named.push_back(false);
            ruled.push_back(false);
        } else if (key == "--chamber" || key == "--valves") {
            if (chambers.empty()) throw UsageError(key + " goes after the --meshes it names");
            const bool isName = key == "--chamber";
            std::vector<bool>& seen = isName ? named : ruled;
            if (seen.back()) throw UsageError(key + " is given twice for --meshes " + chambers.back().pattern);
            seen.back() = true;
            if (isName) {
                if (value.empty() || value.size() > 64) throw UsageError("--chamber expects a name of 1-64 characters");
                chambers.back().name = value;
            } else {
                try {
                    chambers.back().rules = heart::openingRulesFromRoles(value, "--valves " + value);
                } catch (const std::invalid_argument& e) {
                    throw UsageError(e.what());
                }
            }
        }
    }
    return chambers;
}

/// A chamber's volume per phase (ml): its own mesh's (a mesh series) or, for the
/// phantom, the part of the heart's mesh on its side of its valves.
std::vector<double> chamberVolumes(const LoadedHeart& loaded, std::size_t chamber) {
    const heart::Chamber& c = loaded.anatomy.chambers[chamber];
    if (!c.phaseVolumeMl.empty()) return c.phaseVolumeMl;
    std::vector<double> v;
    for (int k = 0; k < loaded.moving.phaseCount(); ++k)
        v.push_back(heart::ventricleVolumeMl(loaded.moving.phaseMesh(k), loaded.anatomy));
    return v;
}

nlohmann::json vecJson(sph::Vec3 v) { return nlohmann::json::array({v.x, v.y, v.z}); }

/// `curve` (evenly sampled over the cycle) at `phases` evenly spaced phases.
std::vector<double> atPhases(const std::vector<double>& curve, std::size_t phases) {
    if (curve.empty()) return {};
    std::vector<double> out;
    for (std::size_t k = 0; k < phases; ++k) out.push_back(heart::ChamberPressureCurves::at(curve, double(k) / double(phases)));
    return out;
}

/// Every `n`th of `samples`, from the first.
std::vector<double> everyNth(const std::vector<double>& samples, int n) {
    std::vector<double> out;
    for (std::size_t k = 0; k < samples.size(); k += std::size_t(n)) out.push_back(samples[k]);
    return out;
}

/// |rho/rho0 - 1| of the chambers' blood over the measured beat: the 99th percentile at
/// the phases of volume_ml, its largest, and the mean.
nlohmann::json densityErrorJson(const heart::BeatProbe& probe, int perPhase) {
    const std::vector<double>& p99 = probe.densityErrorP99();
    const std::vector<double>& mean = probe.densityErrorMean();
    return {{"p99", everyNth(p99, perPhase)},
            {"p99_max", p99.empty() ? 0.0 : *std::max_element(p99.begin(), p99.end())},
            {"mean", mean.empty() ? 0.0 : std::accumulate(mean.begin(), mean.end(), 0.0) / double(mean.size())}};
}


} // namespace

int phantomMeshesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    return guarded(err, [&] {
        const Options o = Options::parse(args, {"--phantom"}, {"--ventricle", "--json"});
        if (o.positional.size() != 1) throw UsageError("phantom-meshes needs one output pattern, e.g. lv_%02d.vtk");
        const std::string pattern = o.positional[0];
        if (pattern.find('%') == std::string::npos)
            throw UsageError("phantom-meshes: '" + pattern + "' has no frame number field (such as %02d)");
        const std::string preset = o.get("--phantom").value_or("adult");
        const bool ventricle = o.get("--ventricle").has_value();
        err << "phantom-meshes: generating the " << preset << " phantom and extracting its surfaces\n";
        const std::vector<sph::TriangleMesh> phases =
            heart::phantomSurfaces(heart::HeartPhantom::preset(preset), ventricle, heart::PipelineSettings::forBlood());
        const std::vector<std::filesystem::path> files = heart::writeMeshSeries(phases, pattern);
        nlohmann::json r = {{"phantom", preset}, {"phases", phases.size()}, {"ventricle_only", ventricle},
                            {"cycle_seconds", heart::HeartPhantom(heart::HeartPhantom::preset(preset)).cycleSeconds()},
                            {"pattern", pattern}, {"first_file", files.front().string()}};
        out << (o.get("--json") ? r.dump() : r.dump(2)) << "\n";
        return 0;
    });
}

int heartCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    return guarded(err, [&] {
        const Options o = Options::parse(
            args,
            {"--phantom", "--volumes", "--meshes", "--chamber", "--valves", "--shell", "--isovalue", "--beats",
             "--particles", "--backend", "--cycle", "--fill", "--out", "--outputs-per-beat", "--bake", "--frames-per-beat",
             "--settle-beats", "--max-memory", "--scale", "--units", "--sound-speed"},
            {"--json"}, {"--meshes", "--chamber", "--valves"});
        applyMemoryLimit(o);
        if (!o.positional.empty()) throw UsageError("heart takes no positional arguments");
        const std::string fill = o.get("--fill").value_or("seeded");
        if (fill != "seeded" && fill != "emitter")
            throw UsageError("--fill expects seeded or emitter, got '" + fill + "'");
        const int sources = int(o.get("--phantom").has_value()) + int(o.get("--volumes").has_value()) +
                            int(o.get("--meshes").has_value());
        if (sources > 1) throw UsageError("give one of --phantom, --volumes, --meshes");
        const double cycle = o.positive("--cycle", 0.8, "seconds");
        if (o.get("--cycle") && !(cycle >= kMinCycleSeconds && cycle <= kMaxCycleSeconds))
            throw UsageError("--cycle expects seconds in [0.2, 5] (a heart rate of 12 to 300 bpm), got " + *o.get("--cycle"));
        if (o.get("--cycle") && !o.get("--volumes") && !o.get("--meshes"))
            throw UsageError("--cycle goes with --volumes or --meshes: a phantom's heart rate is part of its preset");
        const double beats = o.positive("--beats", 1.0, "a number");
        const auto particles = std::size_t(o.integer("--particles", 15000, 100));
        const sph::BackendKind backend = backendFrom(o); // a typo is reported before the heart loads
        const double scale = scaleFrom(o);
        const auto outputsPerBeat = o.integer("--outputs-per-beat", 20, 1);
        if (o.get("--outputs-per-beat") && !o.get("--out")) throw UsageError("--outputs-per-beat goes with --out");
        const auto bakeFile = o.get("--bake");
        if (!bakeFile && (o.get("--frames-per-beat") || o.get("--settle-beats")))
            throw UsageError("--frames-per-beat and --settle-beats go with --bake");
        if (bakeFile && (o.get("--out") || o.get("--beats"))) throw UsageError("--bake replaces --beats and --out");
        heart::BakeSettings bake;
        bake.framesPerBeat = int(o.integer("--frames-per-beat", 60, heart::BakedBeat::kMinFrames));
        if (bake.framesPerBeat > heart::BakedBeat::kMaxFrames) throw UsageError("--frames-per-beat is at most 10000");
        if (const auto settle = o.number("--settle-beats")) {
            if (!(*settle >= 0.0)) throw UsageError("--settle-beats expects a number >= 0");
            bake.settleBeats = *settle;
        }
        std::optional<ParticleSnapshotWriter> writer;
        if (const auto dir = o.get("--out")) writer.emplace(*dir);

        heart::HeartSource source = heart::HeartSource::fromPreset(o.get("--phantom").value_or("adult"));
        std::optional<float> isovalue;
        if (const auto iso = o.number("--isovalue")) {
            if (!o.get("--volumes")) throw UsageError("--isovalue goes with --volumes");
            isovalue = float(*iso);
        }
        if (const auto v = o.get("--volumes")) source = heart::HeartSource::fromVolumes(*v, isovalue, cycle);
        if (o.get("--meshes")) source = heart::HeartSource::fromChambers(meshChambers(o), cycle);
        else if (o.get("--chamber") || o.get("--valves")) throw UsageError("--chamber and --valves go with --meshes");
        source.scale = scale;
        const LoadedHeart loaded = loadHeartShowingProgress(source, err);
        const heart::PipelineReport& report = loaded.report;
        if (report.holesCapped > 0)
            err << "heart: the meshes were open; " << report.holesCapped << " holes capped to close them\n";
        for (const heart::Chamber& c : loaded.anatomy.chambers)
            for (const heart::OpeningReport& op : c.openings)
                err << "heart: chamber " << c.name << ", opening " << op.number << " (" << std::lround(op.areaMm2)
                    << " mm^2): " << (op.role ? std::string(heart::valveRoleName(*op.role)) + " valve " + op.name : "wall")
                    << " - " << op.why << "\n";

        // A display-only shell (the epicardium): no blood, its own series.
        std::optional<heart::MovingHeartMesh> shell;
        if (const auto pattern = o.get("--shell")) shell = heart::loadShell(*pattern, cycle, scale);
        // The four-chamber's right heart: to write with --out; a bake processes it too, so
        // that the cache it leaves holds the whole heart a viewer shows (an installed
        // Atrium ships the sample lecture's bake's cache: content/CMakeLists.txt).
        else if (const auto rightHeart = source.rightHeartShell(); rightHeart && (writer || bakeFile))
            shell = heart::loadHeart(*rightHeart, heart::PipelineSettings::forShell());

        // The spacing that fills the blood pool with about the particles asked for; the
        // count at the beat's start (seeded or emitted, topped up) is checked and the
        // spacing corrected once when it is more than 2 % off.
        heart::HeartSimulationSettings hs = bloodSettings(loaded, particles, backend);
        if (const auto c0 = o.number("--sound-speed")) {
            if (!(*c0 >= 1.0 && *c0 <= 200.0)) throw UsageError("--sound-speed expects m/s in 1-200");
            hs.soundSpeed = *c0;
        }
        requireFeasibleBlood(loaded, hs, source, particles);
        if (fill == "emitter") hs.fill = heart::HeartSimulationSettings::Fill::Emitter;
        if (bakeFile) return bakeHeart(source, loaded, hs, bake, *bakeFile, o.get("--json").has_value(), out, err);
        std::unique_ptr<heart::HeartSimulation> sim;
        std::size_t atBeatStart = 0;
        int preparations = 0;
        for (;;) {
            sim = std::make_unique<heart::HeartSimulation>(loaded.moving, report.cycleSeconds, loaded.anatomy, hs);
            ++preparations;
            while (sim->filling()) sim->step();
            atBeatStart = sim->solver().particleCount();
            const double ratio = double(atBeatStart) / double(particles);
            if (std::fabs(ratio - 1.0) <= 0.02 || preparations == 2) break;
            err << "heart: " << atBeatStart << " particles at the beat's start for " << particles
                << " asked; spacing corrected from " << hs.particleSpacingMm << " mm\n";
            hs.particleSpacingMm *= std::cbrt(ratio);
        }
        const sph::Solver& solver = sim->solver();
        err << "heart: " << atBeatStart << " particles at " << hs.particleSpacingMm << " mm on " << solver.backendName()
            << "\n";

        ProgressLine progress(err, "heart", 1000);
        sim->solver().resetStageTimes(); // the beats', not the filling's
        const std::uint64_t steps0 = solver.stepCount();
        const std::uint64_t leaked0 = solver.accounting().leaked;
        double particleSum = 0.0;
        std::uint64_t samples = 0;
        const auto t0 = std::chrono::steady_clock::now();
        // Snapshots of the blood and the wall, outputsPerBeat a beat from the beat's start.
        std::size_t snapshots = 0;
        sph::TriangleMesh shellMesh;
        std::vector<sph::Vec3> shellVelocity;
        const auto writeSnapshot = [&] {
            sph::HostParticles h;
            solver.read(sph::FieldAll, h);
            sim->physiologicalPressure(h); // the pressure the viewer's legend shows
            writer->write(h, solver.stepCount(), solver.time());
            if (const sph::TriangleMesh* wall = solver.wallMesh()) writer->writeWall(*wall, solver.stepCount(), solver.time());
            if (shell) {
                shell->sample(sim->beats(), report.cycleSeconds, shellMesh, shellVelocity); // in cycles, as the wall
                for (sph::Vec3& v : shellMesh.vertices) v *= 1e-3f; // mm -> m, as the wall
                writer->writeShell(shellMesh, solver.stepCount(), solver.time());
            }
            ++snapshots;
        };
        // The last whole beat, measured as an echo lab would (BeatProbe.h): 100 samples
        // or more, a whole number per phase of volume_ml.
        const int phases = loaded.moving.phaseCount();
        std::vector<std::vector<double>> wallVolumes;
        for (std::size_t c = 0; c < loaded.anatomy.chambers.size(); ++c) wallVolumes.push_back(chamberVolumes(loaded, c));
        const int perPhase = (100 + phases - 1) / phases;
        heart::BeatProbe probe(*sim, std::max(0.0, std::floor(sim->beats() + beats) - 1.0), perPhase * phases, wallVolumes);
        sim->runBeats(beats, [&](double fraction) {
            probe.observe();
            particleSum += double(solver.particleCount());
            ++samples;
            progress.updateBeats(fraction * beats, beats, solver);
            if (writer && sim->beats() * double(outputsPerBeat) >= double(snapshots)) writeSnapshot();
        });
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        progress.finish();
        const std::uint64_t steps = solver.stepCount() - steps0;
        const double meanParticles = samples ? particleSum / double(samples) : double(solver.particleCount());
        const double beatsRun = std::max(sim->beats(), 1e-9);

        // Each chamber: volumes, its valves' flows per beat, its end-diastoles.
        nlohmann::json chambers = nlohmann::json::array();
        std::vector<double> lv;
        const std::vector<heart::HeartSimulation::ValveVolumes>& flows = sim->valveVolumes();
        std::size_t valveIndex = 0;
        for (std::size_t c = 0; c < loaded.anatomy.chambers.size(); ++c) {
            const heart::Chamber& chamber = loaded.anatomy.chambers[c];
            const std::vector<double> volumes = chamberVolumes(loaded, c);
            const double edv = *std::max_element(volumes.begin(), volumes.end());
            const double esv = *std::min_element(volumes.begin(), volumes.end());
            if (chamber.isLeftVentricle() && lv.empty()) lv = volumes;
            nlohmann::json valves = nlohmann::json::array();
            double in = 0.0, outMl = 0.0;
            const auto outflows = std::count_if(chamber.valves.begin(), chamber.valves.end(),
                                                [](const heart::Valve& v) { return v.role == heart::ValveRole::Outflow; });
            for (const heart::Valve& v : chamber.valves) {
                const heart::HeartSimulation::ValveVolumes& f = flows[valveIndex++];
                in += f.inMl;
                outMl += f.outMl;
                nlohmann::json valve = {{"name", v.name},
                                        {"role", heart::valveRoleName(v.role)},
                                        {"center_mm", vecJson(v.disc.center)},
                                        {"area_mm2", std::numbers::pi * v.disc.radius * v.disc.radius},
                                        {"in_ml_per_beat", f.inMl / beatsRun},
                                        {"out_ml_per_beat", f.outMl / beatsRun}};
                // The arterial tree beyond a chamber's only outflow valve: a three-element
                // Windkessel fed by what the wall ejects (docs/physiology.md), at the
                // phases of volume_ml.
                if (v.role == heart::ValveRole::Outflow && outflows == 1)
                    valve["downstream_pressure_mmhg"] = atPhases(sim->pressureCurves(c).downstream, volumes.size());
                // Measured in the blood over the last beat (BeatProbe): the speed at the
                // valve's plane, 95th percentile, per sample (0 while shut) and its peak.
                const heart::BeatProbe::ValveSamples& measured = probe.valves()[valveIndex - 1];
                valve["speed_p95_m_s"] = measured.speedP95;
                valve["peak_speed_m_s"] = measured.peakSpeed();
                valves.push_back(std::move(valve));
            }
            nlohmann::json openings = nlohmann::json::array();
            for (const heart::OpeningReport& op : chamber.openings)
                openings.push_back({{"number", op.number},
                                    {"name", op.name},
                                    {"role", op.role ? heart::valveRoleName(*op.role) : "wall"},
                                    {"area_mm2", op.areaMm2},
                                    {"center_mm", vecJson(op.center)},
                                    {"why", op.why}});
            nlohmann::json endDiastoles = nlohmann::json::array();
            for (const heart::HeartSimulation::EndDiastole& e : sim->endDiastoles()[c])
                endDiastoles.push_back({{"particles", e.particles}, {"mean_density", e.meanDensity}});
            chambers.push_back({{"name", chamber.name},
                                {"volume_ml", volumes},
                                {"edv_ml", edv},
                                {"esv_ml", esv},
                                // The blood's mean physiological pressure over the last
                                // beat at the phases of volume_ml, and the lumped model's.
                                {"pressure_mmhg", everyNth(probe.chambers()[c].pressureMmHg, perPhase)},
                                {"model_pressure_mmhg", atPhases(sim->pressureCurves(c).chamber, volumes.size())},
                                {"blood_to_wall_volume", everyNth(probe.chambers()[c].bloodToWall, perPhase)},
                                {"stroke_volume_ml", edv - esv},
                                {"ejection_fraction", edv > 0 ? (edv - esv) / edv : 0.0},
                                {"openings", openings},
                                {"valves", valves},
                                // What came in less what went out, per beat: ~0 once the
                                // chamber beats steadily.
                                {"net_in_ml_per_beat", (in - outMl) / beatsRun},
                                {"end_diastole", endDiastoles}});
        }
        // Leaks by chamber: the lone chamber of a mesh series holds all the blood, so its
        // leaks are the heart's. Of several chambers (or a phantom's LV, beside its atrium
        // and aorta) the solver counts the particles it found outside the wall, not where
        // they were: null, and the JSON says why.
        const std::uint64_t leaked = solver.accounting().leaked - leaked0;
        const bool loneChamber = chambers.size() == 1 && source.kind == heart::HeartSource::Kind::Meshes;
        for (nlohmann::json& c : chambers) {
            if (loneChamber) {
                c["leaked"] = leaked;
                c["leaked_ml_per_beat"] = double(leaked) * sim->particleVolumeMl() / beatsRun;
            } else {
                c["leaked"] = nullptr;
                c["leaked_ml_per_beat"] = nullptr;
            }
        }

        const heart::HeartSimulation::WallPoseStats poses = sim->wallPoseStats();
        std::string sourceName = source.kind == heart::HeartSource::Kind::Phantom
                                     ? "phantom:"
                                     : (source.kind == heart::HeartSource::Kind::Volumes ? "volumes:" : "meshes:");
        if (source.kind == heart::HeartSource::Kind::Phantom) {
            sourceName.append(source.phantomPreset);
        } else if (source.kind == heart::HeartSource::Kind::Volumes) {
            sourceName.append(source.pattern);
        } else {
            for (std::size_t c = 0; c < source.chambers.size(); ++c)
                sourceName.append((c ? "," : "") + source.chambers[c].pattern);
        }
        nlohmann::json r = {
            {"source", sourceName},
            {"cycle_seconds", report.cycleSeconds},
            {"fill", fill},
            {"phases", report.phases},
            // The isovalue used: given, or suggested from the intensity histogram (volumes).
            {"isovalue", std::isfinite(report.isovalue) ? nlohmann::json(report.isovalue) : nlohmann::json(nullptr)},
            {"triangles", {{"min", report.trianglesPerPhaseMin}, {"max", report.trianglesPerPhaseMax}}},
            {"chambers", chambers},
            {"blood_pool_volume_ml", report.bloodPoolVolumeMl},
            {"holes_capped", report.holesCapped}, // single meshes, and the extraction of volumes
            {"max_subframe_displacement_mm", report.maxSubframeDisplacementMm},
            {"particle_spacing_mm", hs.particleSpacingMm},
            {"particles_asked", particles},
            {"particles_at_beat_start", atBeatStart},
            {"particles", solver.particleCount()},
            {"particles_mean", meanParticles},
            {"beats", sim->beats()},
            // How far the blood is from incompressible over the last beat (BeatProbe):
            // |rho/rho0 - 1|, the worst sample's 99th percentile and the mean of the means.
            {"density_error", densityErrorJson(probe, perPhase)},
            {"steps", steps},
            // The solver's own count, which its messages (a blow-up's) and the progress line name.
            {"last_step", solver.stepCount()},
            {"leaked", leaked},
            {"leaked_fraction_per_beat", double(leaked) / std::max(meanParticles, 1.0) / beatsRun},
            {"removed_by_outlets", solver.accounting().removedByOutlets},
            {"emitted", solver.accounting().emitted},
            {"ms_per_step", steps ? ms / double(steps) : 0.0},
            {"ms_mesh_update", sim->meshUpdates() ? sim->meshUpdateMs() / double(sim->meshUpdates()) : 0.0},
            // The valves' share of a step: timing, planes, and the blood counted when
            // they open or close (a read-back of the particles, a few times a beat).
            {"ms_valves_per_step", steps ? sim->valveMs() / double(steps) : 0.0},
            // Where the step's time went (the CPU backend times its stages; a GPU's only
            // when profiled, so null there): the valves' planes and outlets are in
            // boundary, their reservoirs' emitters in emit.
            {"stages_ms", solver.backendName() == "cpu" ? stagesJson(solver.stageTimes(), double(steps))
                                                        : nlohmann::json(nullptr)},
            // The first beat builds each pose of the wall and keeps it (as many as the
            // memory budget holds), later beats restore them.
            {"wall_poses",
             {{"per_cycle", sim->wallPosesPerCycle()},
              {"built", poses.builds},
              {"restored", poses.restores},
              {"ms_build", poses.builds ? poses.buildMs / double(poses.builds) : 0.0},
              {"ms_restore", poses.restores ? poses.restoreMs / double(poses.restores) : 0.0},
              {"ms_restore_max", poses.restoreMaxMs},
              {"kept_bytes", poses.keptBytes}}},
            {"backend", solver.backendName()},
            {"from_cache", report.fromCache},
            {"pipeline_seconds", report.secondsTotal},
            {"snapshots", snapshots},
        };
        // The LV's figures, only where a chamber is the LV.
        if (!lv.empty()) {
            const double edv = *std::max_element(lv.begin(), lv.end()), esv = *std::min_element(lv.begin(), lv.end());
            r["lv_volume_ml"] = lv;
            r["ejection_fraction"] = edv > 0 ? (edv - esv) / edv : 0.0;
        }
        if (std::fabs(double(atBeatStart) / double(particles) - 1.0) > 0.02) {
            std::ostringstream why;
            why << atBeatStart << " particles at the beat's start for " << particles << " asked after " << preparations
                << " preparations: the blood pool's seeded lattice and its top-up do not scale exactly with the spacing";
            r["particles_note"] = why.str();
        }
        if (!loneChamber && !chambers.empty())
            r["leaks_note"] = "leaks are counted for the whole heart (leaked, leaked_fraction_per_beat): the solver "
                              "removes a particle found outside the wall without saying which chamber it left";
        if (shell) r["shell"] = {{"phases", shell->phaseCount()}, {"triangles", shell->phaseMesh(0).triangles.size()}};
        out << (o.get("--json") ? r.dump() : r.dump(2)) << "\n";
        return 0;
    });
}

} // namespace atrium::app
