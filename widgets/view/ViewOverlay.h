#pragma once
// Pictures over the 3D view that change every frame (labels that follow the heart, the
// cardiac cycle's cursor) are drawn by the view into its own frame, not by a widget of
// their own. Qt composes a QOpenGLWidget with the widgets over it through one backing
// store: in any frame where one of those widgets repaints, Qt repaints and uploads the
// whole view's area of that store, which cost llvmpipe 15 ms a frame at 1280x720
// (28 -> 46 fps with a baked beat on 2 cores).
//
// An overlay stays a QWidget for its place, visibility and mouse input; its paintEvent
// draws nothing, and SceneView paints it after the scene (SceneView::addOverlay).

#include <QRegion>

class QPainter;

namespace atrium::widgets {

class ViewOverlay {
public:
    virtual ~ViewOverlay() = default;
    /// The view pixels (logical, from the view's top-left) that the overlay draws on
    /// now; empty for nothing. Only these are painted and composed.
    virtual QRegion overlayRegion() const = 0;
    /// Paints the overlay in view coordinates. The painter is a fresh raster painter
    /// (antialiased, as a widget's would be), clipped to a part of overlayRegion().
    virtual void paintOverlay(QPainter& painter) const = 0;
};

} // namespace atrium::widgets
