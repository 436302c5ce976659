#include "widgets/narrative/NarrativeBar.h"

#include <QAction>
#include <QComboBox>
#include <QDropEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QScrollBar>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

namespace atrium::widgets {

namespace {

constexpr int kKindRole = Qt::UserRole + 1;  // 0 node, 1 transition
constexpr int kIndexRole = Qt::UserRole + 2;

QString seconds(double s) { return QString::number(s, 'f', s < 10 ? 1 : 0) + " s"; }

QToolButton* buttonFor(QAction* action, bool iconOnly) {
    auto* b = new QToolButton;
    b->setDefaultAction(action);
    b->setAutoRaise(true);
    b->setMinimumSize(32, 32);
    b->setIconSize(QSize(22, 22));
    b->setToolButtonStyle(iconOnly && !action->icon().isNull() ? Qt::ToolButtonIconOnly : Qt::ToolButtonTextOnly);
    return b;
}

} // namespace

NarrativeTimeline::NarrativeTimeline(QWidget* parent) : QListWidget(parent) {
    setObjectName("narrativeTimeline");
    setFlow(QListView::LeftToRight);
    setWrapping(false);
    setViewMode(QListView::IconMode); // text under the thumbnail
    setMovement(QListView::Snap);
    setIconSize(QSize(kThumbnailWidth, kThumbnailHeight));
    setHorizontalScrollMode(QAbstractItemView::ScrollPerPixel); // smooth scrolling
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setSelectionMode(QAbstractItemView::SingleSelection);
    setDragDropMode(QAbstractItemView::InternalMove);
    setDefaultDropAction(Qt::MoveAction);
    setSpacing(3);
    setFixedHeight(kThumbnailHeight + 58);
    setMinimumWidth(160);
    setStyleSheet("QListWidget#narrativeTimeline { background: #181b20; color: #e6e6e6; }"
                  "QListWidget#narrativeTimeline::item:selected { background: #2d5d8f; }");
    connect(this, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
        if (item->data(kKindRole).toInt() == 0) Q_EMIT nodeClicked(item->data(kIndexRole).toInt());
    });
    connect(this, &QListWidget::itemDoubleClicked, this, [this](QListWidgetItem* item) {
        const int index = item->data(kIndexRole).toInt();
        if (item->data(kKindRole).toInt() == 0) Q_EMIT nodeDoubleClicked(index);
        else Q_EMIT transitionDoubleClicked(index);
    });
}

void NarrativeTimeline::setNarrative(const narrative::Narrative* n, const std::function<QPixmap(int)>& thumbnail) {
    const int selected = selectedNode();
    const int scroll = horizontalScrollBar()->value();
    clear();
    if (!n) return;
    for (std::size_t k = 0; k < n->nodes.size(); ++k) {
        const narrative::Node& node = n->nodes[k];
        QString text = QString("%1. %2").arg(k + 1).arg(node.title.empty() ? QString("Node") : QString::fromStdString(node.title));
        text += "\n" + (node.waitForKey ? QString("until a key") : seconds(node.dwell));
        if (!node.overlays.empty()) text += QString(", %1 overlay%2").arg(node.overlays.size()).arg(node.overlays.size() > 1 ? "s" : "");
        auto* card = new QListWidgetItem(QIcon(thumbnail(int(k))), text, this);
        card->setData(kKindRole, 0);
        card->setData(kIndexRole, int(k));
        card->setSizeHint(QSize(kThumbnailWidth + 16, kThumbnailHeight + 44));
        card->setTextAlignment(Qt::AlignHCenter | Qt::AlignTop);
        card->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled);
        card->setToolTip("Click: go there; double-click: dwell, fades, view state; drag: reorder");
        if (k + 1 < n->nodes.size()) {
            const narrative::Transition& t = n->transitions[k];
            QString label = QString::fromUtf8("\u2192\n") + seconds(t.duration);
            if (t.heartPhase) label += QString("\nphase %1").arg(*t.heartPhase, 0, 'f', 2);
            auto* transition = new QListWidgetItem(label, this);
            transition->setData(kKindRole, 1);
            transition->setData(kIndexRole, int(k));
            transition->setSizeHint(QSize(64, kThumbnailHeight + 44));
            transition->setTextAlignment(Qt::AlignCenter);
            transition->setFlags(Qt::ItemIsEnabled);
            transition->setToolTip("Double-click: duration and heart phase of the flight");
        }
    }
    if (selected >= 0 && selected < nodeCount()) item(2 * selected)->setSelected(true);
    horizontalScrollBar()->setValue(scroll);
}

void NarrativeTimeline::setCurrentNode(int node) {
    if (node < 0 || node >= nodeCount()) return;
    if (selectedNode() == node) return;
    clearSelection();
    item(2 * node)->setSelected(true);
    scrollToItem(item(2 * node));
}

int NarrativeTimeline::selectedNode() const {
    for (QListWidgetItem* item : selectedItems())
        if (item->data(kKindRole).toInt() == 0) return item->data(kIndexRole).toInt();
    return -1;
}

int NarrativeTimeline::dropIndex(QPoint pos, int from) const {
    const int nodes = nodeCount();
    int insertBefore = nodes; // past the last card: to the end
    if (QListWidgetItem* target = itemAt(pos)) {
        const int index = target->data(kIndexRole).toInt();
        if (target->data(kKindRole).toInt() == 1) insertBefore = index + 1; // between index and index + 1
        else insertBefore = pos.x() > visualItemRect(target).center().x() ? index + 1 : index;
    }
    return insertBefore > from ? insertBefore - 1 : insertBefore;
}

void NarrativeTimeline::dropEvent(QDropEvent* event) {
    // The model reorders (one undoable move); the list is rebuilt from it.
    const int from = selectedNode();
    event->setDropAction(Qt::IgnoreAction);
    event->accept();
    if (from < 0) return;
    const int to = dropIndex(event->position().toPoint(), from);
    if (to != from) Q_EMIT nodeMoved(from, to);
}

NarrativeBar::NarrativeBar(QWidget* parent) : QWidget(parent) {
    setObjectName("narrativeBar");
    // Dark like the control bar over the view, whose light icons it shares.
    setAttribute(Qt::WA_StyledBackground);
    setStyleSheet("QWidget#narrativeBar { background: #1b1f25; } QLabel { color: #e6e6e6; }"
                  "QToolButton { color: #e6e6e6; } QToolButton:checked { background: #2d5d8f; border-radius: 4px; }"
                  "QToolButton:disabled { color: #6b717a; }");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 2, 4, 2);
    layout->setSpacing(2);

    playback_ = new QHBoxLayout;
    narratives_ = new QComboBox;
    narratives_->setObjectName("narrativeCombo");
    narratives_->setMinimumContentsLength(8);
    narratives_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    narratives_->setToolTip("The narrative shown and edited");
    playback_->addWidget(new QLabel("Narrative"));
    playback_->addWidget(narratives_);
    status_ = new QLabel;
    status_->setObjectName("narrativeStatus");
    status_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred); // long lines are cut, never widen the window
    status_->setMinimumWidth(0);
    layout->addLayout(playback_);

    auto* row = new QHBoxLayout;
    nodes_ = new QVBoxLayout;
    auto* nodeButtons = new QVBoxLayout;
    nodeButtons->addLayout(nodes_);
    nodeButtons->addStretch();
    row->addLayout(nodeButtons);
    timeline_ = new NarrativeTimeline;
    row->addWidget(timeline_, 1);
    layout->addLayout(row);

    overlayRow_ = new QWidget;
    overlayTools_ = new QHBoxLayout(overlayRow_);
    overlayTools_->setContentsMargins(0, 0, 0, 0);
    overlayRow_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    overlayTools_->addWidget(new QLabel("Overlay editor:"));
    layout->addWidget(overlayRow_);
    overlayRow_->hide();
}

void NarrativeBar::setNarrativesMenu(QMenu* menu) {
    auto* b = new QToolButton;
    b->setText("Narratives");
    b->setObjectName("narrativesMenuButton");
    b->setToolTip("New, rename, duplicate or delete narratives");
    b->setMenu(menu);
    b->setPopupMode(QToolButton::InstantPopup);
    b->setAutoRaise(true);
    playback_->insertWidget(2, b);
}

void NarrativeBar::addPlaybackAction(QAction* action) { playback_->addWidget(buttonFor(action, true)); }

void NarrativeBar::addNodeAction(QAction* action) { nodes_->addWidget(buttonFor(action, true)); }

void NarrativeBar::addOverlayAction(QAction* action) { overlayTools_->addWidget(buttonFor(action, false)); }

void NarrativeBar::setOverlayToolsVisible(bool visible) {
    if (overlayTools_->itemAt(overlayTools_->count() - 1)->spacerItem() == nullptr) overlayTools_->addStretch();
    overlayRow_->setVisible(visible);
}

void NarrativeBar::setStatus(const QString& text) {
    if (playback_->indexOf(status_) < 0) {
        playback_->addSpacing(12);
        playback_->addWidget(status_, 1);
    }
    status_->setText(text);
}

QString NarrativeBar::status() const { return status_->text(); }

} // namespace atrium::widgets
