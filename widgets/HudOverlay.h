#pragma once
// The heads-up display in the view's top-left corner: render fps; whether the blood is
// simulated live (and how fast against real time) or a baked beat played at the true
// rate; the particle count with the blood let in and taken out that makes it swing;
// heart rate and phase; and what the simulation is doing.

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
