#include "widgets/ColorLegend.h"

#include <QPainter>

namespace atrium::widgets {

ColorLegend::ColorLegend(QWidget* parent) : QWidget(parent) {
    setObjectName("colorLegend");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    resize(sizeHint());
}

void ColorLegend::setMap(ColorQuantity quantity, ColorRange range) {
    quantity_ = quantity;
    range_ = range;
    update();
}

void ColorLegend::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setBrush(QColor(10, 12, 16, 150));
    p.setPen(Qt::NoPen);
    p.drawRoundedRect(rect(), 6, 6);

    const QRect bar(12, 28, 18, height() - 44);
    for (int y = 0; y < bar.height(); ++y) {
        const float t = 1.f - float(y) / float(std::max(bar.height() - 1, 1));
        const auto c = colorFor(quantity_, range_, range_.min + t * (range_.max - range_.min));
        p.fillRect(QRect(bar.left(), bar.top() + y, bar.width(), 1), QColor(c[0], c[1], c[2]));
    }
    p.setPen(QColor(232, 232, 232));
    QFont f = font();
    f.setPointSizeF(8.5);
    p.setFont(f);
    p.drawText(QRect(8, 4, width() - 12, 20), Qt::AlignLeft | Qt::AlignVCenter,
               QString::fromStdString(quantityLabel(quantity_)));
    for (int k = 0; k <= 4; ++k) {
        const float t = float(k) / 4.f;
        const int y = bar.bottom() - int(t * float(bar.height() - 1));
        const float v = range_.min + t * (range_.max - range_.min);
        p.drawLine(bar.right() + 2, y, bar.right() + 6, y);
        p.drawText(QRect(bar.right() + 10, y - 8, width() - bar.right() - 14, 16), Qt::AlignLeft | Qt::AlignVCenter,
                   QString::number(double(v), 'g', 3));
    }
}

} // namespace atrium::widgets
