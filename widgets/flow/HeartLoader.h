#pragma once
// Loading a heart (heart::loadHeart: read or generate, extract, interpolate, cache) on a
// worker thread, behind a progress dialog that paints while it works and has a Cancel
// button (BackgroundTask). The window's current heart keeps beating meanwhile; only
// when the new one is ready does the caller swap it in, so that a failed or cancelled
// load leaves the previous heart running.

#include "sim/heart/HeartPipeline.h"
#include "sim/heart/HeartSimulation.h"
#include "sim/heart/ValveLeaflets.h"
#include "widgets/flow/BackgroundTask.h"
#include "widgets/window/CardiacCyclePanel.h"
#include "widgets/view/ViewAnnotations.h"

#include <memory>
#include <string>

namespace atrium::widgets {

/// A loaded heart with what the window needs to show it.
struct LoadedHeart {
    heart::HeartSource source;
    std::shared_ptr<const heart::MovingHeartMesh> mesh;
    std::string identity;          ///< heart::heartIdentity: what a baked flow must have been baked in
    heart::PipelineReport report;
    heart::HeartAnatomy anatomy;   ///< valves, inflow and outlet (phantoms only)
    sph::Aabb boundsMm;            ///< of the wall (and the shell) over the whole cycle
    CardiacCycle cycle;            ///< chamber volumes and valves over the cycle
    std::vector<ChamberLabel> labels; ///< LV, LA, Ao where the anatomy is known; RA, RV, PA with a right heart shell
    /// The valves' leaflets to show, timed by `cycle`'s valves (phantoms; empty: none).
    std::vector<heart::LeafletValve> leaflets;
    /// A display-only surface around the heart (its epicardium, or the four-chamber
    /// phantom's right heart when no shellPattern is given), no blood; null: none.
    std::shared_ptr<const heart::MovingHeartMesh> shell;
    std::string shellPattern;
    /// Why the shell asked for could not be loaded (the heart still is); empty: none.
    std::string shellError;
};

/// The phantom a new start opens (no heart asked for, none remembered): the adult left
/// heart, its blood simulated, with an aortic arch and the right heart as a shell.
inline constexpr const char* kDefaultPhantomPreset = "four-chamber";

/// Human-readable name of a source, e.g. "phantom adult", "meshes /data/heart".
QString sourceLabel(const heart::HeartSource& source);

class HeartLoader : public BackgroundTask {
    Q_OBJECT
public:
    /// `dialogParent` owns the progress dialog (the window).
    explicit HeartLoader(QWidget* dialogParent);
    /// Starts loading `source`, with the display-only shell of the mesh series
    /// `shellPattern` (empty: none), unless a load is already running (then returns false).
    bool start(const heart::HeartSource& source, const std::string& shellPattern = {});

Q_SIGNALS:
    void loaded(std::shared_ptr<const atrium::widgets::LoadedHeart> heart);

private:
    std::shared_ptr<std::shared_ptr<LoadedHeart>> result_;
};

} // namespace atrium::widgets
