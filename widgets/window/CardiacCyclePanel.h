#pragma once
// The cardiac cycle at a glance, over the bottom of the view: a live Wiggers diagram.
// Above, the pressures of the lumped circulation (sim/heart/LumpedCirculation.h: left
// ventricle, aorta, left atrium; a model, docs/physiology.md); below, the volume of each
// chamber over the cycle (the left ventricle from the wall's motion; the atria and the
// right ventricle where the phantom gives them; every chamber of a mesh series); under
// them, when the mitral and aortic valves are open; and the heart's current phase as a
// cursor through all three. Clicking or dragging in it asks for that phase
// (phaseRequested): the window scrubs the paused real-time flow there.
// Over a SceneView, the view paints it into its frame (ViewOverlay): the cursor moves
// every frame.

#include "widgets/view/ViewOverlay.h"

#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

namespace atrium::widgets {

/// Chamber volumes sampled evenly over one cycle (phase k / samples), and the valves.
struct CardiacCycle {
    std::vector<double> lvMl; ///< the ventricle (or the whole blood pool, label says)
    QString lvName = "LV";
    /// Another chamber's volume over the cycle (its own number of samples).
    struct Curve {
        QString name;
        std::vector<double> ml;
    };
    /// The other chambers: the left atrium, the right heart's, a mesh series' others.
    std::vector<Curve> others;
    /// Open intervals of the valves as [from, to) phase pairs (to < from wraps).
    std::vector<std::pair<double, double>> mitralOpen, aorticOpen;
    /// The lumped circulation's pressures at the samples of lvMl (mmHg): the ventricle,
    /// beyond its outflow valve (aorta) and behind its inflow valve (atrium). Empty:
    /// not shown.
    std::vector<double> lvMmHg, aorticMmHg, atrialMmHg;

    /// The valve intervals from the LV volume, by the rule of HeartSimulation::valvesAt:
    /// mitral open while the volume grows, aortic while it shrinks, both shut while its
    /// rate of change is within `isovolumicFraction` of its peak.
    void deriveValves(double isovolumicFraction = 0.03);
    /// The pressures from lvMl and the valve intervals (deriveValves first) over a cycle
    /// of `cycleSeconds`, through valves of these areas (mm^2; 0: no gradient), with the
    /// lumped circulation's default parameters: as HeartSimulation::pressureCurves.
    void derivePressures(double cycleSeconds, double inflowAreaMm2, double outflowAreaMm2);
};

class SceneView;

class CardiacCyclePanel : public QWidget, public ViewOverlay {
    Q_OBJECT
public:
    explicit CardiacCyclePanel(SceneView* view);
    void setCycle(CardiacCycle cycle);
    const CardiacCycle& cycle() const { return cycle_; }
    /// The heart's phase now (0..1): the cursor.
    void setPhase(double phase);
    /// The phase under x (widget pixels) in the plot, clamped to [0, 1).
    double phaseAt(double x) const;
    /// The whole plot (pressures above volumes), widget pixels: its x range maps the cycle.
    QRectF plotRect() const;
    QRectF pressureRect() const; ///< the pressures' part of plotRect (empty rect without them)
    QRectF volumeRect() const;   ///< the volumes' part
    QRegion overlayRegion() const override { return geometry(); }
    void paintOverlay(QPainter& painter) const override;

Q_SIGNALS:
    void phaseRequested(double phase);

protected:
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;

private:
    void paintPressures(QPainter& painter) const;

    CardiacCycle cycle_;
    double phase_ = 0.0;
};

} // namespace atrium::widgets
