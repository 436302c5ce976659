#pragma once
// The narrative editor's dialogs: a node's timing and view state, a transition's
// duration and heart-phase change, and the rich-text editor of text overlays and
// 3D labels. Each edits a copy and hands it back when accepted.

#include "narrative/Narrative.h"

#include <QDialog>

class QCheckBox;
class QDoubleSpinBox;
class QComboBox;
class QLineEdit;
class QTextEdit;

namespace atrium::widgets {

/// Title, dwell, wait-for-key, fades and the node's view state; each view-state field
/// is set only when its box is ticked ("keep what is on screen" otherwise).
class NodeDialog : public QDialog {
    Q_OBJECT
public:
    NodeDialog(const narrative::Node& node, QWidget* parent = nullptr);
    narrative::Node node() const;

private:
    narrative::Node node_;
    QLineEdit* title_;
    QDoubleSpinBox *dwell_, *fadeIn_, *fadeOut_;
    QCheckBox* waitForKey_;
    QCheckBox *setRunning_, *running_, *setPhase_, *setRate_, *setColouring_, *setFluid_, *setOpacity_, *setClip_, *clip_,
        *setWireframe_, *wireframe_, *setBlood_, *blood_;
    QDoubleSpinBox *phase_, *rate_, *opacity_, *clipOffset_;
    QComboBox *colouring_, *fluid_;
};

class TransitionDialog : public QDialog {
    Q_OBJECT
public:
    TransitionDialog(const narrative::Transition& transition, QWidget* parent = nullptr);
    narrative::Transition transition() const;

private:
    QDoubleSpinBox *duration_, *phase_;
    QCheckBox* setPhase_;
};

/// Rich text (bold, italic, underline, size, colour) for text overlays and 3D labels.
class RichTextDialog : public QDialog {
    Q_OBJECT
public:
    RichTextDialog(const QString& title, const QString& html, QWidget* parent = nullptr);
    /// The text as HTML (the body's contents).
    QString html() const;
    QTextEdit* editor() const { return edit_; }

private:
    QTextEdit* edit_;
};

} // namespace atrium::widgets
