#pragma once
// The semi-transparent control bar across the top of the view. It slides open and
// closed with inverse-exponential easing (each frame covers the same fraction of the
// remaining distance, so it starts fast and settles softly), holds finger-sized icon
// buttons for the window's main actions (their tooltips name the action and its key),
// and leaves a thin handle visible when closed. It opens when the pointer reaches the
// top edge of the view or the handle is clicked, and closes a moment after the
// pointer leaves it.
//
// Whatever does not fit the view's width moves, from the right end, into an overflow
// menu (the "..." button), so that nothing is cut or overlaps at any width.

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <vector>

class QAction;
class QHBoxLayout;
class QMenu;
class QToolButton;

namespace atrium::widgets {

class ControlBar : public QWidget {
    Q_OBJECT
public:
    static constexpr int kHandleHeight = 8;    ///< px left visible when closed
    static constexpr double kEasingRate = 12;  ///< 1/s: remaining distance shrinks as exp(-rate t)
    static constexpr int kGap = 10;            ///< px of a separator gap

    explicit ControlBar(QWidget* parent);

    /// Adds a finger-sized button bound to `action`: its icon (or its text when it has
    /// none), tooltip and checked state. In the overflow menu the action itself shows.
    void addAction(QAction* action);
    /// Adds any widget (e.g. a slider); `overflow` stands for it in the overflow menu
    /// (e.g. a submenu's menuAction()); without one it is just hidden when it does not
    /// fit. A null widget adds a separator gap.
    void addWidget(QWidget* widget, QAction* overflow = nullptr);

    void setOpen(bool open);
    bool isOpen() const { return open_; }
    /// 0 = closed, 1 = fully open (where the slide currently is).
    double openFraction() const;
    /// Call when the parent resizes: keeps the bar across its full width and moves
    /// what does not fit into the overflow menu.
    void fitToParent();
    /// The pointer moved to `y` in the parent's coordinates (opens near the top edge).
    void pointerAt(int y);
    /// Moves the slide `dt` seconds on (the animation timer calls this every frame).
    void advance(double dt);
    /// The "..." button and its menu (holding what did not fit; hidden when all fits).
    QToolButton* overflowButton() const { return more_; }
    QMenu* overflowMenu() const { return moreMenu_; }

Q_SIGNALS:
    /// The bar's lower edge, handle included, moved to `bottom` (parent coordinates): overlays below it
    /// (the HUD) keep clear of it.
    void coverageChanged(int bottom);

protected:
    void paintEvent(QPaintEvent*) override;
    void enterEvent(QEnterEvent*) override;
    void leaveEvent(QEvent*) override;
    void mousePressEvent(QMouseEvent*) override;

private:
    struct Item {
        QWidget* widget;
        QAction* overflow; // null: nothing stands for it in the menu
    };
    void place();
    void updateOverflow();

    QHBoxLayout* layout_;
    std::vector<Item> items_;
    QToolButton* more_;
    QMenu* moreMenu_;
    QTimer animation_, autoClose_;
    QElapsedTimer clock_;
    bool open_ = false;
    double offset_ = 0; // current top edge, px (<= 0)
};

} // namespace atrium::widgets
