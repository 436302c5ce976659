#include "widgets/lecture/ResourceEditor.h"

#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/ResourceDialog.h"
#include "widgets/view/SceneView.h"

#include <QAction>
#include <QInputDialog>
#include <QMenu>
#include <QMessageBox>
#include <QMouseEvent>
#include <QUndoCommand>
#include <QUndoStack>

#include <cmath>

namespace atrium::widgets {

using narrative::Operation;
using narrative::Resource;

/// One edit of the lecture's resources: what it does and what undoes it, each a call
/// into the package (so each passes the gate again).
class ResourceEditor::Command : public QUndoCommand {
public:
    using Edit = std::function<package::EditResult()>;
    Command(const QString& text, Edit redo, Edit undo, ResourceEditor* editor)
        : QUndoCommand(text), redo_(std::move(redo)), undo_(std::move(undo)), editor_(editor) {}

    package::EditResult first() { return redo_(); }
    void redo() override {
        if (skipFirst_) {
            skipFirst_ = false;
            return;
        }
        report(redo_());
    }
    void undo() override { report(undo_()); }

private:
    void report(const package::EditResult& r) {
        if (!r) QMessageBox::warning(editor_->parent_, "Atrium", QString::fromStdString(r.error()));
        Q_EMIT editor_->resourcesEdited();
    }
    Edit redo_, undo_;
    ResourceEditor* editor_;
    bool skipFirst_ = true;
};

ResourceEditor::ResourceEditor(QWidget* dialogParent, SceneView* view)
    : QObject(dialogParent), parent_(dialogParent), view_(view), undo_(new QUndoStack(this)) {
    new_ = new QAction("New resource here...", this);
    new_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    new_->setToolTip("An embedded resource seen from where the camera stands");
    connect(new_, &QAction::triggered, this, [this] { openDialog(); });
    edit_ = new QAction("Edit resource...", this);
    edit_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    connect(edit_, &QAction::triggered, this, [this] { chooseResource(false); });
    remove_ = new QAction("Remove resource...", this);
    remove_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Delete));
    connect(remove_, &QAction::triggered, this, [this] { chooseResource(true); });
    // Ctrl+Alt: the narratives' editor has Ctrl+Z for its own stack.
    undoAction_ = undo_->createUndoAction(this, "Undo resource edit");
    undoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_Z));
    redoAction_ = undo_->createRedoAction(this, "Redo resource edit");
    redoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::SHIFT | Qt::Key_Z));
    view_->installEventFilter(this);
    refresh();
}

ResourceEditor::~ResourceEditor() = default;

void ResourceEditor::setLecture(Lecture* lecture) {
    lecture_ = lecture;
    undo_->clear();
    if (dialog_) dialog_->hide();
    view_->hideResourceGizmo();
    picking_ = false;
    refresh();
}

void ResourceEditor::addActions(QMenu* menu) {
    for (QAction* a : {new_, edit_, remove_}) menu->addAction(a);
    menu->addSeparator();
    menu->addAction(undoAction_);
    menu->addAction(redoAction_);
}

void ResourceEditor::refresh() {
    const auto why = lecture_ ? lecture_->refusal(Operation::EditResources) : std::optional<QString>("No lecture is open");
    const bool any = lecture_ && !lecture_->manifest().resources.empty();
    for (QAction* a : {new_, edit_, remove_}) {
        a->setEnabled(!why && (a == new_ || any));
        a->setToolTip(why                ? *why
                      : a == new_        ? "An embedded resource seen from where the camera stands"
                      : a == edit_       ? "Change a resource: its content, metadata and placement"
                                         : "Remove a resource (undo brings it back)");
    }
    undoAction_->setEnabled(!why && undo_->canUndo());
    redoAction_->setEnabled(!why && undo_->canRedo());
}

bool ResourceEditor::apply(Command* command, QString* error) {
    const package::EditResult r = command->first();
    if (!r) {
        if (error) *error = QString::fromStdString(r.error());
        delete command;
        return false;
    }
    undo_->push(command); // its first redo() is skipped: the edit is done
    Q_EMIT resourcesEdited();
    refresh();
    return true;
}

bool ResourceEditor::addResource(const Resource& resource, QString* error) {
    if (!lecture_) return false;
    auto& p = lecture_->package();
    const std::string id = resource.id;
    return apply(new Command("Add " + QString::fromStdString(resource.name), [&p, resource] { return p.addResource(resource); },
                             [&p, id] { return p.removeResource(id); }, this),
                 error);
}

bool ResourceEditor::replaceResource(const std::string& id, const Resource& resource, QString* error) {
    if (!lecture_) return false;
    auto& p = lecture_->package();
    const Resource* old = p.manifest().findResource(id);
    if (!old) {
        if (error) *error = "there is no resource '" + QString::fromStdString(id) + "'";
        return false;
    }
    const Resource before = *old;
    return apply(new Command("Edit " + QString::fromStdString(resource.name),
                             [&p, id, resource] { return p.replaceResource(id, resource); },
                             [&p, before, newId = resource.id] { return p.replaceResource(newId, before); }, this),
                 error);
}

bool ResourceEditor::removeResource(const std::string& id, QString* error) {
    if (!lecture_) return false;
    auto& p = lecture_->package();
    const auto& list = p.manifest().resources;
    const auto it = std::find_if(list.begin(), list.end(), [&](const Resource& r) { return r.id == id; });
    if (it == list.end()) {
        if (error) *error = "there is no resource '" + QString::fromStdString(id) + "'";
        return false;
    }
    const Resource before = *it;
    const auto index = std::size_t(it - list.begin());
    return apply(new Command("Remove " + QString::fromStdString(before.name), [&p, id] { return p.removeResource(id); },
                             [&p, before, index] { return p.addResource(before, index); }, this),
                 error);
}

Resource ResourceEditor::resourceHere() const {
    Resource r;
    const auto& pose = view_->camera().pose();
    r.centre = pose.position();
    r.radius = std::max(5.0, 0.25 * view_->heartRadius());
    r.target = pose.position() + pose.forward() * (0.8 * view_->heartRadius());
    if (auto hit = view_->pickWall(QPoint(view_->width() / 2, view_->height() / 2))) r.target = *hit;
    int n = 1;
    while (lecture_ && lecture_->manifest().findResource("resource-" + std::to_string(n))) ++n;
    r.id = "resource-" + std::to_string(n);
    r.name = "New resource";
    r.text = "Write about what is seen here.";
    return r;
}

void ResourceEditor::openDialog(const std::string& id) {
    if (!lecture_) return;
    if (!dialog_) {
        dialog_ = new ResourceDialog(parent_);
        connect(dialog_, &ResourceDialog::centreFromCameraRequested, this,
                [this] { dialog_->setCentre(view_->camera().pose().position()); });
        connect(dialog_, &ResourceDialog::pickTargetRequested, this, &ResourceEditor::startPicking);
        connect(dialog_, &ResourceDialog::placementChanged, this, [this] {
            const Resource r = dialog_->resource();
            view_->showResourceGizmo(r.centre, r.radius, r.target);
        });
        connect(dialog_, &QDialog::finished, this, [this] {
            view_->hideResourceGizmo();
            picking_ = false;
        });
        connect(dialog_, &ResourceDialog::applyRequested, this, [this](bool close) {
            Resource r = dialog_->resource();
            QString error;
            if (!dialog_->chosenMediaFile().isEmpty()) {
                const auto added = lecture_->package().addFile(r.media, dialog_->chosenMediaFile().toStdString());
                if (!added) {
                    QMessageBox::warning(dialog_, "Atrium", QString::fromStdString(added.error()));
                    return;
                }
            }
            const std::string editing = dialog_->editingId();
            const bool ok = editing.empty() ? addResource(r, &error) : replaceResource(editing, r, &error);
            if (!ok) {
                QMessageBox::warning(dialog_, "Atrium", error);
                return;
            }
            if (close) dialog_->accept();
            else dialog_->setResource(r, lecture_->manifest().categories, r.id); // further edits change this one
        });
    }
    const Resource* existing = id.empty() ? nullptr : lecture_->manifest().findResource(id);
    const Resource r = existing ? *existing : resourceHere();
    dialog_->setResource(r, lecture_->manifest().categories, existing ? id : std::string());
    view_->showResourceGizmo(r.centre, r.radius, r.target);
    dialog_->show();
    dialog_->raise();
}

void ResourceEditor::chooseResource(bool remove) {
    if (!lecture_ || lecture_->manifest().resources.empty()) return;
    QStringList names;
    for (const auto& r : lecture_->manifest().resources) names << QString::fromStdString(r.id + "  (" + r.name + ")");
    bool ok = false;
    const QString chosen = QInputDialog::getItem(parent_, remove ? "Remove resource" : "Edit resource", "Resource:", names, 0, false, &ok);
    if (!ok) return;
    const std::string id = chosen.section("  (", 0, 0).toStdString();
    if (!remove) return openDialog(id);
    QString error;
    if (!removeResource(id, &error)) QMessageBox::warning(parent_, "Atrium", error);
}

void ResourceEditor::startPicking() {
    picking_ = true;
    view_->setCursor(Qt::CrossCursor);
}

bool ResourceEditor::pickTargetAt(QPoint at) {
    const auto hit = view_->pickWall(at);
    picking_ = false;
    view_->unsetCursor();
    if (!hit || !dialog_) return false;
    dialog_->setTarget(*hit);
    return true;
}

bool ResourceEditor::eventFilter(QObject* watched, QEvent* event) {
    // Ctrl+drag sizes the sphere: up grows it, down shrinks it, by a factor e per 100 px.
    if (watched == view_ && dialog_ && dialog_->isVisible()) {
        const auto* e = static_cast<QMouseEvent*>(event);
        if (event->type() == QEvent::MouseButtonPress && e->button() == Qt::LeftButton && (e->modifiers() & Qt::ControlModifier)) {
            radiusDrag_ = {int(e->position().y()), dialog_->resource().radius};
            return true;
        }
        if (radiusDrag_ && event->type() == QEvent::MouseMove) {
            dialog_->setRadius(radiusDrag_->second * std::exp((radiusDrag_->first - e->position().y()) / 100.0));
            return true;
        }
        if (radiusDrag_ && event->type() == QEvent::MouseButtonRelease) {
            radiusDrag_.reset();
            return true;
        }
    }
    if (watched == view_ && picking_ && event->type() == QEvent::MouseButtonPress) {
        const auto* e = static_cast<QMouseEvent*>(event);
        if (e->button() == Qt::LeftButton) {
            if (!pickTargetAt(e->position().toPoint()) && dialog_)
                QMessageBox::information(dialog_, "Atrium", "That click missed the heart wall: click on the heart.");
            return true;
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace atrium::widgets
