#pragma once
// F1: a translucent sheet over the view listing the mouse and keys of each navigation
// mode, and every shortcut of the window, read from the menus' actions when it opens
// (so that the list cannot drift from what the keys do), with the keys that are no
// action: the narrative's and the live lecture's. The sheet scrolls (wheel, arrows,
// Page Up/Down, Home/End) when it is taller than the view; any other key or a click
// closes it and hands the keys back to the view.

#include <QWidget>

class QLabel;
class QMenuBar;
class QScrollArea;

namespace atrium::widgets {

class HelpOverlay : public QWidget {
    Q_OBJECT
public:
    explicit HelpOverlay(QWidget* parent);
    /// Shows the sheet over the whole parent with the shortcuts of `menus`.
    void showShortcuts(const QMenuBar* menus);
    /// The sheet's text (HTML): navigation, then each menu's actions with their keys.
    static QString helpHtml(const QMenuBar* menus);

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    /// Scrolls the sheet; never reaches the view behind it.
    void wheelEvent(QWheelEvent*) override;
    void hideEvent(QHideEvent*) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

public:
    /// The scrolling area that holds the sheet's text.
    QScrollArea* scrollArea() const { return scroll_; }

private:
    QScrollArea* scroll_;
    QLabel* text_;
};

} // namespace atrium::widgets
