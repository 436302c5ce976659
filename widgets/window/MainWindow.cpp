#include "widgets/window/MainWindow.h"

#include "sim/sph/Solver.h" // cudaBackendAvailable(), Aabb
#include "widgets/window/ControlBar.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/window/HelpOverlay.h"
#include "narrative/NarrativeDocument.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"
#include "widgets/media/VideoRecorder.h"
#include "widgets/flow/WorkerPool.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDateTime>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QFileDialog>
#include <QFutureWatcher>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QProgressDialog>
#include <QRegularExpression>
#include <QScopeGuard>
#include <QSettings>
#include <QSignalBlocker>
#include <QSlider>
#include <QStatusBar>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <cmath>

namespace atrium::widgets {
namespace {

// QSettings keys of the heart that is loading or whose blood has not run long enough yet.
const QString kUnfinishedHeart = "heart/unfinished";
const QString kUnfinishedWhy = "heart/unfinishedWhy";
/// Frames with blood after which a loaded heart counts as having come through.
constexpr int kFramesUntilHeartCameThrough = 60;

} // namespace

MainWindow::MainWindow(const ViewerOptions& options, QWidget* parent)
    : QMainWindow(parent), options_(options), view_(new SceneView(this)), bar_(new ControlBar(view_)),
      help_(new HelpOverlay(view_)), loader_(new HeartLoader(this)),
      lecture_(new LectureUi(this, view_, options.persistSettings, !options.headless)),
      baker_(new FlowBaker(this)) {
    startMs_ = QDateTime::currentMSecsSinceEpoch();
    setWindowTitle("Atrium");
    // The view above the lecture's bars, which take rows of their own: nothing covers the
    // view, so what it draws (overlays, labels, the cycle panel, scale bar and legend) and
    // a screenshot at its size are what the user sees.
    auto* central = new QWidget(this);
    auto* column = new QVBoxLayout(central);
    column->setContentsMargins(0, 0, 0, 0);
    column->setSpacing(0);
    column->addWidget(view_, 1);
    lecture_->placeBarsBelow(column);
    setCentralWidget(central);
    view_->installEventFilter(this);
    qApp->installEventFilter(this); // Esc for the topmost panel, wherever the focus is
    choices_.cuda = options.cuda;
    if (options.particleBudget) choices_.particleBudget = *options.particleBudget;

    buildActions();
    buildMenus();
    buildControlBar();
    buildNarratives();
    lecture_->setGatedActions(record_, modes_);
    connect(lecture_, &LectureUi::heartRequested, this, [this](const heart::HeartSource& source) { loadHeart(source, {}, true); });
    connect(lecture_, &LectureUi::flowOffered, this, &MainWindow::offerLectureFlow);
    // A lecture's narratives live in it: shown from its package, saved with it.
    lecture_->setNarratives(narratives_);
    connect(narratives_, &NarrativeWorkspace::lectureRequested, lecture_, &LectureUi::open);
    connect(this, &MainWindow::heartLoaded, lecture_, &LectureUi::refreshTitle);
    connect(view_, &SceneView::statusMessage, this, [this](const QString& text) { statusBar()->showMessage(text, 10000); });
    connectFlow();
    buildAnnotations();
    statusBar()->showMessage("Space releases the mouse in flight modes; F1 shows the keys", 8000);
    resize(1280, 800);
    readSettings();
    if (options.navigation) choose(modes_, int(*options.navigation));
    if (options.color) choose(colors_, int(*options.color));
    if (options.fluid) choose(fluids_, int(*options.fluid));
    flowFile_ = options.flowFile;
    if (options.realTimeFlow || options.flowFile) realTime_->setChecked(options.flowFile || *options.realTimeFlow);

    connect(view_, &SceneView::frameRendered, this, [this] {
        if (secondsToHeart_ == 0.0 && view_->shownSnapshot() && !view_->shownSnapshot()->wallVertexMm.empty())
            secondsToHeart_ = double(QDateTime::currentMSecsSinceEpoch() - startMs_) / 1000.0;
        // The heart loaded last came through once its blood has been shown for a while;
        // if its blood failed instead, say so for the next start.
        if (bloodShownOfMarked_ >= 0) {
            if (auto* r = view_->runner(); r && r->state() == SimulationRunner::State::Failed) {
                markUnfinishedHeart(source_, "its blood failed: " + QString::fromStdString(r->failure()).left(300));
                bloodShownOfMarked_ = -1;
            } else if ((!r || r->state() == SimulationRunner::State::Running) && view_->shownSnapshot() &&
                       view_->shownSnapshot()->particles() > 0 && ++bloodShownOfMarked_ > kFramesUntilHeartCameThrough) {
                // Live blood running, or a baked beat playing.
                clearUnfinishedHeart();
                bloodShownOfMarked_ = -1;
            }
        }
    });
    view_->setBackgroundStatus([this] {
        return QStringList{loader_->statusText(), baker_->statusText()}.filter(QRegularExpression(".")).join(" | ");
    });
    connect(loader_, &HeartLoader::loaded, this, [this](const std::shared_ptr<const LoadedHeart>& heart) {
        if (!startPendingLoad()) showLoadedHeart(*heart);
    });
    connect(loader_, &HeartLoader::cancelled, this, [this] {
        if (startPendingLoad()) return;
        clearUnfinishedHeart();
        bloodShownOfMarked_ = -1;
        statusBar()->showMessage(heart_ ? "Loading cancelled: the previous heart goes on" : "Loading cancelled", 6000);
        returnFocusToView();
    });
    connect(loader_, &HeartLoader::failed, this, [this](const QString& error) {
        if (startPendingLoad()) return; // a heart nobody waits for any more
        if (heart_) clearUnfinishedHeart(); // the previous heart goes on and is the one remembered
        else markUnfinishedHeart(loadingSource_, "it could not be loaded: " + error.left(300));
        bloodShownOfMarked_ = -1;
        statusBar()->showMessage("Could not load the heart: " + error);
        Q_EMIT loadFailed(error);
        if (isVisible() && !options_.headless)
            QMessageBox::warning(this, "Atrium",
                                 "Could not load the heart:\n" + error +
                                     (heart_ ? "\n\nThe previous heart goes on." : QString()));
        returnFocusToView();
    });
    connect(view_, &SceneView::mouseCaptureChanged, this, [this](bool captured) {
        statusBar()->showMessage(captured ? "Mouse steers the camera: Space releases it" : "Mouse released: Space takes it again",
                                 4000);
    });

    heart::HeartSource source = heart::HeartSource::fromPreset(kDefaultPhantomPreset);
    std::string shell = options.shellPattern;
    if (options.source) {
        source = *options.source;
    } else if (options.persistSettings) {
        const QSettings settings;
        shell = settings.value("heart/shell").toString().toStdString();
        const QString kind = settings.value("heart/kind").toString(), value = settings.value("heart/value").toString();
        try {
            if (kind == "phantom") source = heart::HeartSource::fromPreset(value.toStdString());
            else if (kind == "volumes") {
                bool hasIso = false;
                const float iso = settings.value("heart/isovalue").toFloat(&hasIso);
                source = heart::HeartSource::fromVolumes(value.toStdString(), hasIso ? std::optional<float>(iso) : std::nullopt);
            }
            else if (kind == "meshes") {
                std::vector<heart::ChamberSeries> chambers; // one pattern a line, one per chamber
                for (const QString& pattern : value.split('\n', Qt::SkipEmptyParts))
                    chambers.push_back({pattern.toStdString(), {}, {}});
                source = heart::HeartSource::fromChambers(std::move(chambers));
            }
        } catch (const std::exception&) {
            source = heart::HeartSource::fromPreset(kDefaultPhantomPreset); // a stale setting is no reason to fail
        }
        // A heart whose load or blood did not come through last time (Atrium crashed, or it
        // failed) is not retried at start-up: that could crash every start.
        const QString unfinished = settings.value(kUnfinishedHeart).toString();
        if (!unfinished.isEmpty()) {
            const QString why = settings.value(kUnfinishedWhy, "Atrium stopped while it was loading").toString();
            // The adult: it loads in a third of the default's time, and the default may be what failed.
            source = heart::HeartSource::fromPreset("adult");
            shell.clear(); // its outer surface belongs to it
            QTimer::singleShot(0, this, [this, unfinished, why] {
                const QString text = "The last heart, " + unfinished + ", did not come through last time (" + why +
                                     "), so the synthetic heart is shown instead. Open it again from the File menu to retry.";
                statusBar()->showMessage(text);
                if (isVisible()) {
                    auto* box = new QMessageBox(QMessageBox::Information, "Atrium", text, QMessageBox::Ok, this);
                    box->setAttribute(Qt::WA_DeleteOnClose);
                    box->open();
                }
            });
        }
    }
    if (options.lecture) {
        // The lecture brings its own heart.
        QTimer::singleShot(0, this, [this, path = *options.lecture] {
            if (options_.headless) {
                QString error;
                if (!lecture_->openNow(path, &error)) Q_EMIT loadFailed(error);
            } else {
                lecture_->open(path);
            }
        });
        return;
    }
    QTimer::singleShot(0, this, [this, source, shell] { loadHeart(source, shell); });
}

void MainWindow::markUnfinishedHeart(const heart::HeartSource& source, const QString& why) const {
    if (!options_.persistSettings) return;
    QSettings s;
    s.setValue(kUnfinishedHeart, sourceLabel(source));
    if (why.isEmpty()) s.remove(kUnfinishedWhy);
    else s.setValue(kUnfinishedWhy, why);
    s.sync(); // on disk before the work that might crash
}

void MainWindow::clearUnfinishedHeart() const {
    if (!options_.persistSettings) return;
    QSettings s;
    s.remove(kUnfinishedHeart);
    s.remove(kUnfinishedWhy);
}

MainWindow::~MainWindow() = default;

void MainWindow::loadHeart(const heart::HeartSource& source, const std::string& shellPattern, bool replacing) {
    if (loader_->busy() && replacing) {
        pendingLoad_ = {source, shellPattern};
        loader_->cancel();
        statusBar()->showMessage("Loading the lecture's heart once the heart loading now has stopped", 6000);
        return;
    }
    if (!loader_->start(source, shellPattern)) {
        statusBar()->showMessage("A heart is loading: wait for it or cancel it first", 4000);
        return;
    }
    loadingSource_ = source;
    markUnfinishedHeart(source, {}); // cleared once its blood has run (see the frameRendered handler)
    bloodShownOfMarked_ = -1;          // counting starts when it is shown
}

bool MainWindow::startPendingLoad() {
    if (!pendingLoad_) return false;
    const auto [source, shell] = *std::exchange(pendingLoad_, std::nullopt);
    loadHeart(source, shell);
    return true;
}

void MainWindow::showLoadedHeart(const LoadedHeart& loaded) {
    if (heart_) flowFile_.reset(); // a beat file opened for the previous heart
    if (supplied_) { // a lecture's flow is checked against the lecture's heart; others were for the previous one
        if (supplied_->awaitingHeart) supplied_->awaitingHeart = false;
        else if (heart_) supplied_.reset();
    }
    heart_ = loaded.mesh;
    heartCacheStatus_ = loaded.report.cacheStatus;
    anatomy_ = loaded.anatomy;
    source_ = loaded.source;
    shellPattern_ = loaded.shellPattern;
    view_->setShell(loaded.shell);
    view_->setValveLeaflets(loaded.leaflets);
    if (!loaded.shellError.empty()) {
        const QString why = "The outer surface is not shown: " + QString::fromStdString(loaded.shellError);
        if (options_.headless) Q_EMIT loadFailed(why);
        else if (isVisible()) // after the heart has started
            QTimer::singleShot(0, this, [this, why] { QMessageBox::warning(this, "Outer surface", why); });
    }
    // A phantom's own right heart is no chosen surface: choosing one replaces it.
    loadShell_->setText(loaded.shellPattern.empty() ? "Outer surface (shell)..." : "Remove the outer surface");
    heartIdentity_ = loaded.identity;
    cycleSeconds_ = loaded.report.cycleSeconds > 0 ? loaded.report.cycleSeconds : 0.8;
    poolMl_ = loaded.report.bloodPoolVolumeMl.empty() ? heart::enclosedVolumeMl(heart_->phaseMesh(0))
                                                      : loaded.report.bloodPoolVolumeMl.front();
    // The heart's own rate, unless the user chose another for this heart last time.
    choices_.heartRateBpm = savedHeartRate_ && savedHeartRate_->first == sourceLabel(source_) ? savedHeartRate_->second
                                                                                               : 60.0 / cycleSeconds_;
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
    showAnnotations(loaded);
    restartSimulation(choices_);
    bloodShownOfMarked_ = 0; // its blood counts from now on
    Q_EMIT heartLoaded();
}

void MainWindow::restartSimulation(const SimulationChoices& c) {
    choices_ = c;
    startBlood();
}

void MainWindow::returnFocusToView() {
    activateWindow();
    view_->setFocus(Qt::OtherFocusReason);
}

void MainWindow::openSolverPanel() {
    SolverPanel panel(choices_, this);
    if (panel.exec() == QDialog::Accepted) {
        flowFile_.reset(); // a beat holds its own parameters: bake the ones chosen
        supplied_.reset();
        restartSimulation(panel.choices());
    }
    returnFocusToView();
}

bool MainWindow::chooseColorRange() {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
    const ColorQuantity q = view_->colorQuantity();
    if (q == ColorQuantity::Blood) {
        QMessageBox::information(this, "Colour range", "Choose a quantity to colour the blood by first (keys 2-4).");
        return false;
    }
    QDialog dialog(this);
    dialog.setWindowTitle("Colour range: " + QString::fromStdString(quantityLabel(q)));
    auto* form = new QFormLayout(&dialog);
    const ColorRange now = view_->colorRange();
    const auto spin = [&](double value) {
        auto* s = new QDoubleSpinBox(&dialog);
        s->setRange(-1e6, 1e6);
        s->setDecimals(std::max(tickDecimals(now), 1));
        s->setValue(value);
        return s;
    };
    QDoubleSpinBox *lo = spin(now.min), *hi = spin(now.max);
    const QString unit = QString::fromStdString(quantityLabel(q)).section('(', 1).chopped(1);
    form->addRow("From (" + unit + ")", lo);
    form->addRow("To (" + unit + ")", hi);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, [&] {
        if (hi->value() > lo->value()) dialog.accept();
        else QMessageBox::warning(&dialog, "Colour range", "'To' must be above 'From'.");
    });
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    form->addRow(buttons);
    if (dialog.exec() != QDialog::Accepted) return false;
    view_->setFixedColorRange(q, ColorRange{float(lo->value()), float(hi->value())});
    return true;
}

void MainWindow::chooseSeries(bool volumes) {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
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
    if (volumes) {
        loadHeart(heart::HeartSource::fromVolumes(dir.toStdString(), isovalue, cycleSeconds_));
        return;
    }
    // A folder of several series (lv_*.vtk, rv_*.vtk): one chamber each.
    try {
        loadHeart(heart::HeartSource::fromChambers(heart::chambersInDirectory(dir.toStdString()), cycleSeconds_));
    } catch (const std::exception& e) {
        QMessageBox::warning(this, "Mesh series", QString::fromStdString(e.what()));
    }
}

void MainWindow::chooseShell() {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
    if (!shellPattern_.empty()) { // shown: the action removes it
        loadHeart(source_);
        return;
    }
    const QString dir = QFileDialog::getExistingDirectory(
        this, "Folder of an outer surface's meshes (an epicardium), one per phase: shown, no blood");
    if (!dir.isEmpty()) loadHeart(source_, dir.toStdString());
}

void MainWindow::saveScreenshot() {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
    const QString path = QFileDialog::getSaveFileName(this, "Save the view", "atrium.png", "PNG images (*.png)");
    if (path.isEmpty()) return;
    bool ok = false;
    // The view's size, or the largest the lecture allows (OutputGate), as the default.
    const OutputGate& gate = view_->outputGate();
    const QSize largest = gate.limit().value_or(QSize(OutputGate::kMaxSide, OutputGate::kMaxSide));
    const QSize offer = gate.fit(view_->size());
    const QString size = QInputDialog::getText(this, "Image size",
                                               QString("Width x height in pixels (up to %1 x %2):").arg(largest.width()).arg(largest.height()),
                                               QLineEdit::Normal, QString("%1x%2").arg(offer.width()).arg(offer.height()), &ok);
    if (!ok) return;
    const auto m = QRegularExpression("^\\s*(\\d+)\\s*[xX]\\s*(\\d+)\\s*$").match(size);
    try {
        if (!m.hasMatch()) throw std::invalid_argument("expected WIDTHxHEIGHT, e.g. 1920x1080, got '" + size.toStdString() + "'");
        if (auto why = gate.refuseImage(QSize(m.captured(1).toInt(), m.captured(2).toInt())))
            throw std::invalid_argument(why->toStdString());
        const QImage image = view_->renderImage(QSize(m.captured(1).toInt(), m.captured(2).toInt()));
        if (!image.save(path, "PNG")) throw std::runtime_error("could not write " + path.toStdString());
        statusBar()->showMessage("Saved " + path, 5000);
    } catch (const std::exception& e) {
        QMessageBox::warning(this, "Screenshot", QString::fromStdString(e.what()));
    }
}

void MainWindow::toggleRecording(bool on) {
    const auto refocus = qScopeGuard([this] { returnFocusToView(); });
    if (on) {
        try {
            // Asked again at the view's pixel size when the recording starts.
            if (auto why = view_->outputGate().refuseVideo()) throw std::runtime_error(why->toStdString());
            const QString path = QFileDialog::getSaveFileName(this, "Record the view to", "atrium.mp4", "MP4 video (*.mp4)");
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
        if (!error.isEmpty()) {
            QMessageBox::warning(this, "Record video", error);
            returnFocusToView();
        }
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

bool MainWindow::closeTopmostPanel() {
    const QObjectList& stack = view_->children(); // bottom to top: raise() moves a widget last
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        auto* widget = qobject_cast<QWidget*>(*it);
        if (!widget || !widget->isVisible()) continue;
        if (auto* resource = qobject_cast<ResourceViewer*>(widget)) {
            resource->closePanel();
            returnFocusToView();
            return true;
        }
        if (widget == help_) {
            help_->hide();
            return true;
        }
    }
    return false;
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event) {
    // Esc closes the topmost panel over the view (a resource, the help sheet) before it
    // stops anything else, wherever the focus is in this window: Qt asks the focus widget
    // whether it takes the key (ShortcutOverride) before it runs the Esc action.
    if (event->type() == QEvent::ShortcutOverride || (event->type() == QEvent::KeyPress && escapeTaken_)) {
        const auto* key = static_cast<QKeyEvent*>(event);
        auto* widget = qobject_cast<QWidget*>(watched);
        if (key->key() == Qt::Key_Escape && key->modifiers() == Qt::NoModifier && widget && widget->window() == this) {
            if (event->type() == QEvent::KeyPress) { // the press that follows the override: spent
                escapeTaken_ = false;
                return true;
            }
            if (closeTopmostPanel()) {
                escapeTaken_ = true;
                event->accept();
                return true;
            }
        }
    }
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
    // Stale or hand-edited values fall back to the defaults, never outside the ranges.
    const auto number = [&s](const char* key, double fallback, double lo, double hi) {
        bool ok = false;
        const double v = s.value(key).toDouble(&ok);
        return ok && v >= lo && v <= hi ? v : fallback;
    };
    choices_.viscosityMilliPaS = number("simulation/viscosityMilliPaS", choices_.viscosityMilliPaS,
                                        SimulationChoices::kMinViscosity, SimulationChoices::kMaxViscosity);
    choices_.soundSpeed = number("simulation/soundSpeed", choices_.soundSpeed, SimulationChoices::kMinSoundSpeed,
                                 SimulationChoices::kMaxSoundSpeed);
    // A first start bakes the blood on the CPU, where live blood runs at about 1/20 of
    // real time, and simulates it live with the CUDA backend.
    const QString flow = s.value("simulation/flow").toString();
    if (!options_.realTimeFlow && (flow == "baked" || (flow.isEmpty() && !choices_.cuda))) realTime_->setChecked(true);
    if (s.contains("simulation/heartRateFor"))
        savedHeartRate_ = std::pair{s.value("simulation/heartRateFor").toString(),
                                    number("simulation/heartRateBpm", 75.0, SimulationChoices::kMinRate, SimulationChoices::kMaxRate)};
}

void MainWindow::writeSettings() const {
    if (!options_.persistSettings) return;
    QSettings s;
    s.setValue("window/geometry", saveGeometry());
    s.setValue("view/navigation", int(view_->navigationMode()));
    // The user's view, not a tour's: a narrative shown now changes it only until it stops.
    const narrative::ViewState user = userViewState();
    s.setValue("view/color", int(toColorQuantity(*user.colouring)));
    s.setValue("view/fluid", int(*user.fluid == narrative::FluidDrawing::Surface ? FluidMode::Surface : FluidMode::Spheres));
    s.setValue("view/wallOpacity", int(std::lround(*user.wallOpacity * 100.0)));
    s.setValue("simulation/particleBudget", choices_.particleBudget);
    s.setValue("simulation/viscosityMilliPaS", choices_.viscosityMilliPaS);
    s.setValue("simulation/soundSpeed", choices_.soundSpeed);
    s.setValue("simulation/flow", realTimeBeforeLecture_.value_or(realTimeFlow()) ? "baked" : "live");
    if (heart_) {
        s.setValue("simulation/heartRateBpm", *user.heartRateBpm);
        s.setValue("simulation/heartRateFor", sourceLabel(source_));
    }
    const char* kinds[] = {"phantom", "volumes", "meshes"};
    s.setValue("heart/kind", kinds[int(source_.kind)]);
    std::string value = source_.kind == heart::HeartSource::Kind::Phantom ? source_.phantomPreset : source_.pattern;
    if (source_.kind == heart::HeartSource::Kind::Meshes) {
        value.clear();
        for (const heart::ChamberSeries& c : source_.chambers) value += c.pattern + "\n";
    }
    s.setValue("heart/value", QString::fromStdString(value));
    s.setValue("heart/shell", QString::fromStdString(shellPattern_));
    if (source_.isovalue) s.setValue("heart/isovalue", double(*source_.isovalue));
    else s.remove("heart/isovalue");
}

void MainWindow::closeEvent(QCloseEvent* e) {
    // Unsaved narratives (a lecture's are saved into it), then the lecture's other
    // edits: the author may cancel.
    if (!narratives_->maybeSave() || !lecture_->maybeSave()) {
        e->ignore();
        return;
    }
    writeSettings();
    QMainWindow::closeEvent(e);
}

} // namespace atrium::widgets
