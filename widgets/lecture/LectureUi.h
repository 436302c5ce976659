#pragma once
// Content packages in the viewer's window: opening a lecture (File > Open lecture,
// recent lectures, drag and drop, `atrium FILE.atrium`) on a worker thread behind a
// progress dialog, its heart and narratives, the resource bar and the resource viewer,
// the branding bar with the lock and signature state, unlocking with the author's
// password, trusting an author, saving (in place, signed again by its author; or as
// another file when it is signed and its author is not present), and the restriction
// flags reflected in the window: a control that a flag forbids is disabled and its
// tooltip says why. The lecture's narratives go to the narrative workspace in memory,
// read from the package, and their Save saves the lecture.
// Every decision is the package's gate (narrative::ContentGate): this class only asks.

#include "narrative/CameraPose.h"
#include "narrative/NarrativeDocument.h"
#include "narrative/Restrictions.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"

#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QActionGroup;
class QBoxLayout;
class QMainWindow;
class QMenu;
class QTimer;
class QUndoStack;

namespace atrium::package {
class ContentPackage;
}

namespace atrium::widgets {

class BrandingBar;
class Lecture;
class NarrativeWorkspace;
class ResourceBar;
class ResourceEditor;
class ResourceViewer;
class SceneView;

class LectureUi : public QObject {
    Q_OBJECT
public:
    LectureUi(QMainWindow* window, SceneView* view, bool persistSettings, bool interactive);
    ~LectureUi() override;
    /// The window's actions that a lecture's flags can forbid: video export (`record`)
    /// and the free-flight modes (`navigation`); either may be null.
    void setGatedActions(QAction* record, QActionGroup* navigation);
    /// Runs on each package opened, before its gate is asked anything (even whether it
    /// may open) and before anything is extracted: the command line's author
    /// credentials and output checks (`atrium --key`). A message refuses the lecture.
    using Admission = std::function<std::optional<QString>(package::ContentPackage&)>;
    void setAdmission(Admission admit) { admit_ = std::move(admit); }
    /// Where a lecture's narratives are shown and edited (read from the package in
    /// memory; their Save saves the lecture).
    void setNarratives(NarrativeWorkspace* workspace) { narratives_ = workspace; }

    /// Gives the resource bar and the branding bar rows of their own at the end of
    /// `column`, the layout that holds the view: they take their height from the window,
    /// not from the bottom of the 3D view, so nothing drawn in the view hides behind them.
    void placeBarsBelow(QBoxLayout* column);

    /// Puts Open Lecture, Recent Lectures and Save Lecture As into `file`.
    void addFileActions(QMenu* file);
    /// The "Lecture" menu (unlock, trust, information, resource editing).
    QMenu* menu() const { return menu_; }

    /// Opens a package on a worker thread with a progress dialog (Cancel stops it); the
    /// current lecture stays until the new one is verified.
    void open(const QString& path);
    /// Opens at once, on this thread (command line, headless runs, tests). False with
    /// `error` set when the package is bad, tampered or expired.
    bool openNow(const QString& path, QString* error = nullptr);
    /// Closes the lecture (after asking to save its unsaved edits; false: the author
    /// cancelled, it stays open).
    bool close();
    /// With unsaved edits of the lecture (its resources, or its narratives stored into
    /// it): asks to save, discard or cancel. False: cancel. Headless: true.
    bool maybeSave();
    /// Stores `narratives` (when given) into `lecture` and writes it to `path` atomically,
    /// signed by its author when present. An empty `path` means the lecture's own file -
    /// unless saving there would drop its author's signature (signed, edited, and its
    /// author not present): then the author is asked for another file (headless: an
    /// error). False when not saved: `error` (required) says why, empty when the author
    /// cancelled.
    bool saveLecture(Lecture& lecture, const narrative::NarrativeDocument* narratives, QString path, QString* error);
    Lecture* lecture() const { return lecture_.get(); }
    /// "Atrium - TITLE" while a lecture is open (after the window named its heart).
    void refreshTitle();

    /// The gate's refusal of `op` for the open lecture (nullopt: allowed, or no lecture).
    std::optional<QString> refusal(narrative::Operation op) const;
    std::optional<QString> refusal(narrative::Operation op, int width, int height) const;

    /// Opens the lecture's lock with the author's password; false when it is wrong.
    bool unlock(const QString& password, QString* error = nullptr);
    /// Opens resource `id` as a click on its icon does.
    void openResource(const QString& id);
    /// The resource whose panel opened by itself when the camera brought it into view
    /// (autoLaunch, Poyart 2016 5.5), while that panel is open. It sits aside, at the
    /// right of the view, and closes by itself when its moment ends: the camera leaves
    /// the resource, or the narrative node it opened at ends. Empty when none.
    const std::string& autoLaunchedId() const { return autoLaunched_.id; }
    /// Whether the camera is flying to a resource's view (any input stops it).
    bool flying() const { return flight_ != nullptr; }

    ResourceBar* resourceBar() const { return bar_; }
    ResourceViewer* resourceViewer() const { return viewer_; }
    BrandingBar* brandingBar() const { return branding_; }
    ResourceEditor* resourceEditor() const { return editor_; }
    QUndoStack* undoStack() const;
    QAction* openAction() const { return open_; }
    QAction* saveAsAction() const { return saveAs_; }
    QAction* unlockAction() const { return unlock_; }

Q_SIGNALS:
    /// A lecture was opened (or closed: null title).
    void lectureChanged(const QString& title);
    void openFailed(const QString& message);
    /// The bar's resources changed (after a camera move or an edit).
    void resourcesListed();
    /// A lecture opened: the window loads its heart.
    void heartRequested(const heart::HeartSource& source);
    /// Hands the lecture's baked flow to the window before its heart loads: the beat, or
    /// null with `error` saying why it cannot be played (both empty: none, or the
    /// lecture closed).
    void flowOffered(std::shared_ptr<const heart::BakedBeat> beat, const QString& error);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildActions();
    void adopt(std::shared_ptr<Lecture> lecture);
    void reflectGate();
    void updateBars();
    void layoutOverlays();
    void onFrame();
    /// Opens the first entered resource that launches itself, unless a panel is open.
    void launchEntered();
    /// Opens resource `id`; `launchedByItself`: auto-launched (aside, closes by itself).
    void openResource(const QString& id, bool launchedByItself);
    /// Closes the auto-launched panel once the camera left its resource or its node ended.
    void closeEndedLaunch();
    void flyTo(const narrative::CameraPose& target);
    void saveAs();
    /// Gives the lecture's narratives, read from its package, to the workspace.
    void handNarratives(const QString& locked);
    /// The workspace's document when it is this lecture's narratives, else null.
    const narrative::NarrativeDocument* narrativesInLecture() const;
    /// Asks about unsaved edits of the lecture's narratives, then of the lecture.
    bool mayLeave();
    void askUnlock();
    void trustAuthor();
    void showInformation();
    void rememberRecent(const QString& path);
    void fillRecent();
    void message(const QString& text, bool warning = false);
    bool navigationRestricted() const;

    QMainWindow* window_;
    SceneView* view_;
    bool persist_, interactive_;
    QAction* record_ = nullptr;          // video export, gated by the flags
    QActionGroup* navigation_ = nullptr; // free-flight modes, gated by the flags
    Admission admit_;
    NarrativeWorkspace* narratives_ = nullptr;
    std::shared_ptr<Lecture> lecture_;
    class Home;
    std::weak_ptr<Home> home_; ///< the home of the lecture's narratives in the workspace
    ResourceBar* bar_;
    ResourceViewer* viewer_;
    BrandingBar* branding_;
    ResourceEditor* editor_;
    QMenu* menu_;
    QMenu* recent_ = nullptr;
    QAction *open_, *saveAs_, *unlock_, *trust_, *info_, *closeLecture_;
    QString recordTip_;
    bool opening_ = false;
    // The reposition flight: from, to, start time (ms) and duration (s).
    struct Flight;
    std::unique_ptr<Flight> flight_;
    struct AutoLaunched {
        std::string id;                                     // empty: none open
        std::optional<std::pair<int, int>> narrativeNode;   // (cycle, node) shown when it opened
    };
    AutoLaunched autoLaunched_;
};

} // namespace atrium::widgets
