// LiveLectureUi, the lecturer's side: serving the open lecture (and serving it again
// after a restart with the same port and code), publishing what changed every frame,
// holding attention, handing the floor (the narrative waits meanwhile), recording, and
// asking before the window closes on connected students.
#include "widgets/live/LiveLectureUi.h"
#include "widgets/live/LiveLectureShared.h"

#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/live/LiveLecturePanel.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QDateTime>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFileDialog>
#include <QFormLayout>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <filesystem>

namespace atrium::widgets {

using namespace atrium::session;
using live_detail::phaseDistance;
using live_detail::sameNarrative;

bool LiveLectureUi::startLecture(int port, QString* error, bool selfSigned) {
    stop();
    LiveHostOptions o;
    o.port = port;
    o.selfSigned = selfSigned;
    if (Lecture* lecture = window_->lectureUi()->lecture()) o.package = lecture->path().toStdString();
    // The same lecture again (the app restarted): its port and code first, then its code
    // on any port (the old one is taken), then a new start.
    std::vector<LiveHostOptions> tries;
    const auto resumed = resumable(o);
    if (resumed) {
        LiveHostOptions again = o;
        again.code = resumed->second;
        if (port == 0) again.port = resumed->first;
        tries.push_back(again);
        if (again.port != port) {
            again.port = port;
            tries.push_back(again);
        }
    }
    tries.push_back(o);
    QString why;
    for (const LiveHostOptions& t : tries) {
        try {
            host_ = service_->host(t);
            break;
        } catch (const std::exception& e) {
            why = e.what();
        }
    }
    if (!host_) {
        if (error) *error = QString("Cannot start the lecture: %1").arg(why);
        return false;
    }
    rememberStart(o);
    host_->setNotify(newsPoster());
    sampler_.reset();
    sentNarrative_.reset();
    sentSim_.reset();
    sentView_.reset();
    sentResource_.reset();
    panel_->showHosting(host_->code(), host_->urls(), host_->secret(), host_->fingerprint());
    dock_->show();
    reset();
    publish();
    if (resumed && resumed->second == host_->code())
        showMessage("Lecturing again with the code " + host_->code() + ": students still connected rejoin by themselves", 15000);
    else
        showMessage("Lecturing: students join at " + host_->urls().front() + " with the code " + host_->code(), 15000);
    Q_EMIT statusChanged();
    return true;
}

namespace {
QString lectureKey(const LiveHostOptions& o) {
    return o.package ? QString::fromStdString(std::filesystem::absolute(*o.package).lexically_normal().string()) : QString();
}
} // namespace

std::optional<std::pair<int, QString>> LiveLectureUi::resumable(const LiveHostOptions& o) const {
    if (!window_->persistsSettings()) return std::nullopt;
    const QSettings s;
    const QDateTime started = s.value("live/started").toDateTime();
    if (!started.isValid() || started.secsTo(QDateTime::currentDateTimeUtc()) > kResumeHours * 3600) return std::nullopt;
    if (s.value("live/lecture").toString() != lectureKey(o) || s.value("live/secure").toBool() != o.selfSigned)
        return std::nullopt;
    const int port = s.value("live/port").toInt();
    const QString code = s.value("live/code").toString();
    static const QRegularExpression kCode("^[A-Z0-9]{4,12}$"); // as atrium-session serve --code
    if (port <= 0 || port > 65535 || !kCode.match(code).hasMatch()) return std::nullopt;
    return std::pair{port, code};
}

void LiveLectureUi::rememberStart(const LiveHostOptions& o) const {
    if (!window_->persistsSettings() || !host_) return;
    QSettings s;
    s.setValue("live/lecture", lectureKey(o));
    s.setValue("live/secure", o.selfSigned);
    s.setValue("live/port", QUrl(host_->urls().front()).port());
    s.setValue("live/code", host_->code());
    s.setValue("live/started", QDateTime::currentDateTimeUtc());
}

void LiveLectureUi::askStart() {
    QDialog dialog(window_);
    dialog.setWindowTitle("Start lecture");
    auto* form = new QFormLayout(&dialog);
    auto* port = new QSpinBox(&dialog);
    port->setRange(0, 65535);
    port->setSpecialValueText("any free port");
    port->setToolTip("The port students connect to; 0 lets the system choose a free one");
    auto* secure = new QCheckBox("Private: encrypt with a classroom certificate (wss://)", &dialog);
    secure->setToolTip("Students then tick \"Accept a classroom certificate\" when they join; compare the fingerprint shown");
    form->addRow("Port", port);
    form->addRow(secure);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dialog);
    form->addRow(buttons);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    if (dialog.exec() != QDialog::Accepted) return;
    QString error;
    if (!startLecture(port->value(), &error, secure->isChecked())) QMessageBox::warning(window_, "Atrium", error);
}

void LiveLectureUi::setHoldAttention(bool hold) {
    if (!host_) return;
    host_->drive(msg::AttentionMode{0, hold ? Attention::Hold : Attention::Free});
    hold_->setChecked(hold);
    showMessage(hold ? "Attention held: every student follows your view" : "Attention released: students may explore");
}

void LiveLectureUi::setSharingResources(bool share) { share_->setChecked(share); }
bool LiveLectureUi::sharingResources() const { return share_->isChecked(); }

bool LiveLectureUi::handFloor(std::optional<int> member) {
    if (!host_ || !host_->drive(msg::Floor{0, member})) return false;
    sampler_.reset(); // when the floor comes back, the lecturer's view is sent afresh
    showMessage(member ? "A student presents: their view drives everyone's" : "You have the floor again");
    return true;
}

void LiveLectureUi::holdNarrativeForFloor(double now, bool announce) {
    // The presenter speaks: the lecturer's narrative waits where it is (its overlays stay,
    // its camera is the presenter's), on every screen, until the floor comes back. A
    // lecturer driving from elsewhere sends their own narrative: this window then only
    // waits (`announce` false), announcing nothing that would cross theirs.
    NarrativePlayback* pb = window_->narratives()->playback();
    narrativeHeldForFloor_ = true;
    narrativeResumesAfterFloor_ = pb->playing();
    pb->pause();
    pb->setCameraYielded(true);
    if (!announce) return;
    const NarrativeState n = currentNarrative(now);
    if (!sentNarrative_ || !sameNarrative(*sentNarrative_, n, now)) {
        host_->drive(msg::Narrative{0, n});
        sentNarrative_ = n;
    }
}

void LiveLectureUi::resumeNarrativeAfterFloor() {
    NarrativePlayback* pb = window_->narratives()->playback();
    narrativeHeldForFloor_ = false;
    pb->setCameraYielded(false);
    if (std::exchange(narrativeResumesAfterFloor_, false) && pb->active()) pb->play();
}

bool LiveLectureUi::confirmQuit() {
    if (!host_ || !interactive_) return true;
    const std::vector<Member> roster = host_->roster();
    if (roster.empty()) return true;
    const auto students = std::size_t(
        std::count_if(roster.begin(), roster.end(), [](const Member& m) { return m.role != Role::Lecturer; }));
    const QString who = students < roster.size() ? QString("%1 people (students and a lecturer driving from elsewhere) are")
                                                       .arg(roster.size())
                        : students == 1 ? QString("A student is")
                                        : QString("%1 students are").arg(students);
    QMessageBox box(QMessageBox::Question, "End the lecture?", who + " connected to your lecture.",
                    QMessageBox::Yes | QMessageBox::Cancel, window_);
    box.setObjectName("quitLectureQuestion");
    box.setInformativeText("Quitting ends the lecture for them: their apps keep trying to reconnect until you start it "
                           "again.");
    box.button(QMessageBox::Yes)->setText("End the lecture and quit");
    box.setDefaultButton(QMessageBox::Cancel);
    return box.exec() == QMessageBox::Yes;
}

bool LiveLectureUi::startRecording(const QString& path, QString* error) {
    if (!host_) return false;
    try {
        const std::filesystem::path kept = host_->startRecording(path.toStdString());
        if (!kept.empty())
            showMessage("An unfinished recording found there (a lecture that did not end) was kept as " +
                        QString::fromStdString(kept.filename().string()));
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        return false;
    }
    const QSignalBlocker block(record_);
    record_->setChecked(true);
    return true;
}

void LiveLectureUi::stopRecording() {
    if (!host_ || !host_->recording()) return;
    try {
        const auto n = host_->stopRecording();
        showMessage(QString("Recording saved (%1 messages)").arg(n));
    } catch (const std::exception& e) {
        showMessage(QString("The recording could not be saved: %1").arg(e.what()));
    }
    const QSignalBlocker block(record_);
    record_->setChecked(false);
}

void LiveLectureUi::toggleRecording(bool on) {
    if (!host_) return;
    if (!on) return stopRecording();
    if (host_->recording()) return;
    const QString path = interactive_ ? QFileDialog::getSaveFileName(window_, "Record lecture", "lecture.atriumrec",
                                                                     "Lecture recordings (*.atriumrec)")
                                      : QString();
    QString error;
    if (path.isEmpty() || !startRecording(path, &error)) {
        const QSignalBlocker block(panel_->recordButton());
        panel_->recordButton()->setChecked(false);
        if (!error.isEmpty()) QMessageBox::warning(window_, "Atrium", "Cannot record: " + error);
    }
}

NarrativeState LiveLectureUi::currentNarrative(double now) const {
    const NarrativePlayback* pb = window_->narratives()->playback();
    NarrativeState n;
    n.at = now;
    if (!pb->active()) return n;
    n.index = window_->narratives()->editor()->currentIndex();
    n.time = pb->player().time();
    n.playing = pb->playing();
    n.loop = pb->loop();
    n.keys = pb->player().keyPresses();
    n.entry = pb->player().options().entryFrom;
    return n;
}

SimState LiveLectureUi::currentSim(double now) const {
    const narrative::ViewState v = window_->currentViewState();
    const SimulationChoices& c = window_->simulationChoices();
    SimState s;
    s.running = v.heartRunning.value_or(true);
    const auto snapshot = window_->sceneView()->shownSnapshot();
    s.phase = std::clamp(snapshot ? snapshot->cyclePhase : 0.0, 0.0, 0.999999);
    if (v.heartPhase) s.phase = *v.heartPhase;
    s.at = now;
    // The rate the heart shown really beats at: a baked beat plays at its own, whatever
    // rate was chosen (students extrapolate its phase at this rate).
    s.rateBpm = snapshot && snapshot->heartRateBpm > 0.0 ? snapshot->heartRateBpm : c.heartRateBpm;
    s.particles = c.particleBudget;
    s.viscosity = c.viscosityMilliPaS;
    s.soundSpeed = c.soundSpeed;
    s.resets = resets_;
    return s;
}

ViewSettings LiveLectureUi::currentView() const {
    const narrative::ViewState v = window_->currentViewState();
    ViewSettings s;
    s.colouring = v.colouring.value_or(s.colouring);
    s.fluid = v.fluid.value_or(s.fluid);
    s.opacity = v.wallOpacity.value_or(s.opacity);
    s.clipping = v.clipping.value_or(s.clipping);
    s.clipping.offset = std::clamp(s.clipping.offset, -1.0, 1.0);
    s.wireframe = v.wireframe.value_or(false);
    s.blood = v.bloodVisible.value_or(true);
    return s;
}

void LiveLectureUi::publish() {
    if (!host_) return;
    const double now = host_->now();
    // A student presents, or a lecturer drives from another machine: show their view here
    // too and send nothing, so that their camera and narrative are the only ones students
    // get, until the floor comes back or that lecturer has gone.
    if (const SessionState s = host_->state(); s.floor || host_->remoteDriving()) {
        if (!narrativeHeldForFloor_) {
            holdNarrativeForFloor(now, s.floor.has_value());
            if (!s.floor) showMessage("A lecturer drives from another machine: this window follows them until they leave");
        }
        if (s.pose) window_->sceneView()->camera().setPose(s.pose->pose);
        return;
    }
    if (narrativeHeldForFloor_) resumeNarrativeAfterFloor();
    for (const PoseSample& s : sampler_.update(window_->sceneView()->camera().pose(), now)) host_->drive(msg::Pose{s});

    const NarrativeState n = currentNarrative(now);
    if (!sentNarrative_ || !sameNarrative(*sentNarrative_, n, now)) {
        host_->drive(msg::Narrative{0, n});
        sentNarrative_ = n;
    }
    const ViewSettings v = currentView();
    if (!sentView_ || !(*sentView_ == v)) {
        host_->drive(msg::View{0, v});
        sentView_ = v;
    }
    const void* source = window_->sceneView()->bloodSource();
    if (source != bloodSource_ && bloodSource_ && source) ++resets_; // the blood was started again
    bloodSource_ = source;
    SimState s = currentSim(now);
    const bool changed = !sentSim_ || sentSim_->running != s.running || sentSim_->rateBpm != s.rateBpm ||
                         sentSim_->particles != s.particles || sentSim_->viscosity != s.viscosity ||
                         sentSim_->soundSpeed != s.soundSpeed || sentSim_->resets != s.resets ||
                         (!s.running && std::abs(sentSim_->phase - s.phase) > 1e-3) ||
                         // a heart that falls behind real time (a slow simulation): say where it is
                         (s.running && phaseDistance(sentSim_->phaseAt(now), s.phase) > 0.02);
    if (changed) {
        host_->drive(msg::Sim{0, s});
        sentSim_ = s;
    }
    const std::string shown = window_->lectureUi()->resourceViewer()->isVisible()
                                  ? window_->lectureUi()->resourceViewer()->shownId()
                                  : std::string();
    const std::optional<std::string> resource = shown.empty() || !share_->isChecked() ? std::nullopt : std::optional(shown);
    if (resource != sentResource_) {
        host_->drive(msg::Resource{0, resource});
        sentResource_ = resource;
    }
}

} // namespace atrium::widgets
