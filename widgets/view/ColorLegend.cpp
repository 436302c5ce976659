#include "widgets/view/ColorLegend.h"

#include <QPainter>

namespace atrium::widgets {

ColorLegend::ColorLegend(QWidget* parent) : QWidget(parent) {
    setObjectName("colorLegend");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    resize(sizeHint());
}

void ColorLegend::setMap(ColorQuantity quantity, ColorRange range, RangeKind kind) {
    quantity_ = quantity;
    range_ = range;
    kind_ = kind;
    // Wide enough for the title and the longest tick, whatever the quantity.
    const QFontMetrics fm(labelFont());
    int ticks = 0;
    for (const float v : {range_.min, range_.max, 0.5f * (range_.min + range_.max)})
        ticks = std::max(ticks, fm.horizontalAdvance(tickText(v)));
    drawnWidth_ = std::max(fm.horizontalAdvance(title()) + 20, 12 + 18 + 10 + ticks + 12);
    if (drawnWidth_ > width()) resize(drawnWidth_, height());
}

QRect ColorLegend::drawnRect() const { return QRect(width() - drawnWidth_, 0, drawnWidth_, height()); }

QFont ColorLegend::labelFont() const {
    QFont f = font();
    f.setPointSizeF(8.5);
    return f;
}

QString ColorLegend::title() const {
    const QString label = QString::fromStdString(quantityLabel(quantity_));
    switch (kind_) {
    case RangeKind::Fixed: return label + ", fixed";
    case RangeKind::PerBeat: return label + ", per beat";
    case RangeKind::Automatic: break;
    }
    return label;
}

QString ColorLegend::tickText(float v) const {
    const int decimals = tickDecimals(range_);
    const QString t = QString::number(double(v), 'f', decimals);
    return isDiverging(quantity_) && v > 0.f ? "+" + t : t;
}

void ColorLegend::paintOverlay(QPainter& p) const {
    p.translate(pos() + drawnRect().topLeft());
    const QRect area(QPoint(), drawnRect().size());
    p.setBrush(QColor(10, 12, 16, 150));
    p.setPen(Qt::NoPen);
    p.drawRoundedRect(area, 6, 6);

    const QRect bar(12, 28, 18, area.height() - 44);
    for (int y = 0; y < bar.height(); ++y) {
        const float t = 1.f - float(y) / float(std::max(bar.height() - 1, 1));
        const auto c = colorFor(quantity_, range_, range_.min + t * (range_.max - range_.min));
        p.fillRect(QRect(bar.left(), bar.top() + y, bar.width(), 1), QColor(c[0], c[1], c[2]));
    }
    p.setPen(QColor(232, 232, 232));
    p.setFont(labelFont());
    p.drawText(QRect(8, 4, area.width() - 12, 20), Qt::AlignLeft | Qt::AlignVCenter, title());
    for (int k = 0; k <= 4; ++k) {
        const float t = float(k) / 4.f;
        const int y = bar.bottom() - int(t * float(bar.height() - 1));
        const float v = range_.min + t * (range_.max - range_.min);
        p.drawLine(bar.right() + 2, y, bar.right() + 6, y);
        p.drawText(QRect(bar.right() + 10, y - 8, area.width() - bar.right() - 14, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   tickText(v));
    }
}

} // namespace atrium::widgets
