#pragma once
// The colour bar beside the view: the map of the current blood colouring with its
// range and unit. The view shows it only while the spheres are coloured by a value.

#include "widgets/ColorMap.h"

#include <QWidget>

namespace atrium::widgets {

class ColorLegend : public QWidget {
    Q_OBJECT
public:
    explicit ColorLegend(QWidget* parent = nullptr);
    void setMap(ColorQuantity quantity, ColorRange range);
    QSize sizeHint() const override { return {150, 220}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    ColorQuantity quantity_ = ColorQuantity::Blood;
    ColorRange range_;
};

} // namespace atrium::widgets
