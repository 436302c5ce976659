#include "widgets/HeartLoader.h"

namespace atrium::widgets {
namespace {

sph::Aabb cycleBounds(const heart::MovingHeartMesh& mesh) {
    sph::Aabb b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    std::vector<sph::Vec3> v;
    for (int f = 0; f < mesh.frameCount(); ++f) {
        mesh.verticesAt(f, v);
        for (const sph::Vec3& p : v) {
            b.lo = componentMin(b.lo, p);
            b.hi = componentMax(b.hi, p);
        }
    }
    return b;
}

} // namespace

QString sourceLabel(const heart::HeartSource& s) {
    switch (s.kind) {
    case heart::HeartSource::Kind::Phantom: return QString::fromStdString("phantom " + s.phantomPreset);
    case heart::HeartSource::Kind::Volumes: return QString::fromStdString("volumes " + s.pattern);
    case heart::HeartSource::Kind::Meshes: {
        std::string patterns;
        for (const heart::ChamberSeries& c : s.chambers) patterns += (patterns.empty() ? "" : ", ") + c.pattern;
        return QString::fromStdString("meshes " + patterns);
    }
    }
    return {};
}

HeartLoader::HeartLoader(QWidget* dialogParent) : BackgroundTask(dialogParent, "Loading the heart", Qt::WindowModal) {
    connect(this, &BackgroundTask::succeeded, this, [this] {
        if (result_ && *result_) Q_EMIT loaded(std::move(*result_));
        result_.reset();
    });
}

bool HeartLoader::start(const heart::HeartSource& source) {
    if (busy()) return false;
    auto result = std::make_shared<std::shared_ptr<LoadedHeart>>();
    const bool started = BackgroundTask::start(
        [source, result](Progress& progress) {
            auto out = std::make_shared<LoadedHeart>();
            out->source = source;
            out->mesh = std::make_shared<const heart::MovingHeartMesh>(
                heart::loadHeart(source, heart::PipelineSettings::forBlood(), &out->report,
                                 [&](const std::string& stage, double f) { progress.report(stage, f); }));
            out->anatomy = out->report.anatomy; // the phantom's valves, or a mesh series' openings
            out->boundsMm = cycleBounds(*out->mesh);
            *result = std::move(out);
        },
        sourceLabel(source));
    if (started) {
        result_ = result;
        dialog()->setObjectName("loadProgress");
    }
    return started;
}

} // namespace atrium::widgets
