// LiveLectureUi's replay (Live > Replay recording, `atrium --replay FILE`): a recorded
// lecture drives the window as the live one did. The recording names its lecture by the
// hash of the package's bytes; the replay opens that lecture when the window shows
// another (found beside the recording, among the downloaded lectures or the recent ones,
// or asked for), and starts at 0 only once that lecture and its heart are shown.

#include "widgets/live/LiveLectureUi.h"

#include "session/Recording.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/live/LiveLecturePanel.h"
#include "widgets/window/MainWindow.h"
#include "widgets/lecture/PackageDownload.h"
#include "widgets/view/SceneView.h"

#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>

#include <algorithm>

namespace atrium::widgets {

using namespace atrium::session;

bool LiveLectureUi::openRecording(const QString& path, QString* error) {
    stop();
    try {
        replay_ = std::make_unique<SessionReplay>(Recording::read(path.toStdString()));
    } catch (const std::exception& e) {
        if (error) *error = e.what();
        return false;
    }
    applied_.reset();
    replayAt_ = 0.0;
    replayPlaying_ = true;
    replayStarted_ = false; // the clock runs once the window is ready (replayReady)
    replayPath_ = path;
    replayNote_.clear();
    replayWithoutLecture_ = false;
    dock_->show();
    reset();
    if (!openRecordedLecture(error)) {
        stop();
        return false;
    }
    showReplayStatus();
    panel_->showReplay(0.0, replayLength(), false);
    Q_EMIT statusChanged();
    return true;
}

bool LiveLectureUi::recordedLectureShown() {
    const std::optional<ContentId>& content = replay_->recording().content;
    if (!content || replayWithoutLecture_) return true; // a lecture of the heart alone, or replayed without its lecture
    const Lecture* lecture = window_->lectureUi()->lecture();
    return lecture && hashOf(lecture->path()) == content->hash;
}

QString LiveLectureUi::findRecordedLecture() {
    const ContentId& content = *replay_->recording().content;
    QStringList candidates;
    const QDir beside = QFileInfo(replayPath_).absoluteDir();
    for (const QString& name : beside.entryList({"*.atrium"}, QDir::Files, QDir::Name))
        candidates << beside.filePath(name);
    candidates << PackageDownload::cachedPath(content);
    if (window_->persistsSettings()) candidates << QSettings().value("lectures/recent").toStringList();
    for (const QString& file : candidates) {
        const QFileInfo info(file);
        // The size first: only a file of the recorded size is hashed.
        if (info.isFile() && std::uint64_t(info.size()) == content.bytes && hashOf(info.absoluteFilePath()) == content.hash)
            return info.absoluteFilePath();
    }
    return {};
}

bool LiveLectureUi::openRecordedLecture(QString* error) {
    if (recordedLectureShown()) return true;
    const ContentId& content = *replay_->recording().content;
    const QString name = QString::fromStdString(content.name);
    QString file = findRecordedLecture();
    while (file.isEmpty() && interactive_) {
        file = QFileDialog::getOpenFileName(window_, "The lecture of this recording: " + name,
                                            QFileInfo(replayPath_).absolutePath(), "Lectures (*.atrium)");
        if (file.isEmpty()) { // declined: the camera, view and heart replay over the heart shown
            replayNote_ = "Without its lecture (" + name + "): its narratives and resources do not show.";
            replayWithoutLecture_ = true;
            return true;
        }
        if (hashOf(file) != content.hash) {
            QMessageBox::warning(window_, "Atrium",
                                 QFileInfo(file).fileName() + " is not the lecture this recording was made with (" + name +
                                     "): another version, or another lecture.");
            file.clear();
        }
    }
    if (file.isEmpty()) {
        if (error)
            *error = "the recording was made with the lecture " + name + ", which is neither open nor beside the " +
                     "recording, downloaded or among the recent lectures: open it first";
        return false;
    }
    replayNote_ = "Opening its lecture, " + QFileInfo(file).fileName() + " ...";
    if (interactive_) {
        window_->lectureUi()->open(file);
        return true;
    }
    QString why;
    if (!window_->lectureUi()->openNow(file, &why)) {
        if (error) *error = file + ": " + why;
        return false;
    }
    return true;
}

void LiveLectureUi::recordedLectureFailed(const QString& why) {
    if (!replay_ || replayStarted_ || recordedLectureShown()) return;
    // The replay goes on over the heart shown rather than wait for nothing.
    replayNote_ = "Its lecture could not be opened (" + (why.isEmpty() ? QString("cancelled") : why) + "): its narratives and resources do not show.";
    replayWithoutLecture_ = true;
    showReplayStatus();
}

bool LiveLectureUi::replayReady() {
    // The lecture the recording names is open, and its heart is shown.
    return recordedLectureShown() && !window_->heartLoader()->busy() && window_->sceneView()->shownSnapshot() &&
           !window_->sceneView()->shownSnapshot()->wallVertexMm.empty();
}

void LiveLectureUi::showReplayStatus() {
    QString text = "Replaying " + QFileInfo(replayPath_).fileName() +
                   (replay_->recording().cutShort ? " (cut short: it ends where its lecture stopped)" : "");
    if (!replayNote_.isEmpty()) text += "\n" + replayNote_;
    panel_->showStatus(text);
}

void LiveLectureUi::stepReplay() {
    if (!replayStarted_) {
        if (!replayReady()) return;
        // Ready: from the start (or where the user moved the slider meanwhile).
        replayStarted_ = true;
        if (replayNote_.startsWith("Opening")) replayNote_.clear();
        showReplayStatus();
        replayClock_.restart();
        Q_EMIT statusChanged();
    }
    SceneView* view = window_->sceneView();
    const double length = replayLength();
    double at = replayPosition();
    if (at >= length && replayPlaying_) {
        at = length;
        setReplayPlaying(false);
    }
    const double t = replay_->start() + at;
    const SessionState s = replay_->stateAt(t);
    if (!applied_ || !(s == *applied_)) applyState(s, t);
    if (const auto pose = replay_->poseAt(t)) view->camera().setPose(*pose);
    panel_->showReplay(at, length, replayPlaying_);
}

double LiveLectureUi::replayLength() const { return replay_ ? replay_->end() - replay_->start() : 0.0; }

double LiveLectureUi::replayPosition() const {
    if (!replay_) return 0.0;
    return std::min(replayLength(), replayAt_ + (replayStarted_ && replayPlaying_ ? replayClock_.elapsed() / 1000.0 : 0.0));
}

void LiveLectureUi::seekReplay(double seconds) {
    if (!replay_) return;
    replayAt_ = std::clamp(seconds, 0.0, replayLength());
    replayClock_.restart();
    if (applied_) applyState(replay_->stateAt(replay_->start() + replayAt_), replay_->start() + replayAt_, true);
}

void LiveLectureUi::setReplayPlaying(bool playing) {
    if (!replay_) return;
    replayAt_ = replayPosition();
    if (playing && replayAt_ >= replayLength()) replayAt_ = 0.0;
    replayPlaying_ = playing;
    replayClock_.restart();
}

void LiveLectureUi::askReplay() {
    const QString path = QFileDialog::getOpenFileName(window_, "Replay recording", {}, "Lecture recordings (*.atriumrec *.atriumrec.partial);;All files (*)");
    if (path.isEmpty()) return;
    QString error;
    if (!openRecording(path, &error)) QMessageBox::warning(window_, "Atrium", error);
}

} // namespace atrium::widgets
