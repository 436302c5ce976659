#include "widgets/flow/FlowBaker.h"

#include <utility>

namespace atrium::widgets {

FlowBaker::FlowBaker(QWidget* dialogParent)
    : BackgroundTask(dialogParent, "Baking a real-time beat of the blood", Qt::NonModal) {
    connect(this, &BackgroundTask::succeeded, this, [this] {
        // Taken first: a handler of baked() may start the next bake, which sets result_.
        const auto result = std::exchange(result_, nullptr);
        if (result && result->beat) Q_EMIT baked(result->beat, result->fromCache);
    });
}

bool FlowBaker::start(Request request, const QString& detail) {
    if (busy()) return false;
    auto result = std::make_shared<Result>();
    const bool started = BackgroundTask::start([request = std::move(request), result](Progress& progress) {
        const std::filesystem::path file =
            request.cacheDirectory.empty() ? std::filesystem::path() : heart::flowCacheFile(request.cacheDirectory, request.key);
        std::error_code ec;
        if (!file.empty() && std::filesystem::exists(file, ec)) {
            progress.report("reading the cache", 0.0);
            try {
                auto beat = std::make_shared<heart::BakedBeat>(heart::BakedBeat::load(file));
                if (beat->key == request.key) {
                    result->beat = std::move(beat);
                    result->fromCache = true;
                    return;
                }
            } catch (const heart::BakedBeatError&) {
                // A damaged cache entry is baked again and replaced.
            }
        }
        auto beat = std::make_shared<heart::BakedBeat>(
            heart::bakeBeat(*request.heart, request.cycleSeconds, request.anatomy, request.simulation, request.bake,
                            request.key, [&progress](double f) {
                                progress.report(f < 0.05 ? "preparing the blood" : "simulating", f);
                                return true;
                            }));
        if (!file.empty()) {
            try {
                beat->save(file);
            } catch (const heart::BakedBeatError&) {
                // Not kept (a full disk, a read-only cache): it plays all the same.
            }
        }
        result->beat = std::move(beat);
    }, detail);
    if (started) {
        result_ = result;
        dialog()->setObjectName("bakeProgress");
    }
    return started;
}

} // namespace atrium::widgets
