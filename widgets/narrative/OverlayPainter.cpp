#include "widgets/narrative/OverlayPainter.h"

#include <QDir>
#include <QFileInfo>
#include <QPainter>
#include <QPainterPath>
#include <QTextDocument>

#include <algorithm>
#include <numeric>

namespace atrium::widgets {

namespace {

using narrative::OverlayItem;
using narrative::OverlayKind;

void drawPanel(QPainter& p, const QRectF& r) {
    QPainterPath path;
    path.addRoundedRect(r, 6, 6);
    p.fillPath(path, QColor(10, 12, 16, 185));
}

/// `html` as overlays draw it, wrapped at `width`, in `font` at `pixelSize`.
void layOut(QTextDocument& doc, QFont font, const QString& html, double width, double pixelSize) {
    font.setPixelSize(std::max(6, int(pixelSize)));
    doc.setDefaultFont(font);
    doc.setDefaultStyleSheet("body { color: #f2f2f2; }");
    doc.setHtml("<body>" + html + "</body>");
    doc.setTextWidth(width);
}

/// Draws `html` in `r`, at `pixelSize` or smaller so that it fits.
void drawRichText(QPainter& p, const QRectF& r, const QString& html, double pixelSize) {
    QTextDocument doc;
    layOut(doc, p.font(), html, r.width(), OverlayPainter::fittedTextPixels(html, r.size(), pixelSize));
    p.save();
    p.translate(r.topLeft());
    doc.drawContents(&p, QRectF(0, 0, r.width(), r.height()));
    p.restore();
}

void drawCaption(QPainter& p, const QRectF& r, const QString& text, double pixelSize) {
    drawPanel(p, r);
    QFont font = p.font();
    font.setPixelSize(std::max(6, int(pixelSize * 0.8)));
    p.setFont(font);
    p.setPen(QColor(230, 230, 230));
    p.drawText(r.adjusted(6, 4, -6, -4), Qt::AlignCenter | Qt::TextWordWrap, text);
}

/// The point of `r`'s outline nearest to `p` (where a leader line meets the label).
QPointF nearestOnRect(const QRectF& r, QPointF p) {
    return {std::clamp(p.x(), r.left(), r.right()), std::clamp(p.y(), r.top(), r.bottom())};
}

} // namespace

void OverlayPainter::setMediaSource(std::function<QString(const std::string& media)> source) {
    source_ = std::move(source);
    images_.clear();
}

QString OverlayPainter::mediaPath(const std::string& media) const { return source_ ? source_(media) : QString(); }

QImage OverlayPainter::image(const std::string& media) const {
    const QString key = QString::fromStdString(media);
    auto it = images_.find(key);
    if (it == images_.end()) {
        const QString path = mediaPath(media);
        it = images_.insert(key, path.isEmpty() ? QImage() : QImage(path));
    }
    return *it;
}

std::vector<std::size_t> OverlayPainter::stackingOrder(const std::vector<OverlayItem>& items) {
    std::vector<std::size_t> order(items.size());
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return items[a].z < items[b].z; });
    return order;
}

double OverlayPainter::textHeight(const QString& html, double width, double pixelSize) {
    QTextDocument doc;
    layOut(doc, QFont(), html, width, pixelSize);
    return doc.size().height();
}

double OverlayPainter::fittedTextPixels(const QString& html, QSizeF box, double pixelSize) {
    double px = std::max(pixelSize, kMinTextPixels);
    while (px > kMinTextPixels && textHeight(html, box.width(), px) > box.height()) px = std::max(kMinTextPixels, px * 0.92);
    return px;
}

std::optional<QRectF> OverlayPainter::itemRect(const OverlayItem& item, QSizeF size, std::optional<QPointF> anchor) {
    QRectF r(item.rect.x * size.width(), item.rect.y * size.height(), item.rect.width * size.width(),
             item.rect.height * size.height());
    if (item.kind == OverlayKind::Label3D) {
        if (!anchor) return std::nullopt;
        r.translate(*anchor);
    }
    // Within the picture: cut to it, then moved in (the leader line still reaches a label's point).
    r.setSize(r.size().boundedTo(size));
    r.moveLeft(std::clamp(r.left(), 0.0, size.width() - r.width()));
    r.moveTop(std::clamp(r.top(), 0.0, size.height() - r.height()));
    return r;
}

void OverlayPainter::paint(QPainter& p, QSizeF size, const std::vector<OverlayItem>& items, double alpha,
                           const Sources& sources, bool editing) const {
    if (alpha <= 0.0 || items.empty()) return;
    const double textPx = size.height() / kTextLines;
    p.save();
    p.setRenderHint(QPainter::Antialiasing);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.setOpacity(std::clamp(alpha, 0.0, 1.0));
    for (std::size_t k : stackingOrder(items)) {
        const OverlayItem& item = items[k];
        std::optional<QPointF> anchor;
        if (item.kind == OverlayKind::Label3D && sources.labelPoint) anchor = sources.labelPoint(k);
        const std::optional<QRectF> rect = itemRect(item, size, anchor);
        if (!rect) continue;
        const QRectF r = *rect;
        const QString error = sources.mediaError ? sources.mediaError(k) : QString();
        const QString name = QString::fromStdString(item.media);
        switch (item.kind) {
        case OverlayKind::Text:
            drawPanel(p, r);
            drawRichText(p, r.adjusted(8, 6, -8, -6), QString::fromStdString(item.text), textPx);
            break;
        case OverlayKind::Image: {
            const QImage picture = image(item.media);
            if (picture.isNull()) {
                drawCaption(p, r, "cannot read " + name, textPx);
                break;
            }
            const QSizeF fit = QSizeF(picture.size()).scaled(r.size(), Qt::KeepAspectRatio);
            p.drawImage(QRectF(r.center() - QPointF(fit.width() / 2, fit.height() / 2), fit), picture);
            break;
        }
        case OverlayKind::Video: {
            const QImage frame = sources.videoFrame ? sources.videoFrame(k) : QImage();
            if (!error.isEmpty()) drawCaption(p, r, error, textPx);
            else if (frame.isNull()) drawCaption(p, r, QString::fromUtf8("\u25B6 ") + name, textPx);
            else {
                const QSizeF fit = QSizeF(frame.size()).scaled(r.size(), Qt::KeepAspectRatio);
                p.drawImage(QRectF(r.center() - QPointF(fit.width() / 2, fit.height() / 2), fit), frame);
            }
            break;
        }
        case OverlayKind::Sound:
            if (editing || !error.isEmpty()) drawCaption(p, r, error.isEmpty() ? QString::fromUtf8("\u266A ") + name : error, textPx);
            break;
        case OverlayKind::Label3D: {
            const QPointF point = *anchor;
            p.setPen(QPen(QColor(255, 236, 150), std::max(1.5, textPx / 10)));
            p.drawLine(point, nearestOnRect(r, point));
            p.setBrush(QColor(255, 236, 150));
            p.drawEllipse(point, textPx / 5, textPx / 5);
            drawPanel(p, r);
            drawRichText(p, r.adjusted(6, 3, -6, -3), QString::fromStdString(item.text), textPx * 0.9);
            break;
        }
        }
        if (editing) {
            p.setPen(QPen(QColor(120, 180, 255, 160), 1, Qt::DashLine));
            p.setBrush(Qt::NoBrush);
            p.drawRect(r);
        }
    }
    p.restore();
}

} // namespace atrium::widgets
