#include "widgets/flow/SimulationRunner.h"

#include "sim/heart/BakedBeat.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

#include <tbb/global_control.h>

#include <sys/resource.h>
#include <unistd.h>

namespace atrium::widgets {
namespace {
constexpr float kPascalPerMmHg = 133.322f;
std::atomic<std::uint64_t> wallTopologies{0};
} // namespace

std::uint64_t nextWallTopology() { return ++wallTopologies; }

void BloodSnapshot::setBlood(const heart::BloodFrame& f) {
    const std::size_t n = f.particles();
    positionMm = f.positionMm;
    speed.resize(n);
    densityError.resize(n);
    pressure.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const float* v = &f.velocity[3 * i];
        speed[i] = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
        densityError[i] = 100.f * f.densityError[i];
        pressure[i] = f.pressure[i] / kPascalPerMmHg;
    }
}

void BloodSnapshot::setWall(const sph::TriangleMesh& mesh, float toMm) {
    wallVertexMm.resize(3 * mesh.vertices.size());
    for (std::size_t v = 0; v < mesh.vertices.size(); ++v) {
        wallVertexMm[3 * v + 0] = toMm * mesh.vertices[v].x;
        wallVertexMm[3 * v + 1] = toMm * mesh.vertices[v].y;
        wallVertexMm[3 * v + 2] = toMm * mesh.vertices[v].z;
    }
    wallTriangles.resize(3 * mesh.triangles.size());
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
        for (int c = 0; c < 3; ++c) wallTriangles[3 * t + std::size_t(c)] = mesh.triangles[t][std::size_t(c)];
}

std::string SimulationRunner::status() const {
    std::string s;
    switch (state_.load()) {
    case State::Preparing: s = "preparing the blood: " + std::to_string(int(100 * preparation_.load())) + " %"; break;
    case State::Failed: s = "stopped: " + failure().substr(0, 120); break;
    case State::Paused: s = "paused"; break;
    case State::Running:
        if (const auto snap = latest(); snap && snap->filling) s = "filling the heart";
        break;
    }
    if (const int n = restarts(); n > 0)
        s += (s.empty() ? "" : " | ") + std::string("blood restarted after ") + std::to_string(n) +
             " blow-up(s); fewer particles or a lower heart rate are steadier";
    return s;
}

SimulationRunner::SimulationRunner(std::shared_ptr<const heart::MovingHeartMesh> heart, heart::HeartAnatomy anatomy,
                                   RunnerSettings settings, bool startPaused)
    : heart_(std::move(heart)), anatomy_(std::move(anatomy)), settings_(std::move(settings)), paused_(startPaused) {
    thread_ = std::jthread([this] { run(); });
}

SimulationRunner::~SimulationRunner() { requestStop(); }

void SimulationRunner::requestStop() {
    stop_ = true;
    wake_.notify_all();
}

std::shared_ptr<const BloodSnapshot> SimulationRunner::latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
}

std::string SimulationRunner::failure() const {
    std::lock_guard lock(mutex_);
    return failure_;
}

void SimulationRunner::setPaused(bool paused) {
    holdPhase_ = -1.0;
    paused_ = paused;
    if (state_ == State::Running || state_ == State::Paused) state_ = paused ? State::Paused : State::Running;
    wake_.notify_all();
}

void SimulationRunner::holdAtPhase(double phase) {
    holdPhase_ = std::clamp(phase - std::floor(phase), 0.0, std::nextafter(1.0, 0.0));
    paused_ = false;
    if (state_ == State::Running || state_ == State::Paused) state_ = State::Running;
    wake_.notify_all();
}

std::optional<double> SimulationRunner::pendingHold() const {
    const double phase = holdPhase_.load();
    return phase >= 0.0 ? std::optional<double>(phase) : std::nullopt;
}

void SimulationRunner::stepOnce() {
    ++pendingSteps_;
    wake_.notify_all();
}

void SimulationRunner::yieldToDrawing() {
    yieldToDrawing_ = true;
    applyPriority();
}

int SimulationRunner::threadNiceness() const {
    const int tid = threadId_.load();
    return tid != 0 ? getpriority(PRIO_PROCESS, id_t(tid)) : 0;
}

void SimulationRunner::applyPriority() {
    // A thread's own nice value (Linux schedules threads, and setpriority on a thread
    // id changes that thread only). Both the caller and the thread's start may get
    // here; the second call changes nothing.
    if (const int tid = threadId_.load(); tid != 0 && yieldToDrawing_) setpriority(PRIO_PROCESS, id_t(tid), 5);
}

void SimulationRunner::run() {
    using Clock = std::chrono::steady_clock;
    threadId_ = int(gettid());
    applyPriority();
    const int threads = settings_.threads > 0 ? settings_.threads
                                              : std::max(1, int(std::thread::hardware_concurrency()) - 1);
    const tbb::global_control parallelism(tbb::global_control::max_allowed_parallelism, std::size_t(threads));
    try {
        publishWall(heart_->phaseMesh(0)); // the heart shows while its blood is prepared
        while (!stop_) {
            double simulated = 0.0; // seconds this blood ran, for the count of blow-ups in a row
            try {
                heart::HeartSimulation sim(*heart_, settings_.cycleSeconds, anatomy_, settings_.simulation,
                                           [this](double fraction) {
                                               preparation_ = fraction;
                                               return !stop_;
                                           });
                state_ = paused_ ? State::Paused : State::Running;
                publish(sim, 0.0, 0.0);

                auto lastPublish = Clock::now();
                auto rateStart = lastPublish;
                std::uint64_t rateSteps = 0;
                double stepsPerSecond = 0.0, realTimeFactor = 0.0, rateSimStart = sim.solver().time();
                while (!stop_) {
                    if (paused_ && pendingSteps_ == 0) {
                        std::unique_lock lock(mutex_);
                        wake_.wait(lock, [&] { return stop_ || !paused_ || pendingSteps_ > 0; });
                        continue;
                    }
                    const bool single = paused_ && pendingSteps_ > 0;
                    if (single) --pendingSteps_;
                    const double cyclesBefore = sim.heartTime() / settings_.cycleSeconds;
                    sim.step();
                    simulated = sim.solver().time();
                    // A hold is reached when this step carried the phase over it.
                    bool held = false;
                    if (const double hold = holdPhase_.load(); hold >= 0.0 && !sim.filling()) {
                        const double cyclesAfter = sim.heartTime() / settings_.cycleSeconds;
                        const double target = std::floor(cyclesBefore) + hold;
                        if ((cyclesBefore < target && cyclesAfter >= target) || cyclesAfter >= target + 1.0) {
                            holdPhase_ = -1.0;
                            paused_ = true;
                            state_ = State::Paused;
                            held = true;
                        }
                    }
                    ++rateSteps;
                    const auto now = Clock::now();
                    const double sinceRate = std::chrono::duration<double>(now - rateStart).count();
                    if (sinceRate >= 1.0) {
                        stepsPerSecond = double(rateSteps) / sinceRate;
                        realTimeFactor = (sim.solver().time() - rateSimStart) / sinceRate;
                        rateSteps = 0;
                        rateStart = now;
                        rateSimStart = sim.solver().time();
                    }
                    if (single || held ||
                        std::chrono::duration<double, std::milli>(now - lastPublish).count() >= settings_.publishIntervalMs) {
                        publish(sim, stepsPerSecond, realTimeFactor);
                        lastPublish = now;
                    }
                }
            } catch (const sph::SimulationBlowUp& e) {
                if (!settings_.restartAfterBlowUp) throw;
                std::lock_guard lock(mutex_);
                lastBlowUp_ = e.what();
                // A blood that ran two beats had a chance: its blow-up starts a new count.
                restartsInARow_ = simulated >= 2.0 * settings_.cycleSeconds ? 1 : restartsInARow_ + 1;
                if (restartsInARow_ > settings_.maxRestarts) {
                    // Restarting again would loop forever: stop, and say what to change.
                    failure_ = "the blood blew up " + std::to_string(restartsInARow_) +
                               " times in a row, each soon after it started (last: " + e.what() +
                               "). Fewer particles or a lower heart rate (Simulation > Parameters) are steadier; a heart "
                               "mesh must be in millimetres (--scale or --units if it is in metres)";
                    state_ = State::Failed;
                    ++publications_;
                    return;
                }
                // Keep the lecture going: start the blood again, and say why on the HUD.
                ++restarts_;
                state_ = State::Preparing;
                preparation_ = 0.0;
            }
        }
    } catch (const heart::PreparationCancelled&) {
        // Stopped while the blood settled: nothing to report.
    } catch (const std::exception& e) {
        {
            std::lock_guard lock(mutex_);
            failure_ = e.what();
        }
        state_ = State::Failed;
        ++publications_;
    }
}

int SimulationRunner::restarts() const {
    std::lock_guard lock(mutex_);
    return restarts_;
}

std::string SimulationRunner::lastBlowUp() const {
    std::lock_guard lock(mutex_);
    return lastBlowUp_;
}

void SimulationRunner::publishWall(const sph::TriangleMesh& meshMm) {
    auto snap = std::make_shared<BloodSnapshot>();
    snap->setWall(meshMm, 1.f);
    snap->wallTopology = wallTopology_ = nextWallTopology();
    lastWallTriangles_ = snap->wallTriangles;
    snap->heartRateBpm = 60.0 / settings_.cycleSeconds;
    snap->filling = true;
    {
        std::lock_guard lock(mutex_);
        latest_ = std::move(snap);
    }
    ++publications_;
}

void SimulationRunner::publish(const heart::HeartSimulation& sim, double stepsPerSecond, double realTimeFactor) {
    const sph::Solver& solver = sim.solver();
    auto snap = std::make_shared<BloodSnapshot>();
    snap->setBlood(heart::captureFrame(sim));
    if (const sph::TriangleMesh* wall = solver.wallMesh()) {
        snap->setWall(*wall, 1000.f);
        if (snap->wallTriangles != lastWallTriangles_) {
            wallTopology_ = nextWallTopology();
            lastWallTriangles_ = snap->wallTriangles;
        }
    }
    snap->wallTopology = wallTopology_;
    snap->step = solver.stepCount();
    snap->simulatedSeconds = solver.time();
    snap->stepsPerSecond = stepsPerSecond;
    snap->realTimeFactor = realTimeFactor;
    const sph::ParticleAccounting& count = solver.accounting();
    snap->emitted = count.emitted;
    snap->drained = count.removedByOutlets;
    snap->leaked = count.leaked;
    const double cycles = sim.heartTime() / settings_.cycleSeconds;
    snap->cyclePhase = cycles - std::floor(cycles);
    snap->heartRateBpm = 60.0 / settings_.cycleSeconds;
    snap->filling = sim.filling();
    snap->backend = solver.backendName();

    {
        std::lock_guard lock(mutex_);
        latest_ = std::move(snap);
    }
    ++publications_;
}

} // namespace atrium::widgets
