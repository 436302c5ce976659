#pragma once
// The live lecture in the viewer's window (the Live menu and its dock panel).
//
// Lecturer (Live > Start lecture, or `atrium FILE.atrium --lecture`): the window serves
// the open lecture through the LiveSessionService that app/viewer hands in, shows the
// join code, URLs, a QR code and who is connected and following, and every frame
// publishes what changed: the camera (at up to 60 Hz while it moves, nothing while it
// rests), the narrative's playback state, the view, the heart and the simulation's
// parameters, the resource open in the resource viewer, and a pointer placed on the
// heart with Alt+click. It can hold attention, record, and hand the floor to a student
// (its narrative then waits, on every screen, until the floor comes back). Closing the
// window with students connected asks first.
//
// Student (Live > Join lecture, or `atrium --join ws://HOST:PORT --code CODE`): the
// window follows - its camera plays the lecturer's through the adaptive buffer, its
// narrative player runs from the lecturer's playback state (so the same overlays and
// media show), the view, heart and resources follow - a lecture's baked beat plays held
// to the lecturer's phase - until the student takes the
// mouse or a navigation key to explore; F returns to following. While the lecturer
// holds attention, exploring is refused. A student given the floor drives everyone.
// When the connection drops, the view stays and the transport reconnects and resyncs.
//
// Replay (Live > Replay recording): a recorded lecture drives the window as the live one
// did, with play, pause and seeking, once the lecture it names is open and shown.
//
// One class over three files by role: LiveLectureUi.cpp (menu, panel, the student, and
// applying a session's state, which student and replay share), LiveLectureLecturer.cpp
// and LiveLectureReplay.cpp.

#include "session/PoseBuffer.h"
#include "session/Protocol.h"
#include "widgets/live/LiveSession.h"

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;

namespace atrium::session {
class SessionReplay;
}

namespace atrium::widgets {

class LiveLecturePanel;
class MainWindow;
class PackageDownload;

class LiveLectureUi : public QObject {
    Q_OBJECT
public:
    /// Adds the Live menu and the (hidden) dock panel to `window`.
    LiveLectureUi(MainWindow* window, std::shared_ptr<LiveSessionService> service, bool interactive);
    ~LiveLectureUi() override;

    /// Serves the open lecture (or only the heart on screen when none is open) on
    /// `port` (0: any), over wss:// with a classroom certificate when `selfSigned`.
    /// False with `error` set when the server cannot start.
    /// A window that keeps its settings serves the same lecture started again within
    /// kResumeHours (its app restarted) on the same port with the same code, so that the
    /// students' apps, still reconnecting, get back in by themselves.
    bool startLecture(int port, QString* error = nullptr, bool selfSigned = false);
    static constexpr int kResumeHours = 12;
    /// Connects to a lecture; the transport keeps trying in the background. False with
    /// `error` for a bad URL.
    bool join(const LiveJoinOptions& options, QString* error = nullptr);
    /// Replays a recording in the window (LiveLectureReplay.cpp). When the recording names
    /// a lecture that is not open, it is opened: found by its hash beside the recording,
    /// among the downloaded lectures or the recent ones, or asked for (interactive). The
    /// replay starts once that lecture and its heart are shown. False with `error` for a
    /// bad file, or (not interactive) a lecture that cannot be found or opened.
    bool openRecording(const QString& path, QString* error = nullptr);
    /// Ends the lecture, leaves it or closes the replay.
    void stop();

    LiveHost* host() const { return host_.get(); }
    LiveGuest* guest() const { return guest_.get(); }
    bool replaying() const { return replay_ != nullptr; }
    /// Student: follows the lecturer (true) or explores; false when refused (held).
    bool setFollowing(bool following);
    bool following() const;
    /// Lecturer: hold attention, hand the floor to a member (nullopt: take it back).
    void setHoldAttention(bool hold);
    /// Whether a resource the lecturer opens opens for everyone (the default) or only on
    /// the lecturer's screen (then the students' resource panels close).
    void setSharingResources(bool share);
    bool sharingResources() const;
    bool handFloor(std::optional<int> member);
    bool startRecording(const QString& path, QString* error = nullptr);
    void stopRecording();
    /// Replay: seek to `seconds` after the start, play or pause.
    void seekReplay(double seconds);
    void setReplayPlaying(bool playing);
    double replayLength() const;
    /// Seconds into the recording shown now.
    double replayPosition() const;
    /// Whether the replay runs now (false while it waits for its lecture, or paused).
    bool replayRunning() const { return replay_ && replayStarted_ && replayPlaying_; }

    QMenu* menu() const { return menu_; }
    LiveLecturePanel* panel() const { return panel_; }
    QAction* followAction() const { return follow_; }

Q_SIGNALS:
    /// Something the panel shows changed (joined, synced, roster, following, ...).
    void statusChanged();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildActions();
    void onFrame(double dt);
    void publish();
    void onNews();
    /// The transport's notify callback: queues one onNews() on this object's thread.
    std::function<void()> newsPoster();
    /// Applies what changed between the last state applied and `s` (at lecturer time `now`).
    void applyState(const session::SessionState& s, double now, bool force = false);
    void applyNarrative(const session::NarrativeState& n, double now);
    void applySim(const session::SimState& s);
    void applyPointer(const std::optional<session::Pointer>& pointer);
    /// Opens the lecturer's lecture when the one open is not it: from the download cache, or
    /// downloaded by its hash from the lecturer's server.
    void checkContent(const std::optional<session::ContentId>& content);
    void openDownloaded(const QString& path);
    /// The content hash of the lecture file at `path` (empty when unreadable); the last
    /// file's is kept, so that asking every frame costs nothing.
    std::string hashOf(const QString& path);
    session::NarrativeState currentNarrative(double now) const;
    session::SimState currentSim(double now) const;
    session::ViewSettings currentView() const;
    void refreshPanel();
    void showMessage(const QString& text, int ms = 6000);
    void askStart();
    void askJoin();
    void askReplay();
    /// Replay (LiveLectureReplay.cpp): one frame of it, once the window is ready.
    void stepReplay();
    bool replayReady();
    /// Whether the lecture open is the one the recording names (or it names none).
    bool recordedLectureShown();
    /// The recorded lecture's file: by its hash, beside the recording, downloaded, or recent.
    QString findRecordedLecture();
    /// Opens the recorded lecture unless it is open; false with `error` when it cannot.
    bool openRecordedLecture(QString* error);
    void showReplayStatus();
    /// The recorded lecture could not be opened: the replay starts without it.
    void recordedLectureFailed(const QString& why);
    void toggleRecording(bool on);
    /// Lecturer: a student took the floor, or a lecturer drives from elsewhere: pauses
    /// the narrative (remembering whether it played) and, for the floor (`announce`),
    /// tells the students; the floor came back (or that lecturer left): plays it on.
    void holdNarrativeForFloor(double now, bool announce);
    void resumeNarrativeAfterFloor();
    /// Lecturer quitting (the window closes): with students connected, asks whether to
    /// end the lecture for them. True: close.
    bool confirmQuit();
    void reset();
    /// The port and code of this lecture's last start, if recent (see startLecture()).
    std::optional<std::pair<int, QString>> resumable(const LiveHostOptions& o) const;
    void rememberStart(const LiveHostOptions& o) const;

    MainWindow* window_;
    std::shared_ptr<LiveSessionService> service_;
    bool interactive_;
    std::unique_ptr<LiveHost> host_;
    std::unique_ptr<LiveGuest> guest_;
    std::unique_ptr<session::SessionReplay> replay_;
    QElapsedTimer replayClock_;
    double replayAt_ = 0.0; ///< seconds into the recording when replayClock_ started
    bool replayPlaying_ = false; ///< playing, or to play once started
    bool replayStarted_ = false; ///< the window was ready: the replay's clock runs
    QString replayPath_;
    QString replayNote_;         ///< about the recording's lecture, for the panel
    bool replayWithoutLecture_ = false; ///< its lecture was declined or failed to open

    // Lecturer: what was published last.
    session::PoseSampler sampler_;
    std::optional<session::NarrativeState> sentNarrative_;
    std::optional<session::SimState> sentSim_;
    std::optional<session::ViewSettings> sentView_;
    std::optional<std::string> sentResource_;
    const void* bloodSource_ = nullptr; ///< a new one means the blood was started again
    int resets_ = 0;
    bool narrativeHeldForFloor_ = false;      ///< a student has the floor: the narrative waits
    bool narrativeResumesAfterFloor_ = false; ///< it played when the floor was handed

    // Student: what was applied last.
    std::optional<session::SessionState> applied_;
    double nextDriftCheck_ = 0.0;
    bool presenting_ = false;
    QString contentNote_;
    PackageDownload* download_ = nullptr;
    std::string downloading_; ///< the hash being downloaded
    std::pair<QString, std::string> hashed_; ///< the last lecture file hashed, and its hash

    QMenu* menu_ = nullptr;
    QDockWidget* dock_ = nullptr;
    LiveLecturePanel* panel_ = nullptr;
    QLabel* pointer_ = nullptr; ///< the lecturer's pointer on the heart
    QAction *start_, *join_, *replayAction_, *stop_, *follow_, *hold_, *record_, *share_;
    std::atomic<bool> newsPosted_{false}; ///< a call to onNews() is queued
};

} // namespace atrium::widgets
