#pragma once
// F1: a translucent sheet over the view listing the keys and mouse actions of each
// navigation mode and the window's shortcuts. Any key or click closes it.

#include <QWidget>

namespace atrium::widgets {

class HelpOverlay : public QWidget {
    Q_OBJECT
public:
    explicit HelpOverlay(QWidget* parent);
    /// The help text as shown (HTML), also used by the Help menu's tooltip.
    static QString helpHtml();

protected:
    void paintEvent(QPaintEvent*) override;
    void mousePressEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool eventFilter(QObject* watched, QEvent* event) override;
};

} // namespace atrium::widgets
