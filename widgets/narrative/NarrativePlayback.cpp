#include "widgets/narrative/NarrativePlayback.h"

#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/view/SceneView.h"

#include <QAbstractSpinBox>
#include <QApplication>
#include <QKeyEvent>
#include <QLineEdit>
#include <QTextEdit>

#include <tuple>

namespace atrium::widgets {

using narrative::PlayerStage;

namespace {

/// Every field of a view state, for field-by-field work.
constexpr auto kViewFields = std::tuple{&narrative::ViewState::heartRunning, &narrative::ViewState::heartPhase,
                                        &narrative::ViewState::heartRateBpm,  &narrative::ViewState::colouring,
                                        &narrative::ViewState::fluid,         &narrative::ViewState::wallOpacity,
                                        &narrative::ViewState::clipping,      &narrative::ViewState::wireframe,
                                        &narrative::ViewState::bloodVisible};

/// Marks in `changed` the fields that `view` sets.
void markChanged(narrative::ViewState& changed, const narrative::ViewState& view) {
    std::apply([&](auto... field) { ((view.*field ? void(changed.*field = view.*field) : void()), ...); }, kViewFields);
}

/// `user`'s values of the fields `changed` sets; a held heart's phase goes with its hold.
narrative::ViewState restoring(const narrative::ViewState& user, const narrative::ViewState& changed) {
    narrative::ViewState out;
    std::apply([&](auto... field) { ((changed.*field ? void(out.*field = user.*field) : void()), ...); }, kViewFields);
    if (changed.heartRunning || changed.heartPhase) {
        out.heartRunning = user.heartRunning;
        out.heartPhase = user.heartPhase;
    }
    return out;
}

} // namespace

NarrativePlayback::NarrativePlayback(SceneView* view, OverlayLayer* overlays, NarrativeEditor* editor, QObject* parent)
    : QObject(parent), view_(view), overlays_(overlays), editor_(editor) {
    wallClock_.start();
    connect(view_, &SceneView::cameraAdvanced, this, [this] { onFrame(); });
    connect(editor_, &NarrativeEditor::documentChanged, this, [this] {
        if (!active_) return;
        if (editor_->currentIndex() != narrativeIndex_ || !editor_->current()) return stop();
        rebuildPlayer(); // an edit while playing: same time, the edited narrative
    });
    qApp->installEventFilter(this); // keys anywhere in the window continue a waiting node
}

narrative::Narrative NarrativePlayback::played() const {
    narrative::Narrative n = *editor_->current();
    if (waitsAsDwell_)
        for (narrative::Node& node : n.nodes) node.waitForKey = false;
    return n;
}

void NarrativePlayback::rebuildPlayer() {
    const double time = player_.time();
    const bool wasPlaying = player_.playing();
    player_ = narrative::NarrativePlayer(played(), player_.options());
    player_.seek(time);
    if (wasPlaying) player_.play();
}

void NarrativePlayback::setViewStateHandlers(std::function<void(const narrative::ViewState&)> apply,
                                             std::function<narrative::ViewState()> capture) {
    applyView_ = std::move(apply);
    captureView_ = std::move(capture);
}

std::optional<narrative::ViewState> NarrativePlayback::userViewState() const {
    if (!active_) return std::nullopt;
    return restoring(userView_, tourChanged_);
}

void NarrativePlayback::applyTourView(const narrative::ViewState& view) {
    if (!applyView_ || view.empty()) return;
    markChanged(tourChanged_, view);
    applyView_(view);
}

void NarrativePlayback::activate(bool withEntryFlight) {
    const narrative::Narrative* n = editor_->current();
    if (!n || n->nodes.empty()) return;
    if (!active_) { // the user's view, as the tour found it
        userView_ = captureView_ ? captureView_() : narrative::ViewState{};
        tourChanged_ = {};
    }
    narrative::PlayerOptions options = player_.options();
    options.entryFrom.reset();
    const narrative::CameraPose here = view_->camera().pose();
    if (withEntryFlight && !(here == n->nodes.front().pose)) options.entryFrom = here;
    player_ = narrative::NarrativePlayer(played(), options);
    narrativeIndex_ = editor_->currentIndex();
    active_ = true;
    viewApplied_.reset();
    transitionApplied_.reset();
    flownTo_.reset();
    view_->camera().stop();
}

void NarrativePlayback::setClock(std::function<double()> seconds) {
    clock_ = std::move(seconds);
    clockAtFrame_ = clockNow(); // the new clock's seconds count from now
}

void NarrativePlayback::play() {
    if (!active_ || player_.finished()) activate(true);
    if (!active_) return;
    if (!player_.playing()) clockAtFrame_ = clockNow(); // a pause's seconds do not count
    player_.play();
    Q_EMIT stateChanged();
}

void NarrativePlayback::pause() {
    if (!active_) return;
    player_.pause();
    showNow();
    Q_EMIT stateChanged();
}

void NarrativePlayback::togglePlay() { playing() ? pause() : play(); }

void NarrativePlayback::stop() {
    if (!active_) return;
    active_ = false;
    const narrative::CameraPose pose = player_.frame().pose;
    player_.pause();
    if (!overlays_->editing()) overlays_->clear();
    // The tour's view states leave with it: the user's own come back (not saved, never lost).
    const narrative::ViewState back = restoring(userView_, tourChanged_);
    tourChanged_ = {};
    if (applyView_ && !back.empty()) applyView_(back);
    narrative::handOver(view_->camera(), pose);
    Q_EMIT stateChanged();
}

bool NarrativePlayback::moved(bool moved) {
    if (!moved) return false;
    // Paused at a node: show its overlays at once rather than at the start of their fade.
    if (!player_.playing()) {
        const narrative::PlayerFrame f = player_.frame();
        if (f.stage == PlayerStage::FadeIn) player_.seek(f.stageEnd);
    }
    showNow();
    Q_EMIT stateChanged();
    return true;
}

bool NarrativePlayback::next() {
    if (!active_) activate(false);
    return moved(active_ && player_.next());
}

bool NarrativePlayback::previous() {
    if (!active_) activate(false);
    return moved(active_ && player_.previous());
}

bool NarrativePlayback::jumpTo(int node) {
    if (!active_) activate(false);
    return moved(active_ && player_.jumpTo(node));
}

void NarrativePlayback::seek(double seconds) {
    if (!active_) activate(false);
    if (!active_) return;
    player_.seek(seconds);
    showNow();
}

bool NarrativePlayback::continueWaiting() { return active_ && player_.pressKey(); }

void NarrativePlayback::setLoop(bool loop) { player_.setLoop(loop); }

void NarrativePlayback::showNow() {
    if (active_) show(player_.frame());
}

void NarrativePlayback::onFrame() {
    const double now = clockNow();
    const double elapsed = clockAtFrame_ ? now - *clockAtFrame_ : 0.0;
    clockAtFrame_ = now;
    if (!active_) return;
    const bool wasPlaying = player_.playing();
    player_.advance(elapsed);
    const narrative::PlayerFrame frame = player_.frame();
    show(frame);
    if (wasPlaying && frame.stage == PlayerStage::Finished) {
        stop(); // the tour is over: the camera is the user's again, at the last node
        return;
    }
    Q_EMIT frameShown();
}

void NarrativePlayback::show(const narrative::PlayerFrame& f) {
    if (!cameraYielded_) view_->camera().setPose(f.pose);
    const narrative::Narrative& n = player_.narrative();
    if (f.node < 0 || f.node >= int(n.nodes.size())) return;
    const std::pair<int, int> at{f.cycle, f.node};
    if (f.stage == PlayerStage::Transition) {
        flownTo_ = at;
        if (transitionApplied_ != at) {
            narrative::ViewState flight;
            if (f.heartPhase) {
                flight.heartRunning = false;
                flight.heartPhase = f.heartPhase;
            }
            // A node that hides the blood (one inside the heart) hides it from the start
            // of the flight in: the camera does not fly through a screen of blood.
            if (n.nodes[std::size_t(f.node)].view.bloodVisible == false) flight.bloodVisible = false;
            if (!flight.empty()) applyTourView(flight);
        }
        transitionApplied_ = at;
        if (!overlays_->editing()) overlays_->showNode({}, {}, 0.0, false);
        return;
    }
    const narrative::Node& node = n.nodes[std::size_t(f.node)];
    if (viewApplied_ != at) {
        viewApplied_ = at;
        // Flown in: the node's own view state. Jumped or sought to: what playing from the
        // start would have left on screen there.
        const narrative::ViewState view = flownTo_ == at ? node.view : narrative::viewStateAt(n, std::size_t(f.node));
        applyTourView(view);
    }
    if (overlays_->editing()) return;
    overlays_->setMediaTime(player_.time() - f.nodeArrival);
    const QString key = QString("%1/%2/%3").arg(narrativeIndex_).arg(f.cycle).arg(f.node);
    const bool showing = f.stage != PlayerStage::Finished && f.overlayAlpha > 0.0;
    overlays_->showNode(showing ? key : QString(), showing ? node.overlays : std::vector<narrative::OverlayItem>{},
                        f.overlayAlpha, player_.playing());
}

bool NarrativePlayback::eventFilter(QObject* watched, QEvent* event) {
    if (!active_) return QObject::eventFilter(watched, event);
    switch (event->type()) {
    case QEvent::KeyPress: {
        auto* widget = qobject_cast<QWidget*>(watched);
        if (!widget || widget->window() != view_->window()) break; // dialogs keep their keys
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->isAutoRepeat()) break;
        const int k = key->key();
        const bool modifier = k == Qt::Key_Shift || k == Qt::Key_Control || k == Qt::Key_Alt || k == Qt::Key_Meta;
        const bool typing = qobject_cast<QLineEdit*>(widget) || qobject_cast<QTextEdit*>(widget) ||
                            qobject_cast<QAbstractSpinBox*>(widget);
        // Any key continues a waiting node, wherever the focus is in the window.
        if (!modifier && !typing && continueWaiting()) return true;
        const bool navigation = k == Qt::Key_W || k == Qt::Key_A || k == Qt::Key_S || k == Qt::Key_D || k == Qt::Key_Q ||
                                k == Qt::Key_E || k == Qt::Key_Space;
        if (navigation && watched == view_) stop();
        break;
    }
    case QEvent::MouseButtonPress:
    case QEvent::Wheel:
        if (watched == view_) stop(); // the user takes the camera; the event goes on to the controller
        break;
    default:
        break;
    }
    return QObject::eventFilter(watched, event);
}

} // namespace atrium::widgets
