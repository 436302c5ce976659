#pragma once
// What the atrium-sim commands (SimCommands.cpp: run, bench; HeartCommand.cpp: heart,
// phantom-meshes) share: their option parser, the progress line on stderr, the exit
// codes of SimCommands.h for each kind of error, the solver's figures as JSON, and a
// heart loaded with its blood settings. Internal to app/sim.

#include "sim/heart/HeartAnatomy.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/HeartSimulation.h"
#include "sim/sph/Solver.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <iomanip>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

namespace atrium::app {

/// A mistake on the command line: exit 1 with the usage text.
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
void applyMemoryLimit(const Options& o);

/// Cycle lengths --cycle accepts: heart rates of 12 to 300 bpm.
constexpr double kMinCycleSeconds = 0.2, kMaxCycleSeconds = 5.0;

/// --scale F or --units mm|cm|m|um: millimetres per unit of the heart's files.
double scaleFrom(const Options& o);

/// --backend cpu|cuda (default cpu).
sph::BackendKind backendFrom(const Options& o);

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
nlohmann::json stagesJson(const sph::StageTimes& st, double steps);
/// The solver's step, time, particle count, density errors and particle accounting.
nlohmann::json statsJson(const sph::Solver& solver);

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
LoadedHeart loadHeartShowingProgress(const heart::HeartSource& source, std::ostream& err);

/// Blood-scene settings for about `particles` particles: the spacing (mm) that fills
/// the heart's whole blood pool at its first pose (ventricle, atrium and aortic root)
/// with that many lattice points. Seeding keeps those at least a margin inside the
/// wall, so somewhat fewer particles start.
heart::HeartSimulationSettings bloodSettings(const LoadedHeart& h, std::size_t particles, sph::BackendKind backend);

/// The blood `settings` asks for must fit the memory budget and the neighbour grid's
/// limit (GridLimits.h); otherwise std::invalid_argument (exit 2) names the heart and what
/// to change.
void requireFeasibleBlood(const LoadedHeart& h, const heart::HeartSimulationSettings& settings,
                          const heart::HeartSource& source, std::size_t particles);

/// Runs `body`, turning what it throws into the exit codes of SimCommands.h and a
/// message on `err` (the usage text after a UsageError).
int guarded(std::ostream& err, const std::function<int()>& body);

} // namespace atrium::app
