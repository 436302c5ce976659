#include "widgets/HelpOverlay.h"

#include <QEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QPainter>
#include <QVBoxLayout>

namespace atrium::widgets {

HelpOverlay::HelpOverlay(QWidget* parent) : QWidget(parent) {
    setObjectName("helpOverlay");
    setFocusPolicy(Qt::StrongFocus);
    auto* layout = new QVBoxLayout(this);
    auto* label = new QLabel(helpHtml(), this);
    label->setTextFormat(Qt::RichText);
    label->setStyleSheet("color: #f0f0f0; font-size: 13px;");
    label->setAlignment(Qt::AlignCenter);
    layout->addWidget(label);
    if (parent) parent->installEventFilter(this);
    hide();
}

QString HelpOverlay::helpHtml() {
    return QStringLiteral(
        "<h2>Atrium: keys and mouse</h2>"
        "<table cellspacing='6'>"
        "<tr><td colspan='2'><b>Orbit</b> (O)</td></tr>"
        "<tr><td>left drag</td><td>rotate around the heart</td></tr>"
        "<tr><td>right drag, wheel</td><td>zoom</td></tr>"
        "<tr><td>middle drag</td><td>pan</td></tr>"
        "<tr><td colspan='2'><b>uSim flight</b> (U)</td></tr>"
        "<tr><td>mouse away from the centre</td><td>turn; the further, the faster</td></tr>"
        "<tr><td>left / right button</td><td>speed up / slow down</td></tr>"
        "<tr><td colspan='2'><b>First person</b> (G)</td></tr>"
        "<tr><td>mouse</td><td>look</td></tr>"
        "<tr><td>W A S D, Q E</td><td>move forward, left, back, right, down, up</td></tr>"
        "<tr><td colspan='2'><b>All modes</b></td></tr>"
        "<tr><td>Shift (hold)</td><td>look aside: keep moving the same way while the view turns</td></tr>"
        "<tr><td>Space</td><td>release the mouse for menus / take control again</td></tr>"
        "<tr><td>H</td><td>home view</td></tr>"
        "<tr><td>P, N, R</td><td>play/pause, one step, reset the blood</td></tr>"
        "<tr><td>C, X</td><td>clip the wall, wireframe</td></tr>"
        "<tr><td>F5, F6</td><td>blood as spheres / as a liquid surface</td></tr>"
        "<tr><td>Ctrl+S</td><td>save a screenshot</td></tr>"
        "<tr><td>F1, Esc</td><td>this help / close it</td></tr>"
        "</table>");
}

void HelpOverlay::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(8, 10, 14, 200));
}

void HelpOverlay::mousePressEvent(QMouseEvent*) { hide(); }

void HelpOverlay::keyPressEvent(QKeyEvent*) { hide(); }

bool HelpOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace atrium::widgets
