#pragma once
// The semi-transparent control bar across the top of the view. It slides open and
// closed with inverse-exponential easing (each frame covers the same fraction of the
// remaining distance, so it starts fast and settles softly), holds finger-sized
// buttons for the window's main actions, and leaves a thin handle visible when closed.
// It opens when the pointer reaches the top edge of the view or the handle is clicked,
// and closes a moment after the pointer leaves it.

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

class QAction;
class QHBoxLayout;

namespace atrium::widgets {

class ControlBar : public QWidget {
    Q_OBJECT
public:
    static constexpr int kHandleHeight = 8;    ///< px left visible when closed
    static constexpr double kEasingRate = 12;  ///< 1/s: remaining distance shrinks as exp(-rate t)

    explicit ControlBar(QWidget* parent);

    /// Adds a finger-sized button bound to `action` (text, tooltip, checked state).
    void addAction(QAction* action);
    /// Adds any widget (e.g. a slider) to the bar; a null widget adds a separator gap.
    void addWidget(QWidget* widget);

    void setOpen(bool open);
    bool isOpen() const { return open_; }
    /// 0 = closed, 1 = fully open (where the slide currently is).
    double openFraction() const;
    /// Call when the parent resizes: keeps the bar across its full width.
    void fitToParent();
    /// The pointer moved to `y` in the parent's coordinates (opens near the top edge).
    void pointerAt(int y);
    /// Moves the slide `dt` seconds on (the animation timer calls this every frame).
    void advance(double dt);

protected:
    void paintEvent(QPaintEvent*) override;
    void enterEvent(QEnterEvent*) override;
    void leaveEvent(QEvent*) override;
    void mousePressEvent(QMouseEvent*) override;

private:

    QHBoxLayout* layout_;
    QTimer animation_, autoClose_;
    QElapsedTimer clock_;
    bool open_ = false;
    double offset_ = 0; // current top edge, px (<= 0)
};

} // namespace atrium::widgets
