#include "widgets/window/ControlBar.h"
#include "widgets/window/Icons.h"

#include <QAction>
#include <QHBoxLayout>
#include <QIcon>
#include <QMenu>
#include <QPainter>
#include <QToolButton>

#include <cmath>

namespace atrium::widgets {

ControlBar::ControlBar(QWidget* parent)
    : QWidget(parent), layout_(new QHBoxLayout(this)), more_(new QToolButton(this)), moreMenu_(new QMenu(this)) {
    setObjectName("controlBar");
    layout_->setContentsMargins(10, 6, 10, 6 + kHandleHeight);
    layout_->setSpacing(4);
    layout_->addStretch(1);
    more_->setObjectName("controlBarOverflow");
    more_->setIcon(atriumIcon("more"));
    more_->setIconSize(QSize(24, 24));
    more_->setToolTip("More: what does not fit the bar");
    more_->setPopupMode(QToolButton::InstantPopup);
    more_->setMenu(moreMenu_);
    more_->setFocusPolicy(Qt::NoFocus);
    layout_->addWidget(more_);
    setStyleSheet("QToolButton { color: #f0f0f0; background: rgba(255,255,255,28); border: 1px solid rgba(255,255,255,40);"
                  " border-radius: 6px; min-width: 38px; min-height: 38px; padding: 0px; font-size: 12px; }"
                  "QToolButton:checked { background: rgba(200,60,60,150); }"
                  "QToolButton:hover { background: rgba(255,255,255,60); }"
                  "QToolButton::menu-indicator { image: none; }"
                  "QComboBox { color: #f0f0f0; background: rgba(255,255,255,28); border: 1px solid rgba(255,255,255,40);"
                  " border-radius: 6px; padding: 2px 8px; min-height: 36px; }"
                  "QComboBox QAbstractItemView { color: #f0f0f0; background: #1c1f26; selection-background-color: #8c2a2e; }"
                  "QLabel { color: #f0f0f0; } QSlider { min-height: 32px; }");
    animation_.setInterval(16);
    connect(&animation_, &QTimer::timeout, this, [this] { advance(std::max(clock_.restart(), qint64(1)) / 1000.0); });
    autoClose_.setSingleShot(true);
    autoClose_.setInterval(1500);
    connect(&autoClose_, &QTimer::timeout, this, [this] { setOpen(false); });
    // The overflow menu open keeps the bar open.
    connect(moreMenu_, &QMenu::aboutToShow, this, [this] { setOpen(true); });
    connect(moreMenu_, &QMenu::aboutToHide, this, [this] { autoClose_.start(); });
    fitToParent();
    offset_ = -(height() - kHandleHeight);
    place();
}

void ControlBar::addAction(QAction* action) {
    auto* button = new QToolButton(this);
    button->setDefaultAction(action);
    button->setToolButtonStyle(action->icon().isNull() ? Qt::ToolButtonTextOnly : Qt::ToolButtonIconOnly);
    button->setIconSize(QSize(24, 24));
    button->setFocusPolicy(Qt::NoFocus);
    layout_->insertWidget(layout_->count() - 2, button);
    items_.push_back({button, action});
    fitToParent();
}

void ControlBar::addWidget(QWidget* widget, QAction* overflow) {
    if (!widget) {
        widget = new QWidget(this);
        widget->setFixedSize(kGap, 1);
        widget->setAttribute(Qt::WA_TransparentForMouseEvents);
    }
    widget->setParent(this);
    widget->setFocusPolicy(Qt::NoFocus);
    layout_->insertWidget(layout_->count() - 2, widget);
    items_.push_back({widget, overflow});
    fitToParent();
}

void ControlBar::updateOverflow() {
    const QMargins m = layout_->contentsMargins();
    const int available = width() - m.left() - m.right();
    const int spacing = layout_->spacing();
    const auto widthOf = [](const QWidget* w) { return std::max(w->sizeHint().width(), w->minimumSizeHint().width()); };
    int total = 0;
    for (const Item& item : items_) total += widthOf(item.widget) + spacing;
    const bool overflowing = total > available;
    const int budget = available - (overflowing ? widthOf(more_) + spacing : 0);
    moreMenu_->clear();
    int used = 0;
    bool full = false;
    for (const Item& item : items_) {
        used += widthOf(item.widget) + spacing;
        full = full || used > budget; // the order stays: all after the first that does not fit go
        item.widget->setVisible(!full);
        if (full && item.overflow) moreMenu_->addAction(item.overflow);
    }
    more_->setVisible(overflowing);
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
    resize(parentWidget()->width(), h);
    updateOverflow();
    if (!animation_.isActive()) offset_ = open_ ? 0.0 : -(h - kHandleHeight);
    place();
    raise();
}

void ControlBar::place() {
    move(0, int(std::lround(offset_)));
    Q_EMIT coverageChanged(y() + height());
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
    place();
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

void ControlBar::leaveEvent(QEvent*) {
    if (!moreMenu_->isVisible()) autoClose_.start();
}

void ControlBar::mousePressEvent(QMouseEvent*) { setOpen(!open_); }

} // namespace atrium::widgets
