#pragma once
// What a lecturer points at, drawn over the 3D view: an axes triad (bottom left) that
// turns with the camera, a scale bar in millimetres measured at the depth of the
// orbit centre, chamber labels (LV, LA, Ao) at their places in the heart, and a
// recording indicator with the time recorded. The triad and scale bar, and the labels,
// can each be switched off; the indicator shows whenever the view is recorded.

#include "narrative/CameraPose.h"

#include <QElapsedTimer>
#include <QRegion>
#include <QString>
#include <QWidget>

#include <vector>

namespace atrium::widgets {

class SceneView;

/// A named place in the heart (mm), e.g. {"LV", centre of the left ventricle}.
struct ChamberLabel {
    QString text;
    narrative::Vec3 positionMm;
};

class ViewAnnotations : public QWidget {
    Q_OBJECT
public:
    explicit ViewAnnotations(SceneView* view);

    void setAxesVisible(bool on);
    bool axesVisible() const { return axes_; }
    void setLabelsVisible(bool on);
    bool labelsVisible() const { return labelsOn_; }
    void setLabels(std::vector<ChamberLabel> labels);
    const std::vector<ChamberLabel>& labels() const { return labels_; }

    /// The scale bar now: its length in mm and in pixels (0 when it is not drawn).
    struct ScaleBar {
        double mm = 0.0, pixels = 0.0;
    };
    ScaleBar scaleBar() const;
    /// Millimetres per pixel at the depth of the orbit centre.
    double mmPerPixel() const;

protected:
    void paintEvent(QPaintEvent*) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void paintAxes(QPainter& p) const;
    void paintScaleBar(QPainter& p) const;
    void paintLabels(QPainter& p) const;
    void paintRecording(QPainter& p);
    /// Where the annotations lie now: a frame repaints only this and what they covered
    /// before. A full-view repaint of this translucent layer every frame cost llvmpipe
    /// ~20 ms at 1280x720 (29 -> 17 fps with the blood simulating).
    QRegion coveredRegion() const;
    void repaintCovered();

    SceneView* view_;
    bool axes_ = true, labelsOn_ = true;
    std::vector<ChamberLabel> labels_;
    QElapsedTimer recording_;
    QRegion covered_;
};

} // namespace atrium::widgets
