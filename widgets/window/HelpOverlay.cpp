#include "widgets/window/HelpOverlay.h"

#include <QAction>
#include <QEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>
#include <QVBoxLayout>

namespace atrium::widgets {
namespace {

/// The mouse and the keys that are not actions (they steer the camera while held).
const char* kNavigation =
    "<tr><td colspan='2'><b>Orbit</b></td></tr>"
    "<tr><td>left drag</td><td>rotate around the heart</td></tr>"
    "<tr><td>right drag, wheel</td><td>zoom</td></tr>"
    "<tr><td>middle drag</td><td>pan</td></tr>"
    "<tr><td colspan='2'><b>uSim flight</b></td></tr>"
    "<tr><td>mouse away from the centre</td><td>turn; the further, the faster</td></tr>"
    "<tr><td>left / right button</td><td>speed up / slow down</td></tr>"
    "<tr><td colspan='2'><b>First person</b></td></tr>"
    "<tr><td>mouse</td><td>look</td></tr>"
    "<tr><td>W A S D, Q E</td><td>move forward, left, back, right, down, up</td></tr>"
    "<tr><td colspan='2'><b>Flight and first person</b></td></tr>"
    "<tr><td>Shift (hold)</td><td>look aside: keep moving the same way while the view turns</td></tr>"
    "<tr><td>Space</td><td>release the mouse for menus / take control again</td></tr>"
    "<tr><td colspan='2'><b>Narrative</b> (its menu lists the rest)</td></tr>"
    "<tr><td>any other key</td><td>continue a node that waits for a key</td></tr>"
    "<tr><td>a mouse button, the wheel, W A S D Q E, Space</td><td>take the camera: the narrative stops where it is</td></tr>"
    "<tr><td colspan='2'><b>Live lecture</b></td></tr>"
    "<tr><td>Alt+click</td><td>lecturer: point at the heart for everyone (off the heart: remove)</td></tr>"
    "<tr><td>F</td><td>student: follow the lecturer again</td></tr>"
    "<tr><td>a mouse button, the wheel, a navigation key</td><td>student: look around on your own</td></tr>"
    "<tr><td colspan='2'><b>This sheet</b></td></tr>"
    "<tr><td>wheel, Up, Down, Page Up, Page Down</td><td>scroll</td></tr>"
    "<tr><td>Esc, any other key, a click</td><td>close</td></tr>";

/// Rows "key - text" for the actions of `menu` and its submenus that have a shortcut.
QString shortcutRows(const QMenu* menu, const QString& prefix) {
    QString rows;
    for (const QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        QString text = a->text();
        text.remove('&');
        text.remove("...");
        if (a->menu()) {
            rows += shortcutRows(a->menu(), prefix + text + ": ");
            continue;
        }
        if (a->shortcut().isEmpty()) continue;
        rows += QString("<tr><td>%1</td><td>%2</td></tr>")
                    .arg(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped(), (prefix + text).toHtmlEscaped());
    }
    return rows;
}

} // namespace

HelpOverlay::HelpOverlay(QWidget* parent) : QWidget(parent), scroll_(new QScrollArea(this)), text_(new QLabel) {
    setObjectName("helpOverlay");
    setFocusPolicy(Qt::StrongFocus);
    auto* layout = new QVBoxLayout(this);
    text_->setObjectName("helpText");
    text_->setTextFormat(Qt::RichText);
    text_->setStyleSheet("color: #f0f0f0; font-size: 12px; background: transparent;");
    text_->setAlignment(Qt::AlignHCenter | Qt::AlignTop);
    // The sheet scrolls when it is taller than the view (1280x800 cuts it off).
    scroll_->setObjectName("helpScroll");
    scroll_->setWidget(text_);
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setFocusPolicy(Qt::NoFocus);
    scroll_->setStyleSheet("QScrollArea, #helpText { background: transparent; }");
    scroll_->viewport()->setAutoFillBackground(false);
    layout->addWidget(scroll_);
    if (parent) parent->installEventFilter(this);
    hide();
}

QString HelpOverlay::helpHtml(const QMenuBar* menus) {
    QString keys;
    if (menus)
        for (const QAction* top : menus->actions())
            if (top->menu()) {
                const QString rows = shortcutRows(top->menu(), QString());
                if (!rows.isEmpty()) keys += "<tr><td colspan='2'><b>" + top->text().remove('&') + "</b></td></tr>" + rows;
            }
    return "<h2>Atrium: keys and mouse</h2><table><tr><td valign='top'><table cellspacing='4'>" + QString(kNavigation) +
           "</table></td><td width='40'></td><td valign='top'><table cellspacing='4'>" + keys + "</table></td></tr></table>";
}

void HelpOverlay::showShortcuts(const QMenuBar* menus) {
    text_->setText(helpHtml(menus));
    scroll_->verticalScrollBar()->setValue(0);
    if (parentWidget()) setGeometry(parentWidget()->rect());
    show();
    raise();
    setFocus();
}

void HelpOverlay::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), QColor(8, 10, 14, 215));
}

void HelpOverlay::mousePressEvent(QMouseEvent*) { hide(); }

void HelpOverlay::keyPressEvent(QKeyEvent* e) {
    QScrollBar* bar = scroll_->verticalScrollBar();
    switch (e->key()) {
    case Qt::Key_Up: bar->triggerAction(QAbstractSlider::SliderSingleStepSub); break;
    case Qt::Key_Down: bar->triggerAction(QAbstractSlider::SliderSingleStepAdd); break;
    case Qt::Key_PageUp: bar->triggerAction(QAbstractSlider::SliderPageStepSub); break;
    case Qt::Key_PageDown: bar->triggerAction(QAbstractSlider::SliderPageStepAdd); break;
    case Qt::Key_Home: bar->triggerAction(QAbstractSlider::SliderToMinimum); break;
    case Qt::Key_End: bar->triggerAction(QAbstractSlider::SliderToMaximum); break;
    default: hide();
    }
}

void HelpOverlay::wheelEvent(QWheelEvent* e) {
    // The scroll area took it where it could scroll; at an end it comes here: kept from the view.
    e->accept();
}

void HelpOverlay::hideEvent(QHideEvent* e) {
    if (parentWidget()) parentWidget()->setFocus();
    QWidget::hideEvent(e);
}

bool HelpOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace atrium::widgets
