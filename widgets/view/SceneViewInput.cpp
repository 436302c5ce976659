// The view's input: Qt's mouse, wheel and key events handed to the camera rig's
// controllers (narrative::CameraRig) as InputEvents, and the cursor that capturing the
// mouse hides. Part of SceneView (SceneView.cpp holds the rest).

#include "widgets/view/SceneView.h"

#include <QCursor>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QWheelEvent>

namespace atrium::widgets {
namespace {

std::optional<narrative::Key> keyRole(int qtKey) {
    using narrative::Key;
    switch (qtKey) {
    case Qt::Key_W: return Key::Forward;
    case Qt::Key_S: return Key::Back;
    case Qt::Key_A: return Key::Left;
    case Qt::Key_D: return Key::Right;
    case Qt::Key_E: return Key::Up;
    case Qt::Key_Q: return Key::Down;
    case Qt::Key_Shift: return Key::LookAside;
    case Qt::Key_Space: return Key::ToggleMouseCapture;
    default: return std::nullopt;
    }
}

std::optional<narrative::MouseButton> buttonRole(Qt::MouseButton b) {
    switch (b) {
    case Qt::LeftButton: return narrative::MouseButton::Left;
    case Qt::RightButton: return narrative::MouseButton::Right;
    case Qt::MiddleButton: return narrative::MouseButton::Middle;
    default: return std::nullopt;
    }
}

} // namespace

void SceneView::send(const narrative::InputEvent& event) {
    const bool before = camera_.mouseCaptured();
    camera_.handle(event);
    if (camera_.mouseCaptured() != before) updateCursor();
}

void SceneView::updateCursor() {
    const bool captured = camera_.mouseCaptured();
    setCursor(captured ? Qt::BlankCursor : Qt::ArrowCursor);
    if (captured != captured_) {
        captured_ = captured;
        Q_EMIT mouseCaptureChanged(captured);
    }
}

void SceneView::mousePressEvent(QMouseEvent* e) {
    if (const auto b = buttonRole(e->button()))
        send(narrative::InputEvent::buttonDown(*b, e->position().x(), e->position().y(), width(), height()));
}

void SceneView::mouseReleaseEvent(QMouseEvent* e) {
    if (const auto b = buttonRole(e->button()))
        send(narrative::InputEvent::buttonUp(*b, e->position().x(), e->position().y(), width(), height()));
}

void SceneView::mouseMoveEvent(QMouseEvent* e) {
    const QPoint p = e->position().toPoint();
    if (pendingWarp_ && p == *pendingWarp_) {
        pendingWarp_.reset();
        send(narrative::InputEvent::mouseWarp(p.x(), p.y(), width(), height()));
        return;
    }
    send(narrative::InputEvent::mouseMove(e->position().x(), e->position().y(), width(), height()));
    // First person looks by relative motion: re-centre the pointer before it reaches
    // the edge of the view, and tell the controller it was us.
    if (camera_.mode() == narrative::CameraMode::FirstPerson && camera_.mouseCaptured()) {
        const int mx = width() / 8, my = height() / 8;
        if (p.x() < mx || p.y() < my || p.x() > width() - mx || p.y() > height() - my) {
            pendingWarp_ = QPoint(width() / 2, height() / 2);
            QCursor::setPos(mapToGlobal(*pendingWarp_));
        }
    }
}

void SceneView::wheelEvent(QWheelEvent* e) { send(narrative::InputEvent::wheel(e->angleDelta().y() / 120.0)); }

void SceneView::keyPressEvent(QKeyEvent* e) {
    const auto role = keyRole(e->key());
    if (!role) return QOpenGLWidget::keyPressEvent(e);
    if (!e->isAutoRepeat()) send(narrative::InputEvent::keyDown(*role));
}

void SceneView::keyReleaseEvent(QKeyEvent* e) {
    const auto role = keyRole(e->key());
    if (!role) return QOpenGLWidget::keyReleaseEvent(e);
    if (!e->isAutoRepeat()) send(narrative::InputEvent::keyUp(*role));
}

void SceneView::focusOutEvent(QFocusEvent* e) {
    camera_.stop(); // key releases would be lost while another widget has the focus
    QOpenGLWidget::focusOutEvent(e);
}

} // namespace atrium::widgets
