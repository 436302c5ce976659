#pragma once
// The layer over the 3D view on which a narrative node's overlays appear: while a
// narrative plays, the overlays of the node reached, faded by the player's alpha, with
// their videos and sounds playing and their 3D labels kept on their points of the
// beating wall; and, in the overlay editor, the overlays of the node being edited, which
// the author selects, moves and resizes with handles (Poyart 2016 5.4.2, figure 5.3).
// Every finished gesture is reported as the node's new list of overlays, for the undo
// stack; the layer never edits the document itself.
// The view paints the overlays into its frame (ViewOverlay); the widget takes the mouse.

#include "narrative/Narrative.h"
#include "widgets/narrative/OverlayMedia.h"
#include "widgets/narrative/OverlayPainter.h"
#include "widgets/media/VideoFrameReader.h"
#include "widgets/view/ViewOverlay.h"
#include "widgets/view/WallAnchor.h"

#include <QWidget>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <vector>

namespace atrium::widgets {

class SceneView;

class OverlayLayer : public QWidget, public ViewOverlay {
    Q_OBJECT
public:
    /// Covers `view` and follows its size.
    explicit OverlayLayer(SceneView* view);

    OverlayPainter& painter() { return painter_; }
    OverlayMedia& media() { return media_; }

    /// Shows `items` of the node `key` (e.g. "narrative/node/cycle") at opacity `alpha`;
    /// a new key starts the node's media and re-glues its labels. `playing` false pauses media.
    void showNode(const QString& key, const std::vector<narrative::OverlayItem>& items, double alpha, bool playing);
    /// Nothing shown, media stopped.
    void clear();
    const std::vector<narrative::OverlayItem>& items() const { return items_; }
    double alpha() const { return alpha_; }

    /// The overlay editor on `items` of node `key` (null: editor off, back to playing).
    void edit(const QString& key, const std::vector<narrative::OverlayItem>& items);
    bool editing() const { return editing_; }
    /// The selected item, if any (editor).
    std::optional<std::size_t> selection() const { return selected_; }
    void select(std::optional<std::size_t> item);
    /// The next click on the heart places a 3D label there; `place` gets the point.
    void pickWallPoint(std::function<void(narrative::Vec3)> place);
    bool picking() const { return static_cast<bool>(pickCallback_); }
    /// The items (with their 3D labels' points and leader lines, and the editor's handles).
    QRegion overlayRegion() const override;
    void paintOverlay(QPainter& painter) const override;

    /// Where item k's 3D label points in a picture of `size` taken from the current
    /// camera (its anchor glued to the wall shown), or nullopt.
    std::optional<QPointF> labelPoint(std::size_t item, QSizeF size) const;
    /// Item k's labelled point on the wall as it is now (mm), or nullopt.
    std::optional<narrative::Vec3> labelAnchor(std::size_t item) const;
    /// Seconds since the node shown was reached: where its videos are in a still
    /// (paintOnto), each at its start offset plus this.
    void setMediaTime(double seconds) { mediaTime_ = seconds; }
    /// Draws what the layer shows onto `image` (a picture of the view from the current
    /// camera, any size): screenshots and video export. Videos show the frame of the
    /// media time exactly, decoded from their files (VideoFrameReader), not whatever the
    /// live player has reached.
    void paintOnto(QImage& image);

Q_SIGNALS:
    /// The editor changed the node's overlays (a move, a resize, a deletion): `what`
    /// names the edit for the undo stack.
    void itemsEdited(const std::vector<narrative::OverlayItem>& items, const QString& what);
    /// The author double-clicked item k (to edit its text or file).
    void editRequested(std::size_t item);
    void selectionChanged();

protected:
    void mousePressEvent(QMouseEvent*) override;
    void mouseMoveEvent(QMouseEvent*) override;
    void mouseReleaseEvent(QMouseEvent*) override;
    void mouseDoubleClickEvent(QMouseEvent*) override;
    void keyPressEvent(QKeyEvent*) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    enum class Drag { None, Move, Resize };
    /// Corners of a rectangle, for its resize handles.
    enum Corner { TopLeft, TopRight, BottomLeft, BottomRight };
    void setKey(const QString& key);
    void followWall();
    std::optional<QRectF> rectOf(std::size_t item) const;
    std::optional<std::size_t> itemAt(QPointF p) const;
    static QRectF handle(const QRectF& r, Corner corner); // a resize handle
    OverlayPainter::Sources sources(QSizeF size) const;

    SceneView* view_;
    OverlayPainter painter_;
    OverlayMedia media_;
    QString key_;
    std::vector<narrative::OverlayItem> items_;
    std::vector<std::optional<WallAnchor>> anchors_; // per item, for 3D labels
    double alpha_ = 0.0;
    bool editing_ = false;
    std::optional<std::size_t> selected_;
    Drag drag_ = Drag::None;
    Corner dragCorner_ = BottomRight;
    QPointF dragStart_;
    narrative::ScreenRect dragFrom_;
    std::function<void(narrative::Vec3)> pickCallback_;
    double mediaTime_ = 0.0;
    std::map<std::string, std::unique_ptr<VideoFrameReader>> readers_; // by media path
    std::map<std::string, QString> readerErrors_;
};

} // namespace atrium::widgets
