#include "widgets/lecture/OutputGate.h"

#include "narrative/package/ContentPackage.h"

#include <algorithm>
#include <cmath>

namespace atrium::widgets {

using narrative::Operation;

void OutputGate::setLecture(std::shared_ptr<const package::ContentPackage> lecture) { lecture_ = std::move(lecture); }

std::optional<QString> OutputGate::refuse(Operation op, QSize size) const {
    if (size.width() < kMinSide || size.height() < kMinSide || size.width() > kMaxSide || size.height() > kMaxSide)
        return QString("Cannot %1 at %2 x %3: the size must be between %4 x %4 and %5 x %5 pixels.")
            .arg(QString::fromUtf8(narrative::toString(op).data(), qsizetype(narrative::toString(op).size())))
            .arg(size.width())
            .arg(size.height())
            .arg(kMinSide)
            .arg(kMaxSide);
    if (!lecture_) return std::nullopt;
    if (auto why = lecture_->gate().checkSize(op, {size.width(), size.height()})) return QString::fromStdString(*why);
    return std::nullopt;
}

std::optional<QString> OutputGate::refuseImage(QSize size) const { return refuse(Operation::RenderImage, size); }

std::optional<QString> OutputGate::refuseVideo(QSize size) const { return refuse(Operation::ExportVideo, size); }

std::optional<QString> OutputGate::refuseVideo() const {
    if (!lecture_) return std::nullopt;
    if (auto why = lecture_->gate().check(Operation::ExportVideo)) return QString::fromStdString(*why);
    return std::nullopt;
}

std::optional<QSize> OutputGate::limit() const {
    if (!lecture_ || lecture_->authorPresent()) return std::nullopt;
    const auto& r = lecture_->manifest().restrictions.maxResolution;
    if (!r) return std::nullopt;
    return QSize(r->width, r->height);
}

QSize OutputGate::fit(QSize wanted) const {
    QSize bound(kMaxSide, kMaxSide);
    if (auto l = limit()) bound = bound.boundedTo(*l);
    if (wanted.width() < 1 || wanted.height() < 1) return bound;
    if (wanted.width() <= bound.width() && wanted.height() <= bound.height()) return wanted;
    // Scaled down, rounding down, so that neither side passes its bound.
    const double scale = std::min(double(bound.width()) / wanted.width(), double(bound.height()) / wanted.height());
    return QSize(std::max(kMinSide, int(std::floor(wanted.width() * scale))),
                 std::max(kMinSide, int(std::floor(wanted.height() * scale))));
}

} // namespace atrium::widgets
