#include "app/sim/SimCommands.h"

#include "app/sim/BenchmarkScenes.h"
#include "app/sim/ParticleSnapshotWriter.h"
#include "sim/sph/SceneFile.h"
#include "sim/sph/Solver.h"

#include <nlohmann/json.hpp>
#include <tbb/info.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <unistd.h>

namespace atrium::app {
namespace {

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// --flag value pairs and bare flags after the positional arguments.
struct Options {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;

    static Options parse(const std::vector<std::string>& args, const std::vector<std::string>& withValue,
                         const std::vector<std::string>& bare) {
        Options o;
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a.rfind("--", 0) != 0) {
                o.positional.push_back(a);
                continue;
            }
            if (std::find(bare.begin(), bare.end(), a) != bare.end()) {
                o.values[a] = "1";
            } else if (std::find(withValue.begin(), withValue.end(), a) != withValue.end()) {
                if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
                o.values[a] = args[++i];
            } else {
                throw UsageError("unknown option " + a);
            }
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
};

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
};

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

int guarded(std::ostream& err, const std::function<int()>& body) {
    try {
        return body();
    } catch (const UsageError& e) {
        err << "atrium-sim: " << e.what() << "\n\n" << usage();
        return 1;
    } catch (const sph::SceneError& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 2;
    } catch (const std::invalid_argument& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 2;
    } catch (const sph::SimulationBlowUp& e) {
        err << "\natrium-sim: " << e.what() << "\n";
        return 3;
    } catch (const std::exception& e) {
        err << "atrium-sim: " << e.what() << "\n";
        return 4;
    }
}

} // namespace

std::string usage() {
    return "usage:\n"
           "  atrium-sim run SCENE.json --steps N [--backend cpu|cuda] [--out DIR] [--every K]\n"
           "      Runs a scene (format: docs/scene-format.md). Every K steps (default N/10) prints a JSON\n"
           "      stats line and, with --out, writes DIR/particles_<step>.vtp and DIR/particles.pvd (ParaView).\n"
           "  atrium-sim bench --scene dam-break|heart --particles N [--steps S] [--backend cpu|cuda] [--json]\n"
           "      Times S steps (default 100) after a warm-up and prints one JSON object.\n"
           "  atrium-sim backends\n"
           "      Says which backends this build and machine can run.\n";
}

int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    return guarded(err, [&] {
        const Options o = Options::parse(args, {"--steps", "--backend", "--out", "--every"}, {});
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
        const Options o = Options::parse(args, {"--scene", "--particles", "--steps", "--backend", "--warmup"}, {"--json"});
        if (!o.positional.empty()) throw UsageError("bench takes no positional arguments");
        const std::string sceneName = o.get("--scene").value_or("dam-break");
        const auto particles = std::size_t(o.integer("--particles", 15000, 8));
        const auto steps = int(o.integer("--steps", 100, 1));
        const auto warmup = int(o.integer("--warmup", 20, 0));
        const bool json = o.get("--json").has_value();
        sph::Solver solver(benchmarkScene(sceneName, particles), backendFrom(o));
        solver.setProfiling(true);
        ProgressLine progress(err, "bench " + sceneName, std::uint64_t(warmup + steps));
        for (int i = 0; i < warmup; ++i) {
            solver.step();
            progress.update(std::uint64_t(i + 1), solver);
        }
        solver.synchronize();
        solver.resetStageTimes();
        std::uint64_t pairs = 0, particleSteps = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < steps; ++i) {
            particleSteps += solver.particleCount();
            solver.step();
            pairs += solver.lastNeighbourPairs();
            progress.update(std::uint64_t(warmup + i + 1), solver);
        }
        solver.synchronize();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        progress.finish();

        const sph::StageTimes st = solver.stageTimes();
        const double meanParticles = double(particleSteps) / steps;
        const auto perStep = [&](double v) { return v / steps; };
        nlohmann::json r = {
            {"scene", sceneName},
            {"backend", solver.backendName()},
            {"device", solver.deviceName()},
            {"threads", solver.backendName() == "cpu" ? tbb::info::default_concurrency() : 0},
            {"particles", std::lround(meanParticles)},
            {"steps", steps},
            {"ms_per_step", ms / steps},
            {"ns_per_particle_step", ms * 1e6 / double(particleSteps)},
            {"neighbor_pairs_per_s", st.force > 0 ? double(pairs) / (st.force * 1e-3) : 0.0},
            {"mean_neighbors", double(pairs) / double(particleSteps)},
            {"bytes_per_particle", solver.bytesPerParticle()},
            {"stages_ms",
             {{"grid", perStep(st.grid)},
              {"density", perStep(st.density)},
              {"force", perStep(st.force)},
              {"integrate", perStep(st.integrate)},
              {"boundary", perStep(st.boundary)},
              {"wall_update", perStep(st.wallUpdate)}}},
        };
        if (json) {
            out << r.dump() << "\n";
        } else {
            out << r.dump(2) << "\n";
        }
        return 0;
    });
}

} // namespace atrium::app
