#include "widgets/view/HudOverlay.h"

#include "widgets/flow/SimulationRunner.h"

#include <QPainter>

#include <cmath>

namespace atrium::widgets {

HudOverlay::HudOverlay(QWidget* parent) : QLabel(parent) {
    setObjectName("hud");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setTextFormat(Qt::RichText);
    // The style sizes the label; the view draws it (paintOverlay), so a new line of
    // text never repaints the widgets over the view.
    setStyleSheet("QLabel#hud { padding: 6px 10px; font-family: monospace; font-size: 11px; }");
    setUpdatesEnabled(false);
    QFont f("monospace");
    f.setStyleHint(QFont::Monospace);
    f.setPixelSize(11);
    document_.setDefaultFont(f);
    document_.setDocumentMargin(0);
    document_.setDefaultStyleSheet("body { color: #e8e8e8; }");
}

void HudOverlay::paintOverlay(QPainter& p) const {
    p.translate(pos());
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(10, 12, 16, 150));
    p.drawRoundedRect(rect(), 6, 6);
    p.translate(10, 6);
    document_.drawContents(&p);
}

namespace {

/// "real time", "1/20 real time" or "2.5x real time".
QString speedText(double factor) {
    if (factor >= 0.95 && factor <= 1.05) return "real time";
    if (factor > 1.05) return QString("%1x real time").arg(factor, 0, 'f', 1);
    return QString("1/%1 real time").arg(std::max(2.0, std::round(1.0 / factor)), 0, 'f', 0);
}

} // namespace

void HudOverlay::show(double renderFps, const BloodSnapshot* s, const QString& status) {
    const QString pad = "&nbsp;";
    const auto row = [&](const QString& label, const QString& value) {
        return "<br>" + label + pad.repeated(std::max<qsizetype>(1, 8 - label.size())) + value;
    };
    QString text = "render" + pad.repeated(2) + QString("%1 fps").arg(renderFps, 0, 'f', 1);
    if (s) {
        if (s->baked) {
            const QString origin = QString::fromStdString(s->bakedOrigin).toHtmlEscaped();
            text += row("flow", "baked beat" + (origin.isEmpty() ? QString() : " of " + origin) + ", real time");
        } else if (!s->backend.empty()) {
            QString rate = QString("%1 steps/s on %2").arg(s->stepsPerSecond, 0, 'f', 0).arg(QString::fromStdString(s->backend));
            if (s->realTimeFactor > 0) rate = "live, " + speedText(s->realTimeFactor) + ", " + rate;
            text += row("flow", rate);
        }
        if (s->particles() > 0) {
            text += row("blood", QString("%1 particles").arg(qulonglong(s->particles())));
            if (!s->baked && (s->emitted > 0 || s->drained > 0 || s->leaked > 0))
                text += row("", QString("+%1 in at the atrium, -%2 out past the aorta%3")
                                    .arg(qulonglong(s->emitted))
                                    .arg(qulonglong(s->drained))
                                    .arg(s->leaked > 0 ? QString(", -%1 through the wall").arg(qulonglong(s->leaked))
                                                       : QString()));
        }
        text += row("heart", QString("%1 bpm, phase %2").arg(s->heartRateBpm, 0, 'f', 0).arg(s->cyclePhase, 0, 'f', 2));
        if (!s->baked && !s->backend.empty())
            text += row("time", QString("%1 s simulated").arg(s->simulatedSeconds, 0, 'f', 3));
    }
    if (!status.isEmpty()) text += "<br>" + status.toHtmlEscaped();
    setText(text);
    document_.setHtml("<body>" + text + "</body>");
    adjustSize();
}

} // namespace atrium::widgets
