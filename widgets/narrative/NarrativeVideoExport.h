#pragma once
// Exports the current narrative to a video, rendered frame by frame: frame i shows the
// player's frame at i / fps seconds (camera, overlays, view state), drawn off screen at
// the chosen size and handed to the VideoRecorder, which is never allowed to drop one.
// The result is the same at any drawing speed; the export runs on the UI thread one
// frame per event-loop turn, so the window stays responsive and it can be cancelled.
// Nodes that wait for a key stay for their dwell time, as nobody presses keys in a video;
// video overlays show their frame of each moment (OverlayLayer::paintOnto). The blood
// goes on simulating meanwhile: it is the one thing not replayed exactly.

#include <QObject>
#include <QSize>
#include <QString>
#include <QTimer>

#include <memory>
#include <vector>

namespace atrium::widgets {

class NarrativePlayback;
class OverlayLayer;
class SceneView;
class VideoRecorder;

class NarrativeVideoExport : public QObject {
    Q_OBJECT
public:
    NarrativeVideoExport(SceneView* view, OverlayLayer* overlays, NarrativePlayback* playback, QObject* parent = nullptr);
    ~NarrativeVideoExport() override;

    /// Starts writing `path` (MP4) at `size` and `fps`. Throws std::runtime_error naming
    /// the file when it cannot be opened, or when there is nothing to export, or with
    /// the view's OutputGate's reason when the open lecture forbids the video or size.
    void start(const QString& path, QSize size, int fps);
    void cancel();
    bool running() const { return recorder_ != nullptr; }
    int frameCount() const { return frames_; }
    int framesDone() const { return done_; }
    /// Milliseconds each frame took to render with its overlays (not counting encoding).
    const std::vector<double>& renderMs() const { return renderMs_; }

Q_SIGNALS:
    void progress(double fraction);
    /// Done: `error` is empty on success, "cancelled", or what went wrong.
    void finished(const QString& error);

private:
    void renderFrame();
    void finish(const QString& error);

    SceneView* view_;
    OverlayLayer* overlays_;
    NarrativePlayback* playback_;
    std::unique_ptr<VideoRecorder> recorder_;
    QTimer timer_;
    QSize size_;
    int fps_ = 30, frames_ = 0, done_ = 0;
    std::vector<double> renderMs_;
};

} // namespace atrium::widgets
