#include "widgets/window/Icons.h"

#include <QPainter>
#include <QPixmap>
#include <QString>

namespace atrium::widgets {
namespace {

QString iconFile(const char* name) { return QString(":/atrium/icons/%1.svg").arg(name); }

/// Adds `file` to `icon` for `state`, drawn at the sizes the bars and menus use (and
/// twice those for high-density screens): as it is, and faded for the disabled mode.
/// Pictures, not the SVG itself: an icon made from an SVG file ignores added pictures
/// of its disabled mode.
void addWithFadedDisabled(QIcon& icon, const QString& file, QIcon::State state) {
    const QIcon source(file);
    for (const int size : {16, 22, 24, 32, 44, 48, 64, 96}) {
        const QPixmap normal = source.pixmap(QSize(size, size));
        QPixmap faded(normal.size());
        faded.fill(Qt::transparent);
        QPainter p(&faded);
        p.setOpacity(kDisabledIconOpacity);
        p.drawPixmap(0, 0, normal);
        p.end();
        icon.addPixmap(normal, QIcon::Normal, state);
        icon.addPixmap(faded, QIcon::Disabled, state);
    }
}

} // namespace

QIcon atriumIcon(const char* name) {
    QIcon icon;
    addWithFadedDisabled(icon, iconFile(name), QIcon::Off);
    return icon;
}

QIcon atriumToggleIcon(const char* off, const char* on) {
    QIcon icon;
    addWithFadedDisabled(icon, iconFile(off), QIcon::Off);
    addWithFadedDisabled(icon, iconFile(on), QIcon::On);
    return icon;
}

} // namespace atrium::widgets
