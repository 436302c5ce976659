#include "widgets/narrative/NarrativeVideoExport.h"

#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/view/SceneView.h"
#include "widgets/media/VideoRecorder.h"

#include <QElapsedTimer>
#include <QImage>
#include <QThread>

#include <cmath>
#include <stdexcept>

namespace atrium::widgets {

NarrativeVideoExport::NarrativeVideoExport(SceneView* view, OverlayLayer* overlays, NarrativePlayback* playback, QObject* parent)
    : QObject(parent), view_(view), overlays_(overlays), playback_(playback) {
    timer_.setInterval(0);
    connect(&timer_, &QTimer::timeout, this, &NarrativeVideoExport::renderFrame);
}

NarrativeVideoExport::~NarrativeVideoExport() = default;

void NarrativeVideoExport::start(const QString& path, QSize size, int fps) {
    if (running()) throw std::runtime_error("an export is already running");
    // Before anything moves: the open lecture may forbid video, or this size.
    if (auto why = view_->outputGate().refuseVideo(size)) throw std::runtime_error(why->toStdString());
    playback_->stop();
    playback_->setWaitsAsDwell(true);
    playback_->seek(0.0);
    const std::optional<double> seconds = narrative::duration(playback_->player().narrative(), {}, {});
    if (!playback_->active() || !seconds) {
        playback_->setWaitsAsDwell(false);
        throw std::runtime_error("the narrative has no nodes to export");
    }
    try {
        recorder_ = std::make_unique<VideoRecorder>(path.toStdString(), size.width(), size.height(), fps);
    } catch (...) {
        playback_->stop();
        playback_->setWaitsAsDwell(false);
        throw;
    }
    size_ = size;
    fps_ = fps;
    frames_ = std::max(1, int(std::ceil(*seconds * fps)) + 1);
    done_ = 0;
    renderMs_.clear();
    timer_.start();
}

void NarrativeVideoExport::cancel() {
    if (running()) finish("cancelled");
}

void NarrativeVideoExport::renderFrame() {
    if (!recorder_) return;
    // A lecture opened during the export binds the frames still to come.
    if (auto why = view_->outputGate().refuseVideo(size_)) return finish(*why);
    const double t = double(done_) / fps_;
    try {
        QElapsedTimer clock;
        clock.start();
        playback_->seek(t);
        QImage image = view_->renderImage(size_).convertToFormat(QImage::Format_RGBA8888);
        overlays_->paintOnto(image);
        renderMs_.push_back(double(clock.nsecsElapsed()) / 1e6);
        std::vector<std::uint8_t> rgba(image.sizeInBytes());
        for (int y = 0; y < image.height(); ++y)
            std::copy_n(image.constScanLine(y), std::size_t(image.width()) * 4, rgba.data() + std::size_t(y) * image.width() * 4);
        // The encoder works on its own thread: wait for room rather than drop a frame. The
        // time given is the middle of the frame's slot, so that rounding never puts two
        // frames into one slot (the recorder would skip the second).
        QElapsedTimer waited;
        waited.start();
        while (!recorder_->addFrame(rgba, (done_ + 0.5) / fps_, false)) {
            if (waited.elapsed() > 60000) throw std::runtime_error("the video encoder took no frame for a minute");
            QThread::msleep(2);
        }
    } catch (const std::exception& e) {
        finish(QString::fromStdString(e.what()));
        return;
    }
    ++done_;
    Q_EMIT progress(double(done_) / frames_);
    if (done_ >= frames_) finish({});
}

void NarrativeVideoExport::finish(const QString& error) {
    timer_.stop();
    QString message = error;
    try {
        if (recorder_) recorder_->finish();
    } catch (const std::exception& e) {
        if (message.isEmpty()) message = QString::fromStdString(e.what());
    }
    recorder_.reset();
    playback_->stop();
    playback_->setWaitsAsDwell(false);
    Q_EMIT finished(message);
}

} // namespace atrium::widgets
