#pragma once
// The viewer's window: the 3D view with its overlays (control bar, HUD, legend, help,
// annotations, cardiac-cycle panel), menus holding every action with its shortcut and
// tooltip, loading a heart on a worker thread behind a progress dialog, the blood live
// or as a baked beat in real time, screenshots and video, and settings kept between
// runs (QSettings: geometry, last heart, navigation mode, colouring, blood rendering,
// wall opacity, every simulation parameter, live or baked). By idea: MainWindow.cpp
// (window, loading, dialogs, settings), MainWindowActions.cpp (actions, menus, bar),
// MainWindowFlow.cpp (live or baked blood), MainWindowAnnotations.cpp (lecture
// pictures), MainWindowNarratives.cpp (narratives).

#include "narrative/Narrative.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SolverPanel.h"

#include <QMainWindow>
#include <QPointer>

#include <filesystem>
#include <functional>
#include <memory>

class QAction;
class QActionGroup;
class QLabel;
class QMenu;
class QProgressDialog;
class QSlider;

namespace atrium::widgets {

class CardiacCyclePanel;
class ControlBar;
class ViewAnnotations;
class FlowBaker;
class HeartLoader;
class NarrativeWorkspace;
class HelpOverlay;
class LectureUi;
struct LoadedHeart;
class SceneView;

/// How the window was started: what to load, and whether to remember it.
struct ViewerOptions {
    std::optional<heart::HeartSource> source; ///< null: the last heart, else the adult phantom
    std::optional<int> particleBudget;
    bool cuda = false;
    bool persistSettings = true;              ///< false: neither read nor write QSettings
    bool headless = false;                    ///< no dialog that waits for a person (errors go to loadFailed)
    /// View choices that override the saved ones (e.g. from the command line).
    std::optional<narrative::CameraMode> navigation;
    std::optional<ColorQuantity> color;
    std::optional<FluidMode> fluid;
    /// A content package (.atrium) to open: its heart replaces the last one.
    std::optional<QString> lecture;
    /// Blood from the live simulation (false) or a baked beat in real time (true);
    /// null: as last time (the first time: baked with the CPU backend, live with CUDA).
    std::optional<bool> realTimeFlow;
    /// Play this baked beat (atrium-sim heart --bake) instead of baking one; it must
    /// have been baked from the heart shown.
    std::optional<std::filesystem::path> flowFile;
    /// A display-only shell (an epicardium's mesh series) around the heart; empty: none
    /// (or the last one, with the last heart from the settings).
    std::string shellPattern;
    /// How beats are baked (tests bake small ones).
    heart::BakeSettings bake;
};

/// The view's quantity for a narrative's blood colouring.
ColorQuantity toColorQuantity(narrative::BloodColouring colouring);

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(const ViewerOptions& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    SceneView* sceneView() const { return view_; }
    ViewAnnotations* annotations() const { return annotations_; }
    CardiacCyclePanel* cyclePanel() const { return cyclePanel_; }
    ControlBar* controlBar() const { return bar_; }
    /// Loads a heart on a worker thread (progress dialog with Cancel), then frames it
    /// and starts its blood. The current heart goes on until then, and after a failed
    /// or cancelled load.
    /// `shellPattern`: a mesh series shown around it as a translucent shell, no blood.
    /// While another heart loads, it is refused with a word in the status bar, unless
    /// `replacing` (a lecture's heart): then that load is cancelled (its heart, should it
    /// come all the same, is dropped) and this one starts after it.
    void loadHeart(const heart::HeartSource& source, const std::string& shellPattern = {}, bool replacing = false);
    HeartLoader* heartLoader() const { return loader_; }
    /// Narratives: their document, playback, bar and editor.
    NarrativeWorkspace* narratives() const { return narratives_; }
    /// Applies a narrative node's view state: every field set replaces what is on screen
    /// (the actions and controls follow); a heart held at a phase beats on until there.
    void applyViewState(const narrative::ViewState& state);
    /// The view state on screen, every field set (for a node added from the view).
    narrative::ViewState currentViewState() const;
    /// The view state as the user has it, every field set: what is on screen, but while a
    /// narrative shows, the user's own values of what its nodes changed (what stopping it
    /// puts back). The user's settings save this, never a node's view.
    narrative::ViewState userViewState() const;
    /// Content packages: the open lecture, its resource and branding bars, its gate.
    LectureUi* lectureUi() const { return lecture_; }
    /// Whether this window reads and writes QSettings (tests' windows do not).
    bool persistsSettings() const { return options_.persistSettings; }
    /// Restarts the blood of the current heart with `choices`.
    void restartSimulation(const SimulationChoices& choices);
    /// Blood from a baked beat played in real time (baked first, with progress, unless
    /// cached), or from the live simulation.
    void setRealTimeFlow(bool on);
    bool realTimeFlow() const;
    FlowBaker* flowBaker() const { return baker_; }
    /// A lecture's baked flow, handed in before the lecture's heart loads: once that heart
    /// is shown the flow plays instead of a bake, in real time, when it was baked in that
    /// heart; otherwise flowRefused says why and the blood stays as chosen. `error` set
    /// (the flow could not be read): refused at once. Null and no error: no such flow.
    void offerLectureFlow(std::shared_ptr<const heart::BakedBeat> beat, const QString& error = {});
    /// The beat played instead of a bake (--flow-file, a lecture's flow), if any.
    const heart::BakedBeat* suppliedFlow() const { return supplied_ ? supplied_->beat.get() : nullptr; }
    const SimulationChoices& simulationChoices() const { return choices_; }
    /// Seconds from construction until the heart was first drawn (0 until then).
    double secondsToFirstHeart() const { return secondsToHeart_; }
    /// Where the heart shown came from: heart::PipelineReport::cacheStatus ("hit",
    /// "hit (shipped)", "miss", ...); empty before the first heart.
    const std::string& heartCacheStatus() const { return heartCacheStatus_; }

Q_SIGNALS:
    /// The heart could not be loaded or its blood not started; `message` says why.
    void loadFailed(const QString& message);
    void heartLoaded();
    /// A baked flow handed in (a lecture's, --flow-file) was not played; `message` says why.
    void flowRefused(const QString& message);

protected:
    void closeEvent(QCloseEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void buildActions();
    void buildMenus();
    void buildControlBar();
    void buildNarratives(); // MainWindowNarratives.cpp
    void showLoadedHeart(const LoadedHeart& heart);
    /// Starts the blood of the current heart as chosen: live, or baked (MainWindowFlow.cpp).
    void startBlood();
    /// Real-time flow with a beat handed in (the lecture's, or --flow-file) that fits the
    /// heart shown: that beat plays, and a bake of this window's own is not wanted.
    bool playsSuppliedFlow() const;
    void connectFlow();
    /// The axes triad, scale bar, chamber labels, recording indicator and cardiac-cycle
    /// panel, with their View menu actions (MainWindowAnnotations.cpp).
    void buildAnnotations();
    void showAnnotations(const LoadedHeart& heart);
    void playBakedBeat(std::shared_ptr<const heart::BakedBeat> beat, const QString& origin = {});
    /// Simulation > Open a baked beat / Save the baked beat (MainWindowFlow.cpp).
    void openBakedBeat();
    void saveBakedBeat();
    /// Reads a beat file (--flow-file, Open a baked beat) once, then keeps a supplied flow
    /// only while it was baked in the heart shown, turning real-time flow on when it is
    /// new (MainWindowFlow.cpp).
    void checkSuppliedFlow();
    void refuseFlow(const QString& message, bool fatal);
    /// The key of a bake of the current heart with the current choices.
    std::string flowKey() const;
    /// After a dialog or menu: the window active again and the view holding the keys.
    void returnFocusToView();
    /// Closes the topmost panel over the view (a resource, the help sheet): what Esc does
    /// first. False when none is open.
    bool closeTopmostPanel();
    void saveScreenshot();
    void toggleRecording(bool on);
    void openSolverPanel();
    /// Asks for a fixed colour range of the current quantity; false when cancelled.
    bool chooseColorRange();
    void chooseSeries(bool volumes);
    /// Asks for an outer surface to show around the heart, or removes the one shown.
    void chooseShell();
    void readSettings();
    /// Checks and triggers the action of `group` whose data is `value`, as a click would.
    static void choose(QActionGroup* group, int value);
    void writeSettings() const;
    /// Remembers (QSettings) that `source` is loading, or why it failed, so that the next
    /// start does not retry a heart that crashed or failed; cleared once its blood ran.
    void markUnfinishedHeart(const heart::HeartSource& source, const QString& why) const;
    void clearUnfinishedHeart() const;

    ViewerOptions options_;
    SceneView* view_;
    ControlBar* bar_;
    HelpOverlay* help_;
    bool escapeTaken_ = false; ///< Esc closed a panel: its key press is spent
    QSlider* opacity_ = nullptr;
    HeartLoader* loader_;
    LectureUi* lecture_;
    FlowBaker* baker_;
    bool bakeAgain_ = false; // the choices changed while a bake ran
    std::optional<std::filesystem::path> flowFile_; // a baked beat file to read, then play instead of baking
    /// A beat handed in, played instead of a bake while it fits the heart shown.
    struct SuppliedFlow {
        std::shared_ptr<const heart::BakedBeat> beat;
        QString origin;            ///< "the lecture", or the file's path
        bool fromLecture = false;
        bool awaitingHeart = false; ///< offered before its heart loaded: not checked yet
        bool fresh = true;          ///< not played yet: turns real-time flow on when it fits
    };
    std::optional<SuppliedFlow> supplied_;
    std::string heartIdentity_; // heart::heartIdentity of the heart shown
    /// The user's live-or-baked choice while a lecture's flow turned real-time flow on
    /// (saved instead, so that the next start does not bake); reset by the user's T.
    std::optional<bool> realTimeBeforeLecture_;
    std::shared_ptr<const heart::MovingHeartMesh> heart_;
    std::string heartCacheStatus_;
    heart::HeartAnatomy anatomy_;
    heart::HeartSource source_;
    std::string shellPattern_; // the shown heart's shell (empty: none)
    double cycleSeconds_ = 0.8;
    double poolMl_ = 0.0;
    SimulationChoices choices_;
    std::optional<std::pair<QString, double>> savedHeartRate_; ///< (heart, bpm) from the settings
    double secondsToHeart_ = 0.0;
    int bloodShownOfMarked_ = -1; ///< frames with blood of the heart marked unfinished; -1: none marked
    heart::HeartSource loadingSource_; ///< the heart the loader works on
    /// A heart to load once the loader's current work has ended (loadHeart's `replacing`).
    std::optional<std::pair<heart::HeartSource, std::string>> pendingLoad_;
    /// Starts pendingLoad_, if any: true when the loader's result is to be dropped.
    bool startPendingLoad();
    qint64 startMs_ = 0;

    QAction *playPause_, *step_, *reset_, *home_, *clip_, *wireframe_, *showBlood_, *showHud_, *helpAction_;
    QAction* realTime_;
    QAction *openBeat_, *saveBeat_;
    QAction *screenshot_, *record_, *solverPanel_, *loadVolumes_, *loadMeshes_, *loadShell_, *quit_;
    QActionGroup *modes_, *colors_, *fluids_;
    QMenu* colourMenu_ = nullptr;
    QMenu* viewMenu_ = nullptr;
    ViewAnnotations* annotations_ = nullptr;
    CardiacCyclePanel* cyclePanel_ = nullptr;
    QMenu* fileMenu_ = nullptr;
    NarrativeWorkspace* narratives_ = nullptr;
    std::vector<std::pair<QAction*, QString>> presets_;
};

} // namespace atrium::widgets
