#include "widgets/HeartLoader.h"

#include "widgets/WorkerPool.h"

#include <QProgressDialog>
#include <QThreadPool>

#include <atomic>
#include <cmath>
#include <mutex>

namespace atrium::widgets {
namespace {

/// Thrown from the pipeline's progress callback to abandon a load. Not a
/// std::exception, so that no stage that recovers from errors (a bad cache file is
/// rebuilt) mistakes it for one.
struct LoadCancelled {};

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

/// What the worker and the UI thread share: the worker writes progress and the
/// outcome, the UI thread polls them (no Qt object crosses threads).
struct HeartLoader::Job {
    heart::HeartSource source;
    std::atomic<bool> cancel{false}, done{false};
    std::atomic<double> fraction{0.0};
    std::mutex mutex;
    std::string stage;                    // guarded by mutex
    std::shared_ptr<LoadedHeart> result;  // set before done
    QString error;                        // set before done
    bool wasCancelled = false;            // set before done
};

HeartLoader::HeartLoader(QWidget* dialogParent) : QObject(dialogParent), dialogParent_(dialogParent) {
    poll_.setInterval(50);
    connect(&poll_, &QTimer::timeout, this, &HeartLoader::poll);
}

HeartLoader::~HeartLoader() {
    if (job_) job_->cancel = true;
}

bool HeartLoader::busy() const { return job_ != nullptr; }

void HeartLoader::cancel() {
    if (job_) job_->cancel = true;
}

bool HeartLoader::start(const heart::HeartSource& source) {
    if (job_) return false;
    auto job = std::make_shared<Job>();
    job->source = source;
    job_ = job;

    dialog_ = new QProgressDialog("Loading the heart: " + sourceLabel(source), "Cancel", 0, 1000, dialogParent_);
    dialog_->setObjectName("loadProgress");
    dialog_->setWindowTitle("Atrium");
    dialog_->setWindowModality(Qt::WindowModal);
    dialog_->setMinimumDuration(200);
    dialog_->setAutoClose(false);
    dialog_->setAutoReset(false);
    dialog_->setValue(0);
    connect(dialog_, &QProgressDialog::canceled, this, &HeartLoader::cancel);

    workerPool().start([job] {
        try {
            const heart::PipelineSettings settings = heart::PipelineSettings::forBlood();
            auto out = std::make_shared<LoadedHeart>();
            out->source = job->source;
            out->mesh = std::make_shared<const heart::MovingHeartMesh>(heart::loadHeart(
                job->source, settings, &out->report, [&job = *job](const std::string& stage, double fraction) {
                    if (job.cancel) throw LoadCancelled{};
                    {
                        std::lock_guard lock(job.mutex);
                        job.stage = stage;
                    }
                    job.fraction = std::clamp(fraction, 0.0, 1.0);
                }));
            if (job->cancel) throw LoadCancelled{};
            out->anatomy = out->report.anatomy; // the phantom's valves, or a mesh series' openings
            out->boundsMm = cycleBounds(*out->mesh);
            job->result = std::move(out);
        } catch (const LoadCancelled&) {
            job->wasCancelled = true;
        } catch (const std::exception& e) {
            job->error = QString::fromStdString(e.what());
            if (job->error.isEmpty()) job->error = "unknown error";
        }
        job->done = true;
    });
    poll_.start();
    return true;
}

QString HeartLoader::statusText() const {
    if (!job_) return {};
    std::string stage;
    {
        std::lock_guard lock(job_->mutex);
        stage = job_->stage;
    }
    QString text = "loading the heart";
    if (!stage.empty())
        text += QString(": %1 %2 %").arg(QString::fromStdString(stage)).arg(int(std::lround(100 * job_->fraction.load())));
    return text;
}

void HeartLoader::poll() {
    if (!job_) return;
    if (job_->done) return finish();
    if (!dialog_) return;
    dialog_->setLabelText("Loading the heart (" + sourceLabel(job_->source) + ")\n" + statusText().section(": ", 1));
    // setValue also shows the dialog once its minimum duration has passed.
    dialog_->setValue(int(std::lround(999 * job_->fraction.load())));
}

void HeartLoader::finish() {
    poll_.stop();
    const std::shared_ptr<Job> job = std::move(job_);
    // The dialog goes first: an error message must not open under it.
    if (dialog_) {
        dialog_->hide();
        dialog_->deleteLater();
    }
    if (job->wasCancelled) Q_EMIT cancelled();
    else if (!job->error.isEmpty()) Q_EMIT failed(job->error);
    else Q_EMIT loaded(job->result);
}

} // namespace atrium::widgets
