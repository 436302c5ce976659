#include "widgets/flow/HeartLoader.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>
#include <vector>

namespace atrium::widgets {
namespace {

/// One bar across the whole load: each part (the heart, then its shell or right heart)
/// gets a share of the bar and each pipeline stage a share of its part, and the bar
/// never moves back. A bar that ran to 100 % once per stage looked finished while the
/// load went on.
class OverallProgress {
public:
    OverallProgress(BackgroundTask::Progress& progress, bool withShell) : progress_(progress), heartShare_(withShell ? 0.7 : 1.0) {}

    /// The progress callback of one part: the heart (`shell` false) or its shell,
    /// whose stages are labelled `prefix` + stage.
    heart::PipelineProgress part(bool shell, std::string prefix) {
        const double lo = shell ? heartShare_ : 0.0, hi = shell ? 1.0 : heartShare_;
        return [this, lo, hi, prefix = std::move(prefix)](const std::string& stage, double f) {
            const auto [s0, s1] = stageShare(stage);
            shown_ = std::max(shown_, lo + (hi - lo) * (s0 + (s1 - s0) * std::clamp(f, 0.0, 1.0)));
            progress_.report(prefix + stage, shown_);
        };
    }

private:
    /// The share of a part that a stage takes, by how long it takes on a phantom.
    static std::pair<double, double> stageShare(const std::string& stage) {
        namespace st = heart::stage;
        if (stage == st::generatingPhantom || stage == st::readingVolumes || stage == st::readingMeshes) return {0.0, 0.3};
        if (stage == st::extractingSurfaces) return {0.3, 0.6};
        if (stage == st::interpolating) return {0.6, 0.9};
        if (stage == st::writingCache) return {0.9, 1.0};
        return {0.0, 1.0}; // loading the cache, the whole part
    }

    BackgroundTask::Progress& progress_;
    double heartShare_;
    double shown_ = 0.0;
};

/// A chamber's volume per phase, sampled `samples` times over the cycle (periodic,
/// linear between phases).
std::vector<double> sampledOverCycle(const std::vector<double>& perPhase, int samples) {
    std::vector<double> out;
    const auto n = double(perPhase.size());
    for (int k = 0; k < samples; ++k) {
        const double x = double(k) / samples * n;
        const auto i = std::size_t(x) % perPhase.size();
        const double f = x - std::floor(x);
        out.push_back((1.0 - f) * perPhase[i] + f * perPhase[(i + 1) % perPhase.size()]);
    }
    return out;
}

/// The chamber volumes over the cycle (100 samples): the phantom's own LV and LA
/// volumes; a mesh series' chambers (the LV first, a second chamber beside it), each with
/// its openings closed flat - not the blood pool, which holds the tubes behind its valves;
/// else the blood pool the mesh encloses (hearts without valves). The valves from the
/// first volume as HeartSimulation times them; for a phantom, the chambers' places.
/// (Measuring the LV inside the mesh, as ventricleVolumeMl does, costs about a second a
/// sample: too slow for a load.)
void describeCycle(LoadedHeart& h) {
    constexpr int kSamples = 100;
    const double cycle = h.report.cycleSeconds > 0 ? h.report.cycleSeconds : 0.8;
    // The valves as HeartSimulation times them, and the lumped circulation's pressures
    // through the first chamber's valve discs (as HeartSimulation::pressureCurves).
    const auto timeValvesAndPressures = [&] {
        h.cycle.deriveValves(heart::HeartSimulationSettings{}.isovolumicFraction);
        heart::ValveOrificeAreas areas;
        if (!h.anatomy.chambers.empty())
            for (const heart::Valve& v : h.anatomy.chambers.front().valves) areas.add(v);
        h.cycle.derivePressures(cycle, areas.inflowMm2, areas.outflowMm2);
    };
    sph::TriangleMesh mesh;
    std::vector<sph::Vec3> velocity;
    std::optional<heart::HeartPhantom> phantom;
    if (h.source.kind == heart::HeartSource::Kind::Phantom) phantom.emplace(h.source.phantomParameters());
    std::vector<const heart::Chamber*> chambers;
    if (!phantom)
        for (const heart::Chamber& c : h.anatomy.chambers)
            if (!c.phaseVolumeMl.empty()) chambers.insert(c.isLeftVentricle() ? chambers.begin() : chambers.end(), &c);
    if (!chambers.empty()) {
        h.cycle.lvMl = sampledOverCycle(chambers[0]->phaseVolumeMl, kSamples);
        h.cycle.lvName = QString::fromStdString(chambers[0]->name);
        for (std::size_t k = 1; k < chambers.size(); ++k)
            h.cycle.others.push_back({QString::fromStdString(chambers[k]->name),
                                      sampledOverCycle(chambers[k]->phaseVolumeMl, kSamples)});
        timeValvesAndPressures();
        return;
    }
    if (phantom) {
        CardiacCycle::Curve la{"LA", {}}, ra{"RA", {}};
        for (int k = 0; k < kSamples; ++k) {
            const double phase = double(k) / kSamples;
            h.cycle.lvMl.push_back(phantom->lvVolumeMl(phase));
            la.ml.push_back(phantom->laVolumeMl(phase));
            ra.ml.push_back(phantom->raVolumeMl(phase));
        }
        h.cycle.others.push_back(std::move(la));
        if (std::vector<double> rv = phantom->rvVolumesMl(kSamples); !rv.empty()) {
            h.cycle.others.push_back({"RV", std::move(rv)});
            h.cycle.others.push_back(std::move(ra));
        }
    }
    for (int k = 0; !phantom && k < kSamples; ++k) {
        h.mesh->sample(double(k) / kSamples, cycle, mesh, velocity);
        h.cycle.lvMl.push_back(heart::enclosedVolumeMl(mesh));
    }
    h.cycle.lvName = phantom ? "LV" : "blood pool";
    timeValvesAndPressures();
    if (!phantom) return;
    h.leaflets = heart::phantomLeaflets(*phantom, h.cycle.mitralOpen, h.cycle.aorticOpen);
    const auto v = [](sph::Vec3 p) { return narrative::Vec3{p.x, p.y, p.z}; };
    h.labels.push_back({"LV", v(phantom->lvCavityCenter(0.0))});
    h.labels.push_back({"LA", v(phantom->leftAtrium(0.0).center)});
    const auto aorta = phantom->aorta().centerline;
    if (!aorta.empty()) h.labels.push_back({"Ao", v(aorta[aorta.size() / 2])});
    if (const auto right = phantom->rightHeartLandmarks(0.0)) { // the four-chamber's shell
        h.labels.push_back({"RA", v(right->rightAtrium)});
        h.labels.push_back({"RV", v(right->rightVentricle)});
        h.labels.push_back({"PA", v(right->pulmonaryTrunk)});
    }
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
        // Taken first: a handler of loaded() may start the next load, which sets result_.
        const auto result = std::exchange(result_, nullptr);
        if (result && *result) Q_EMIT loaded(std::move(*result));
    });
}

bool HeartLoader::start(const heart::HeartSource& source, const std::string& shellPattern) {
    if (busy()) return false;
    auto result = std::make_shared<std::shared_ptr<LoadedHeart>>();
    const bool started = BackgroundTask::start(
        [source, shellPattern, result](Progress& progress) {
            OverallProgress overall(progress, !shellPattern.empty() || source.rightHeartShell());
            auto out = std::make_shared<LoadedHeart>();
            out->source = source;
            out->mesh = std::make_shared<const heart::MovingHeartMesh>(heart::loadHeart(
                source, heart::PipelineSettings::forBlood(), &out->report, overall.part(false, {})));
            out->identity = heart::heartIdentity(source, heart::PipelineSettings::forBlood()); // reads the series
            out->anatomy = out->report.anatomy; // the phantom's valves, or a mesh series' openings
            out->boundsMm = heart::cycleBounds(*out->mesh);
            describeCycle(*out);
            if (!shellPattern.empty()) {
                // A shell that cannot be read (a folder since moved) costs the shell, not the heart.
                try {
                    out->shell = std::make_shared<const heart::MovingHeartMesh>(heart::loadShell(
                        shellPattern, out->report.cycleSeconds, source.scale, overall.part(true, "shell: ")));
                    out->shellPattern = shellPattern;
                } catch (const std::exception& e) {
                    out->shellError = e.what();
                }
            } else if (const auto rightHeart = source.rightHeartShell()) { // the four-chamber phantom's
                out->shell = std::make_shared<const heart::MovingHeartMesh>(heart::loadHeart(
                    *rightHeart, heart::PipelineSettings::forShell(), nullptr, overall.part(true, "right heart: ")));
            }
            if (out->shell) { // framed with the heart
                const sph::Aabb s = heart::cycleBounds(*out->shell);
                out->boundsMm = {sph::componentMin(out->boundsMm.lo, s.lo), sph::componentMax(out->boundsMm.hi, s.hi)};
            }
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
