#pragma once
// Where the blood the view draws comes from (ARCHITECTURE.md, "Data flow in one frame",
// step 3): the live simulation on its own thread (SimulationRunner), or a baked beat
// played back at the true heart rate (BakedFlowPlayer). Both hand the renderer the same
// BloodSnapshot; the view asks for the latest one each frame and never waits.

#include "widgets/view/ColorMap.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace atrium::heart {
struct BloodFrame;
}
namespace atrium::sph {
struct TriangleMesh;
}

namespace atrium::widgets {

/// What the renderer draws for one moment of the blood. Millimetres throughout (the
/// heart's frame); the colouring values are in the units the legend shows.
struct BloodSnapshot {
    std::vector<float> positionMm;   ///< xyz per particle
    std::vector<float> speed;        ///< m/s per particle
    std::vector<float> densityError; ///< rho/rho0 - 1 per particle, in %
    std::vector<float> pressure;     ///< mmHg per particle
    std::vector<float> wallVertexMm; ///< xyz per wall vertex
    std::vector<std::uint32_t> wallTriangles;
    std::uint64_t wallTopology = 0;  ///< changes whenever wallTriangles change (nextWallTopology)

    std::uint64_t step = 0;
    double simulatedSeconds = 0;
    double stepsPerSecond = 0;       ///< wall-clock rate over the last second
    /// Simulated seconds per wall-clock second over the last second (1: real time;
    /// 0: not measured yet).
    double realTimeFactor = 0;
    bool baked = false;              ///< played back from a baked beat, not simulated now
    std::string bakedOrigin;         ///< where that beat comes from ("the lecture"); empty: baked here
    /// Blood let in by the atrial inflow, taken out by the outlet beyond the aorta, and
    /// lost through the wall, since the blood started (particles).
    std::uint64_t emitted = 0, drained = 0, leaked = 0;
    double cyclePhase = 0;           ///< 0..1 over the heart cycle
    double heartRateBpm = 0;
    bool filling = false;            ///< before the beat starts
    std::string backend;
    std::size_t particles() const { return positionMm.size() / 3; }
    /// The per-particle values that colour the blood by `q`; null for plain blood.
    const std::vector<float>* values(ColorQuantity q) const {
        switch (q) {
        case ColorQuantity::Speed: return &speed;
        case ColorQuantity::DensityError: return &densityError;
        case ColorQuantity::Pressure: return &pressure;
        case ColorQuantity::Blood: break;
        }
        return nullptr;
    }
    /// Takes the blood of `frame` (the solver's units) in the units above.
    void setBlood(const heart::BloodFrame& frame);
    /// Takes `mesh` as the wall, its vertices times `toMm` (1000 for metres).
    void setWall(const sph::TriangleMesh& mesh, float toMm);
};

/// A new value for BloodSnapshot::wallTopology, never handed out before in this process.
std::uint64_t nextWallTopology();

class BloodSource {
public:
    virtual ~BloodSource() = default;
    /// The latest snapshot; null until the first one.
    virtual std::shared_ptr<const BloodSnapshot> latest() const = 0;
    /// Increases with every new snapshot (cheap check for "anything new?").
    virtual std::uint64_t publications() const = 0;
    /// The view's frame clock: `seconds` of wall-clock time passed since the last call.
    virtual void advance(double seconds) { (void)seconds; }
    virtual void setPaused(bool paused) = 0;
    virtual bool paused() const = 0;
    /// While paused: one time step (live) or one frame (baked) on.
    virtual void stepOnce() = 0;
    /// Lets the heart beat on (resuming it if paused) until it reaches cycle phase
    /// `phase` (0..1), then pauses there (a narrative node freezing it at end-systole).
    /// A later call, or setPaused(), replaces a hold not yet reached.
    virtual void holdAtPhase(double phase) = 0;
    /// The phase a hold is waiting for, if any.
    virtual std::optional<double> pendingHold() const = 0;
    /// Blood particle spacing (mm): the size the spheres are drawn at.
    virtual double particleSpacingMm() const = 0;
    /// What the blood is doing, for the HUD ("preparing the blood: 40 %", "paused");
    /// empty when there is nothing to say.
    virtual std::string status() const = 0;
    /// Stop soon, without waiting (see SimulationRunner::requestStop).
    virtual void requestStop() {}
    /// Drawing happens on the CPU here (software OpenGL): leave it the cores.
    virtual void yieldToDrawing() {}
};

} // namespace atrium::widgets
