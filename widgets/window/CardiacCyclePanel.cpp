#include "widgets/window/CardiacCyclePanel.h"

#include "widgets/view/SceneView.h"

#include "sim/heart/LumpedCirculation.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>

namespace atrium::widgets {
namespace {

/// One closed curve over the cycle: `values` evenly sampled, placed by `toPoint(phase, value)`.
template <class ToPoint>
void drawCycleCurve(QPainter& p, const std::vector<double>& values, const ToPoint& toPoint, QColor c, Qt::PenStyle style) {
    if (values.empty()) return;
    QPainterPath path(toPoint(0.0, values[0]));
    for (std::size_t i = 1; i <= values.size(); ++i)
        path.lineTo(toPoint(double(i) / double(values.size()), values[i % values.size()]));
    p.setPen(QPen(c, 2, style));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
}

/// Coloured names, right-aligned to `right`, on the line at `y`.
void drawNames(QPainter& p, const std::vector<std::pair<QString, QColor>>& names, double right, double y) {
    for (auto it = names.rbegin(); it != names.rend(); ++it) {
        const double w = p.fontMetrics().horizontalAdvance(it->first) + 8;
        p.setPen(it->second);
        p.drawText(QRectF(right - w, y, w, 16), Qt::AlignRight | Qt::AlignVCenter, it->first);
        right -= w;
    }
}

} // namespace

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

void CardiacCycle::derivePressures(double cycleSeconds, double inflowAreaMm2, double outflowAreaMm2) {
    lvMmHg.clear();
    aorticMmHg.clear();
    atrialMmHg.clear();
    const std::size_t n = lvMl.size();
    if (n < 3 || !(cycleSeconds > 0.0)) return;
    const auto openAt = [](const std::vector<std::pair<double, double>>& open, double phase) {
        for (auto [from, to] : open)
            if (to >= from ? (phase >= from && phase < to) : (phase >= from || phase < to)) return true;
        return false;
    };
    std::vector<double> rate(n);
    std::vector<heart::ValveSample> valves(n);
    for (std::size_t i = 0; i < n; ++i) {
        rate[i] = (lvMl[(i + 1) % n] - lvMl[(i + n - 1) % n]) / (2.0 * cycleSeconds / double(n));
        const double phase = double(i) / double(n);
        valves[i].inflowOpen = openAt(mitralOpen, phase);
        valves[i].outflowOpen = openAt(aorticOpen, phase);
    }
    heart::ChamberPressureCurves curves =
        heart::lumpedChamberPressures({}, cycleSeconds, rate, valves, inflowAreaMm2, outflowAreaMm2);
    lvMmHg = std::move(curves.chamber);
    aorticMmHg = std::move(curves.downstream);
    atrialMmHg = std::move(curves.upstream);
}

CardiacCyclePanel::CardiacCyclePanel(SceneView* view) : QWidget(view) {
    setObjectName("cardiacCyclePanel");
    setCursor(Qt::PointingHandCursor);
    setToolTip("A Wiggers diagram: pressures of the circulation model (LV, aorta, LA; mmHg), chamber "
               "volumes over the cycle (ml), valves open, and the heart's phase; click or drag to move the "
               "paused real-time flow to a phase");
    resize(380, 196);
    view->addOverlay(this, this);
}

void CardiacCyclePanel::setCycle(CardiacCycle cycle) { cycle_ = std::move(cycle); }

void CardiacCyclePanel::setPhase(double phase) { phase_ = phase - std::floor(phase); }

QRectF CardiacCyclePanel::plotRect() const { return QRectF(44, 26, width() - 56, height() - 62); }

QRectF CardiacCyclePanel::pressureRect() const {
    if (cycle_.lvMmHg.empty()) return {};
    const QRectF r = plotRect();
    return QRectF(r.left(), r.top(), r.width(), 0.52 * r.height());
}

QRectF CardiacCyclePanel::volumeRect() const {
    const QRectF r = plotRect(), pressure = pressureRect();
    if (pressure.isEmpty()) return r;
    const double top = pressure.bottom() + 16;
    return QRectF(r.left(), top, r.width(), r.bottom() - top);
}

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
    const QRectF r = volumeRect(), plot = plotRect();
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
    p.drawText(QRectF(10, r.top() - 17, width() - 20, 16), Qt::AlignLeft | Qt::AlignVCenter,
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
    bars(cycle_.mitralOpen, plot.bottom() + 14, QColor(90, 190, 120), "MV");
    bars(cycle_.aorticOpen, plot.bottom() + 27, QColor(90, 140, 230), "AV");
    // Axes and ticks.
    p.setPen(QPen(QColor(120, 120, 130), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.drawLine(r.bottomLeft(), r.topLeft());
    p.setPen(QColor(200, 200, 200));
    for (const double v : {lo, hi})
        p.drawText(QRectF(2, toPoint(0, v).y() - 7, r.left() - 6, 14), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(v, 'f', 0));
    // The ventricle last, over the others; their names at the title's right.
    static const std::array<QColor, 4> kOtherColors = {QColor(240, 170, 80), QColor(110, 160, 240),
                                                       QColor(190, 140, 230), QColor(120, 200, 170)};
    std::vector<std::pair<QString, QColor>> names;
    for (std::size_t k = 0; k < cycle_.others.size(); ++k) {
        const QColor c = kOtherColors[k % kOtherColors.size()];
        drawCycleCurve(p, cycle_.others[k].ml, toPoint, c, k < kOtherColors.size() ? Qt::DashLine : Qt::DotLine);
        names.emplace_back(cycle_.others[k].name, c);
    }
    drawCycleCurve(p, cycle_.lvMl, toPoint, QColor(235, 80, 80), Qt::SolidLine);
    names.emplace(names.begin(), cycle_.lvName, QColor(235, 80, 80));
    drawNames(p, names, width() - 10.0, r.top() - 17);
    paintPressures(p);
    // The cursor, through pressures, volumes and valves.
    const double x = plot.left() + phase_ * plot.width();
    p.setPen(QPen(QColor(255, 255, 255), 1.5));
    p.drawLine(QPointF(x, plot.top() - 2), QPointF(x, plot.bottom() + 32));
}

void CardiacCyclePanel::paintPressures(QPainter& p) const {
    const QRectF r = pressureRect();
    if (r.isEmpty()) return;
    double hi = 0.0;
    for (const std::vector<double>* c : {&cycle_.lvMmHg, &cycle_.aorticMmHg, &cycle_.atrialMmHg})
        for (double v : *c) hi = std::max(hi, v);
    hi = std::max(140.0, 20.0 * std::ceil((hi + 5.0) / 20.0)); // mmHg, a round top
    const auto toPoint = [&](double phase, double mmHg) {
        return QPointF(r.left() + phase * r.width(), r.bottom() - std::clamp(mmHg / hi, -0.05, 1.0) * r.height());
    };
    const double lvMax = *std::max_element(cycle_.lvMmHg.begin(), cycle_.lvMmHg.end());
    QString title = QString("Pressure (mmHg, model): LV %1").arg(lvMax, 0, 'f', 0);
    if (!cycle_.aorticMmHg.empty())
        title += QString(", Ao %1/%2")
                     .arg(*std::max_element(cycle_.aorticMmHg.begin(), cycle_.aorticMmHg.end()), 0, 'f', 0)
                     .arg(*std::min_element(cycle_.aorticMmHg.begin(), cycle_.aorticMmHg.end()), 0, 'f', 0);
    p.setPen(QColor(230, 230, 230));
    p.drawText(QRectF(10, 4, width() - 20, 18), Qt::AlignLeft | Qt::AlignVCenter, title);
    p.setPen(QPen(QColor(120, 120, 130), 1));
    p.drawLine(r.bottomLeft(), r.bottomRight());
    p.drawLine(r.bottomLeft(), r.topLeft());
    p.setPen(QColor(200, 200, 200));
    for (const double v : {0.0, 120.0})
        p.drawText(QRectF(2, toPoint(0, v).y() - 7, r.left() - 6, 14), Qt::AlignRight | Qt::AlignVCenter,
                   QString::number(v, 'f', 0));
    const QColor lv(235, 80, 80), ao(110, 160, 240), la(240, 170, 80);
    drawCycleCurve(p, cycle_.atrialMmHg, toPoint, la, Qt::DashLine);
    drawCycleCurve(p, cycle_.aorticMmHg, toPoint, ao, Qt::SolidLine);
    drawCycleCurve(p, cycle_.lvMmHg, toPoint, lv, Qt::SolidLine);
    std::vector<std::pair<QString, QColor>> names{{"LV", lv}};
    if (!cycle_.aorticMmHg.empty()) names.emplace_back("Ao", ao);
    if (!cycle_.atrialMmHg.empty()) names.emplace_back("LA", la);
    drawNames(p, names, width() - 10.0, 5);
}

} // namespace atrium::widgets
