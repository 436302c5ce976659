#pragma once
// The narrative bar (Poyart 2016 5.4, figures 5.1 and 5.2), along the bottom of the
// window: which narrative, playback (previous, play/pause, next, stop, loop) and where
// it is; the timeline of node cards with thumbnails and transition cards between them,
// which the author reorders by dragging and opens with a double-click; + and - for
// nodes; and, while the overlay editor is on, its tools. The bar shows the actions
// it is given; NarrativeWorkspace connects them.

#include "narrative/Narrative.h"

#include <QListWidget>
#include <QWidget>

#include <functional>

class QComboBox;
class QBoxLayout;
class QHBoxLayout;
class QLabel;
class QMenu;

namespace atrium::widgets {

/// Node cards and transition cards in a row: node k is row 2k, the transition after
/// it row 2k + 1. Only node cards can be dragged.
class NarrativeTimeline : public QListWidget {
    Q_OBJECT
public:
    static constexpr int kThumbnailWidth = 128, kThumbnailHeight = 72;

    explicit NarrativeTimeline(QWidget* parent = nullptr);
    /// Shows the cards of `narrative` (null: none); `thumbnail(k)` gives node k's picture.
    void setNarrative(const narrative::Narrative* narrative, const std::function<QPixmap(int)>& thumbnail);
    /// Marks node `node` as the current one (-1: none) and scrolls to it.
    void setCurrentNode(int node);
    /// The selected node card, or -1.
    int selectedNode() const;
    int nodeCount() const { return (count() + 1) / 2; }
    /// Where a drop at `pos` would insert the dragged node, as its new index.
    int dropIndex(QPoint pos, int from) const;

Q_SIGNALS:
    void nodeClicked(int node);
    void nodeDoubleClicked(int node);
    void transitionDoubleClicked(int transition);
    void nodeMoved(int from, int to);

protected:
    void dropEvent(QDropEvent* event) override;
};

class NarrativeBar : public QWidget {
    Q_OBJECT
public:
    explicit NarrativeBar(QWidget* parent = nullptr);

    QComboBox* narratives() const { return narratives_; }
    NarrativeTimeline* timeline() const { return timeline_; }
    void setNarrativesMenu(QMenu* menu);
    /// A button in the playback row / beside the timeline / among the overlay tools.
    void addPlaybackAction(QAction* action);
    void addNodeAction(QAction* action);
    void addOverlayAction(QAction* action);
    void setOverlayToolsVisible(bool visible);
    /// The position line ("node 2 of 5, 12.3 s / 40.0 s").
    void setStatus(const QString& text);
    QString status() const;

private:
    QComboBox* narratives_;
    QHBoxLayout *playback_, *overlayTools_;
    QBoxLayout* nodes_;
    QWidget* overlayRow_;
    QLabel* status_;
    NarrativeTimeline* timeline_;
};

} // namespace atrium::widgets
