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

namespace {
/// How far the particles at the beat's start may be from those asked for before the
/// blood is prepared again at a corrected spacing (a second top-up: ~10 s at 15k on 2
/// cores). The phantoms land 2-4 % off on the first try (bloodSettings).
constexpr double kParticleCountTolerance = 0.05;


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
             "--settle-beats", "--max-memory", "--scale", "--units", "--sound-speed", "--venous-refill"},
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
        const std::optional<double> refill = o.number("--venous-refill");
        if (refill && !(*refill >= 0.0 && *refill <= 1.0))
            throw UsageError("--venous-refill expects a fraction of rest density in [0, 1] (0: off), got " +
                             *o.get("--venous-refill"));
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
        // spacing corrected once when it is more than kParticleCountTolerance off.
        heart::HeartSimulationSettings hs = bloodSettings(loaded, particles, backend);
        if (const auto c0 = o.number("--sound-speed")) {
            if (!(*c0 >= 1.0 && *c0 <= 200.0)) throw UsageError("--sound-speed expects m/s in 1-200");
            hs.soundSpeed = *c0;
        }
        if (refill) hs.venousReturnRefill = *refill;
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
            if (std::fabs(ratio - 1.0) <= kParticleCountTolerance || preparations == 2) break;
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
                // A leaking valve (the mitral-regurgitation preset): its orifice and the
                // lumped model's regurgitant volume; out_ml_per_beat is the blood's.
                if (v.regurgitantOrificeMm2 > 0.0) {
                    valve["regurgitant_orifice_mm2"] = v.regurgitantOrificeMm2;
                    valve["model_regurgitant_ml_per_beat"] = sim->regurgitantVolumeMl(valveIndex - 1);
                }
                // The arterial tree beyond a chamber's only outflow valve: a three-element
                // Windkessel fed by what the wall ejects forward (docs/physiology.md), at
                // the phases of volume_ml.
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
        if (std::fabs(double(atBeatStart) / double(particles) - 1.0) > kParticleCountTolerance) {
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
