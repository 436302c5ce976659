#pragma once
// The simulation on its own thread. It steps a HeartSimulation as fast as the backend
// allows and publishes a snapshot of the blood and the wall at most every
// `publishIntervalMs`; the renderer takes the latest one when it draws. Neither side
// ever waits for the other: publishing swaps a shared pointer under a mutex held for a
// pointer copy, so the renderer keeps drawing its snapshot while the next one fills.

#include "sim/heart/HeartSimulation.h"
#include "widgets/view/BloodSource.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace atrium::widgets {

struct RunnerSettings {
    heart::HeartSimulationSettings simulation;
    double cycleSeconds = 0.8;
    double publishIntervalMs = 30;
    /// On a blow-up, start the blood again (counted in restarts()) instead of stopping.
    bool restartAfterBlowUp = true;
    /// Blow-ups in a row, each within two heart cycles of its start, after which the
    /// runner stops (Failed) and failure() says what to change: a heart whose blood blows
    /// up at once (a mesh in metres, say) is not restarted forever.
    int maxRestarts = 3;
    /// CPU threads the simulation may use; 0 = all but one (at least one), so that
    /// drawing - on Mesa's software rasteriser, drawing is CPU work too - keeps a core.
    int threads = 0;
};

class SimulationRunner : public BloodSource {
public:
    enum class State { Preparing, Running, Paused, Failed };

    /// Starts the thread, which builds the blood (seeding and relaxation take a few
    /// seconds, abandoned at once when the runner is destroyed) and then runs. `heart` is shared so that the runner may outlive the
    /// caller's handle.
    SimulationRunner(std::shared_ptr<const heart::MovingHeartMesh> heart, heart::HeartAnatomy anatomy,
                     RunnerSettings settings, bool startPaused = false);
    ~SimulationRunner() override;
    SimulationRunner(const SimulationRunner&) = delete;
    SimulationRunner& operator=(const SimulationRunner&) = delete;

    /// The latest published snapshot; null until the first one.
    std::shared_ptr<const BloodSnapshot> latest() const override;
    /// Increases with every publication (cheap check for "anything new?").
    std::uint64_t publications() const override { return publications_.load(); }

    /// Asks the thread to stop (at its next step or preparation report) without
    /// waiting; the destructor then joins it quickly.
    void requestStop() override;
    void setPaused(bool paused) override;
    bool paused() const override { return paused_.load(); }
    /// While paused: advance one sub-step and publish.
    void stepOnce() override;
    double particleSpacingMm() const override { return settings_.simulation.particleSpacingMm; }
    std::string status() const override;
    /// Lets the heart beat on (resuming it if paused) until it reaches the cycle phase
    /// `phase` (0..1), then pauses there: a narrative node that freezes the heart at
    /// end-systole. A later call, or setPaused(), replaces a hold not yet reached.
    void holdAtPhase(double phase) override;
    /// The phase a hold is waiting for, if any.
    std::optional<double> pendingHold() const override;
    /// Lowers the simulation thread's priority for good (Linux nice +5): for a software
    /// rasteriser, which draws on the same cores, so that the view stays fluid at the
    /// price of simulation steps (docs/PERFORMANCE.md). Unprivileged users cannot raise
    /// it back, so there is no undo; a new runner starts at normal priority.
    void yieldToDrawing() override;
    /// The simulation thread's nice value (0 before it runs).
    int threadNiceness() const;

    State state() const { return state_.load(); }
    /// While Preparing: the fraction of the blood's relaxation done (0..1).
    double preparation() const { return preparation_.load(); }
    /// Why the simulation stopped (a construction error, or a blow-up when restarts are
    /// off); empty otherwise.
    std::string failure() const;
    /// Blow-ups after which the blood was started again, and the last one's message.
    int restarts() const;
    std::string lastBlowUp() const;
    const RunnerSettings& settings() const { return settings_; }

private:
    void run();
    void publish(const heart::HeartSimulation& sim, double stepsPerSecond, double realTimeFactor);
    void publishWall(const sph::TriangleMesh& meshMm);

    std::shared_ptr<const heart::MovingHeartMesh> heart_;
    heart::HeartAnatomy anatomy_;
    RunnerSettings settings_;

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::shared_ptr<const BloodSnapshot> latest_;
    std::string failure_;
    int restarts_ = 0;
    int restartsInARow_ = 0;
    std::string lastBlowUp_;
    std::atomic<std::uint64_t> publications_{0};
    std::atomic<bool> paused_{false};
    std::atomic<double> holdPhase_{-1.0}; // < 0: no hold pending
    std::atomic<bool> stop_{false};
    std::atomic<int> pendingSteps_{0};
    std::atomic<State> state_{State::Preparing};
    std::atomic<double> preparation_{0.0};
    std::atomic<bool> yieldToDrawing_{false};
    std::atomic<int> threadId_{0}; // the simulation thread's kernel id, once it runs
    void applyPriority();
    std::uint64_t wallTopology_ = 0; // of lastWallTriangles_
    std::vector<std::uint32_t> lastWallTriangles_;
    std::jthread thread_;
};

} // namespace atrium::widgets
