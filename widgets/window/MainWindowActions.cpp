// MainWindow's actions, menus and control bar: every action once, with its key,
// tooltip and icon; the menus hold them all, the bar the main ones.

#include "widgets/window/MainWindow.h"

#include "sim/sph/Solver.h" // cudaBackendAvailable(), Aabb
#include "widgets/window/ControlBar.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/window/HelpOverlay.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MakeAction.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"
#include "widgets/window/Icons.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSignalBlocker>
#include <QSlider>
#include <QTimer>
#include <QToolButton>
#include <QWidgetAction>

namespace atrium::widgets {

void MainWindow::buildActions() {
    // P plays narratives (docs/narratives.md); the blood pauses with Shift+P.
    playPause_ = makeAction(this, "Pause", QKeySequence(Qt::SHIFT | Qt::Key_P), "Pause or resume the blood", true);
    playPause_->setIcon(atriumToggleIcon("pause", "play"));
    playPause_->setObjectName("pauseAction");
    connect(playPause_, &QAction::toggled, this, [this](bool paused) {
        playPause_->setText(paused ? "Play" : "Pause");
        if (auto* r = view_->bloodSource()) r->setPaused(paused);
    });
    step_ = makeAction(this, "Step", Qt::Key_N, "Advance the paused blood by one time step");
    step_->setIcon(atriumIcon("step"));
    connect(step_, &QAction::triggered, this, [this] {
        playPause_->setChecked(true);
        if (auto* r = view_->bloodSource()) r->stepOnce();
    });
    realTime_ = makeAction(this, "Real-time flow", Qt::Key_T,
                           "Play a baked beat of the blood at the true heart rate (baked once, then kept); "
                           "off: simulate the blood live",
                           true);
    realTime_->setObjectName("realTimeFlowAction");
    realTime_->setIcon(atriumIcon("baked"));
    connect(realTime_, &QAction::toggled, this, &MainWindow::setRealTimeFlow);
    openBeat_ = makeAction(this, "Open a baked beat...", QKeySequence(Qt::CTRL | Qt::Key_B),
                           "Play a beat baked for this heart (saved with Save the baked beat, or by atrium-sim heart "
                           "--bake): every student sees the same flow");
    openBeat_->setObjectName("openBakedBeatAction");
    connect(openBeat_, &QAction::triggered, this, &MainWindow::openBakedBeat);
    saveBeat_ = makeAction(this, "Save the baked beat...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B),
                           "Save the real-time flow's beat to a file to share");
    saveBeat_->setObjectName("saveBakedBeatAction");
    saveBeat_->setEnabled(false);
    connect(saveBeat_, &QAction::triggered, this, &MainWindow::saveBakedBeat);
    reset_ = makeAction(this, "Reset", Qt::Key_R, "Start the blood again from a filled, still heart");
    reset_->setIcon(atriumIcon("reset"));
    connect(reset_, &QAction::triggered, this, [this] { restartSimulation(choices_); });
    home_ = makeAction(this, "Home", Qt::Key_H, "Back to the front view of the whole heart");
    home_->setObjectName("homeAction");
    home_->setIcon(atriumIcon("home"));
    connect(home_, &QAction::triggered, view_, &SceneView::goHome);
    clip_ = makeAction(this, "Cut open", Qt::Key_C, "Cut away the half of the wall nearer to you", true);
    clip_->setIcon(atriumIcon("cut"));
    connect(clip_, &QAction::toggled, this, [this](bool on) { view_->setClipping(on); });
    wireframe_ = makeAction(this, "Wireframe", Qt::Key_X, "Draw the wall's triangles as lines", true);
    wireframe_->setIcon(atriumIcon("wireframe"));
    connect(wireframe_, &QAction::toggled, view_, &SceneView::setWireframe);
    showBlood_ = makeAction(this, "Blood", Qt::Key_B, "Show or hide the blood", true);
    showBlood_->setChecked(true);
    connect(showBlood_, &QAction::toggled, view_, &SceneView::setBloodVisible);
    showHud_ = makeAction(this, "Statistics", Qt::Key_F2, "Show or hide the frame rate and simulation figures", true);
    showHud_->setChecked(true);
    connect(showHud_, &QAction::toggled, view_, &SceneView::setHudVisible);
    helpAction_ = makeAction(this, "Keys and mouse", Qt::Key_F1, "Show the keys and mouse actions");
    helpAction_->setIcon(atriumIcon("help"));
    connect(helpAction_, &QAction::triggered, this, [this] {
        if (help_->isVisible()) return help_->hide();
        help_->showShortcuts(menuBar());
    });
    // Ctrl+S saves the narratives (the document being authored); F12 takes a screenshot.
    screenshot_ = makeAction(this, "Screenshot...", Qt::Key_F12, "Save the view as a PNG image of any size");
    screenshot_->setIcon(atriumIcon("screenshot"));
    connect(screenshot_, &QAction::triggered, this, &MainWindow::saveScreenshot);
    record_ = makeAction(this, "Record video", QKeySequence(Qt::CTRL | Qt::Key_R),
                         "Record the view to an MP4 video; again to stop and save", true);
    record_->setIcon(atriumToggleIcon("record", "recording"));
    connect(record_, &QAction::toggled, this, &MainWindow::toggleRecording);
    solverPanel_ = makeAction(this, "Parameters...", QKeySequence(Qt::CTRL | Qt::Key_P),
                              "Particle budget, heart rate, viscosity, speed of sound");
    solverPanel_->setIcon(atriumIcon("parameters"));
    solverPanel_->setObjectName("parametersAction");
    connect(solverPanel_, &QAction::triggered, this, &MainWindow::openSolverPanel);
    loadVolumes_ = makeAction(this, "Volume series...", QKeySequence(Qt::CTRL | Qt::Key_O),
                              "Load a 4D scan: a folder of volumes (.vti, .nrrd, .mha) or DICOM series, one per phase");
    connect(loadVolumes_, &QAction::triggered, this, [this] { chooseSeries(true); });
    loadMeshes_ = makeAction(this, "Mesh series...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                             "Load a folder of surface meshes (.vtk, .vtp, .stl, .obj, .ply), one per phase");
    connect(loadMeshes_, &QAction::triggered, this, [this] { chooseSeries(false); });
    loadShell_ = makeAction(this, "Outer surface (shell)...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H),
                            "Show a mesh series (an epicardium) around the heart as a translucent shell, without blood");
    loadShell_->setObjectName("shellAction");
    connect(loadShell_, &QAction::triggered, this, &MainWindow::chooseShell);
    quit_ = makeAction(this, "Quit", QKeySequence::Quit, "Close Atrium");
    connect(quit_, &QAction::triggered, this, &QWidget::close);

    modes_ = new QActionGroup(this);
    const std::pair<const char*, narrative::CameraMode> modes[] = {
        {"Orbit", narrative::CameraMode::Orbit}, {"uSim flight", narrative::CameraMode::Usim},
        {"First person", narrative::CameraMode::FirstPerson}};
    const Qt::Key modeKeys[] = {Qt::Key_O, Qt::Key_U, Qt::Key_G};
    const char* modeIcons[] = {"orbit", "usim", "first-person"};
    const char* modeTips[] = {"Drag to rotate around the heart, wheel to zoom, middle drag to pan",
                              "Fly: the mouse's distance from the centre sets the turn rate; buttons speed up and slow down",
                              "Walk through the heart: mouse looks, W A S D Q E move"};
    for (int k = 0; k < 3; ++k) {
        QAction* a = makeAction(this, modes[k].first, modeKeys[k], modeTips[k], true);
        a->setIcon(atriumIcon(modeIcons[k]));
        a->setData(int(modes[k].second));
        modes_->addAction(a);
        connect(a, &QAction::triggered, this, [this, mode = modes[k].second] { view_->setNavigationMode(mode); });
    }
    modes_->actions().front()->setChecked(true);

    colors_ = new QActionGroup(this);
    const std::pair<const char*, ColorQuantity> colors[] = {{"Blood red", ColorQuantity::Blood},
                                                            {"Speed", ColorQuantity::Speed},
                                                            {"Density error", ColorQuantity::DensityError},
                                                            {"Pressure", ColorQuantity::Pressure}};
    const Qt::Key colorKeys[] = {Qt::Key_1, Qt::Key_2, Qt::Key_3, Qt::Key_4};
    for (int k = 0; k < 4; ++k) {
        QAction* a = makeAction(this, colors[k].first, colorKeys[k], QString("Colour the blood: ") + colors[k].first, true);
        a->setData(int(colors[k].second));
        colors_->addAction(a);
        connect(a, &QAction::triggered, this, [this, q = colors[k].second] { view_->setColorQuantity(q); });
    }
    colors_->actions().front()->setChecked(true);

    fluids_ = new QActionGroup(this);
    const std::pair<const char*, FluidMode> fluids[] = {{"Spheres", FluidMode::Spheres}, {"Surface", FluidMode::Surface}};
    const Qt::Key fluidKeys[] = {Qt::Key_F5, Qt::Key_F6};
    const char* fluidTips[] = {"Draw the blood as one sphere per particle, coloured as chosen",
                               "Draw the blood as a smooth, glossy liquid surface, coloured as chosen"};
    for (int k = 0; k < 2; ++k) {
        QAction* a = makeAction(this, fluids[k].first, fluidKeys[k], fluidTips[k], true);
        a->setData(int(fluids[k].second));
        fluids_->addAction(a);
        connect(a, &QAction::triggered, this, [this, m = fluids[k].second] { view_->setFluidMode(m); });
    }
    fluids_->actions().front()->setChecked(true);

    for (const std::string& name : heart::HeartPhantom::presetNames()) {
        const bool isDefault = name == kDefaultPhantomPreset;
        QAction* a = makeAction(this, QString::fromStdString(name) + (isDefault ? " (default)" : ""), {},
                                QString("Load the synthetic %1 heart").arg(name.c_str()) +
                                    (isDefault ? ": the left heart with its blood, an aortic arch, and the right heart "
                                                 "shown as a shell"
                                               : ""),
                                true);
        connect(a, &QAction::triggered, this, [this, name] { loadHeart(heart::HeartSource::fromPreset(name)); });
        presets_.emplace_back(a, QString::fromStdString(name));
    }
    // Shortcuts work wherever the focus is in the window, the 3D view included.
    for (QAction* a : findChildren<QAction*>()) addAction(a);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    fileMenu_ = file;
    file->setToolTipsVisible(true);
    QMenu* phantoms = file->addMenu("Synthetic heart");
    for (auto& [a, name] : presets_) phantoms->addAction(a);
    file->addAction(loadVolumes_);
    file->addAction(loadMeshes_);
    file->addAction(loadShell_);
    file->addSeparator();
    file->addAction(screenshot_);
    file->addAction(record_);
    file->addSeparator();
    file->addAction(quit_);
    lecture_->addFileActions(file);
    menuBar()->addMenu(lecture_->menu());

    QMenu* sim = menuBar()->addMenu("&Simulation");
    sim->addAction(playPause_);
    sim->addAction(step_);
    sim->addAction(reset_);
    sim->addSeparator();
    sim->addAction(realTime_);
    sim->addAction(openBeat_);
    sim->addAction(saveBeat_);
    sim->addAction(solverPanel_);
    QMenu* backend = sim->addMenu("Backend");
    auto* backends = new QActionGroup(this);
    QAction* cpu = backend->addAction("CPU (oneTBB)");
    QAction* cuda = backend->addAction("CUDA GPU");
    for (QAction* a : {cpu, cuda}) {
        a->setCheckable(true);
        backends->addAction(a);
    }
    const bool haveCuda = sph::cudaBackendAvailable();
    cuda->setEnabled(haveCuda);
    cuda->setToolTip(haveCuda ? "Simulate on the GPU" : "No CUDA GPU on this machine");
    (choices_.cuda && haveCuda ? cuda : cpu)->setChecked(true);
    connect(cpu, &QAction::triggered, this, [this] { choices_.cuda = false; restartSimulation(choices_); });
    connect(cuda, &QAction::triggered, this, [this] { choices_.cuda = true; restartSimulation(choices_); });

    QMenu* view = viewMenu_ = menuBar()->addMenu("&View");
    QMenu* nav = view->addMenu("Navigation");
    nav->addActions(modes_->actions());
    view->addAction(home_);
    view->addSeparator();
    colourMenu_ = view->addMenu("Colour the blood by");
    colourMenu_->addActions(colors_->actions());
    QMenu* range = view->addMenu("Colour range");
    auto* ranges = new QActionGroup(this);
    QAction* automatic = makeAction(this, "Automatic", {}, "Colour between the values of all but the most extreme 2 % of the blood", true);
    QAction* fixed = makeAction(this, "Fixed...", {}, "Colour between two values of your choice, the same in every frame", true);
    automatic->setObjectName("autoColorRange");
    fixed->setObjectName("fixedColorRange");
    for (QAction* a : {automatic, fixed}) ranges->addAction(a);
    range->addActions(ranges->actions());
    automatic->setChecked(true);
    connect(automatic, &QAction::triggered, this, [this] { view_->setFixedColorRange(view_->colorQuantity(), std::nullopt); });
    connect(fixed, &QAction::triggered, this, [this, automatic] {
        if (!chooseColorRange()) automatic->setChecked(!view_->fixedColorRange(view_->colorQuantity()));
    });
    connect(colors_, &QActionGroup::triggered, this, [this, automatic, fixed] {
        (view_->fixedColorRange(view_->colorQuantity()) ? fixed : automatic)->setChecked(true);
    });
    QMenu* fluid = view->addMenu("Fluid");
    fluid->addActions(fluids_->actions());
    view->addAction(showBlood_);
    view->addAction(clip_);
    view->addAction(wireframe_);
    view->addAction(showHud_);

    QMenu* helpMenu = menuBar()->addMenu("&Help");
    // A menu closed with Esc leaves the menu bar holding the keys (H would open Help):
    // the view takes them back once no menu is open.
    for (QMenu* menu : {file, sim, view, helpMenu})
        connect(menu, &QMenu::aboutToHide, this, [this] {
            QTimer::singleShot(0, this, [this] {
                if (!QApplication::activePopupWidget()) returnFocusToView();
            });
        });
    helpMenu->addAction(helpAction_);
    helpMenu->addAction("About Atrium", this, [this] {
        QMessageBox::about(this, "About Atrium",
                           "Atrium: a beating heart with blood simulated by SPH, for teaching.\n"
                           "After Poyart 2016 (heart simulation and VSim navigation).");
        returnFocusToView();
    });
}

void MainWindow::buildControlBar() {
    for (QAction* a : {playPause_, step_, reset_, realTime_}) bar_->addAction(a);
    bar_->addWidget(nullptr);
    for (QAction* a : modes_->actions()) bar_->addAction(a);
    bar_->addAction(home_);
    bar_->addWidget(nullptr);

    auto* colour = new QComboBox;
    colour->setObjectName("colorCombo");
    colour->setToolTip("Colour the blood by (1-4)");
    for (QAction* a : colors_->actions()) colour->addItem(a->text());
    connect(colour, &QComboBox::activated, this, [this](int k) { colors_->actions()[k]->trigger(); });
    connect(colors_, &QActionGroup::triggered, colour,
            [this, colour](QAction* a) { colour->setCurrentIndex(int(colors_->actions().indexOf(a))); });
    bar_->addWidget(colour, colourMenu_->menuAction());

    // One toggle for the two fluid modes, kept in step with the menu's choice.
    auto* surface = new QAction(atriumIcon("surface"), "Liquid surface", this);
    surface->setObjectName("fluidSurfaceToggle");
    surface->setCheckable(true);
    surface->setToolTip("Draw the blood as a smooth liquid surface instead of spheres (F6; F5: spheres)");
    connect(surface, &QAction::toggled, this, [this](bool on) { fluids_->actions()[on ? 1 : 0]->trigger(); });
    connect(fluids_, &QActionGroup::triggered, surface, [surface](QAction* a) {
        const QSignalBlocker block(surface);
        surface->setChecked(FluidMode(a->data().toInt()) == FluidMode::Surface);
    });
    bar_->addAction(surface);
    bar_->addAction(clip_);
    bar_->addAction(wireframe_);

    // The wall's opacity: a slider on the bar, the same in the overflow menu.
    const auto makeOpacity = [this](QWidget* parent) {
        auto* box = new QWidget(parent);
        auto* row = new QHBoxLayout(box);
        row->setContentsMargins(4, 0, 4, 0);
        row->addWidget(new QLabel("Wall", box));
        auto* slider = new QSlider(Qt::Horizontal, box);
        slider->setRange(0, 100);
        slider->setFixedWidth(90);
        slider->setToolTip("Opacity of the heart wall");
        row->addWidget(slider);
        return std::pair{box, slider};
    };
    auto [opacityBox, opacity] = makeOpacity(nullptr);
    opacity_ = opacity;
    opacity_->setObjectName("wallOpacity");
    opacity_->setValue(35);
    connect(opacity_, &QSlider::valueChanged, this, [this](int v) { view_->setWallOpacity(float(v) / 100.f); });
    auto* opacityMenu = new QMenu("Wall opacity", this);
    auto* inMenu = new QWidgetAction(opacityMenu);
    auto [menuBox, menuSlider] = makeOpacity(opacityMenu);
    menuSlider->setValue(opacity_->value());
    connect(menuSlider, &QSlider::valueChanged, opacity_, &QSlider::setValue);
    connect(opacity_, &QSlider::valueChanged, menuSlider, &QSlider::setValue);
    inMenu->setDefaultWidget(menuBox);
    opacityMenu->addAction(inMenu);
    bar_->addWidget(opacityBox, opacityMenu->menuAction());

    bar_->addWidget(nullptr);
    bar_->addAction(solverPanel_);
    bar_->addAction(screenshot_);
    bar_->addAction(record_);
    bar_->addAction(helpAction_);
    // The HUD stays below the bar, open or closed.
    connect(bar_, &ControlBar::coverageChanged, view_, &SceneView::setOverlayTop);
}

} // namespace atrium::widgets
