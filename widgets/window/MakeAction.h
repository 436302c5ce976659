#pragma once
// One way to make the window's actions: text, key, and a tooltip that names the key,
// so that menus, bars, tooltips and the F1 sheet all say the same.

#include <QAction>
#include <QKeySequence>
#include <QString>

namespace atrium::widgets {

inline QAction* makeAction(QObject* parent, const QString& text, const QKeySequence& key, const QString& tip,
                           bool checkable = false) {
    auto* a = new QAction(text, parent);
    a->setShortcut(key);
    a->setToolTip(key.isEmpty() ? tip : tip + " (" + key.toString(QKeySequence::NativeText) + ")");
    a->setStatusTip(tip);
    a->setCheckable(checkable);
    return a;
}

} // namespace atrium::widgets
