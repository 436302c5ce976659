#pragma once
// The heads-up display in the view's top-left corner: render fps; whether the blood is
// simulated live (and how fast against real time) or a baked beat played at the true
// rate; the particle count with the blood let in and taken out that makes it swing;
// heart rate and phase; and what the simulation is doing.
// The view paints it into its frame (ViewOverlay); the label keeps its text and size.

#include "widgets/view/ViewOverlay.h"

#include <QLabel>
#include <QTextDocument>

namespace atrium::widgets {

struct BloodSnapshot;

class HudOverlay : public QLabel, public ViewOverlay {
    Q_OBJECT
public:
    explicit HudOverlay(QWidget* parent = nullptr);
    /// `snapshot` may be null (nothing simulated yet); `status` is shown as a last line.
    void show(double renderFps, const BloodSnapshot* snapshot, const QString& status);

    QRegion overlayRegion() const override { return text().isEmpty() ? QRegion() : QRegion(geometry()); }
    void paintOverlay(QPainter& painter) const override;

private:
    mutable QTextDocument document_; ///< the text as drawn into the view (drawing lays it out)
};

} // namespace atrium::widgets
