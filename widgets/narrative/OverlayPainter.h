#pragma once
// Draws a narrative node's overlays (Poyart 2016 5.4.2) over a picture of the view:
// the live view (OverlayLayer), screenshots and video export all use this one painter,
// so what a lecturer sees is what a rendered frame shows.
//
// Sizes follow the picture: rectangles are fractions of it and text is set at a pixel
// size proportional to its height (kTextLines lines per view height), so a 1920 x 1080
// frame shows the same layout as the window.

#include "narrative/Narrative.h"

#include <QHash>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QString>

#include <functional>
#include <optional>
#include <vector>

class QPainter;

namespace atrium::widgets {

class OverlayPainter {
public:
    /// Text lines that fit in the view's height at the default text size.
    static constexpr double kTextLines = 34.0;

    /// Where the document's media paths lead: a file on disk for each (beside the
    /// narratives file, or extracted from a lecture's package on demand; empty when it
    /// cannot be had). Setting it forgets the cached images.
    void setMediaSource(std::function<QString(const std::string& media)> source);
    /// The file of a media path of the document (empty: none).
    QString mediaPath(const std::string& media) const;

    /// An image overlay's picture (cached); a null image when it cannot be read.
    QImage image(const std::string& media) const;

    struct Sources {
        /// 3D labels: where item k's anchor appears in the picture (pixels), or nullopt
        /// when it is out of sight (behind the camera); the label is then not drawn.
        std::function<std::optional<QPointF>(std::size_t item)> labelPoint;
        /// Videos: item k's current frame (null: a placeholder with the file name).
        std::function<QImage(std::size_t item)> videoFrame;
        /// Media that failed to play: item k's error, shown in its rectangle.
        std::function<QString(std::size_t item)> mediaError;
    };

    /// Draws `items` in z order (equal z: list order) at opacity `alpha` into a picture of
    /// `size`. `editing` also draws sounds (otherwise invisible) and outlines every item.
    void paint(QPainter& painter, QSizeF size, const std::vector<narrative::OverlayItem>& items, double alpha,
               const Sources& sources, bool editing = false) const;

    /// Item k's rectangle in a picture of `size` (pixels); for a 3D label, relative to
    /// its anchor's point (nullopt when that is out of sight). Always within the picture:
    /// a box that would leave it (a label near an edge) is moved in, and one larger than
    /// it is cut to it.
    static std::optional<QRectF> itemRect(const narrative::OverlayItem& item, QSizeF size, std::optional<QPointF> anchorPoint);
    /// The smallest text size, pixels, that overlays are made to fit their boxes down to.
    static constexpr double kMinTextPixels = 8.0;
    /// The height of rich text `html` laid out wrapped at `width` pixels, at `pixelSize`.
    static double textHeight(const QString& html, double width, double pixelSize);
    /// The text size at which `html` fits a box of `box` (wrapped at its width): from
    /// `pixelSize` down to kMinTextPixels. A narrow view wraps a text into more lines; it
    /// gets smaller rather than cut off mid-sentence at its box's bottom.
    static double fittedTextPixels(const QString& html, QSizeF box, double pixelSize);
    /// Indices of `items` from the bottom to the top of the stack.
    static std::vector<std::size_t> stackingOrder(const std::vector<narrative::OverlayItem>& items);

private:
    std::function<QString(const std::string&)> source_;
    mutable QHash<QString, QImage> images_; ///< by media path
};

} // namespace atrium::widgets
