#pragma once
// Loading a heart (heart::loadHeart: read or generate, extract, interpolate, cache) on a
// worker thread, behind a progress dialog that paints while it works and has a Cancel
// button. The window's current heart keeps beating meanwhile; only when the new one is
// ready does the caller swap it in, so that a failed or cancelled load leaves the
// previous heart running.

#include "sim/heart/HeartPipeline.h"
#include "sim/heart/HeartSimulation.h"

#include <QObject>
#include <QPointer>
#include <QProgressDialog>
#include <QString>
#include <QTimer>

#include <memory>

class QWidget;

namespace atrium::widgets {

/// A loaded heart with what the window needs to show it.
struct LoadedHeart {
    heart::HeartSource source;
    std::shared_ptr<const heart::MovingHeartMesh> mesh;
    heart::PipelineReport report;
    heart::HeartAnatomy anatomy;   ///< valves, inflow and outlet (phantoms only)
    sph::Aabb boundsMm;            ///< of the wall over the whole cycle
};

/// Human-readable name of a source, e.g. "phantom adult", "meshes /data/heart".
QString sourceLabel(const heart::HeartSource& source);

class HeartLoader : public QObject {
    Q_OBJECT
public:
    /// `dialogParent` owns the progress dialog (the window).
    explicit HeartLoader(QWidget* dialogParent);
    /// Cancels a load in progress; its thread stops at its next progress report.
    ~HeartLoader() override;

    /// Starts loading `source` unless a load is already running (then returns false).
    bool start(const heart::HeartSource& source);
    bool busy() const;
    /// As the Cancel button does: the load stops and cancelled() follows.
    void cancel();
    /// What the loader is doing, e.g. "loading the heart: extracting surfaces 40 %";
    /// empty when idle.
    QString statusText() const;
    QProgressDialog* dialog() const { return dialog_; }

Q_SIGNALS:
    void loaded(std::shared_ptr<const atrium::widgets::LoadedHeart> heart);
    /// The progress dialog is closed when this comes, so that `message` is the only one.
    void failed(const QString& message);
    void cancelled();

private:
    struct Job;
    void poll();
    void finish();

    QWidget* dialogParent_;
    QPointer<QProgressDialog> dialog_;
    std::shared_ptr<Job> job_;
    QTimer poll_;
};

} // namespace atrium::widgets
