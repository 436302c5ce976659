#pragma once
// Bakes a beat of the current heart's blood for real-time playback (heart::bakeBeat)
// on a worker thread, behind a progress dialog with Cancel that the user can leave
// open while looking on (BackgroundTask, non-modal). A bake is kept in the heart cache
// under its key (heart::flowCacheKey: the heart and every setting that changes the
// blood), so that asking again for the same heart and settings loads it at once.

#include "sim/heart/BakedBeat.h"
#include "widgets/flow/BackgroundTask.h"

#include <filesystem>
#include <memory>

namespace atrium::widgets {

class FlowBaker : public BackgroundTask {
    Q_OBJECT
public:
    explicit FlowBaker(QWidget* dialogParent);

    /// What to bake: the heart, its anatomy, the blood's settings and cycle, and the
    /// key and cache folder of the result (empty folder: no cache).
    struct Request {
        std::shared_ptr<const heart::MovingHeartMesh> heart;
        heart::HeartAnatomy anatomy;
        heart::HeartSimulationSettings simulation;
        double cycleSeconds = 0.8;
        heart::BakeSettings bake;
        std::string key;
        std::filesystem::path cacheDirectory;
    };
    /// Loads the cached bake of `request.key`, or bakes (and caches) it. False when a
    /// bake is already running.
    bool start(Request request, const QString& detail = {});

Q_SIGNALS:
    /// `fromCache`: read from the cache rather than baked now.
    void baked(std::shared_ptr<const atrium::heart::BakedBeat> beat, bool fromCache);

private:
    struct Result {
        std::shared_ptr<const heart::BakedBeat> beat;
        bool fromCache = false;
    };
    std::shared_ptr<Result> result_;
};

} // namespace atrium::widgets
