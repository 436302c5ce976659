#include "widgets/narrative/OverlayLayer.h"

#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <algorithm>

namespace atrium::widgets {

using narrative::OverlayItem;
using narrative::OverlayKind;

namespace {
constexpr double kHandlePx = 10.0;
}

OverlayLayer::OverlayLayer(SceneView* view) : QWidget(view), view_(view) {
    setObjectName("overlayLayer");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setAttribute(Qt::WA_NoSystemBackground);
    setFocusPolicy(Qt::ClickFocus);
    setGeometry(view->rect());
    view->installEventFilter(this);
    connect(view, &SceneView::frameRendered, this, [this] {
        if (!items_.empty()) followWall();
    });
    view->addOverlay(this, this, SceneView::OverlayLevel::Narrative);
    hide();
}

bool OverlayLayer::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_ && event->type() == QEvent::Resize) setGeometry(view_->rect());
    return QWidget::eventFilter(watched, event);
}

void OverlayLayer::setKey(const QString& key) {
    if (key == key_ && anchors_.size() == items_.size()) return;
    key_ = key;
    anchors_.assign(items_.size(), std::nullopt);
    for (std::size_t k = 0; k < items_.size(); ++k)
        if (items_[k].kind == OverlayKind::Label3D) anchors_[k].emplace(items_[k].anchor);
    followWall();
}

void OverlayLayer::followWall() {
    const auto snapshot = view_->shownSnapshot();
    if (!snapshot) return;
    for (auto& anchor : anchors_)
        if (anchor) anchor->follow(snapshot->wallVertexMm, snapshot->wallTriangles, snapshot->wallTopology);
}

void OverlayLayer::showNode(const QString& key, const std::vector<OverlayItem>& items, double alpha, bool playing) {
    if (editing_) return;
    const bool newNode = key != key_ || items != items_;
    items_ = items;
    alpha_ = alpha;
    if (newNode) {
        key_.clear();
        setKey(key);
    }
    media_.show(key, items_, [this](const std::string& m) { return painter_.mediaPath(m); }, playing);
    setVisible(!items_.empty());
    raise();
}

void OverlayLayer::clear() {
    media_.stop();
    readers_.clear();
    readerErrors_.clear();
    items_.clear();
    anchors_.clear();
    key_.clear();
    alpha_ = 0.0;
    editing_ = false;
    selected_.reset();
    pickCallback_ = nullptr;
    setAttribute(Qt::WA_TransparentForMouseEvents);
    hide();
}

void OverlayLayer::edit(const QString& key, const std::vector<OverlayItem>& items) {
    if (key.isEmpty()) return clear();
    const bool sameNode = editing_ && key == key_;
    media_.stop();
    editing_ = true;
    items_ = items;
    alpha_ = 1.0;
    if (!sameNode || (selected_ && *selected_ >= items_.size())) selected_.reset();
    key_.clear();
    setKey(key); // labels glued again: an edit may have moved their anchors
    setAttribute(Qt::WA_TransparentForMouseEvents, false);
    show();
    raise();
    Q_EMIT selectionChanged();
}

void OverlayLayer::select(std::optional<std::size_t> item) {
    selected_ = item && *item < items_.size() ? item : std::nullopt;
    Q_EMIT selectionChanged();
}

void OverlayLayer::pickWallPoint(std::function<void(narrative::Vec3)> place) {
    pickCallback_ = std::move(place);
    setCursor(Qt::CrossCursor);
}

std::optional<QPointF> OverlayLayer::labelPoint(std::size_t item, QSizeF size) const {
    if (item >= anchors_.size() || !anchors_[item]) return std::nullopt;
    return view_->project(anchors_[item]->point(), size);
}

std::optional<narrative::Vec3> OverlayLayer::labelAnchor(std::size_t item) const {
    if (item >= anchors_.size() || !anchors_[item]) return std::nullopt;
    return anchors_[item]->point();
}

OverlayPainter::Sources OverlayLayer::sources(QSizeF size) const {
    OverlayPainter::Sources s;
    s.labelPoint = [this, size](std::size_t k) { return labelPoint(k, size); };
    s.videoFrame = [this](std::size_t k) { return media_.frame(k); };
    s.mediaError = [this](std::size_t k) { return media_.error(k); };
    return s;
}

void OverlayLayer::paintOnto(QImage& image) {
    if (items_.empty() || alpha_ <= 0.0) return;
    OverlayPainter::Sources s = sources(QSizeF(image.size()));
    s.videoFrame = [this](std::size_t k) {
        const OverlayItem& item = items_[k];
        auto it = readers_.find(item.media);
        if (it == readers_.end()) {
            std::unique_ptr<VideoFrameReader> reader;
            try {
                reader = std::make_unique<VideoFrameReader>(painter_.mediaPath(item.media).toStdString());
            } catch (const std::exception& e) {
                readerErrors_[item.media] = QString::fromStdString(e.what());
            }
            it = readers_.emplace(item.media, std::move(reader)).first;
        }
        return it->second ? it->second->frameAt(item.startOffset + mediaTime_, item.loop) : QImage();
    };
    s.mediaError = [this](std::size_t k) {
        const auto it = readerErrors_.find(items_[k].media);
        return it == readerErrors_.end() ? QString() : it->second;
    };
    QPainter p(&image);
    painter_.paint(p, QSizeF(image.size()), items_, alpha_, s, false);
}

QRegion OverlayLayer::overlayRegion() const {
    if (picking()) return rect(); // the prompt, and wherever the label will go
    if (items_.empty() || alpha_ <= 0.0) return {};
    QRegion region;
    const double margin = kHandlePx + 3.0; // handles, pens and the label's dot
    for (std::size_t k = 0; k < items_.size(); ++k) {
        const auto r = rectOf(k);
        if (!r) continue;
        QRectF covered = *r;
        if (const auto point = labelPoint(k, QSizeF(size()))) covered |= QRectF(*point, QSizeF(1, 1));
        region += covered.adjusted(-margin, -margin, margin, margin).toAlignedRect();
    }
    return region;
}

void OverlayLayer::paintOverlay(QPainter& p) const {
    painter_.paint(p, QSizeF(size()), items_, alpha_, sources(QSizeF(size())), editing_);
    if (editing_ && selected_) {
        if (const auto r = rectOf(*selected_)) {
            p.setRenderHint(QPainter::Antialiasing);
            p.setPen(QPen(QColor(90, 170, 255), 2));
            p.setBrush(Qt::NoBrush);
            p.drawRect(*r);
            for (Corner c : {TopLeft, TopRight, BottomLeft, BottomRight}) p.fillRect(handle(*r, c), QColor(90, 170, 255));
        }
    }
    if (picking()) {
        p.setPen(QColor(255, 236, 150));
        p.drawText(rect().adjusted(12, 12, -12, -12), Qt::AlignTop | Qt::AlignHCenter,
                   "Click a point on the heart for the label (Esc cancels)");
    }
}

std::optional<QRectF> OverlayLayer::rectOf(std::size_t k) const {
    if (k >= items_.size()) return std::nullopt;
    const OverlayItem& item = items_[k];
    return OverlayPainter::itemRect(item, QSizeF(size()),
                                    item.kind == OverlayKind::Label3D ? labelPoint(k, QSizeF(size())) : std::nullopt);
}

QRectF OverlayLayer::handle(const QRectF& r, Corner corner) {
    const QPointF at(corner == TopLeft || corner == BottomLeft ? r.left() : r.right(),
                     corner == TopLeft || corner == TopRight ? r.top() : r.bottom());
    return {at.x() - kHandlePx, at.y() - kHandlePx, 2 * kHandlePx, 2 * kHandlePx};
}

std::optional<std::size_t> OverlayLayer::itemAt(QPointF p) const {
    const auto order = OverlayPainter::stackingOrder(items_);
    for (auto it = order.rbegin(); it != order.rend(); ++it)
        if (const auto r = rectOf(*it); r && r->contains(p)) return *it;
    return std::nullopt;
}

void OverlayLayer::mousePressEvent(QMouseEvent* e) {
    if (!editing_) return QWidget::mousePressEvent(e);
    const QPointF p = e->position();
    if (pickCallback_) {
        if (const auto point = view_->pickWall(p)) {
            auto place = std::move(pickCallback_);
            pickCallback_ = nullptr;
            unsetCursor();
            place(*point);
        }
        return;
    }
    if (selected_) {
        if (const auto r = rectOf(*selected_))
            for (Corner c : {TopLeft, TopRight, BottomLeft, BottomRight})
                if (handle(*r, c).contains(p)) {
                    drag_ = Drag::Resize;
                    dragCorner_ = c;
                    dragStart_ = p;
                    dragFrom_ = items_[*selected_].rect;
                    return;
                }
    }
    select(itemAt(p));
    if (selected_) {
        drag_ = Drag::Move;
        dragStart_ = p;
        dragFrom_ = items_[*selected_].rect;
    }
}

void OverlayLayer::mouseMoveEvent(QMouseEvent* e) {
    if (!editing_ || drag_ == Drag::None || !selected_) return;
    const QPointF d = e->position() - dragStart_;
    const double dx = d.x() / std::max(1, width()), dy = d.y() / std::max(1, height());
    narrative::ScreenRect& r = items_[*selected_].rect;
    if (drag_ == Drag::Move) {
        r.x = std::clamp(dragFrom_.x + dx, -2.0, 2.0);
        r.y = std::clamp(dragFrom_.y + dy, -2.0, 2.0);
    } else {
        // The dragged corner follows the pointer; the opposite one stays.
        constexpr double kMin = 0.02;
        const bool left = dragCorner_ == TopLeft || dragCorner_ == BottomLeft;
        const bool top = dragCorner_ == TopLeft || dragCorner_ == TopRight;
        r.width = std::clamp(dragFrom_.width + (left ? -dx : dx), kMin, 1.0);
        r.height = std::clamp(dragFrom_.height + (top ? -dy : dy), kMin, 1.0);
        if (left) r.x = dragFrom_.x + dragFrom_.width - r.width;
        if (top) r.y = dragFrom_.y + dragFrom_.height - r.height;
    }
}

void OverlayLayer::mouseReleaseEvent(QMouseEvent*) {
    if (!editing_ || drag_ == Drag::None || !selected_) return;
    const Drag was = drag_;
    drag_ = Drag::None;
    if (items_[*selected_].rect == dragFrom_) return;
    Q_EMIT itemsEdited(items_, was == Drag::Move ? "Move overlay" : "Resize overlay");
}

void OverlayLayer::mouseDoubleClickEvent(QMouseEvent* e) {
    if (!editing_) return;
    if (const auto k = itemAt(e->position())) Q_EMIT editRequested(*k);
}

void OverlayLayer::keyPressEvent(QKeyEvent* e) {
    if (!editing_) return QWidget::keyPressEvent(e);
    if (e->key() == Qt::Key_Escape && pickCallback_) {
        pickCallback_ = nullptr;
        unsetCursor();
        return;
    }
    if ((e->key() == Qt::Key_Delete || e->key() == Qt::Key_Backspace) && selected_) {
        std::vector<OverlayItem> items = items_;
        items.erase(items.begin() + std::ptrdiff_t(*selected_));
        selected_.reset();
        Q_EMIT itemsEdited(items, "Delete overlay");
        return;
    }
    QWidget::keyPressEvent(e);
}

} // namespace atrium::widgets
