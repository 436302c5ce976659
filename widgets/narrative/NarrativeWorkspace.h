#pragma once
// Narratives in the viewer's window, wired together: the document being edited
// (NarrativeEditor), its playback (NarrativePlayback), the overlay layer over the 3D
// view and its editor, the narrative bar along the bottom, the Narrative menu and the
// narrative entries of the File menu (new, open, save, save as, recent files), and
// exporting a narrative to a video. The window hands in how to apply and read a node's
// view state, and asks maybeSave() before it closes. A document is a narratives file
// or lives in a lecture (NarrativeHome): NarrativeWorkspaceFiles.cpp holds opening,
// saving and the recent files.

#include "narrative/Narrative.h"
#include "narrative/NarrativeDocument.h"

#include <QHash>
#include <QImage>
#include <QPixmap>
#include <QObject>
#include <QStringList>

#include <functional>
#include <memory>

class QAction;
class QMainWindow;
class QMenu;
class QToolBar;

namespace atrium::widgets {

class NarrativeBar;
class NarrativeEditor;
class NarrativeHome;
class NarrativePlayback;
class OverlayLayer;
class SceneView;

class NarrativeWorkspace : public QObject {
    Q_OBJECT
public:
    /// Builds everything inside `window` around `view`. With `persistSettings`, the
    /// recent files are kept in QSettings; `interactive` false (headless runs) never
    /// opens a dialog that waits for a person.
    NarrativeWorkspace(QMainWindow* window, SceneView* view, bool persistSettings, bool interactive);

    NarrativeEditor* editor() const { return editor_; }
    NarrativePlayback* playback() const { return playback_; }
    OverlayLayer* overlays() const { return overlays_; }
    NarrativeBar* bar() const { return bar_; }
    /// The "Narrative" menu, for the window's menu bar.
    QMenu* menu() const { return menu_; }
    /// Puts New / Open / Recent / Save / Save As at the top of `file`.
    void addFileActions(QMenu* file);

    /// How the window applies a node's view state, and reads the one on screen (for a
    /// node added from the current view).
    void setViewState(std::function<void(const narrative::ViewState&)> apply, std::function<narrative::ViewState()> capture);

    /// Opens a narratives file; on failure the current document stays and `error` (if
    /// given) gets the message, otherwise a message box shows it.
    bool openFile(const QString& path, QString* error = nullptr);
    bool saveFile(const QString& path, QString* error = nullptr);
    /// Opens a document that lives in `home` (a lecture's narratives, read from its
    /// package in memory): Save then saves it there, and the recent files list the
    /// home's file. `locked` refuses its editing as setEditRefusal() does.
    void openInHome(narrative::NarrativeDocument document, std::shared_ptr<NarrativeHome> home, const QString& locked);
    /// Saves the document in its home (File > Save does so for one that has a home).
    /// False when not saved: `error` (if given) gets why, otherwise a message shows it.
    bool saveToHome(QString* error = nullptr);
    /// Closes the document (an empty one takes its place), without asking: its home
    /// went away (the lecture was closed).
    void closeDocument();
    /// The recent narratives files, those gone or in temporary folders left out.
    QStringList recentFiles() const;
    /// Refuses every edit of the open document with `why` (a locked lecture's
    /// narratives, from its package's gate): the editing controls are disabled with it as
    /// their tooltip. Empty allows editing again; opening a file clears it.
    void setEditRefusal(const QString& why);
    const QString& editRefusal() const { return editRefusal_; }
    /// With unsaved edits: asks to save, discard or cancel. False: cancel (do not close).
    bool maybeSave();

    /// Adds a node after the selected one (or at the end) from the camera and the view
    /// state on screen, with a thumbnail rendered from it.
    void addNodeFromView();
    /// Gives node `k` the camera, view state and thumbnail on screen (its timing and
    /// overlays stay).
    void updateNodeFromView(int k);
    /// A thumbnail of the view from `pose` (off the widget, from the current snapshot).
    QImage renderThumbnail(const narrative::CameraPose& pose);
    /// Turns the overlay editor on for the selected node (the camera goes there), or off.
    void setEditingOverlays(bool on);
    /// Milliseconds the last thumbnail took to render.
    double lastThumbnailMs() const { return lastThumbnailMs_; }

    // The actions, for tests and the window.
    QAction* playAction() const { return play_; }
    QAction* nextAction() const { return next_; }
    QAction* previousAction() const { return previous_; }
    QAction* stopAction() const { return stop_; }
    QAction* addNodeAction() const { return addNode_; }
    QAction* removeNodeAction() const { return removeNode_; }
    /// Ctrl+Shift+Left / Right: the selected node one place earlier / later (undoable).
    QAction* moveNodeEarlierAction() const { return moveNodeEarlier_; }
    QAction* moveNodeLaterAction() const { return moveNodeLater_; }
    QAction* updateNodeAction() const { return updateNode_; }
    QAction* undoAction() const { return undo_; }
    QAction* redoAction() const { return redo_; }
    QAction* editOverlaysAction() const { return editOverlays_; }
    QAction* saveAction() const { return save_; }

Q_SIGNALS:
    /// A recent entry is a lecture (its narratives live in it): the window opens it.
    void lectureRequested(const QString& path);

private:
    void buildActions(QMainWindow* window);
    void buildBar(QMainWindow* window);
    void refresh();           // the bar and the actions after any change
    void takeView(narrative::Node& node); // camera, view state and thumbnail on screen
    void refreshOverlayEditor();
    void updateStatus();
    void updateTitle();
    QPixmap thumbnail(int node);
    void renderNextThumbnail();
    int selectedNode() const;
    // Overlay editor.
    void addOverlay(narrative::OverlayKind kind);
    void editOverlay(std::size_t item);
    void restackOverlay(int direction);
    void setOverlays(const std::vector<narrative::OverlayItem>& items, const QString& what);
    /// A media file chosen by the author as a path relative to the document's folder
    /// (copied into its media/ folder when it lies elsewhere); empty when cancelled.
    std::string chooseMedia(const QString& caption, const QString& filter);
    void editNode(int node);
    /// Moves the selected node `step` places (-1 earlier, +1 later), as dragging its card.
    void moveSelectedNode(int step);
    void editTransition(int transition);
    void exportVideo();
    void rememberRecent(const QString& path);
    void mediaChanged(); ///< the overlays read the document's media afresh
    void fillRecentMenu();
    QWidget* dialogParent() const;

    QMainWindow* window_;
    SceneView* view_;
    bool persist_, interactive_;
    NarrativeEditor* editor_;
    OverlayLayer* overlays_;
    NarrativePlayback* playback_;
    NarrativeBar* bar_;
    QToolBar* toolBar_ = nullptr;
    QMenu *menu_ = nullptr, *recent_ = nullptr, *narrativesMenu_ = nullptr;
    std::function<void(const narrative::ViewState&)> applyView_;
    std::function<narrative::ViewState()> captureView_;
    QHash<QString, QPixmap> thumbnails_; // rendered for nodes stored without one, by pose
    QStringList pendingThumbnails_;
    double lastThumbnailMs_ = 0.0;
    int editingNode_ = -1;
    QString editRefusal_;
    QHash<QAction*, QString> editTips_; ///< the editing actions' own tooltips while refused

    QAction *moveNodeEarlier_, *moveNodeLater_;
    QAction *newDoc_, *open_, *save_, *saveAs_, *play_, *next_, *previous_, *stop_, *loop_, *addNode_, *removeNode_,
        *updateNode_, *nodeDetails_, *editOverlays_, *undo_, *redo_, *exportVideo_;
    QAction *newNarrative_, *renameNarrative_, *duplicateNarrative_, *deleteNarrative_, *narrativeDetails_;
    QAction *addText_, *addImage_, *addVideo_, *addSound_, *addLabel_, *raise_, *lower_, *editItem_, *deleteItem_;
};

} // namespace atrium::widgets
