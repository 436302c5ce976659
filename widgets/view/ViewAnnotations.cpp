#include "widgets/view/ViewAnnotations.h"

#include "widgets/view/SceneView.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

#include <array>
#include <cmath>

namespace atrium::widgets {

ViewAnnotations::ViewAnnotations(SceneView* view) : QWidget(view), view_(view) {
    setObjectName("viewAnnotations");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setGeometry(view->rect());
    view->installEventFilter(this);
    view->addOverlay(this, this);
}

QRegion ViewAnnotations::overlayRegion() const {
    QRegion r;
    if (axes_) {
        r += QRect(0, height() - 100, 100, 100);            // the triad and its letters
        r += QRect(90, height() - 50, 170, 50);             // the scale bar (at most 140 px) and its text
    }
    if (labelsOn_) {
        QFont f = font();
        f.setPointSizeF(9);
        const QFontMetrics fm(f);
        for (const ChamberLabel& label : labels_)
            if (const auto at = view_->project(label.positionMm, size()))
                r += QRect(int(at->x()) - 6, int(at->y()) - 22, fm.horizontalAdvance(label.text) + 30, 30);
    }
    if (view_->isRecording()) r += QRect(width() - 114, 10, 104, 32);
    return r;
}

void ViewAnnotations::setAxesVisible(bool on) { axes_ = on; }

void ViewAnnotations::setLabelsVisible(bool on) { labelsOn_ = on; }

void ViewAnnotations::setLabels(std::vector<ChamberLabel> labels) { labels_ = std::move(labels); }

bool ViewAnnotations::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_ && event->type() == QEvent::Resize) setGeometry(view_->rect());
    return QWidget::eventFilter(watched, event);
}

double ViewAnnotations::mmPerPixel() const {
    const narrative::CameraPose& pose = view_->camera().pose();
    const double depth = dot(view_->heartCenter() - pose.position(), pose.forward());
    if (!(depth > 0.0) || height() <= 0) return 0.0;
    return 2.0 * depth * std::tan(0.5 * SceneView::kFieldOfViewDeg * std::numbers::pi / 180.0) / height();
}

ViewAnnotations::ScaleBar ViewAnnotations::scaleBar() const {
    const double perPixel = mmPerPixel();
    if (!axes_ || !(perPixel > 0.0)) return {};
    // The longest 1, 2 or 5 x 10^k mm that fits in 140 px.
    const double most = 140.0 * perPixel;
    double mm = std::pow(10.0, std::floor(std::log10(most)));
    for (const double f : {5.0, 2.0})
        if (mm * f <= most) {
            mm *= f;
            break;
        }
    return {mm, mm / perPixel};
}

void ViewAnnotations::paintOverlay(QPainter& p) const {
    QFont f = font();
    f.setPointSizeF(9);
    p.setFont(f);
    if (labelsOn_) paintLabels(p);
    if (axes_) {
        paintAxes(p);
        paintScaleBar(p);
    }
    paintRecording(p);
}

void ViewAnnotations::paintAxes(QPainter& p) const {
    const narrative::CameraPose& pose = view_->camera().pose();
    const QPointF origin(46, height() - 46);
    const double length = 32;
    struct Axis {
        narrative::Vec3 direction;
        QColor color;
        const char* name;
    };
    const std::array<Axis, 3> axes = {Axis{{1, 0, 0}, QColor(230, 80, 80), "x"}, Axis{{0, 1, 0}, QColor(110, 200, 110), "y"},
                                      Axis{{0, 0, 1}, QColor(100, 150, 240), "z"}};
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(10, 12, 16, 120));
    p.drawEllipse(origin, length + 12, length + 12);
    for (const Axis& a : axes) {
        // The axis as the camera sees it: its components along the view's right and up.
        const QPointF tip = origin + QPointF(dot(a.direction, pose.right()), -dot(a.direction, pose.up())) * length;
        p.setPen(QPen(a.color, 2.2, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(origin, tip);
        p.drawText(QRectF(tip.x() - 8, tip.y() - 8, 16, 16), Qt::AlignCenter, a.name);
    }
}

void ViewAnnotations::paintScaleBar(QPainter& p) const {
    const ScaleBar bar = scaleBar();
    if (bar.pixels <= 0.0) return;
    const double x0 = 100, y = height() - 22;
    p.setPen(QPen(QColor(235, 235, 235), 2));
    p.drawLine(QPointF(x0, y), QPointF(x0 + bar.pixels, y));
    p.drawLine(QPointF(x0, y - 5), QPointF(x0, y + 5));
    p.drawLine(QPointF(x0 + bar.pixels, y - 5), QPointF(x0 + bar.pixels, y + 5));
    const QString text = QString("%1 mm").arg(bar.mm, 0, 'g', 3);
    p.drawText(QRectF(x0, y - 22, bar.pixels, 16), Qt::AlignCenter, text);
}

bool ViewAnnotations::labelBehindWall(const ChamberLabel& label) const {
    return view_->surfacesCrossedTo(label.positionMm) >= 2;
}

void ViewAnnotations::paintLabels(QPainter& p) const {
    // Which labels lie behind a wall: a ray cast against every triangle per label, so
    // asked again only when the camera moved or 100 ms passed (the wall moves a little).
    const narrative::Vec3 eye = view_->camera().pose().position();
    if (behind_.size() != labels_.size() || !occlusionAge_.isValid() || occlusionAge_.elapsed() > 100 ||
        length(eye - occlusionEye_) > 1e-6) {
        behind_.clear();
        for (const ChamberLabel& label : labels_) behind_.push_back(labelBehindWall(label));
        occlusionEye_ = eye;
        occlusionAge_.start();
    }
    for (std::size_t i = 0; i < labels_.size(); ++i) {
        const ChamberLabel& label = labels_[i];
        const auto at = view_->project(label.positionMm, size());
        if (!at || !rect().contains(at->toPoint())) continue;
        // A label behind a wall is drawn at a third of its strength.
        const double strength = behind_[i] ? 0.35 : 1.0;
        const auto faded = [strength](int r, int g, int b, int a) { return QColor(r, g, b, int(a * strength)); };
        const QFontMetricsF fm(p.font());
        const QRectF box(at->x() + 8, at->y() - 18, fm.horizontalAdvance(label.text) + 12, 18);
        p.setPen(Qt::NoPen);
        p.setBrush(faded(10, 12, 16, 170));
        p.drawRoundedRect(box, 4, 4);
        p.setBrush(faded(250, 250, 250, 255));
        p.drawEllipse(*at, 3, 3);
        p.setPen(QPen(faded(250, 250, 250, 200), 1));
        p.drawLine(*at, box.bottomLeft());
        p.setPen(faded(250, 250, 250, 255));
        p.drawText(box, Qt::AlignCenter, label.text);
    }
}

qint64 ViewAnnotations::recordedMs() const {
    if (!view_->isRecording()) {
        recording_.invalidate();
        return -1;
    }
    if (!recording_.isValid()) recording_.start();
    return recording_.elapsed();
}

void ViewAnnotations::paintRecording(QPainter& p) const {
    const qint64 ms = recordedMs();
    if (ms < 0) return;
    const qint64 s = ms / 1000;
    const QString text = QString("REC %1:%2").arg(s / 60, 2, 10, QChar('0')).arg(s % 60, 2, 10, QChar('0'));
    const QRectF box(width() - 110, 14, 96, 24);
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(10, 12, 16, 170));
    p.drawRoundedRect(box, 6, 6);
    // The dot blinks once a second.
    p.setBrush(ms % 1000 < 650 ? QColor(230, 40, 45) : QColor(120, 30, 32));
    p.drawEllipse(QPointF(box.left() + 14, box.center().y()), 6, 6);
    p.setPen(QColor(240, 240, 240));
    p.drawText(box.adjusted(26, 0, 0, 0), Qt::AlignVCenter | Qt::AlignLeft, text);
}

} // namespace atrium::widgets
