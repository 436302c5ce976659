#include "widgets/narrative/NarrativeWorkspace.h"

#include "widgets/window/MakeAction.h"
#include "widgets/narrative/NarrativeBar.h"
#include "widgets/narrative/NarrativeDialogs.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativeHome.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeVideoExport.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/view/SceneView.h"
#include "widgets/window/Icons.h"

#include <QAction>
#include <QBuffer>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QIcon>
#include <QInputDialog>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalBlocker>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>

#include <cmath>

namespace atrium::widgets {

using narrative::Node;
using narrative::OverlayItem;
using narrative::OverlayKind;

namespace {

QString poseKey(const narrative::CameraPose& p) {
    return QString("%1 %2 %3 %4 %5")
        .arg(p.position().x, 0, 'g', 17)
        .arg(p.position().y, 0, 'g', 17)
        .arg(p.position().z, 0, 'g', 17)
        .arg(p.yaw(), 0, 'g', 17)
        .arg(p.pitch(), 0, 'g', 17);
}

} // namespace

NarrativeWorkspace::NarrativeWorkspace(QMainWindow* window, SceneView* view, bool persistSettings, bool interactive)
    : QObject(window), window_(window), view_(view), persist_(persistSettings), interactive_(interactive),
      editor_(new NarrativeEditor(this)), overlays_(new OverlayLayer(view)),
      playback_(new NarrativePlayback(view, overlays_, editor_, this)), bar_(new NarrativeBar) {
    buildActions(window);
    buildBar(window);
    connect(editor_, &NarrativeEditor::documentChanged, this, &NarrativeWorkspace::refresh);
    connect(editor_, &NarrativeEditor::fileStateChanged, this, &NarrativeWorkspace::updateTitle);
    connect(playback_, &NarrativePlayback::stateChanged, this, &NarrativeWorkspace::refresh);
    connect(playback_, &NarrativePlayback::frameShown, this, [this] {
        updateStatus();
        bar_->timeline()->setCurrentNode(playback_->frame().node);
    });
    connect(overlays_, &OverlayLayer::itemsEdited, this, &NarrativeWorkspace::setOverlays);
    connect(overlays_, &OverlayLayer::editRequested, this, &NarrativeWorkspace::editOverlay);
    connect(overlays_, &OverlayLayer::selectionChanged, this, &NarrativeWorkspace::refreshOverlayEditor);
    auto* thumbnails = new QTimer(this);
    thumbnails->setInterval(40); // one thumbnail per tick: the window never waits for a batch
    connect(thumbnails, &QTimer::timeout, this, &NarrativeWorkspace::renderNextThumbnail);
    thumbnails->start();
    mediaChanged();
    refresh();
}

void NarrativeWorkspace::buildActions(QMainWindow* window) {
    newDoc_ = makeAction(window, "New narratives", QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_N), "Start an empty narratives file");
    connect(newDoc_, &QAction::triggered, this, [this] {
        if (!maybeSave()) return;
        playback_->stop();
        editor_->newDocument();
        editor_->addNarrative("Narrative 1");
        editor_->undoStack()->clear();
    });
    open_ = makeAction(window, "Open narratives...", QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O), "Open a narratives file");
    connect(open_, &QAction::triggered, this, [this] {
        if (!maybeSave()) return;
        const QString path = QFileDialog::getOpenFileName(dialogParent(), "Open narratives", QString(),
                                                          "Narratives (*.narratives.json *.json)");
        if (!path.isEmpty()) openFile(path);
    });
    save_ = makeAction(window, "Save narratives", QKeySequence::Save, "Save the narratives to their file");
    connect(save_, &QAction::triggered, this, [this] {
        if (editor_->home()) saveToHome(); // a lecture's narratives: the lecture is saved
        else if (editor_->filePath().isEmpty()) saveAs_->trigger();
        else saveFile(editor_->filePath());
    });
    saveAs_ = makeAction(window, "Save narratives as...", QKeySequence::SaveAs, "Save the narratives to another file");
    connect(saveAs_, &QAction::triggered, this, [this] {
        QString path = QFileDialog::getSaveFileName(dialogParent(), "Save narratives", editor_->filePath().isEmpty() ? "tour.narratives.json" : editor_->filePath(),
                                                    "Narratives (*.narratives.json)");
        if (path.isEmpty()) return;
        if (!path.endsWith(".json")) path += ".narratives.json";
        saveFile(path);
    });

    play_ = makeAction(window, "Play narrative", Qt::Key_P, "Play or pause the narrative");
    play_->setIcon(atriumIcon("play"));
    connect(play_, &QAction::triggered, playback_, &NarrativePlayback::togglePlay);
    previous_ = makeAction(window, "Previous node", Qt::Key_Left, "Go to the previous node");
    previous_->setIcon(atriumIcon("node-previous"));
    connect(previous_, &QAction::triggered, playback_, &NarrativePlayback::previous);
    next_ = makeAction(window, "Next node", Qt::Key_Right, "Go to the next node (also continues a node waiting for a key)");
    next_->setIcon(atriumIcon("node-next"));
    connect(next_, &QAction::triggered, playback_, &NarrativePlayback::next);
    stop_ = makeAction(window, "Stop narrative", Qt::Key_Escape, "Stop the narrative and take the camera");
    stop_->setIcon(atriumIcon("narrative-stop"));
    connect(stop_, &QAction::triggered, playback_, &NarrativePlayback::stop);
    // Shift+L: L labels the chambers (two actions on one key would both be dead).
    loop_ = makeAction(window, "Loop", QKeySequence(Qt::SHIFT | Qt::Key_L),
                       "Start again from the first node after the last", true);
    loop_->setIcon(atriumIcon("narrative-loop"));
    connect(loop_, &QAction::toggled, playback_, &NarrativePlayback::setLoop);
    addNode_ = makeAction(window, "+", Qt::Key_Insert, "Add a node from the current view and view state");
    addNode_->setObjectName("addNode");
    addNode_->setIcon(atriumIcon("node-add"));
    connect(addNode_, &QAction::triggered, this, &NarrativeWorkspace::addNodeFromView);
    removeNode_ = makeAction(window, QString::fromUtf8("\u2212"), QKeySequence(Qt::CTRL | Qt::Key_Delete), "Remove the selected node");
    removeNode_->setObjectName("removeNode");
    removeNode_->setIcon(atriumIcon("node-remove"));
    connect(removeNode_, &QAction::triggered, this, [this] { editor_->removeNode(selectedNode()); });
    // The keyboard's and the menu's way to reorder (a card can also be dragged).
    moveNodeEarlier_ = makeAction(window, "Move node earlier", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Left),
                                  "Move the selected node one place towards the start");
    connect(moveNodeEarlier_, &QAction::triggered, this, [this] { moveSelectedNode(-1); });
    moveNodeLater_ = makeAction(window, "Move node later", QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Right),
                                "Move the selected node one place towards the end");
    connect(moveNodeLater_, &QAction::triggered, this, [this] { moveSelectedNode(+1); });
    nodeDetails_ = makeAction(window, "Node...", QKeySequence(Qt::CTRL | Qt::Key_I), "Dwell, wait for a key, fades and view state of the selected node");
    connect(nodeDetails_, &QAction::triggered, this, [this] { editNode(selectedNode()); });
    updateNode_ = makeAction(window, "Update node from view", QKeySequence(Qt::CTRL | Qt::Key_U),
                             "Give the selected node the current camera, view state and a new thumbnail");
    connect(updateNode_, &QAction::triggered, this, [this] { updateNodeFromView(selectedNode()); });
    editOverlays_ = makeAction(window, "Edit overlays", QKeySequence(Qt::CTRL | Qt::Key_E),
                               "Lay out the selected node's text, images, video, sound and 3D labels", true);
    editOverlays_->setIcon(atriumIcon("overlays"));
    connect(editOverlays_, &QAction::toggled, this, &NarrativeWorkspace::setEditingOverlays);
    undo_ = editor_->undoStack()->createUndoAction(window, "Undo");
    undo_->setShortcut(QKeySequence::Undo);
    redo_ = editor_->undoStack()->createRedoAction(window, "Redo");
    // Ctrl+Shift+Z everywhere, and the platform's own redo key when it is another one
    // (the same sequence twice would make the shortcut ambiguous).
    QList<QKeySequence> redoKeys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)};
    for (const QKeySequence& k : QKeySequence::keyBindings(QKeySequence::Redo))
        if (!redoKeys.contains(k)) redoKeys << k;
    redo_->setShortcuts(redoKeys);
    exportVideo_ = makeAction(window, "Export narrative video...", QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E), "Render the narrative frame by frame into an MP4 video");
    connect(exportVideo_, &QAction::triggered, this, &NarrativeWorkspace::exportVideo);

    newNarrative_ = makeAction(window, "New narrative", {}, "Add an empty narrative to the file");
    connect(newNarrative_, &QAction::triggered, this, [this] {
        editor_->addNarrative(QString("Narrative %1").arg(editor_->document().narratives.size() + 1));
    });
    renameNarrative_ = makeAction(window, "Rename narrative...", {}, "Rename the current narrative");
    connect(renameNarrative_, &QAction::triggered, this, [this] {
        if (!editor_->current()) return;
        bool ok = false;
        const QString title = QInputDialog::getText(dialogParent(), "Rename narrative", "Title:", QLineEdit::Normal,
                                                    QString::fromStdString(editor_->current()->title), &ok);
        if (ok) editor_->renameNarrative(editor_->currentIndex(), title);
    });
    duplicateNarrative_ = makeAction(window, "Duplicate narrative", {}, "Copy the current narrative");
    connect(duplicateNarrative_, &QAction::triggered, this, [this] { editor_->duplicateNarrative(editor_->currentIndex()); });
    deleteNarrative_ = makeAction(window, "Delete narrative", {}, "Delete the current narrative (undo brings it back)");
    connect(deleteNarrative_, &QAction::triggered, this, [this] { editor_->removeNarrative(editor_->currentIndex()); });
    narrativeDetails_ = makeAction(window, "Narrative details...", {}, "Title, author and description");
    connect(narrativeDetails_, &QAction::triggered, this, [this] {
        const narrative::Narrative* n = editor_->current();
        if (!n) return;
        bool ok = false;
        const QString author = QInputDialog::getText(dialogParent(), "Narrative details", "Author:", QLineEdit::Normal,
                                                     QString::fromStdString(n->author), &ok);
        if (!ok) return;
        const QString description = QInputDialog::getMultiLineText(dialogParent(), "Narrative details", "Description:",
                                                                    QString::fromStdString(n->description), &ok);
        if (ok) editor_->setNarrativeInfo(QString::fromStdString(n->title), author, description);
    });

    addText_ = makeAction(window, "Text", {}, "Add a text box to the node");
    connect(addText_, &QAction::triggered, this, [this] { addOverlay(OverlayKind::Text); });
    addImage_ = makeAction(window, "Image", {}, "Add a picture to the node");
    connect(addImage_, &QAction::triggered, this, [this] { addOverlay(OverlayKind::Image); });
    addVideo_ = makeAction(window, "Video", {}, "Add a video to the node");
    connect(addVideo_, &QAction::triggered, this, [this] { addOverlay(OverlayKind::Video); });
    addSound_ = makeAction(window, "Sound", {}, "Add a sound to the node");
    connect(addSound_, &QAction::triggered, this, [this] { addOverlay(OverlayKind::Sound); });
    addLabel_ = makeAction(window, "3D label", {}, "Pin a label to a point of the heart: click the point");
    connect(addLabel_, &QAction::triggered, this, [this] { addOverlay(OverlayKind::Label3D); });
    raise_ = makeAction(window, "Raise", {}, "Bring the selected overlay forward");
    connect(raise_, &QAction::triggered, this, [this] { restackOverlay(+1); });
    lower_ = makeAction(window, "Lower", {}, "Send the selected overlay back");
    connect(lower_, &QAction::triggered, this, [this] { restackOverlay(-1); });
    editItem_ = makeAction(window, "Edit...", {}, "Edit the selected overlay's text, file, volume or loop");
    connect(editItem_, &QAction::triggered, this, [this] {
        if (overlays_->selection()) editOverlay(*overlays_->selection());
    });
    deleteItem_ = makeAction(window, "Delete", {}, "Delete the selected overlay (Del)");
    connect(deleteItem_, &QAction::triggered, this, [this] {
        if (!overlays_->selection()) return;
        std::vector<OverlayItem> items = overlays_->items();
        items.erase(items.begin() + std::ptrdiff_t(*overlays_->selection()));
        overlays_->select(std::nullopt);
        setOverlays(items, "Delete overlay");
    });

    menu_ = new QMenu("&Narrative", window);
    for (QAction* a : {play_, previous_, next_, stop_, loop_}) menu_->addAction(a);
    menu_->addSeparator();
    narrativesMenu_ = menu_->addMenu("Narratives");
    for (QAction* a : {newNarrative_, renameNarrative_, duplicateNarrative_, deleteNarrative_, narrativeDetails_})
        narrativesMenu_->addAction(a);
    menu_->addSeparator();
    for (QAction* a : {addNode_, removeNode_, moveNodeEarlier_, moveNodeLater_, updateNode_, nodeDetails_, editOverlays_})
        menu_->addAction(a);
    QMenu* overlayMenu = menu_->addMenu("Add overlay");
    for (QAction* a : {addText_, addImage_, addVideo_, addSound_, addLabel_}) overlayMenu->addAction(a);
    menu_->addSeparator();
    menu_->addAction(undo_);
    menu_->addAction(redo_);
    menu_->addSeparator();
    menu_->addAction(exportVideo_);
    // Shortcuts work wherever the focus is in the window.
    for (QAction* a : {newDoc_, open_, save_, saveAs_, play_, previous_, next_, stop_, loop_, addNode_, removeNode_, moveNodeEarlier_,
                       moveNodeLater_, updateNode_, nodeDetails_, editOverlays_, undo_, redo_, exportVideo_})
        window->addAction(a);
}

void NarrativeWorkspace::addFileActions(QMenu* file) {
    QAction* first = file->actions().isEmpty() ? nullptr : file->actions().front();
    recent_ = new QMenu("Recent narratives", file);
    file->insertAction(first, newDoc_);
    file->insertAction(first, open_);
    file->insertMenu(first, recent_);
    file->insertAction(first, save_);
    file->insertAction(first, saveAs_);
    file->insertSeparator(first);
    fillRecentMenu();
}

void NarrativeWorkspace::buildBar(QMainWindow* window) {
    toolBar_ = new QToolBar("Narrative bar", window);
    toolBar_->setObjectName("narrativeToolBar");
    toolBar_->setMovable(false);
    toolBar_->addWidget(bar_);
    window->addToolBar(Qt::BottomToolBarArea, toolBar_);
    bar_->setNarrativesMenu(narrativesMenu_);
    for (QAction* a : {previous_, play_, next_, stop_, loop_}) bar_->addPlaybackAction(a);
    for (QAction* a : {addNode_, removeNode_, editOverlays_}) bar_->addNodeAction(a);
    for (QAction* a : {addText_, addImage_, addVideo_, addSound_, addLabel_, raise_, lower_, editItem_, deleteItem_})
        bar_->addOverlayAction(a);
    connect(bar_->narratives(), &QComboBox::activated, this, [this](int index) {
        playback_->stop();
        editor_->setCurrentIndex(index);
    });
    NarrativeTimeline* timeline = bar_->timeline();
    connect(timeline, &NarrativeTimeline::nodeClicked, this, [this](int node) {
        if (overlays_->editing()) return setEditingOverlays(true); // edit the node clicked
        playback_->jumpTo(node);
    });
    connect(timeline, &NarrativeTimeline::nodeDoubleClicked, this, &NarrativeWorkspace::editNode);
    connect(timeline, &NarrativeTimeline::transitionDoubleClicked, this, &NarrativeWorkspace::editTransition);
    connect(timeline, &NarrativeTimeline::nodeMoved, this, [this](int from, int to) {
        editor_->moveNode(from, to);
        bar_->timeline()->setCurrentNode(to);
    });
    connect(timeline, &QListWidget::itemSelectionChanged, this, [this] {
        const narrative::Narrative* n = editor_->current();
        const bool editable = editRefusal_.isEmpty();
        moveNodeEarlier_->setEnabled(editable && selectedNode() > 0);
        moveNodeLater_->setEnabled(editable && selectedNode() >= 0 && n && selectedNode() + 1 < int(n->nodes.size()));
        removeNode_->setEnabled(selectedNode() >= 0);
        nodeDetails_->setEnabled(selectedNode() >= 0);
        updateNode_->setEnabled(selectedNode() >= 0 && editRefusal_.isEmpty());
    });
}

void NarrativeWorkspace::setViewState(std::function<void(const narrative::ViewState&)> apply,
                                      std::function<narrative::ViewState()> capture) {
    applyView_ = apply;
    captureView_ = std::move(capture);
    playback_->setViewStateHandlers(std::move(apply), captureView_);
}

QWidget* NarrativeWorkspace::dialogParent() const { return window_; }

int NarrativeWorkspace::selectedNode() const { return bar_->timeline()->selectedNode(); }

void NarrativeWorkspace::refresh() {
    const narrative::Narrative* n = editor_->current();
    {
        const QSignalBlocker block(bar_->narratives());
        bar_->narratives()->clear();
        for (const narrative::Narrative& each : editor_->document().narratives)
            bar_->narratives()->addItem(each.title.empty() ? QString("(untitled)") : QString::fromStdString(each.title));
        bar_->narratives()->setCurrentIndex(editor_->currentIndex());
    }
    bar_->timeline()->setNarrative(n, [this](int k) { return thumbnail(k); });
    const bool nodes = n && !n->nodes.empty();
    for (QAction* a : {play_, next_, previous_, exportVideo_}) a->setEnabled(nodes);
    stop_->setEnabled(playback_->active());
    play_->setText(playback_->playing() ? "Pause narrative" : "Play narrative");
    play_->setIcon(atriumIcon(playback_->playing() ? "pause" : "play"));
    removeNode_->setEnabled(selectedNode() >= 0);
    moveNodeEarlier_->setEnabled(selectedNode() > 0);
    moveNodeLater_->setEnabled(selectedNode() >= 0 && n && selectedNode() + 1 < int(n->nodes.size()));
    nodeDetails_->setEnabled(selectedNode() >= 0);
    updateNode_->setEnabled(selectedNode() >= 0);
    editOverlays_->setEnabled(nodes);
    for (QAction* a : {renameNarrative_, duplicateNarrative_, deleteNarrative_, narrativeDetails_}) a->setEnabled(n != nullptr);
    if (overlays_->editing()) {
        if (!n || editingNode_ >= int(n->nodes.size())) editOverlays_->setChecked(false);
        else overlays_->edit(QString("edit/%1/%2").arg(editor_->currentIndex()).arg(editingNode_), n->nodes[std::size_t(editingNode_)].overlays);
    }
    refreshOverlayEditor();
    for (QAction* a : {addNode_, removeNode_, moveNodeEarlier_, moveNodeLater_, updateNode_, nodeDetails_, editOverlays_, undo_, redo_,
                       newNarrative_, renameNarrative_, duplicateNarrative_, deleteNarrative_, narrativeDetails_}) {
        if (editRefusal_.isEmpty()) {
            if (editTips_.contains(a)) {
                a->setToolTip(editTips_.take(a));
                if (a == addNode_ || a == newNarrative_) a->setEnabled(true); // always allowed otherwise
            }
            continue;
        }
        if (!editTips_.contains(a)) editTips_.insert(a, a->toolTip());
        a->setEnabled(false);
        a->setToolTip(editRefusal_);
    }
    updateStatus();
    updateTitle();
}

void NarrativeWorkspace::moveSelectedNode(int step) {
    const narrative::Narrative* n = editor_->current();
    const int from = selectedNode(), to = from + step;
    if (!editRefusal_.isEmpty() || !n || from < 0 || to < 0 || to >= int(n->nodes.size())) return;
    editor_->moveNode(from, to); // undoable, as a drag of its card
    bar_->timeline()->setCurrentNode(to);
}

void NarrativeWorkspace::setEditRefusal(const QString& why) {
    editRefusal_ = why;
    if (!why.isEmpty()) setEditingOverlays(false);
    refresh();
    // refresh() leaves undo and redo to their stack: enable them as it would.
    if (why.isEmpty()) {
        undo_->setEnabled(editor_->undoStack()->canUndo());
        redo_->setEnabled(editor_->undoStack()->canRedo());
    }
}

void NarrativeWorkspace::refreshOverlayEditor() {
    const bool editing = overlays_->editing();
    bar_->setOverlayToolsVisible(editing);
    const bool selected = editing && overlays_->selection().has_value();
    for (QAction* a : {raise_, lower_, editItem_, deleteItem_}) a->setEnabled(selected);
    for (QAction* a : {addText_, addImage_, addVideo_, addSound_, addLabel_}) a->setEnabled(editing);
}

void NarrativeWorkspace::updateStatus() {
    const narrative::Narrative* n = editor_->current();
    if (!n) return bar_->setStatus("No narrative: File > New narratives, or open one");
    if (n->nodes.empty()) return bar_->setStatus("Empty: place the camera and press + to add a node");
    if (overlays_->editing())
        return bar_->setStatus(QString("Editing the overlays of node %1: drag to move, a corner to resize, Del deletes")
                                   .arg(editingNode_ + 1));
    if (!playback_->active()) return bar_->setStatus(QString("%1 nodes: P plays").arg(n->nodes.size()));
    const narrative::PlayerFrame f = playback_->frame();
    const std::optional<double> total = narrative::duration(playback_->player().narrative(), playback_->player().keyPresses(),
                                                            playback_->player().options());
    QString where = f.stage == narrative::PlayerStage::Transition ? QString("to node %1").arg(f.node + 1)
                                                                  : QString("node %1 of %2").arg(f.node + 1).arg(n->nodes.size());
    if (f.stage == narrative::PlayerStage::WaitingForKey) where += ", press a key";
    bar_->setStatus(QString("%1, %2 s%3%4")
                        .arg(where)
                        .arg(playback_->player().time(), 0, 'f', 1)
                        .arg(total ? QString(" / %1 s").arg(*total, 0, 'f', 1) : QString())
                        .arg(playback_->playing() ? "" : " (paused)"));
}

void NarrativeWorkspace::updateTitle() {
    save_->setEnabled(editor_->current() != nullptr || editor_->isModified());
    save_->setToolTip(editor_->home() ? "Save the narratives in the lecture " + editor_->home()->name() +
                                            " (signed again when its author unlocked it)"
                                      : QString("Save the narratives to their file"));
    QString name = editor_->home()               ? "the narratives of " + editor_->home()->name()
                   : editor_->filePath().isEmpty() ? QString("untitled narratives")
                                                   : QFileInfo(editor_->filePath()).fileName();
    toolBar_->setWindowTitle("Narrative bar - " + name + (editor_->isModified() ? " *" : ""));
}

QPixmap NarrativeWorkspace::thumbnail(int k) {
    const narrative::Narrative* n = editor_->current();
    if (!n || k < 0 || k >= int(n->nodes.size())) return {};
    const Node& node = n->nodes[std::size_t(k)];
    if (!node.thumbnail.empty()) {
        QPixmap stored;
        if (stored.loadFromData(QByteArray::fromBase64(QByteArray::fromStdString(node.thumbnail)))) return stored;
    }
    const QString key = poseKey(node.pose);
    if (const auto it = thumbnails_.find(key); it != thumbnails_.end()) return *it;
    if (!pendingThumbnails_.contains(key)) pendingThumbnails_ << key;
    QPixmap blank(NarrativeTimeline::kThumbnailWidth, NarrativeTimeline::kThumbnailHeight);
    blank.fill(QColor(30, 34, 40));
    return blank;
}

void NarrativeWorkspace::renderNextThumbnail() {
    // Nodes stored without a thumbnail get one rendered here, one per tick.
    const narrative::Narrative* n = editor_->current();
    if (pendingThumbnails_.isEmpty() || !n || !view_->shownSnapshot() || !view_->isVisible()) return;
    const QString key = pendingThumbnails_.takeFirst();
    for (const Node& node : n->nodes)
        if (poseKey(node.pose) == key) {
            thumbnails_.insert(key, QPixmap::fromImage(renderThumbnail(node.pose)));
            bar_->timeline()->setNarrative(n, [this](int k) { return thumbnail(k); });
            return;
        }
}

QImage NarrativeWorkspace::renderThumbnail(const narrative::CameraPose& pose) {
    QElapsedTimer clock;
    clock.start();
    QImage image;
    try {
        image = view_->renderImage(QSize(NarrativeTimeline::kThumbnailWidth, NarrativeTimeline::kThumbnailHeight), pose);
    } catch (const std::exception&) {
        image = QImage(NarrativeTimeline::kThumbnailWidth, NarrativeTimeline::kThumbnailHeight, QImage::Format_RGB32);
        image.fill(QColor(30, 34, 40));
    }
    lastThumbnailMs_ = double(clock.nsecsElapsed()) / 1e6;
    return image;
}

void NarrativeWorkspace::takeView(Node& node) {
    node.pose = view_->camera().pose();
    if (captureView_) node.view = captureView_();
    QByteArray jpeg;
    QBuffer buffer(&jpeg);
    buffer.open(QIODevice::WriteOnly);
    renderThumbnail(node.pose).save(&buffer, "JPG", 80);
    node.thumbnail = jpeg.toBase64().toStdString();
}

void NarrativeWorkspace::updateNodeFromView(int k) {
    const narrative::Narrative* n = editor_->current();
    if (!editRefusal_.isEmpty() || !n || k < 0 || k >= int(n->nodes.size())) return;
    playback_->stop();
    Node node = n->nodes[std::size_t(k)];
    takeView(node);
    editor_->setNode(k, node, "Update node from view");
}

void NarrativeWorkspace::addNodeFromView() {
    if (!editRefusal_.isEmpty()) return window_->statusBar()->showMessage(editRefusal_, 6000);
    if (!editor_->current()) editor_->addNarrative("Narrative 1");
    playback_->stop();
    Node node;
    takeView(node);
    node.title = QString("Node %1").arg(editor_->current()->nodes.size() + 1).toStdString();
    const int selected = selectedNode();
    const int at = selected >= 0 ? selected + 1 : int(editor_->current()->nodes.size());
    editor_->insertNode(at, node);
    bar_->timeline()->setCurrentNode(at);
}

void NarrativeWorkspace::setEditingOverlays(bool on) {
    const narrative::Narrative* n = editor_->current();
    int node = selectedNode();
    if (node < 0 && playback_->active()) node = playback_->frame().node;
    if (on && n && node < 0 && !n->nodes.empty()) node = 0;
    if (!on || !n || node < 0) {
        editingNode_ = -1;
        overlays_->clear();
        const QSignalBlocker block(editOverlays_);
        editOverlays_->setChecked(false);
        refresh();
        return;
    }
    playback_->stop();
    editingNode_ = node;
    bar_->timeline()->setCurrentNode(node);
    narrative::handOver(view_->camera(), n->nodes[std::size_t(node)].pose); // lay out over the node's own view
    if (applyView_ && !n->nodes[std::size_t(node)].view.empty()) applyView_(n->nodes[std::size_t(node)].view);
    {
        const QSignalBlocker block(editOverlays_);
        editOverlays_->setChecked(true);
    }
    overlays_->edit(QString("edit/%1/%2").arg(editor_->currentIndex()).arg(node), n->nodes[std::size_t(node)].overlays);
    overlays_->setFocus();
    refresh();
}

void NarrativeWorkspace::setOverlays(const std::vector<OverlayItem>& items, const QString& what) {
    const narrative::Narrative* n = editor_->current();
    if (!n || editingNode_ < 0 || editingNode_ >= int(n->nodes.size())) return;
    Node node = n->nodes[std::size_t(editingNode_)];
    node.overlays = items;
    editor_->setNode(editingNode_, node, what);
}

std::string NarrativeWorkspace::chooseMedia(const QString& caption, const QString& filter) {
    if (NarrativeHome* home = editor_->home()) {
        // A lecture's narratives: the file goes into the lecture.
        const QString chosen = QFileDialog::getOpenFileName(dialogParent(), caption, QString(), filter);
        if (chosen.isEmpty()) return {};
        QString error;
        const std::string media = home->addMedia(chosen, &error);
        if (media.empty()) QMessageBox::warning(dialogParent(), caption, error);
        return media;
    }
    if (editor_->filePath().isEmpty()) {
        QMessageBox::information(dialogParent(), caption,
                                 "Save the narratives first: media files are kept beside them, in their media/ folder.");
        saveAs_->trigger();
        if (editor_->filePath().isEmpty()) return {};
    }
    const QString chosen = QFileDialog::getOpenFileName(dialogParent(), caption, editor_->mediaFolder(), filter);
    if (chosen.isEmpty()) return {};
    const QDir folder(editor_->mediaFolder());
    QString relative = folder.relativeFilePath(chosen);
    if (relative.startsWith("..") || QFileInfo(relative).isAbsolute()) {
        // Outside the document's folder: copy it into media/ so that the file travels with it.
        folder.mkpath("media");
        relative = "media/" + QFileInfo(chosen).fileName();
        if (!QFileInfo::exists(folder.filePath(relative)) && !QFile::copy(chosen, folder.filePath(relative))) {
            QMessageBox::warning(dialogParent(), caption, "Could not copy " + chosen + " to " + folder.filePath(relative));
            return {};
        }
    }
    const std::string path = relative.toStdString();
    if (const auto error = narrative::checkMediaPath(path)) {
        QMessageBox::warning(dialogParent(), caption, QString::fromStdString(*error));
        return {};
    }
    return path;
}

void NarrativeWorkspace::addOverlay(OverlayKind kind) {
    if (!overlays_->editing()) return;
    OverlayItem item;
    item.kind = kind;
    int top = 0;
    for (const OverlayItem& other : overlays_->items()) top = std::max(top, other.z + 1);
    item.z = top;
    switch (kind) {
    case OverlayKind::Text: {
        RichTextDialog dialog("Text", "Text", dialogParent());
        if (dialog.exec() != QDialog::Accepted) return;
        item.text = dialog.html().toStdString();
        item.rect = {0.05, 0.65, 0.4, 0.2};
        break;
    }
    case OverlayKind::Image:
        item.media = chooseMedia("Image", "Images (*.png *.jpg *.jpeg *.svg)");
        item.rect = {0.6, 0.08, 0.3, 0.3};
        break;
    case OverlayKind::Video:
        item.media = chooseMedia("Video", "Videos (*.mp4 *.webm *.mkv *.mov *.avi)");
        item.rect = {0.6, 0.5, 0.35, 0.3};
        break;
    case OverlayKind::Sound:
        item.media = chooseMedia("Sound", "Sounds (*.wav *.ogg *.mp3 *.flac *.m4a)");
        item.rect = {0.05, 0.05, 0.2, 0.06};
        break;
    case OverlayKind::Label3D:
        overlays_->pickWallPoint([this, item](narrative::Vec3 point) mutable {
            bool ok = false;
            const QString text = QInputDialog::getText(dialogParent(), "3D label", "Label:", QLineEdit::Normal, QString(), &ok);
            if (!ok || text.isEmpty()) return;
            item.anchor = point;
            item.text = text.toHtmlEscaped().toStdString();
            item.rect = {0.03, -0.09, 0.18, 0.055};
            std::vector<OverlayItem> items = overlays_->items();
            items.push_back(item);
            setOverlays(items, "Add 3D label");
        });
        overlays_->update();
        return;
    }
    if (kind != OverlayKind::Text && item.media.empty()) return;
    std::vector<OverlayItem> items = overlays_->items();
    items.push_back(item);
    setOverlays(items, "Add overlay");
    overlays_->select(items.size() - 1);
}

void NarrativeWorkspace::editOverlay(std::size_t k) {
    std::vector<OverlayItem> items = overlays_->items();
    if (k >= items.size()) return;
    OverlayItem& item = items[k];
    if (item.kind == OverlayKind::Text || item.kind == OverlayKind::Label3D) {
        RichTextDialog dialog(item.kind == OverlayKind::Text ? "Text" : "3D label", QString::fromStdString(item.text), dialogParent());
        if (dialog.exec() != QDialog::Accepted) return;
        item.text = dialog.html().toStdString();
    } else if (item.kind == OverlayKind::Image) {
        const std::string media = chooseMedia("Image", "Images (*.png *.jpg *.jpeg *.svg)");
        if (media.empty()) return;
        item.media = media;
    } else {
        bool ok = false;
        const double start = QInputDialog::getDouble(dialogParent(), "Media", "Start at (s):", item.startOffset, 0, 86400, 1, &ok);
        if (!ok) return;
        const int volume = QInputDialog::getInt(dialogParent(), "Media", "Volume (%):", int(std::lround(item.volume * 100)), 0, 100, 5, &ok);
        if (!ok) return;
        item.startOffset = start;
        item.volume = volume / 100.0;
        item.loop = QMessageBox::question(dialogParent(), "Media", "Loop it while the node shows?") == QMessageBox::Yes;
    }
    setOverlays(items, "Edit overlay");
}

void NarrativeWorkspace::restackOverlay(int direction) {
    const auto k = overlays_->selection();
    if (!k) return;
    std::vector<OverlayItem> items = overlays_->items();
    int lo = items[*k].z, hi = items[*k].z;
    for (const OverlayItem& item : items) {
        lo = std::min(lo, item.z);
        hi = std::max(hi, item.z);
    }
    items[*k].z = direction > 0 ? hi + 1 : lo - 1;
    setOverlays(items, direction > 0 ? "Raise overlay" : "Lower overlay");
}

void NarrativeWorkspace::editNode(int k) {
    if (!editRefusal_.isEmpty()) return window_->statusBar()->showMessage(editRefusal_, 6000);
    const narrative::Narrative* n = editor_->current();
    if (!n || k < 0 || k >= int(n->nodes.size())) return;
    NodeDialog dialog(n->nodes[std::size_t(k)], dialogParent());
    if (dialog.exec() == QDialog::Accepted) editor_->setNode(k, dialog.node(), "Node");
}

void NarrativeWorkspace::editTransition(int k) {
    if (!editRefusal_.isEmpty()) return window_->statusBar()->showMessage(editRefusal_, 6000);
    const narrative::Narrative* n = editor_->current();
    if (!n || k < 0 || k >= int(n->transitions.size())) return;
    TransitionDialog dialog(n->transitions[std::size_t(k)], dialogParent());
    if (dialog.exec() == QDialog::Accepted) editor_->setTransition(k, dialog.transition());
}

void NarrativeWorkspace::exportVideo() {
    // The open lecture may forbid video (OutputGate): say so before asking for a file.
    if (auto why = view_->outputGate().refuseVideo()) {
        QMessageBox::warning(dialogParent(), "Export narrative video", *why);
        return;
    }
    const QSize offer = view_->outputGate().fit(QSize(1280, 720));
    QString path = QFileDialog::getSaveFileName(dialogParent(), "Export narrative video", "narrative.mp4", "MP4 video (*.mp4)");
    if (path.isEmpty()) return;
    bool ok = false;
    const QString size = QInputDialog::getText(dialogParent(), "Video size", "Width x height in pixels:", QLineEdit::Normal,
                                               QString("%1x%2").arg(offer.width()).arg(offer.height()), &ok);
    if (!ok) return;
    const auto m = QRegularExpression("^\\s*(\\d+)\\s*[xX]\\s*(\\d+)\\s*$").match(size);
    const int fps = ok ? QInputDialog::getInt(dialogParent(), "Frame rate", "Frames per second:", 30, 1, 120, 1, &ok) : 0;
    if (!ok) return;
    const QSize frame = m.hasMatch() ? QSize(m.captured(1).toInt(), m.captured(2).toInt()) : QSize();
    if (frame.width() < 16 || frame.height() < 16 || frame.width() > SceneView::kMaxImageSide || frame.height() > SceneView::kMaxImageSide) {
        QMessageBox::warning(dialogParent(), "Export narrative video", "Expected WIDTHxHEIGHT between 16x16 and 8192x8192, got " + size);
        return;
    }
    auto* exporter = new NarrativeVideoExport(view_, overlays_, playback_, this);
    auto* progress = new QProgressDialog("Rendering the narrative frame by frame...", "Cancel", 0, 1000, dialogParent());
    progress->setWindowModality(Qt::WindowModal);
    progress->setMinimumDuration(0);
    connect(exporter, &NarrativeVideoExport::progress, progress, [progress](double f) { progress->setValue(int(1000 * f)); });
    connect(progress, &QProgressDialog::canceled, exporter, &NarrativeVideoExport::cancel);
    connect(exporter, &NarrativeVideoExport::finished, this, [this, exporter, progress, path](const QString& error) {
        progress->deleteLater();
        exporter->deleteLater();
        if (error.isEmpty()) window_->statusBar()->showMessage("Video written: " + path, 8000);
        else if (error != "cancelled") QMessageBox::warning(dialogParent(), "Export narrative video", error);
    });
    try {
        exporter->start(path, frame, fps);
    } catch (const std::exception& e) {
        progress->deleteLater();
        exporter->deleteLater();
        QMessageBox::warning(dialogParent(), "Export narrative video", QString::fromStdString(e.what()));
    }
}

} // namespace atrium::widgets
