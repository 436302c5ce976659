// MainWindow and narratives: the workspace (bar, menus, file entries), and a node's
// view state applied to and read from the window's own actions and controls, so that
// menus, buttons and the view always agree.

#include "widgets/window/MainWindow.h"

#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>

#include <cmath>

namespace atrium::widgets {

ColorQuantity toColorQuantity(narrative::BloodColouring c) {
    switch (c) {
    case narrative::BloodColouring::Speed: return ColorQuantity::Speed;
    case narrative::BloodColouring::DensityError: return ColorQuantity::DensityError;
    case narrative::BloodColouring::Pressure: return ColorQuantity::Pressure;
    case narrative::BloodColouring::Blood: break;
    }
    return ColorQuantity::Blood;
}

namespace {

narrative::BloodColouring toColouring(ColorQuantity q) {
    switch (q) {
    case ColorQuantity::Speed: return narrative::BloodColouring::Speed;
    case ColorQuantity::DensityError: return narrative::BloodColouring::DensityError;
    case ColorQuantity::Pressure: return narrative::BloodColouring::Pressure;
    case ColorQuantity::Blood: break;
    }
    return narrative::BloodColouring::Blood;
}

} // namespace

void MainWindow::buildNarratives() {
    narratives_ = new NarrativeWorkspace(this, view_, options_.persistSettings, !options_.headless);
    narratives_->addFileActions(fileMenu_);
    QAction* help = menuBar()->actions().isEmpty() ? nullptr : menuBar()->actions().back();
    menuBar()->insertMenu(help, narratives_->menu());
    connect(narratives_->menu(), &QMenu::aboutToHide, this, [this] {
        QTimer::singleShot(0, this, [this] {
            if (!QApplication::activePopupWidget()) returnFocusToView();
        });
    });
    narratives_->setViewState([this](const narrative::ViewState& s) { applyViewState(s); },
                              [this] { return currentViewState(); });
}

void MainWindow::applyViewState(const narrative::ViewState& v) {
    if (v.colouring) choose(colors_, int(toColorQuantity(*v.colouring)));
    if (v.fluid) choose(fluids_, int(*v.fluid == narrative::FluidDrawing::Surface ? FluidMode::Surface : FluidMode::Spheres));
    if (v.wallOpacity) opacity_->setValue(int(std::lround(*v.wallOpacity * 100.0)));
    if (v.clipping) {
        const QSignalBlocker block(clip_);
        clip_->setChecked(v.clipping->enabled);
        view_->setClipping(v.clipping->enabled, v.clipping->offset);
    }
    if (v.wireframe) wireframe_->setChecked(*v.wireframe);
    if (v.bloodVisible) showBlood_->setChecked(*v.bloodVisible);
    if (v.heartRateBpm) {
        const double bpm = std::clamp(*v.heartRateBpm, SimulationChoices::kMinRate, SimulationChoices::kMaxRate);
        if (std::abs(bpm - choices_.heartRateBpm) > 0.5) {
            SimulationChoices c = choices_;
            c.heartRateBpm = bpm;
            restartSimulation(c);
        }
    }
    // The heart: held at a phase (it beats on until there), held where it is, or beating.
    const bool hold = v.heartRunning ? !*v.heartRunning : v.heartPhase.has_value();
    if (v.heartRunning || v.heartPhase) {
        if (hold && v.heartPhase && view_->bloodSource()) {
            {
                const QSignalBlocker block(playPause_);
                playPause_->setChecked(true);
                playPause_->setText("Play");
            }
            view_->bloodSource()->holdAtPhase(*v.heartPhase);
        } else {
            playPause_->setChecked(hold);
        }
    }
}

narrative::ViewState MainWindow::currentViewState() const {
    narrative::ViewState v;
    const BloodSource* blood = view_->bloodSource();
    const bool paused = blood ? blood->paused() : playPause_->isChecked();
    v.heartRunning = !paused;
    if (paused && view_->shownSnapshot()) v.heartPhase = std::clamp(view_->shownSnapshot()->cyclePhase, 0.0, 0.999);
    v.heartRateBpm = choices_.heartRateBpm;
    v.colouring = toColouring(view_->colorQuantity());
    v.fluid = view_->fluidMode() == FluidMode::Surface ? narrative::FluidDrawing::Surface : narrative::FluidDrawing::Spheres;
    v.wallOpacity = opacity_->value() / 100.0;
    v.clipping = narrative::Clipping{view_->clipping(), view_->clipOffset()};
    v.wireframe = wireframe_->isChecked();
    v.bloodVisible = showBlood_->isChecked();
    return v;
}

narrative::ViewState MainWindow::userViewState() const {
    narrative::ViewState v = currentViewState();
    if (const auto user = narratives_->playback()->userViewState()) {
        const auto keep = [](auto& field, const auto& users) {
            if (users) field = users;
        };
        keep(v.heartRunning, user->heartRunning);
        if (user->heartRunning) v.heartPhase = user->heartPhase;
        keep(v.heartRateBpm, user->heartRateBpm);
        keep(v.colouring, user->colouring);
        keep(v.fluid, user->fluid);
        keep(v.wallOpacity, user->wallOpacity);
        keep(v.clipping, user->clipping);
        keep(v.wireframe, user->wireframe);
        keep(v.bloodVisible, user->bloodVisible);
    }
    return v;
}

} // namespace atrium::widgets
