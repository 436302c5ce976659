#include "widgets/MainWindow.h"

#include "sim/sph/Backend.h"
#include "widgets/ControlBar.h"
#include "widgets/HeartLoader.h"
#include "widgets/HelpOverlay.h"
#include "widgets/SceneView.h"
#include "widgets/SimulationRunner.h"
#include "widgets/VideoRecorder.h"
#include "widgets/WorkerPool.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDateTime>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QProgressDialog>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QStatusBar>
#include <QToolButton>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace atrium::widgets {
namespace {

QAction* makeAction(QObject* parent, const QString& text, const QKeySequence& key, const QString& tip,
                    bool checkable = false) {
    auto* a = new QAction(text, parent);
    a->setShortcut(key);
    a->setToolTip(key.isEmpty() ? tip : tip + " (" + key.toString(QKeySequence::NativeText) + ")");
    a->setStatusTip(tip);
    a->setCheckable(checkable);
    return a;
}

} // namespace

MainWindow::MainWindow(const ViewerOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options), view_(new SceneView(this)), bar_(new ControlBar(view_)),
      help_(new HelpOverlay(view_)), loader_(new HeartLoader(this)) {
    startMs_ = QDateTime::currentMSecsSinceEpoch();
    setWindowTitle("Atrium");
    setCentralWidget(view_);
    view_->installEventFilter(this);
    choices_.cuda = options.cuda;
    if (options.particleBudget) choices_.particleBudget = *options.particleBudget;

    buildActions();
    buildMenus();
    buildControlBar();
    statusBar()->showMessage("Space releases the mouse in flight modes; F1 shows the keys", 8000);
    resize(1280, 800);
    readSettings();
    if (options.navigation) choose(modes_, int(*options.navigation));
    if (options.color) choose(colors_, int(*options.color));
    if (options.fluid) choose(fluids_, int(*options.fluid));

    connect(view_, &SceneView::frameRendered, this, [this] {
        if (secondsToHeart_ == 0.0 && view_->shownSnapshot() && !view_->shownSnapshot()->wallVertexMm.empty())
            secondsToHeart_ = double(QDateTime::currentMSecsSinceEpoch() - startMs_) / 1000.0;
    });
    view_->setBackgroundStatus([this] { return loader_->statusText(); });
    connect(loader_, &HeartLoader::loaded, this,
            [this](const std::shared_ptr<const LoadedHeart>& heart) { showLoadedHeart(*heart); });
    connect(loader_, &HeartLoader::cancelled, this, [this] {
        statusBar()->showMessage(heart_ ? "Loading cancelled: the previous heart goes on" : "Loading cancelled", 6000);
        view_->setFocus();
    });
    connect(loader_, &HeartLoader::failed, this, [this](const QString& error) {
        statusBar()->showMessage("Could not load the heart: " + error);
        Q_EMIT loadFailed(error);
        if (isVisible() && !options_.headless)
            QMessageBox::warning(this, "Atrium",
                                 "Could not load the heart:\n" + error +
                                     (heart_ ? "\n\nThe previous heart goes on." : QString()));
        view_->setFocus();
    });
    connect(view_, &SceneView::mouseCaptureChanged, this, [this](bool captured) {
        statusBar()->showMessage(captured ? "Mouse steers the camera: Space releases it" : "Mouse released: Space takes it again",
                                 4000);
    });

    heart::HeartSource source = heart::HeartSource::fromPreset("adult");
    if (options.source) {
        source = *options.source;
    } else if (options.persistSettings) {
        const QSettings settings;
        const QString kind = settings.value("heart/kind").toString(), value = settings.value("heart/value").toString();
        try {
            if (kind == "phantom") source = heart::HeartSource::fromPreset(value.toStdString());
            else if (kind == "volumes") {
                bool hasIso = false;
                const float iso = settings.value("heart/isovalue").toFloat(&hasIso);
                source = heart::HeartSource::fromVolumes(value.toStdString(), hasIso ? std::optional<float>(iso) : std::nullopt);
            }
            else if (kind == "meshes") source = heart::HeartSource::fromMeshes(value.toStdString());
        } catch (const std::exception&) {
            source = heart::HeartSource::fromPreset("adult"); // a stale setting is no reason to fail
        }
    }
    QTimer::singleShot(0, this, [this, source] { loadHeart(source); });
}

MainWindow::~MainWindow() = default;

void MainWindow::buildActions() {
    playPause_ = makeAction(this, "Pause", Qt::Key_P, "Pause or resume the blood", true);
    connect(playPause_, &QAction::toggled, this, [this](bool paused) {
        playPause_->setText(paused ? "Play" : "Pause");
        if (auto* r = view_->runner()) r->setPaused(paused);
    });
    step_ = makeAction(this, "Step", Qt::Key_N, "Advance the paused blood by one time step");
    connect(step_, &QAction::triggered, this, [this] {
        playPause_->setChecked(true);
        if (auto* r = view_->runner()) r->stepOnce();
    });
    reset_ = makeAction(this, "Reset", Qt::Key_R, "Start the blood again from a filled, still heart");
    connect(reset_, &QAction::triggered, this, [this] { restartSimulation(choices_); });
    home_ = makeAction(this, "Home", Qt::Key_H, "Back to the front view of the whole heart");
    home_->setObjectName("homeAction");
    connect(home_, &QAction::triggered, view_, &SceneView::goHome);
    clip_ = makeAction(this, "Cut open", Qt::Key_C, "Cut away the half of the wall nearer to you", true);
    connect(clip_, &QAction::toggled, this, [this](bool on) { view_->setClipping(on); });
    wireframe_ = makeAction(this, "Wireframe", Qt::Key_X, "Draw the wall's triangles as lines", true);
    connect(wireframe_, &QAction::toggled, view_, &SceneView::setWireframe);
    showBlood_ = makeAction(this, "Blood", Qt::Key_B, "Show or hide the blood", true);
    showBlood_->setChecked(true);
    connect(showBlood_, &QAction::toggled, view_, &SceneView::setBloodVisible);
    showHud_ = makeAction(this, "Statistics", Qt::Key_F2, "Show or hide the frame rate and simulation figures", true);
    showHud_->setChecked(true);
    connect(showHud_, &QAction::toggled, view_, &SceneView::setHudVisible);
    helpAction_ = makeAction(this, "Keys and mouse", Qt::Key_F1, "Show the keys and mouse actions");
    connect(helpAction_, &QAction::triggered, this, [this] {
        help_->setGeometry(view_->rect());
        help_->setVisible(!help_->isVisible());
        if (help_->isVisible()) {
            help_->raise();
            help_->setFocus();
        }
    });
    screenshot_ = makeAction(this, "Screenshot...", QKeySequence::Save, "Save the view as a PNG image of any size");
    connect(screenshot_, &QAction::triggered, this, &MainWindow::saveScreenshot);
    record_ = makeAction(this, "Record video", QKeySequence(Qt::CTRL | Qt::Key_R),
                         "Record the view to an MP4 video; again to stop and save", true);
    connect(record_, &QAction::toggled, this, &MainWindow::toggleRecording);
    solverPanel_ = makeAction(this, "Parameters...", QKeySequence(Qt::CTRL | Qt::Key_P),
                              "Particle budget, heart rate, viscosity, speed of sound");
    connect(solverPanel_, &QAction::triggered, this, &MainWindow::openSolverPanel);
    loadVolumes_ = makeAction(this, "Volume series...", QKeySequence(Qt::CTRL | Qt::Key_O),
                              "Load a 4D scan: a folder of volumes (.vti, .nrrd, .mha) or DICOM series, one per phase");
    connect(loadVolumes_, &QAction::triggered, this, [this] { chooseSeries(true); });
    loadMeshes_ = makeAction(this, "Mesh series...", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O),
                             "Load a folder of surface meshes (.vtk, .vtp, .stl, .obj, .ply), one per phase");
    connect(loadMeshes_, &QAction::triggered, this, [this] { chooseSeries(false); });
    quit_ = makeAction(this, "Quit", QKeySequence::Quit, "Close Atrium");
    connect(quit_, &QAction::triggered, this, &QWidget::close);

    modes_ = new QActionGroup(this);
    const std::pair<const char*, narrative::CameraMode> modes[] = {
        {"Orbit", narrative::CameraMode::Orbit}, {"uSim flight", narrative::CameraMode::Usim},
        {"First person", narrative::CameraMode::FirstPerson}};
    const Qt::Key modeKeys[] = {Qt::Key_O, Qt::Key_U, Qt::Key_G};
    const char* modeTips[] = {"Drag to rotate around the heart, wheel to zoom, middle drag to pan",
                              "Fly: the mouse's distance from the centre sets the turn rate; buttons speed up and slow down",
                              "Walk through the heart: mouse looks, W A S D Q E move"};
    for (int k = 0; k < 3; ++k) {
        QAction* a = makeAction(this, modes[k].first, modeKeys[k], modeTips[k], true);
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
                               "Draw the blood as a smooth, glossy liquid surface (always blood red)"};
    for (int k = 0; k < 2; ++k) {
        QAction* a = makeAction(this, fluids[k].first, fluidKeys[k], fluidTips[k], true);
        a->setData(int(fluids[k].second));
        fluids_->addAction(a);
        connect(a, &QAction::triggered, this, [this, m = fluids[k].second] { view_->setFluidMode(m); });
    }
    fluids_->actions().front()->setChecked(true);

    for (const std::string& name : heart::HeartPhantom::presetNames()) {
        QAction* a = makeAction(this, QString::fromStdString(name), {}, QString("Load the synthetic %1 heart").arg(name.c_str()),
                                true);
        connect(a, &QAction::triggered, this, [this, name] { loadHeart(heart::HeartSource::fromPreset(name)); });
        presets_.emplace_back(a, QString::fromStdString(name));
    }
    // Shortcuts work wherever the focus is in the window, the 3D view included.
    for (QAction* a : findChildren<QAction*>()) addAction(a);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu("&File");
    QMenu* phantoms = file->addMenu("Synthetic heart");
    for (auto& [a, name] : presets_) phantoms->addAction(a);
    file->addAction(loadVolumes_);
    file->addAction(loadMeshes_);
    file->addSeparator();
    file->addAction(screenshot_);
    file->addAction(record_);
    file->addSeparator();
    file->addAction(quit_);

    QMenu* sim = menuBar()->addMenu("&Simulation");
    sim->addAction(playPause_);
    sim->addAction(step_);
    sim->addAction(reset_);
    sim->addSeparator();
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

    QMenu* view = menuBar()->addMenu("&View");
    QMenu* nav = view->addMenu("Navigation");
    nav->addActions(modes_->actions());
    view->addAction(home_);
    view->addSeparator();
    QMenu* colour = view->addMenu("Colour the blood by");
    colour->addActions(colors_->actions());
    QMenu* fluid = view->addMenu("Fluid");
    fluid->addActions(fluids_->actions());
    view->addAction(showBlood_);
    view->addAction(clip_);
    view->addAction(wireframe_);
    view->addAction(showHud_);

    QMenu* helpMenu = menuBar()->addMenu("&Help");
    helpMenu->addAction(helpAction_);
    helpMenu->addAction("About Atrium", this, [this] {
        QMessageBox::about(this, "About Atrium",
                           "Atrium: a beating heart with blood simulated by SPH, for teaching.\n"
                           "After Poyart 2016 (heart simulation and VSim navigation).");
    });
}

void MainWindow::buildControlBar() {
    for (QAction* a : {playPause_, step_, reset_}) bar_->addAction(a);
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
    bar_->addWidget(colour);

    // One toggle for the two fluid modes, kept in step with the menu's choice.
    auto* surface = new QToolButton;
    surface->setObjectName("fluidSurfaceButton");
    surface->setText("Surface");
    surface->setCheckable(true);
    surface->setToolTip("Draw the blood as a smooth liquid surface instead of spheres (F6; F5: spheres)");
    connect(surface, &QToolButton::toggled, this, [this](bool on) { fluids_->actions()[on ? 1 : 0]->trigger(); });
    connect(fluids_, &QActionGroup::triggered, surface, [surface](QAction* a) {
        const QSignalBlocker block(surface);
        surface->setChecked(FluidMode(a->data().toInt()) == FluidMode::Surface);
    });
    bar_->addWidget(surface);
    bar_->addAction(clip_);
    bar_->addAction(wireframe_);

    auto* opacityLabel = new QLabel("Wall");
    bar_->addWidget(opacityLabel);
    opacity_ = new QSlider(Qt::Horizontal);
    opacity_->setObjectName("wallOpacity");
    opacity_->setRange(0, 100);
    opacity_->setValue(35);
    opacity_->setToolTip("Opacity of the heart wall");
    connect(opacity_, &QSlider::valueChanged, this, [this](int v) { view_->setWallOpacity(float(v) / 100.f); });
    bar_->addWidget(opacity_);
    bar_->addWidget(nullptr);
    bar_->addAction(solverPanel_);
    bar_->addAction(screenshot_);
    bar_->addAction(record_);
    bar_->addAction(helpAction_);
}

void MainWindow::loadHeart(const heart::HeartSource& source) {
    if (!loader_->start(source)) statusBar()->showMessage("A heart is loading: wait for it or cancel it first", 4000);
}

void MainWindow::showLoadedHeart(const LoadedHeart& loaded) {
    heart_ = loaded.mesh;
    anatomy_ = loaded.anatomy;
    source_ = loaded.source;
    cycleSeconds_ = loaded.report.cycleSeconds > 0 ? loaded.report.cycleSeconds : 0.8;
    poolMl_ = loaded.report.bloodPoolVolumeMl.empty() ? heart::enclosedVolumeMl(heart_->phaseMesh(0))
                                                      : loaded.report.bloodPoolVolumeMl.front();
    choices_.heartRateBpm = 60.0 / cycleSeconds_;
    setWindowTitle("Atrium - " + sourceLabel(source_));
    for (auto& [a, name] : presets_)
        a->setChecked(source_.kind == heart::HeartSource::Kind::Phantom && name.toStdString() == source_.phantomPreset);
    QString capped;
    if (loaded.report.holesCapped > 0)
        capped = QString(", %1 holes capped to close it").arg(qulonglong(loaded.report.holesCapped));
    statusBar()->showMessage(QString("Heart loaded (%1, %2 phases, %3 triangles%4)")
                                 .arg(loaded.report.fromCache ? "from the cache" : "processed")
                                 .arg(loaded.report.phases)
                                 .arg(qulonglong(loaded.report.trianglesPerPhaseMax))
                                 .arg(capped),
                             6000);
    const sph::Aabb& b = loaded.boundsMm;
    view_->frameHeart({b.lo.x, b.lo.y, b.lo.z}, {b.hi.x, b.hi.y, b.hi.z});
    restartSimulation(choices_);
    Q_EMIT heartLoaded();
}

void MainWindow::restartSimulation(const SimulationChoices& c) {
    if (!heart_) return;
    choices_ = c;
    RunnerSettings rs;
    rs.cycleSeconds = 60.0 / c.heartRateBpm;
    rs.simulation = heart::HeartSimulationSettings::forParticleBudget(poolMl_, std::size_t(c.particleBudget));
    rs.simulation.viscosity = c.viscosityMilliPaS * 1e-3;
    rs.simulation.soundSpeed = c.soundSpeed;
    rs.simulation.backend = c.cuda && sph::cudaBackendAvailable() ? sph::BackendKind::Cuda : sph::BackendKind::Cpu;
    view_->setRunner(std::make_shared<SimulationRunner>(heart_, anatomy_, rs, playPause_->isChecked()));
    view_->setFocus(); // keys steer the view again after a dialog
}

void MainWindow::openSolverPanel() {
    SolverPanel panel(choices_, this);
    if (panel.exec() == QDialog::Accepted) restartSimulation(panel.choices());
}

void MainWindow::chooseSeries(bool volumes) {
    const QString dir = QFileDialog::getExistingDirectory(
        this, volumes ? "Folder of volumes, one per phase (or of DICOM series folders)" : "Folder of meshes, one per phase");
    if (dir.isEmpty()) return;
    std::optional<float> isovalue;
    if (volumes) {
        bool ok = false;
        const QString text = QInputDialog::getText(
            this, "Isovalue", "Intensity between blood and wall (blank: suggested by the intensity histogram):",
            QLineEdit::Normal, QString(), &ok);
        if (!ok) return;
        if (!text.trimmed().isEmpty()) {
            const float v = text.trimmed().toFloat(&ok);
            if (!ok) {
                QMessageBox::warning(this, "Isovalue", "Not a number: '" + text + "'");
                return;
            }
            isovalue = v;
        }
    }
    loadHeart(volumes ? heart::HeartSource::fromVolumes(dir.toStdString(), isovalue, cycleSeconds_)
                      : heart::HeartSource::fromMeshes(dir.toStdString(), cycleSeconds_));
}

void MainWindow::saveScreenshot() {
    const QString path = QFileDialog::getSaveFileName(this, "Save the view", "atrium.png", "PNG images (*.png)");
    if (path.isEmpty()) return;
    bool ok = false;
    const QString size = QInputDialog::getText(this, "Image size", "Width x height in pixels (up to 8192 x 8192):",
                                               QLineEdit::Normal, QString("%1x%2").arg(view_->width()).arg(view_->height()), &ok);
    if (!ok) return;
    const auto m = QRegularExpression("^\\s*(\\d+)\\s*[xX]\\s*(\\d+)\\s*$").match(size);
    try {
        if (!m.hasMatch()) throw std::invalid_argument("expected WIDTHxHEIGHT, e.g. 1920x1080, got '" + size.toStdString() + "'");
        const QImage image = view_->renderImage(QSize(m.captured(1).toInt(), m.captured(2).toInt()));
        if (!image.save(path, "PNG")) throw std::runtime_error("could not write " + path.toStdString());
        statusBar()->showMessage("Saved " + path, 5000);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, "Screenshot", QString::fromStdString(e.what()));
    }
}

void MainWindow::toggleRecording(bool on) {
    if (on) {
        const QString path = QFileDialog::getSaveFileName(this, "Record the view to", "atrium.mp4", "MP4 video (*.mp4)");
        try {
            if (path.isEmpty()) throw std::runtime_error("");
            view_->startRecording(path.toStdString());
            statusBar()->showMessage("Recording to " + path + " (Ctrl+R stops)");
        } catch (const std::exception& e) {
            if (*e.what()) QMessageBox::warning(this, "Record video", QString::fromStdString(e.what()));
            const QSignalBlocker block(record_);
            record_->setChecked(false);
        }
        return;
    }
    std::shared_ptr<VideoRecorder> recorder = view_->stopRecording();
    if (!recorder) return;
    // Encoding what is still queued takes a moment: off the UI thread, with progress.
    auto* dialog = new QProgressDialog("Finishing the video...", QString(), 0, 100, this);
    dialog->setMinimumDuration(300);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    QPointer<QProgressDialog> guard = dialog;
    auto* watcher = new QFutureWatcher<QString>(this);
    connect(watcher, &QFutureWatcher<QString>::finished, this, [this, watcher, guard, recorder] {
        watcher->deleteLater();
        if (guard) guard->close();
        const QString error = watcher->result();
        if (!error.isEmpty()) QMessageBox::warning(this, "Record video", error);
        else statusBar()->showMessage(QString("Video saved: %1 frames (%2 dropped while the encoder was busy)")
                                          .arg(qulonglong(recorder->framesEncoded()))
                                          .arg(qulonglong(recorder->framesDropped())), 8000);
    });
    watcher->setFuture(QtConcurrent::run(&workerPool(), [recorder, guard]() -> QString {
        try {
            recorder->finish([guard](double f) {
                QMetaObject::invokeMethod(qApp, [guard, f] { if (guard) guard->setValue(int(100 * f)); }, Qt::QueuedConnection);
            });
        } catch (const std::exception& e) {
            return QString::fromStdString(e.what());
        }
        return {};
    }));
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_) {
        if (event->type() == QEvent::MouseMove) bar_->pointerAt(int(static_cast<QMouseEvent*>(event)->position().y()));
        else if (event->type() == QEvent::Resize) bar_->fitToParent();
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::choose(QActionGroup* group, int value) {
    for (QAction* a : group->actions())
        if (a->data().toInt() == value) a->trigger();
}

void MainWindow::readSettings() {
    if (!options_.persistSettings) return;
    const QSettings s;
    if (s.contains("window/geometry")) restoreGeometry(s.value("window/geometry").toByteArray());
    choose(modes_, s.value("view/navigation", int(narrative::CameraMode::Orbit)).toInt());
    choose(colors_, s.value("view/color", int(ColorQuantity::Blood)).toInt());
    choose(fluids_, s.value("view/fluid", int(FluidMode::Spheres)).toInt());
    opacity_->setValue(std::clamp(s.value("view/wallOpacity", 35).toInt(), 0, 100));
    if (!options_.particleBudget)
        choices_.particleBudget = std::clamp(s.value("simulation/particleBudget", choices_.particleBudget).toInt(),
                                             SimulationChoices::kMinParticles, SimulationChoices::kMaxParticles);
}

void MainWindow::writeSettings() const {
    if (!options_.persistSettings) return;
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("view/navigation", int(view_->navigationMode()));
    s.setValue("view/color", int(view_->colorQuantity()));
    s.setValue("view/fluid", int(view_->fluidMode()));
    s.setValue("view/wallOpacity", opacity_->value());
    s.setValue("simulation/particleBudget", choices_.particleBudget);
    const char* kinds[] = {"phantom", "volumes", "meshes"};
    s.setValue("heart/kind", kinds[int(source_.kind)]);
    s.setValue("heart/value", QString::fromStdString(source_.kind == heart::HeartSource::Kind::Phantom ? source_.phantomPreset
                                                                                                        : source_.pattern));
    if (source_.isovalue) s.setValue("heart/isovalue", double(*source_.isovalue));
    else s.remove("heart/isovalue");
}

void MainWindow::closeEvent(QCloseEvent* e) {
    writeSettings();
    QMainWindow::closeEvent(e);
}

} // namespace atrium::widgets
