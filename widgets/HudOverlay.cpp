#include "widgets/HudOverlay.h"

#include "widgets/SimulationRunner.h"

namespace atrium::widgets {

HudOverlay::HudOverlay(QWidget* parent) : QLabel(parent) {
    setObjectName("hud");
    setAttribute(Qt::WA_TransparentForMouseEvents);
    setTextFormat(Qt::RichText);
    setStyleSheet("QLabel#hud { color: #e8e8e8; background: rgba(10, 12, 16, 150); border-radius: 6px;"
                  " padding: 6px 10px; font-family: monospace; font-size: 11px; }");
}

void HudOverlay::show(double renderFps, const BloodSnapshot* s, const QString& status) {
    QString text = QString("render&nbsp;&nbsp;%1 fps").arg(renderFps, 0, 'f', 1);
    if (s) {
        text += QString("<br>sim&nbsp;&nbsp;&nbsp;&nbsp;&nbsp;%1 steps/s (%2)")
                    .arg(s->stepsPerSecond, 0, 'f', 0)
                    .arg(QString::fromStdString(s->backend));
        text += QString("<br>blood&nbsp;&nbsp;&nbsp;%1 particles").arg(qulonglong(s->particles()));
        text += QString("<br>heart&nbsp;&nbsp;&nbsp;%1 bpm, phase %2")
                    .arg(s->heartRateBpm, 0, 'f', 0)
                    .arg(s->cyclePhase, 0, 'f', 2);
        text += QString("<br>time&nbsp;&nbsp;&nbsp;&nbsp;%1 s simulated").arg(s->simulatedSeconds, 0, 'f', 3);
    }
    if (!status.isEmpty()) text += "<br>" + status.toHtmlEscaped();
    setText(text);
    adjustSize();
}

} // namespace atrium::widgets
