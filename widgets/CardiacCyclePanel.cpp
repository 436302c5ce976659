#include "widgets/CardiacCyclePanel.h"

#include "widgets/SceneView.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>

namespace atrium::widgets {

void CardiacCycle::deriveValves(double isovolumicFraction) {
    mitralOpen.clear();
    aorticOpen.clear();
    const std::size_t n = lvMl.size();
    if (n < 3) return;
    // Central differences (per phase unit), smoothed over three samples.
    std::vector<double> rate(n), smooth(n);
    for (std::size_t i = 0; i < n; ++i) rate[i] = (lvMl[(i + 1) % n] - lvMl[(i + n - 1) % n]) * double(n) / 2.0;
    for (std::size_t i = 0; i < n; ++i) smooth[i] = (rate[(i + n - 1) % n] + rate[i] + rate[(i + 1) % n]) / 3.0;
    double peak = 0.0;
    for (double r : smooth) peak = std::max(peak, std::fabs(r));
    const double threshold = isovolumicFraction * peak;
    const auto intervals = [&](auto open) {
        std::vector<std::pair<double, double>> out;
        for (std::size_t i = 0; i < n; ++i) {
            const bool now = open(smooth[i]), before = open(smooth[(i + n - 1) % n]);
            if (now && !before) out.emplace_back(double(i) / double(n), -1.0);
            if (!now && before) {
                if (out.empty()) out.emplace_back(-1.0, double(i) / double(n)); // opened before phase 0
                else out.back().second = double(i) / double(n);
            }
        }
        // An interval open across phase 0: join its two halves.
        if (!out.empty() && out.front().first < 0.0) {
            const double to = out.front().second;
            out.erase(out.begin());
            if (!out.empty() && out.back().second < 0.0) out.back().second = to;
        }
        if (out.empty() && open(smooth[0])) out.emplace_back(0.0, 1.0); // open throughout
        return out;
    };
    mitralOpen = intervals([&](double r) { return r > threshold; });
    aorticOpen = intervals([&](double r) { return r < -threshold; });
}

CardiacCyclePanel::CardiacCyclePanel(SceneView* view) : QWidget(view) {
    setObjectName("cardiacCyclePanel");
    setCursor(Qt::PointingHandCursor);
    setToolTip("Chamber volumes over the cycle, valves open, and the heart's phase; "
               "click or drag to move the paused real-time flow to a phase");
    resize(360, 122);
    view->addOverlay(this, this);
}

void CardiacCyclePanel::setCycle(CardiacCycle cycle) { cycle_ = std::move(cycle); }

void CardiacCyclePanel::setPhase(double phase) { phase_ = phase - std::floor(phase); }

QRectF CardiacCyclePanel::plotRect() const { return QRectF(44, 26, width() - 56, height() - 62); }

double CardiacCyclePanel::phaseAt(double x) const {
    const QRectF r = plotRect();
    return std::clamp((x - r.left()) / r.width(), 0.0, 0.9999);
}

void CardiacCyclePanel::mousePressEvent(QMouseEvent* e) { Q_EMIT phaseRequested(phaseAt(e->position().x())); }

void CardiacCyclePanel::mouseMoveEvent(QMouseEvent* e) {
    if (e->buttons() & Qt::LeftButton) Q_EMIT phaseRequested(phaseAt(e->position().x()));
}

void CardiacCyclePanel::paintOverlay(QPainter& p) const {
    p.translate(pos());
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(10, 12, 16, 150));
    p.drawRoundedRect(rect(), 8, 8);
    QFont f = font();
    f.setPointSizeF(8.5);
    p.setFont(f);
    const QRectF r = plotRect();
    p.setPen(QColor(230, 230, 230));
    if (cycle_.lvMl.empty()) {
        p.drawText(rect(), Qt::AlignCenter, "no heart loaded");
        return;
    }
    double lo = 1e300, hi = -1e300;
    for (double v : cycle_.lvMl) lo = std::min(lo, v), hi = std::max(hi, v);
    for (const CardiacCycle::Curve& other : cycle_.others)
        for (double v : other.ml) lo = std::min(lo, v), hi = std::max(hi, v);
    const double pad = 0.08 * std::max(hi - lo, 1.0);
    lo = std::max(0.0, lo - pad);
    hi += pad;
    const auto toPoint = [&](double phase, double ml) {
        return QPointF(r.left() + phase * r.width(), r.bottom() - (ml - lo) / (hi - lo) * r.height());
    };
    const double edv = *std::max_element(cycle_.lvMl.begin(), cycle_.lvMl.end());
    const double esv = *std::min_element(cycle_.lvMl.begin(), cycle_.lvMl.end());
    p.drawText(QRectF(10, 4, width() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter,
               QString("Volumes (ml): %1 %2-%3, EF %4 %")
                   .arg(cycle_.lvName)
                   .arg(esv, 0, 'f', 0)
                   .arg(edv, 0, 'f', 0)
                   .arg(edv > 0 ? 100.0 * (edv - esv) / edv : 0.0, 0, 'f', 0));
    // The valves, as bars under the plot.
    const auto bars = [&](const std::vector<std::pair<double, double>>& open, double y, QColor c, const QString& name) {
        p.setPen(QColor(200, 200, 200));
        p.drawText(QRectF(4, y - 6, r.left() - 8, 12), Qt::AlignRight | Qt::AlignVCenter, name);
        p.setPen(Qt::NoPen);
        p.setBrush(c);
        for (auto [from, to] : open) {
            const auto segment = [&](double a, double b) {
                p.drawRoundedRect(QRectF(r.left() + a * r.width(), y - 4, (b - a) * r.width(), 8), 3, 3);
            };
            if (to >= from) segment(from, to);
            else segment(from, 1.0), segment(0.0, to);
        }
    };
    bars(cycle_.mitralOpen, r.bottom() + 14, QColor(90, 190, 120), "MV");
    bars(cycle_.aorticOpen, r.bottom() + 27, QColor(90, 140, 230), "AV");
    // Axes and ticks.
    p.setPen(QPen(QColor(120, 120, 130), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.drawLine(r.bottomLeft(), r.topLeft());
    p.setPen(QColor(200, 200, 200));
    for (const double v : {lo, hi})
        p.drawText(QRectF(2, toPoint(0, v).y() - 7, r.left() - 6, 14), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(v, 'f', 0));
    // The curves.
    const auto curve = [&](const std::vector<double>& ml, QColor c, Qt::PenStyle style) {
        if (ml.empty()) return;
        QPainterPath path(toPoint(0, ml[0]));
        for (std::size_t i = 1; i <= ml.size(); ++i)
            path.lineTo(toPoint(double(i) / double(ml.size()), ml[i % ml.size()]));
        p.setPen(QPen(c, 2, style));
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
    };
    // The ventricle last, over the others; their names at the title's right.
    static const std::array<QColor, 4> kOtherColors = {QColor(240, 170, 80), QColor(110, 160, 240),
                                                       QColor(190, 140, 230), QColor(120, 200, 170)};
    std::vector<std::pair<QString, QColor>> names;
    for (std::size_t k = 0; k < cycle_.others.size(); ++k) {
        const QColor c = kOtherColors[k % kOtherColors.size()];
        curve(cycle_.others[k].ml, c, k < kOtherColors.size() ? Qt::DashLine : Qt::DotLine);
        names.emplace_back(cycle_.others[k].name, c);
    }
    curve(cycle_.lvMl, QColor(235, 80, 80), Qt::SolidLine);
    names.emplace(names.begin(), cycle_.lvName, QColor(235, 80, 80));
    double right = width() - 10.0;
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
        const double w = p.fontMetrics().horizontalAdvance(it->first) + 8;
        p.setPen(it->second);
        p.drawText(QRectF(right - w, 4, w, 18), Qt::AlignRight | Qt::AlignVCenter, it->first);
        right -= w;
    }
    // The cursor.
    const double x = r.left() + phase_ * r.width();
    p.setPen(QPen(QColor(255, 255, 255), 1.5));
    p.drawLine(QPointF(x, r.top() - 2), QPointF(x, r.bottom() + 32));
}

} // namespace atrium::widgets
