// MainWindow's pictures for a lecture: the axes triad and scale bar (M), chamber
// labels (L), the cardiac-cycle panel (V) that scrubs the paused real-time flow, and
// the recording indicator.

#include "widgets/window/MainWindow.h"

#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/window/CardiacCyclePanel.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/view/SceneView.h"
#include "widgets/view/ViewAnnotations.h"

#include <QAction>
#include <QEvent>
#include <QMenu>
#include <QStatusBar>

namespace atrium::widgets {

void MainWindow::buildAnnotations() {
    annotations_ = new ViewAnnotations(view_);
    cyclePanel_ = new CardiacCyclePanel(view_);
    const auto place = [this] {
        // Bottom right: the triad and scale bar hold the bottom left, the heart the middle.
        cyclePanel_->move(view_->width() - cyclePanel_->width() - 12, view_->height() - cyclePanel_->height() - 12);
    };
    place();
    connect(view_, &SceneView::frameRendered, cyclePanel_, [this, place] {
        if (const auto snap = view_->shownSnapshot()) cyclePanel_->setPhase(snap->cyclePhase);
        if (cyclePanel_->geometry().bottomRight() + QPoint(13, 13) != view_->rect().bottomRight()) place();
    });
    connect(cyclePanel_, &CardiacCyclePanel::phaseRequested, this, [this](double phase) {
        auto* player = dynamic_cast<BakedFlowPlayer*>(view_->bloodSource());
        if (!player) {
            statusBar()->showMessage("Scrubbing moves the real-time flow (T): the live blood cannot jump in time", 5000);
            return;
        }
        playPause_->setChecked(true); // paused where asked
        player->setPhase(phase);
    });

    const auto toggle = [this](const QString& text, Qt::Key key, const QString& tip, const QString& name, bool on,
                               auto apply) {
        auto* a = new QAction(text, this);
        a->setShortcut(key);
        a->setToolTip(tip + " (" + QKeySequence(key).toString(QKeySequence::NativeText) + ")");
        a->setStatusTip(tip);
        a->setObjectName(name);
        a->setCheckable(true);
        a->setChecked(on);
        connect(a, &QAction::toggled, this, apply);
        addAction(a);
        viewMenu_->addAction(a);
        return a;
    };
    viewMenu_->addSeparator();
    toggle("Axes and scale bar", Qt::Key_M, "Show the axes triad and a scale bar in millimetres", "axesAction", true,
           [this](bool on) { annotations_->setAxesVisible(on); });
    toggle("Chamber labels", Qt::Key_L, "Label the chambers and vessels (LV, LA, Ao)", "labelsAction", true,
           [this](bool on) { annotations_->setLabelsVisible(on); });
    toggle("Cardiac cycle", Qt::Key_V,
           "Show the chambers' volumes over the cycle, the valves and the heart's phase; click to scrub the paused "
           "real-time flow",
           "cycleAction", true, [this](bool on) { cyclePanel_->setVisible(on); });
}

void MainWindow::showAnnotations(const LoadedHeart& heart) {
    annotations_->setLabels(heart.labels);
    cyclePanel_->setCycle(heart.cycle);
}

} // namespace atrium::widgets
