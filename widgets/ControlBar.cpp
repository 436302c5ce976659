#include "widgets/ControlBar.h"

#include <QAction>
#include <QHBoxLayout>
#include <QPainter>
#include <QToolButton>
#include <cmath>

namespace atrium::widgets {

ControlBar::ControlBar(QWidget* parent) : QWidget(parent), layout_(new QHBoxLayout(this)) {
    setObjectName("controlBar");
    layout_->setContentsMargins(10, 6, 10, 6 + kHandleHeight);
    layout_->setSpacing(6);
    layout_->addStretch(1);
    setStyleSheet("QToolButton { color: #f0f0f0; background: rgba(255,255,255,28); border: 1px solid rgba(255,255,255,40);"
                  " border-radius: 6px; min-width: 56px; min-height: 44px; padding: 2px 8px; font-size: 12px; }"
                  "QToolButton:checked { background: rgba(200,60,60,150); }"
                  "QToolButton:hover { background: rgba(255,255,255,60); }"
                  "QLabel { color: #f0f0f0; } QSlider { min-width: 110px; min-height: 32px; }");
    animation_.setInterval(16);
    connect(&animation_, &QTimer::timeout, this, [this] { advance(std::max(clock_.restart(), qint64(1)) / 1000.0); });
    autoClose_.setSingleShot(true);
    autoClose_.setInterval(1500);
    connect(&autoClose_, &QTimer::timeout, this, [this] { setOpen(false); });
    fitToParent();
    offset_ = -(height() - kHandleHeight);
    move(0, int(offset_));
}

void ControlBar::addAction(QAction* action) {
    auto* button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(Qt::ToolButtonTextOnly);
    button->setFocusPolicy(Qt::NoFocus);
    layout_->insertWidget(layout_->count() - 1, button);
    fitToParent();
}

void ControlBar::addWidget(QWidget* widget) {
    if (!widget) {
        layout_->insertSpacing(layout_->count() - 1, 14);
        return;
    }
    widget->setParent(this);
    widget->setFocusPolicy(Qt::NoFocus);
    layout_->insertWidget(layout_->count() - 1, widget);
    fitToParent();
}

void ControlBar::setOpen(bool open) {
    if (open) autoClose_.stop();
    if (open == open_) return;
    open_ = open;
    clock_.restart();
    animation_.start();
}

double ControlBar::openFraction() const {
    const double travel = height() - kHandleHeight;
    return travel > 0 ? 1.0 + offset_ / travel : 1.0;
}

void ControlBar::fitToParent() {
    if (!parentWidget()) return;
    const int h = layout_->sizeHint().height();
    const bool wasOpen = openFraction() > 0.5;
    resize(parentWidget()->width(), h);
    if (!animation_.isActive()) offset_ = open_ || wasOpen ? (open_ ? 0.0 : -(h - kHandleHeight)) : -(h - kHandleHeight);
    move(0, int(std::lround(offset_)));
    raise();
}

void ControlBar::pointerAt(int y) {
    if (y <= kHandleHeight + 2) setOpen(true);
}

void ControlBar::advance(double dt) {
    const double target = open_ ? 0.0 : -(height() - kHandleHeight);
    offset_ += (target - offset_) * (1.0 - std::exp(-kEasingRate * dt));
    if (std::fabs(target - offset_) < 0.5) {
        offset_ = target;
        animation_.stop();
    }
    move(0, int(std::lround(offset_)));
}

void ControlBar::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect().adjusted(0, 0, 0, -kHandleHeight), QColor(18, 20, 26, 190));
    // The handle: a short grip centred on the bottom edge.
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(QColor(18, 20, 26, 190));
    p.setPen(Qt::NoPen);
    const QRect grip(width() / 2 - 40, height() - kHandleHeight, 80, kHandleHeight);
    p.drawRoundedRect(grip, 3, 3);
    p.setBrush(QColor(240, 240, 240, 160));
    p.drawRoundedRect(QRect(grip.center().x() - 16, grip.top() + 3, 32, 2), 1, 1);
}

void ControlBar::enterEvent(QEnterEvent*) { setOpen(true); }

void ControlBar::leaveEvent(QEvent*) { autoClose_.start(); }

void ControlBar::mousePressEvent(QMouseEvent*) { setOpen(!open_); }

} // namespace atrium::widgets
