#pragma once
// Authoring embedded resources in the viewer (Poyart 2016 5.5): a dialog for a
// resource's kind, content, metadata and options, whose placement is set from the 3D
// view - the centre c from the camera where the author stands, the target t by clicking
// on the heart (a ray cast on the wall at the phase on screen), the radius r by
// Ctrl+dragging up or down in the view (or with a slider) while the sphere gizmo shows it. Every edit goes on an undo stack
// and through the package's gate: when the lecture's resources are locked, the actions
// are disabled and their tooltips say why.

#include "narrative/Resource.h"

#include <QObject>
#include <QString>

#include <functional>
#include <optional>

class QAction;
class QMenu;
class QUndoStack;
class QWidget;

namespace atrium::widgets {

class Lecture;
class ResourceDialog;
class SceneView;

class ResourceEditor : public QObject {
    Q_OBJECT
public:
    ResourceEditor(QWidget* dialogParent, SceneView* view);
    ~ResourceEditor() override;

    void setLecture(Lecture* lecture);
    /// Adds New / Edit / Remove resource and Undo / Redo to `menu`.
    void addActions(QMenu* menu);
    /// Enables the actions as the gate allows, with its reason as their tooltip.
    void refresh();
    QUndoStack* undoStack() const { return undo_; }
    QAction* newAction() const { return new_; }
    QAction* editAction() const { return edit_; }
    QAction* removeAction() const { return remove_; }

    // Edits through the undo stack; false with `error` set when the gate or the
    // package refuses (nothing changes then).
    bool addResource(const narrative::Resource& resource, QString* error = nullptr);
    bool replaceResource(const std::string& id, const narrative::Resource& resource, QString* error = nullptr);
    bool removeResource(const std::string& id, QString* error = nullptr);

    /// A new resource placed where the camera stands, looking at what is ahead.
    narrative::Resource resourceHere() const;
    /// Opens the dialog on a resource (a new one when `id` is empty).
    void openDialog(const std::string& id = {});
    ResourceDialog* dialog() const { return dialog_; }

    /// Whether the next click on the view picks the target (the view's input is then
    /// the editor's).
    bool picking() const { return picking_; }
    /// Picks the target at a view position, as the click does (tests).
    bool pickTargetAt(QPoint at);

Q_SIGNALS:
    void resourcesEdited();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    class Command;
    bool apply(Command* command, QString* error);
    void startPicking();
    void chooseResource(bool remove);

    QWidget* parent_;
    SceneView* view_;
    Lecture* lecture_ = nullptr;
    QUndoStack* undo_;
    QAction *new_, *edit_, *remove_, *undoAction_, *redoAction_;
    ResourceDialog* dialog_ = nullptr;
    bool picking_ = false;
    // Ctrl+drag in the view while the dialog is open sizes the sphere: where it started.
    std::optional<std::pair<int, double>> radiusDrag_;
};

} // namespace atrium::widgets
