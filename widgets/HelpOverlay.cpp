#include "widgets/HelpOverlay.h"

#include <QAction>
#include <QEvent>
#include <QKeyEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
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
    "<tr><td>Esc</td><td>close this sheet</td></tr>";

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

HelpOverlay::HelpOverlay(QWidget* parent) : QWidget(parent), text_(new QLabel(this)) {
    setObjectName("helpOverlay");
    setFocusPolicy(Qt::StrongFocus);
    auto* layout = new QVBoxLayout(this);
    text_->setObjectName("helpText");
    text_->setTextFormat(Qt::RichText);
    text_->setStyleSheet("color: #f0f0f0; font-size: 12px;");
    text_->setAlignment(Qt::AlignCenter);
    layout->addWidget(text_);
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

void HelpOverlay::keyPressEvent(QKeyEvent*) { hide(); }

void HelpOverlay::hideEvent(QHideEvent* e) {
    if (parentWidget()) parentWidget()->setFocus();
    QWidget::hideEvent(e);
}

bool HelpOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == parentWidget() && event->type() == QEvent::Resize) setGeometry(parentWidget()->rect());
    return QWidget::eventFilter(watched, event);
}

} // namespace atrium::widgets
