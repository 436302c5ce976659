// LiveLectureUi: the menu, the panel and what the roles share - joining and following
// (the student), applying a session's state to the window (student and replay), every
// frame and the view's input. The lecturer's side is in LiveLectureLecturer.cpp, the
// replay's in LiveLectureReplay.cpp.
#include "widgets/live/LiveLectureUi.h"
#include "widgets/live/LiveLectureShared.h"

#include "session/ContentIdentity.h"
#include "session/Recording.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/live/LiveLecturePanel.h"
#include "widgets/window/MainWindow.h"
#include "widgets/window/MakeAction.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/PackageDownload.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"

#include <QCheckBox>
#include <QDateTime>
#include <QDockWidget>
#include <QFileInfo>
#include <QFileDialog>
#include <QFormLayout>
#include <QDialog>
#include <QDialogButtonBox>
#include <QInputDialog>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QStatusBar>
#include <QUrlQuery>
#include <QUrl>

#include <cmath>

namespace atrium::widgets {

using namespace atrium::session;
using live_detail::phaseDistance;

namespace {

narrative::ViewState toViewState(const ViewSettings& v) {
    narrative::ViewState s;
    s.colouring = v.colouring;
    s.fluid = v.fluid;
    s.wallOpacity = v.opacity;
    s.clipping = v.clipping;
    s.wireframe = v.wireframe;
    s.bloodVisible = v.blood;
    return s;
}

bool isNavigationKey(int key) {
    switch (key) {
    case Qt::Key_W: case Qt::Key_A: case Qt::Key_S: case Qt::Key_D: case Qt::Key_Q: case Qt::Key_E:
    case Qt::Key_Up: case Qt::Key_Down: case Qt::Key_Left: case Qt::Key_Right: case Qt::Key_H:
        return true;
    default:
        return false;
    }
}

} // namespace

LiveLectureUi::LiveLectureUi(MainWindow* window, std::shared_ptr<LiveSessionService> service, bool interactive)
    : QObject(window), window_(window), service_(std::move(service)), interactive_(interactive) {
    panel_ = new LiveLecturePanel(window);
    dock_ = new QDockWidget("Live lecture", window);
    dock_->setObjectName("liveLectureDock");
    dock_->setWidget(panel_);
    window->addDockWidget(Qt::RightDockWidgetArea, dock_);
    dock_->hide();
    pointer_ = new QLabel(window->sceneView());
    pointer_->setStyleSheet("QLabel { color: white; background: rgba(200, 30, 30, 200); border: 2px solid white;"
                            " border-radius: 9px; padding: 1px 6px; }");
    pointer_->hide();
    buildActions();
    window->sceneView()->installEventFilter(this);
    window->installEventFilter(this); // quitting while students are connected asks first
    connect(window->sceneView(), &SceneView::cameraAdvanced, this, &LiveLectureUi::onFrame);
    connect(window->lectureUi(), &LectureUi::lectureChanged, this, [this](const QString& title) {
        // A lecture opened (e.g. the one just downloaded): its narratives and resources
        // can now follow the lecturer.
        if (!title.isEmpty() && guest_ && applied_) applyState(*applied_, guest_->lecturerNow(), true);
    });

    connect(window->lectureUi(), &LectureUi::openFailed, this, &LiveLectureUi::recordedLectureFailed);

    connect(panel_->holdButton(), &QPushButton::toggled, this, &LiveLectureUi::setHoldAttention);
    connect(panel_->recordButton(), &QPushButton::toggled, this, &LiveLectureUi::toggleRecording);
    connect(panel_->floorButton(), &QPushButton::clicked, this, [this] {
        if (const auto m = panel_->selectedMember()) handFloor(*m);
    });
    connect(panel_->takeBackButton(), &QPushButton::clicked, this, [this] { handFloor(std::nullopt); });
    connect(panel_->replayPlayButton(), &QPushButton::clicked, this, [this] { setReplayPlaying(!replayPlaying_); });
    connect(panel_->replaySlider(), &QSlider::valueChanged, this,
            [this](int v) { seekReplay(replayLength() * v / 1000.0); });
}

LiveLectureUi::~LiveLectureUi() = default;

void LiveLectureUi::buildActions() {
    menu_ = window_->menuBar()->addMenu("&Live");
    start_ = makeAction(this, "Start lecture...", {}, "Serve the open lecture: students join with the code shown");
    join_ = makeAction(this, "Join lecture...", {}, "Follow a lecturer's view: give the URL and the join code");
    replayAction_ = makeAction(this, "Replay recording...", {}, "Play a recorded lecture in this window, with seeking");
    stop_ = makeAction(this, "Leave", {}, "End the lecture, leave it or close the replay");
    follow_ = makeAction(this, "Follow the lecturer", QKeySequence(Qt::Key_F),
                         "Return to the lecturer's view after exploring on your own", true);
    hold_ = makeAction(this, "Hold attention", {}, "Students follow your view and cannot leave until you release them", true);
    record_ = makeAction(this, "Record lecture", {}, "Save what the students receive, to replay later", true);
    share_ = makeAction(this, "Open resources for everyone", {},
                        "A resource you open opens on every student's screen; untick to look at one on your own", true);
    share_->setChecked(true);
    connect(start_, &QAction::triggered, this, &LiveLectureUi::askStart);
    connect(join_, &QAction::triggered, this, &LiveLectureUi::askJoin);
    connect(replayAction_, &QAction::triggered, this, &LiveLectureUi::askReplay);
    connect(stop_, &QAction::triggered, this, &LiveLectureUi::stop);
    connect(follow_, &QAction::triggered, this, [this](bool on) {
        if (!setFollowing(on)) follow_->setChecked(true);
    });
    connect(hold_, &QAction::toggled, this, [this](bool on) { panel_->holdButton()->setChecked(on); });
    connect(record_, &QAction::toggled, this, [this](bool on) { panel_->recordButton()->setChecked(on); });
    for (QAction* a : {start_, join_, replayAction_}) menu_->addAction(a);
    menu_->addSeparator();
    for (QAction* a : {follow_, hold_, share_, record_}) menu_->addAction(a);
    menu_->addSeparator();
    menu_->addAction(stop_);
    menu_->addAction(dock_->toggleViewAction());
    window_->addAction(follow_); // F works wherever the focus is
    reset();
}

void LiveLectureUi::reset() {
    const bool idle = !host_ && !guest_ && !replay_;
    start_->setEnabled(idle);
    join_->setEnabled(idle);
    replayAction_->setEnabled(idle);
    stop_->setEnabled(!idle);
    stop_->setText(host_ ? "End lecture" : guest_ ? "Leave lecture" : replay_ ? "Close replay" : "Leave");
    follow_->setEnabled(guest_ != nullptr);
    hold_->setEnabled(host_ != nullptr);
    record_->setEnabled(host_ != nullptr);
    share_->setEnabled(host_ != nullptr);
    if (idle) {
        panel_->clear();
        pointer_->hide();
    }
}

std::function<void()> LiveLectureUi::newsPoster() {
    // Called on the transport's thread: one queued call to this thread at a time.
    return [this] {
        if (newsPosted_.exchange(true)) return;
        QMetaObject::invokeMethod(this, &LiveLectureUi::onNews, Qt::QueuedConnection);
    };
}

void LiveLectureUi::showMessage(const QString& text, int ms) { window_->statusBar()->showMessage(text, ms); }

// ---- starting and stopping -------------------------------------------------------------

bool LiveLectureUi::join(const LiveJoinOptions& given, QString* error) {
    stop();
    LiveJoinOptions o = given;
    // A URL from the QR code carries the code: ws://HOST:PORT/?code=CODE.
    const QUrl url(o.url);
    const QString code = QUrlQuery(url.query()).queryItemValue("code");
    if (o.code.isEmpty() && !code.isEmpty()) o.code = code;
    if (o.code.isEmpty()) {
        if (error) *error = "Give the join code the lecturer shows";
        return false;
    }
    if (o.name.isEmpty()) o.name = qEnvironmentVariable("USER", "student");
    try {
        guest_ = service_->join(o);
    } catch (const std::exception& e) {
        if (error) *error = QString("Cannot join: %1").arg(e.what());
        return false;
    }
    guest_->setNotify(newsPoster());
    // The narrative keeps the session's time, so the lecturer's and this one meet at the same moment.
    window_->narratives()->playback()->setClock([this] { return guest_ ? guest_->lecturerNow() : 0.0; });
    applied_.reset();
    presenting_ = false;
    panel_->showStatus("Connecting to " + o.url + " ...");
    dock_->show();
    follow_->setChecked(true);
    reset();
    Q_EMIT statusChanged();
    return true;
}

void LiveLectureUi::stop() {
    if (host_ && host_->recording()) stopRecording();
    const bool wasActive = host_ || guest_ || replay_;
    host_.reset();
    guest_.reset();
    replay_.reset();
    window_->narratives()->playback()->setClock({}); // the wall clock again
    applied_.reset();
    presenting_ = false;
    // A narrative paused for a presenter stays paused (the lecturer plays it on), its camera theirs again.
    narrativeHeldForFloor_ = narrativeResumesAfterFloor_ = false;
    window_->narratives()->playback()->setCameraYielded(false);
    hold_->setChecked(false);
    record_->setChecked(false);
    reset();
    if (wasActive) Q_EMIT statusChanged();
}

// ---- the menu's dialogs ----------------------------------------------------------------

void LiveLectureUi::askJoin() {
    QDialog dialog(window_);
    dialog.setWindowTitle("Join lecture");
    auto* form = new QFormLayout(&dialog);
    auto* url = new QLineEdit("ws://", &dialog);
    auto* code = new QLineEdit(&dialog);
    auto* name = new QLineEdit(qEnvironmentVariable("USER"), &dialog);
    auto* selfSigned = new QCheckBox("Accept a classroom certificate (wss://)", &dialog);
    selfSigned->setToolTip("For a private lecture on the classroom's network: compare the fingerprint the lecturer shows");
    url->setToolTip("The address the lecturer shows, e.g. ws://192.168.1.20:40123");
    code->setToolTip("The join code the lecturer shows");
    form->addRow("URL", url);
    form->addRow("Join code", code);
    form->addRow("Your name", name);
    form->addRow(selfSigned);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    QString error;
    if (!join({url->text().trimmed(), code->text().trimmed().toUpper(), name->text().trimmed(), std::nullopt,
               selfSigned->isChecked()},
              &error))
        QMessageBox::warning(window_, "Atrium", error);
}

// ---- student ---------------------------------------------------------------------------

bool LiveLectureUi::following() const { return guest_ && guest_->following(); }

bool LiveLectureUi::setFollowing(bool on) {
    if (!guest_) return false;
    if (!guest_->setFollowing(on)) {
        showMessage("The lecturer holds attention: you follow until released");
        return false;
    }
    follow_->setChecked(on);
    if (on && applied_) applyState(*applied_, guest_->lecturerNow(), true); // back in step
    if (!on) {
        window_->narratives()->playback()->stop(); // the camera is the student's
        showMessage("Exploring on your own: F returns to the lecturer's view");
    }
    refreshPanel();
    Q_EMIT statusChanged();
    return true;
}

void LiveLectureUi::onNews() {
    newsPosted_ = false;
    if (host_) {
        panel_->showRoster(host_->roster());
        Q_EMIT statusChanged();
        return;
    }
    if (!guest_) return;
    bool changed = false;
    for (const LiveEvent& e : guest_->takeEvents()) {
        switch (e.kind) {
        case LiveEvent::Kind::Joined:
            showMessage("Joined the lecture at " + guest_->url());
            break;
        case LiveEvent::Kind::Applied:
            changed = true;
            break;
        case LiveEvent::Kind::Disconnected:
            showMessage("The connection to the lecturer dropped (" + e.reason + "): reconnecting, your view stays", 10000);
            break;
        case LiveEvent::Kind::Refused:
            showMessage("The lecture refused to let you in: " + e.reason, 15000);
            if (interactive_) QMessageBox::warning(window_, "Atrium", "The lecture refused to let you in: " + e.reason);
            break;
        }
    }
    if (changed && guest_) applyState(guest_->state(), guest_->lecturerNow());
    refreshPanel();
    Q_EMIT statusChanged();
}

void LiveLectureUi::refreshPanel() {
    if (!guest_) return;
    QString text;
    if (!guest_->joined()) text = "Connecting to " + guest_->url() + " ...";
    else if (!guest_->synced()) text = "Joined " + guest_->url() + ", catching up ...";
    else if (presenting_) text = "You have the floor: your view drives everyone's.";
    else if (guest_->following())
        text = applied_ && applied_->attention == Attention::Hold ? "Following: the lecturer holds attention."
                                                                   : "Following the lecturer.";
    else text = "Exploring on your own: press F to follow the lecturer again.";
    if (!contentNote_.isEmpty()) text += "\n" + contentNote_;
    panel_->showStatus(text);
    follow_->setChecked(guest_->following());
}

void LiveLectureUi::applyState(const SessionState& s, double now, bool force) {
    const SessionState before = applied_.value_or(SessionState{});
    const bool first = !applied_ || force;
    applied_ = s;
    if (first || s.content != before.content) checkContent(s.content);
    if (guest_) {
        const bool mine = s.floor && *s.floor == guest_->memberId();
        if (mine != presenting_) {
            presenting_ = mine;
            sampler_.reset();
            if (mine) window_->narratives()->playback()->stop(); // the presenter's camera is their own
            showMessage(mine ? "You have the floor: your view drives everyone's until the lecturer takes it back"
                             : "The lecturer has the floor again");
        }
    }
    // While a student presents, the narrative waits (the lecturer paused it) and the
    // camera is the presenter's.
    window_->narratives()->playback()->setCameraYielded(s.floor.has_value());
    const bool follow = replay_ || (guest_ && guest_->following() && !presenting_);
    if (!follow) return;
    // The narrative first: its nodes' view states, then the lecturer's own view and heart over them.
    if (first || !(s.narrative == before.narrative)) applyNarrative(s.narrative, now);
    if (first || !(s.view == before.view)) window_->applyViewState(toViewState(s.view));
    if (first || !(s.sim == before.sim)) applySim(s.sim);
    if (first || s.resource != before.resource) {
        if (s.resource) window_->lectureUi()->openResource(QString::fromStdString(*s.resource));
        else if (before.resource) window_->lectureUi()->resourceViewer()->closePanel();
    }
    if (first || s.pointer != before.pointer) applyPointer(s.pointer);
}

void LiveLectureUi::applyNarrative(const NarrativeState& n, double now) {
    NarrativeWorkspace* ws = window_->narratives();
    NarrativePlayback* pb = ws->playback();
    if (n.index < 0) {
        pb->stop();
        return;
    }
    const int count = int(ws->editor()->document().narratives.size());
    if (n.index >= count) {
        showMessage(QString("The lecturer plays narrative %1, which the lecture open here does not have").arg(n.index + 1));
        return;
    }
    const bool restart = !pb->active() || ws->editor()->currentIndex() != n.index || pb->player().options().entryFrom != n.entry;
    if (restart) {
        pb->stop();
        if (ws->editor()->currentIndex() != n.index) ws->editor()->setCurrentIndex(n.index);
        // The same timeline as the lecturer's: with a flight from where their camera was.
        if (n.entry) {
            window_->sceneView()->camera().setPose(*n.entry);
            pb->play();
        } else {
            pb->seek(0.0);
        }
    }
    pb->setLoop(n.loop);
    const double t = n.timeAt(now);
    if (pb->player().keyPresses() != n.keys) // the key presses that continued waits, at their times
        for (double k : n.keys) {
            if (k > t) break;
            pb->seek(k);
            pb->continueWaiting();
        }
    pb->seek(t);
    if (n.playing) pb->play();
    else pb->pause();
}

void LiveLectureUi::applySim(const SimState& s) {
    SimulationChoices c = window_->simulationChoices();
    const bool restart = c.particleBudget != s.particles || std::abs(c.viscosityMilliPaS - s.viscosity) > 1e-9 ||
                         std::abs(c.soundSpeed - s.soundSpeed) > 1e-9 || (applied_ && resets_ != s.resets);
    resets_ = s.resets;
    if (restart) {
        c.particleBudget = s.particles;
        c.viscosityMilliPaS = s.viscosity;
        c.soundSpeed = s.soundSpeed;
        c.heartRateBpm = s.rateBpm;
        window_->restartSimulation(c);
    }
    narrative::ViewState v;
    v.heartRateBpm = s.rateBpm;
    v.heartRunning = s.running;
    if (!s.running) v.heartPhase = s.phase;
    window_->applyViewState(v);
}

void LiveLectureUi::applyPointer(const std::optional<Pointer>& pointer) {
    if (!pointer) {
        pointer_->hide();
        return;
    }
    pointer_->setText(pointer->label.empty() ? QString("here") : QString::fromStdString(pointer->label));
    pointer_->adjustSize();
    pointer_->show();
}

std::string LiveLectureUi::hashOf(const QString& path) {
    if (hashed_.first == path) return hashed_.second;
    std::string hash;
    try {
        if (const auto id = contentIdOf(path.toStdString())) hash = id->hash;
    } catch (const std::exception&) {
    }
    hashed_ = {path, hash};
    return hash;
}

void LiveLectureUi::checkContent(const std::optional<ContentId>& content) {
    contentNote_.clear();
    if (!content || !guest_) return;
    Lecture* lecture = window_->lectureUi()->lecture();
    if (lecture && hashOf(lecture->path()) == content->hash) return;
    // Not the lecturer's lecture: open the copy downloaded before, or download it now.
    const QString cached = PackageDownload::cachedPath(*content);
    if (QFileInfo::exists(cached) && hashOf(cached) == content->hash) return openDownloaded(cached);
    if (download_ && download_->running() && downloading_ == content->hash) return;
    if (!download_) {
        download_ = new PackageDownload(this);
        connect(download_, &PackageDownload::progress, this, [this](qint64 done, qint64 total) {
            contentNote_ = QString("Downloading the lecturer's lecture: %1 %").arg(total > 0 ? 100 * done / total : 0);
            refreshPanel();
        });
        connect(download_, &PackageDownload::finished, this, [this](const QString& path, const QString& error) {
            downloading_.clear();
            if (!error.isEmpty()) {
                contentNote_ = error;
                refreshPanel();
                return;
            }
            openDownloaded(path);
        });
    }
    downloading_ = content->hash;
    contentNote_ = "Downloading the lecturer's lecture, " + QString::fromStdString(content->name) + " ...";
    download_->start(guest_->url(), *content, guest_->allowsSelfSigned());
}

void LiveLectureUi::openDownloaded(const QString& path) {
    contentNote_.clear();
    showMessage("Opening the lecturer's lecture (its author's signature is checked)");
    if (interactive_) {
        window_->lectureUi()->open(path);
        return;
    }
    QString error;
    if (!window_->lectureUi()->openNow(path, &error)) contentNote_ = error;
}

// ---- every frame ---------------------------------------------------------------------------

void LiveLectureUi::onFrame(double) {
    SceneView* view = window_->sceneView();
    if (host_) {
        publish();
    } else if (guest_ && presenting_) {
        // Presenting: this window's view drives everyone's, through the lecturer's server.
        const double now = guest_->lecturerNow();
        for (const PoseSample& s : sampler_.update(view->camera().pose(), now)) guest_->drive(msg::Pose{s});
    } else if (guest_ && guest_->synced() && guest_->following()) {
        if (const auto pose = guest_->pose()) view->camera().setPose(*pose);
        const double now = guest_->lecturerNow();
        // A baked beat plays in step with the lecturer's heart, so the same blood shows on
        // every screen (a live simulation cannot be moved in time; it beats at the same rate).
        if (auto* baked = dynamic_cast<BakedFlowPlayer*>(view->bloodSource()); baked && applied_ && applied_->sim.running) {
            const double target = applied_->sim.phaseAt(now);
            if (phaseDistance(baked->phase(), target) > 0.01) baked->setPhase(target);
        }
        if (applied_ && applied_->narrative.playing && now > nextDriftCheck_) { // keep the player in step
            nextDriftCheck_ = now + 1.0;
            const NarrativePlayback* pb = window_->narratives()->playback();
            if (!pb->active() || std::abs(pb->player().time() - applied_->narrative.timeAt(now)) > 0.1)
                applyNarrative(applied_->narrative, now);
        }
    } else if (replay_) {
        stepReplay();
    }
    // The pointer follows its point on the heart (the lecturer's own, or the one received).
    if (pointer_->isVisible()) {
        const std::optional<Pointer> pointer = host_ ? host_->state().pointer : applied_ ? applied_->pointer : std::nullopt;
        if (const auto p = pointer ? view->project(pointer->at, QSizeF(view->size())) : std::nullopt)
            pointer_->move(int(p->x()) - pointer_->width() / 2, int(p->y()) - pointer_->height() / 2);
    }
}

// ---- input -------------------------------------------------------------------------------------

bool LiveLectureUi::eventFilter(QObject* watched, QEvent* event) {
    if (watched == window_ && event->type() == QEvent::Close) {
        if (confirmQuit()) return false;
        event->ignore();
        return true;
    }
    if (watched != window_->sceneView()) return false;
    const auto type = event->type();
    // The lecturer points at the heart with Alt+click (Alt+click off the heart removes it).
    if (host_ && type == QEvent::MouseButtonPress) {
        auto* e = static_cast<QMouseEvent*>(event);
        if (e->modifiers() & Qt::AltModifier) {
            const auto at = window_->sceneView()->pickWall(e->position());
            std::optional<Pointer> pointer;
            if (at) pointer = Pointer{*at, ""};
            host_->drive(msg::PointerAt{0, pointer});
            applyPointer(pointer);
            showMessage(at ? "Pointing at the heart for everyone (Alt+click elsewhere removes it)" : "Pointer removed");
            return true;
        }
    }
    // F in the view returns to following (also a window shortcut, for when the view lacks the focus).
    if (guest_ && type == QEvent::KeyPress && static_cast<QKeyEvent*>(event)->key() == Qt::Key_F &&
        static_cast<QKeyEvent*>(event)->modifiers() == Qt::NoModifier) {
        setFollowing(true);
        return true;
    }
    if (!guest_ || !guest_->synced() || !guest_->following() || presenting_) return false;
    const bool takesCamera = type == QEvent::MouseButtonPress || type == QEvent::Wheel ||
                             (type == QEvent::KeyPress && isNavigationKey(static_cast<QKeyEvent*>(event)->key()));
    if (!takesCamera) return false;
    if (!setFollowing(false)) return true; // held: the input is ignored
    return false;
}

} // namespace atrium::widgets
