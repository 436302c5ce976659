#pragma once
// The heads-up display in the view's top-left corner: render fps, simulation steps/s,
// particle count, backend, heart phase and rate, and what the simulation is doing.

#include <QLabel>

namespace atrium::widgets {

struct BloodSnapshot;

class HudOverlay : public QLabel {
    Q_OBJECT
public:
    explicit HudOverlay(QWidget* parent = nullptr);
    /// `snapshot` may be null (nothing simulated yet); `status` is shown as a last line.
    void show(double renderFps, const BloodSnapshot* snapshot, const QString& status);
};

} // namespace atrium::widgets
