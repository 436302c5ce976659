#include "widgets/flow/BackgroundTask.h"

#include "widgets/flow/WorkerPool.h"

#include <QThreadPool>

#include <atomic>
#include <cmath>
#include <mutex>

namespace atrium::widgets {

/// What the worker and the UI thread share: the worker writes progress and the
/// outcome, the UI thread polls them.
struct BackgroundTask::Job final : Progress {
    std::atomic<bool> cancel{false}, done{false};
    std::atomic<double> fraction{0.0};
    mutable std::mutex mutex;
    std::string stage;         // guarded by mutex
    QString detail, error;     // error: set before done
    bool wasCancelled = false; // set before done

    void report(const std::string& s, double f) override {
        if (cancel) throw Cancelled{};
        {
            std::lock_guard lock(mutex);
            stage = s;
        }
        fraction = std::clamp(f, 0.0, 1.0);
    }
    bool cancelled() const override { return cancel; }
    std::string currentStage() const {
        std::lock_guard lock(mutex);
        return stage;
    }
};

BackgroundTask::BackgroundTask(QWidget* dialogParent, QString what, Qt::WindowModality modality)
    : QObject(dialogParent), dialogParent_(dialogParent), what_(std::move(what)), modality_(modality) {
    poll_.setInterval(50);
    connect(&poll_, &QTimer::timeout, this, &BackgroundTask::poll);
}

BackgroundTask::~BackgroundTask() { cancel(); }

void BackgroundTask::cancel() {
    if (job_) job_->cancel = true;
}

bool BackgroundTask::start(std::function<void(Progress&)> work, const QString& detail) {
    if (job_) return false;
    auto job = std::make_shared<Job>();
    job->detail = detail;
    job_ = job;

    dialog_ = new QProgressDialog(what_ + (detail.isEmpty() ? QString() : "\n" + detail), "Cancel", 0, 1000, dialogParent_);
    dialog_->setWindowTitle("Atrium");
    dialog_->setWindowModality(modality_);
    dialog_->setMinimumDuration(200);
    dialog_->setAutoClose(false);
    dialog_->setAutoReset(false);
    dialog_->setValue(0);
    connect(dialog_, &QProgressDialog::canceled, this, &BackgroundTask::cancel);

    workerPool().start([job, work = std::move(work)] {
        try {
            work(*job);
            if (job->cancel) throw Cancelled{};
        } catch (const Cancelled&) {
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

QString BackgroundTask::statusText() const {
    if (!job_) return {};
    const std::string stage = job_->currentStage();
    QString text = what_.toLower();
    if (!stage.empty())
        text += QString(": %1 %2 %").arg(QString::fromStdString(stage)).arg(int(std::lround(100 * job_->fraction.load())));
    return text;
}

void BackgroundTask::poll() {
    if (!job_) return;
    if (job_->done) return finish();
    if (!dialog_) return;
    QString label = what_;
    if (!job_->detail.isEmpty()) label += "\n" + job_->detail;
    if (const std::string stage = job_->currentStage(); !stage.empty()) label += "\n" + QString::fromStdString(stage);
    dialog_->setLabelText(label);
    // setValue also shows the dialog once its minimum duration has passed.
    dialog_->setValue(int(std::lround(999 * job_->fraction.load())));
}

void BackgroundTask::finish() {
    poll_.stop();
    const std::shared_ptr<Job> job = std::move(job_);
    // The dialog goes first: an error message must not open under it.
    if (dialog_) {
        dialog_->hide();
        dialog_->deleteLater();
    }
    if (job->wasCancelled) Q_EMIT cancelled();
    else if (!job->error.isEmpty()) Q_EMIT failed(job->error);
    else Q_EMIT succeeded();
}

} // namespace atrium::widgets
