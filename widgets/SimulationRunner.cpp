#include "widgets/SimulationRunner.h"

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
} // namespace

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
                // Keep the lecture going: start the blood again, and say why on the HUD.
                std::lock_guard lock(mutex_);
                ++restarts_;
                lastBlowUp_ = e.what();
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
    snap->wallVertexMm.reserve(3 * meshMm.vertices.size());
    for (const sph::Vec3& v : meshMm.vertices) snap->wallVertexMm.insert(snap->wallVertexMm.end(), {v.x, v.y, v.z});
    snap->wallTriangles.reserve(3 * meshMm.triangles.size());
    for (const auto& t : meshMm.triangles) snap->wallTriangles.insert(snap->wallTriangles.end(), t.begin(), t.end());
    snap->wallTopology = ++wallTopology_;
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
    sph::HostParticles host;
    solver.read(sph::FieldAll, host);

    auto snap = std::make_shared<BloodSnapshot>();
    const std::size_t n = host.position.size();
    snap->positionMm.resize(3 * n);
    snap->speed.resize(n);
    snap->densityError.resize(n);
    snap->pressure.resize(n);
    const float rho0 = solver.restDensity();
    for (std::size_t i = 0; i < n; ++i) {
        snap->positionMm[3 * i + 0] = 1000.f * host.position[i].x;
        snap->positionMm[3 * i + 1] = 1000.f * host.position[i].y;
        snap->positionMm[3 * i + 2] = 1000.f * host.position[i].z;
        snap->speed[i] = sph::length(host.velocity[i]);
        snap->densityError[i] = i < host.density.size() ? 100.f * (host.density[i] / rho0 - 1.f) : 0.f;
        snap->pressure[i] = i < host.pressure.size() ? host.pressure[i] / kPascalPerMmHg : 0.f;
    }
    if (const sph::TriangleMesh* wall = solver.wallMesh()) {
        snap->wallVertexMm.resize(3 * wall->vertices.size());
        for (std::size_t v = 0; v < wall->vertices.size(); ++v) {
            snap->wallVertexMm[3 * v + 0] = 1000.f * wall->vertices[v].x;
            snap->wallVertexMm[3 * v + 1] = 1000.f * wall->vertices[v].y;
            snap->wallVertexMm[3 * v + 2] = 1000.f * wall->vertices[v].z;
        }
        snap->wallTriangles.resize(3 * wall->triangles.size());
        for (std::size_t t = 0; t < wall->triangles.size(); ++t)
            for (int c = 0; c < 3; ++c) snap->wallTriangles[3 * t + c] = wall->triangles[t][c];
        if (snap->wallTriangles != lastWallTriangles_) {
            ++wallTopology_;
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
