#pragma once
// What a lecturer points at, drawn over the 3D view: an axes triad (bottom left) that
// turns with the camera, a scale bar in millimetres measured at the depth of the
// orbit centre, chamber labels (LV, LA, Ao) at their places in the heart (faded where
// a wall lies between the camera and the place), and a
// recording indicator with the time recorded. The triad and scale bar, and the labels,
// can each be switched off; the indicator shows whenever the view is recorded.
// The view paints them into its frame (ViewOverlay): the widget holds their place.

#include "narrative/CameraPose.h"
#include "widgets/view/ViewOverlay.h"

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

class ViewAnnotations : public QWidget, public ViewOverlay {
    Q_OBJECT
public:
    explicit ViewAnnotations(SceneView* view);

    void setAxesVisible(bool on);
    bool axesVisible() const { return axes_; }
    void setLabelsVisible(bool on);
    bool labelsVisible() const { return labelsOn_; }
    void setLabels(std::vector<ChamberLabel> labels);
    const std::vector<ChamberLabel>& labels() const { return labels_; }
    /// Whether `label`'s point lies behind a wall from the camera (the sight line to it
    /// crosses the shown surfaces twice or more: another chamber, or its own wall seen
    /// from inside another): such a label is drawn faded, so that the lecturer does not
    /// point at a chamber that is not the one in front.
    bool labelBehindWall(const ChamberLabel& label) const;

    /// The scale bar now: its length in mm and in pixels (0 when it is not drawn).
    struct ScaleBar {
        double mm = 0.0, pixels = 0.0;
    };
    ScaleBar scaleBar() const;
    /// Millimetres per pixel at the depth of the orbit centre.
    double mmPerPixel() const;

    /// Where the annotations lie now.
    QRegion overlayRegion() const override;
    void paintOverlay(QPainter& p) const override;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void paintAxes(QPainter& p) const;
    void paintScaleBar(QPainter& p) const;
    void paintLabels(QPainter& p) const;
    void paintRecording(QPainter& p) const;
    /// How long the view has been recorded, ms (-1: it is not).
    qint64 recordedMs() const;

    SceneView* view_;
    bool axes_ = true, labelsOn_ = true;
    std::vector<ChamberLabel> labels_;
    mutable QElapsedTimer recording_;
    mutable std::vector<bool> behind_; // per label, as last painted (labelBehindWall)
    mutable narrative::Vec3 occlusionEye_;
    mutable QElapsedTimer occlusionAge_;
};

} // namespace atrium::widgets
