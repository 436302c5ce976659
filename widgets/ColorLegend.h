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
    /// `fixed`: the range is the user's, not the automatic one (the title says so).
    void setMap(ColorQuantity quantity, ColorRange range, bool fixed = false);
    QSize sizeHint() const override { return {150, 220}; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QFont labelFont() const;
    QString title() const;
    QString tickText(float value) const;

    ColorQuantity quantity_ = ColorQuantity::Blood;
    ColorRange range_;
    bool fixed_ = false;
};

} // namespace atrium::widgets
