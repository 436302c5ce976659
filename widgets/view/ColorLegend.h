#pragma once
// The colour bar beside the view: the map of the current blood colouring with its
// range and unit. The view shows it only while the spheres are coloured by a value,
// and paints it into its frame (ViewOverlay): an automatic range changes every frame.

#include "widgets/view/ColorMap.h"
#include "widgets/view/ViewOverlay.h"

#include <QWidget>

namespace atrium::widgets {

class ColorLegend : public QWidget, public ViewOverlay {
    Q_OBJECT
public:
    explicit ColorLegend(QWidget* parent = nullptr);
    /// How the range was chosen; the title says so unless it follows the values shown.
    enum class RangeKind { Automatic, PerBeat, Fixed };
    /// `kind` Fixed: the user's range; PerBeat: held for a beat (the speed colouring).
    void setMap(ColorQuantity quantity, ColorRange range, RangeKind kind = RangeKind::Automatic);
    QSize sizeHint() const override { return {150, 220}; }
    /// The drawn bar: as wide as its title and ticks need, right-aligned in the widget
    /// (which keeps the widest size, so that a changing range never resizes a widget).
    QRect drawnRect() const;
    QRegion overlayRegion() const override { return drawnRect().translated(pos()); }
    void paintOverlay(QPainter& painter) const override;

private:
    QFont labelFont() const;
    QString title() const;
    QString tickText(float value) const;

    ColorQuantity quantity_ = ColorQuantity::Blood;
    ColorRange range_;
    RangeKind kind_ = RangeKind::Automatic;
    int drawnWidth_ = 0;
};

} // namespace atrium::widgets
