#pragma once
// Plays the current narrative in the viewer: every frame the player of narrative/
// (NarrativePlayer) advances to the narrative's clock and owns the camera's pose; at each
// node its view state is applied (through a handler the window provides) and its
// overlays appear on the OverlayLayer with the player's fade; during a transition with
// a heart-phase change the heart is driven to that phase.
//
// The narrative's clock is the wall clock (a student's is the live lecture's session
// clock), never the sum of the view's frame times: those are clamped so that a stalled
// frame does not fling the camera, so at a few frames a second they would run slow and
// an 8 s dwell would last 13. A slow frame shows the narrative further on, not later.
//
// The user can take the camera at any time: a mouse button, the wheel or a navigation
// key in the view stops the narrative and hands the camera to the current navigation
// mode where the narrative left it, without a jump. Any other key, wherever the focus is
// in the window (but not while typing), continues a node that waits for one.

#include "narrative/NarrativePlayer.h"

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <functional>
#include <optional>
#include <utility>

namespace atrium::widgets {

class NarrativeEditor;
class OverlayLayer;
class SceneView;

class NarrativePlayback : public QObject {
    Q_OBJECT
public:
    NarrativePlayback(SceneView* view, OverlayLayer* overlays, NarrativeEditor* editor, QObject* parent = nullptr);

    /// Applies a node's view state (colouring, clipping, heart held at a phase, ...), and
    /// captures the user's. A tour's view states are the tour's: what the user had when it
    /// started is captured then and put back when it stops (Esc, its end, the user taking
    /// the camera), in every field a node changed.
    void setViewStateHandlers(std::function<void(const narrative::ViewState&)> apply,
                              std::function<narrative::ViewState()> capture);
    /// While a narrative is shown: the user's own values of the fields its nodes changed,
    /// which stopping puts back (so the window saves these, not the node's, into the
    /// user's settings); nullopt when none is shown.
    std::optional<narrative::ViewState> userViewState() const;

    /// The clock the narrative's timeline follows while playing: seconds on any steady
    /// scale (only its differences count). Null restores the wall clock, the default; a
    /// student following a live lecture sets the session clock (the lecturer's time).
    void setClock(std::function<double()> seconds);

    /// Plays the current narrative: resumes a paused one, or starts it (from the camera's
    /// pose, flying to the first node) when none is shown or it had finished.
    void play();
    void pause();
    void togglePlay();
    /// Stops showing the narrative and hands the camera back where it is.
    void stop();
    /// Next / previous node, or a node by index. Without a narrative shown, it starts,
    /// paused, at that node. Paused, the node's overlays show at once (no fade-in).
    bool next();
    bool previous();
    bool jumpTo(int node);
    /// Seconds on the narrative's timeline (starts it paused if needed).
    void seek(double seconds);
    /// A key press for a node that waits for one; false when none waits.
    bool continueWaiting();

    bool active() const { return active_; }
    bool playing() const { return active_ && player_.playing(); }
    void setLoop(bool loop);
    bool loop() const { return player_.options().loop; }
    const narrative::NarrativePlayer& player() const { return player_; }
    narrative::PlayerFrame frame() const { return player_.frame(); }

    /// While yielded, the narrative goes on showing its overlays and view states but the
    /// camera is someone else's (a live lecture's presenter); it poses the camera again
    /// from its next frame once taken back.
    void setCameraYielded(bool yielded) { cameraYielded_ = yielded; }
    bool cameraYielded() const { return cameraYielded_; }

    /// Nodes that wait for a key stay for their dwell time instead (video export).
    /// Takes effect when the narrative starts again.
    void setWaitsAsDwell(bool on) { waitsAsDwell_ = on; }

    /// Shows the frame at the player's time right away (camera, overlays, view state),
    /// without waiting for the view's next frame: headless screenshots and export.
    void showNow();

Q_SIGNALS:
    /// Playing, paused or stopped changed.
    void stateChanged();
    /// Each frame while a narrative is shown.
    void frameShown();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void activate(bool withEntryFlight);
    void rebuildPlayer();
    /// After next/previous/jump: shows where the player went; returns `moved`.
    bool moved(bool moved);
    /// The current narrative as played (waits turned into dwells when asked).
    narrative::Narrative played() const;
    /// Each frame of the view: the player goes on by the narrative clock's seconds since
    /// the last frame (the view's frame time is not used).
    void onFrame();
    double clockNow() const { return clock_ ? clock_() : double(wallClock_.nsecsElapsed()) * 1e-9; }
    void show(const narrative::PlayerFrame& frame);
    /// Applies a view state of the tour, remembering which fields it changed.
    void applyTourView(const narrative::ViewState& view);

    SceneView* view_;
    OverlayLayer* overlays_;
    NarrativeEditor* editor_;
    std::function<void(const narrative::ViewState&)> applyView_;
    std::function<narrative::ViewState()> captureView_;
    narrative::ViewState userView_;   // the user's, captured when the narrative started showing
    narrative::ViewState tourChanged_; // the fields the tour's nodes set (their values do not matter)
    narrative::NarrativePlayer player_;
    QElapsedTimer wallClock_;
    std::function<double()> clock_;       // null: wallClock_
    std::optional<double> clockAtFrame_;  // the clock's reading at the last frame that advanced the player
    bool active_ = false;
    bool waitsAsDwell_ = false;
    bool cameraYielded_ = false;
    int narrativeIndex_ = -1;
    std::optional<std::pair<int, int>> viewApplied_;       // (cycle, node) whose view state is on
    std::optional<std::pair<int, int>> transitionApplied_; // (cycle, node) whose phase change started
    std::optional<std::pair<int, int>> flownTo_;           // (cycle, node) of the last flight shown
};

} // namespace atrium::widgets
