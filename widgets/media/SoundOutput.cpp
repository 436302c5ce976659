#include "widgets/media/SoundOutput.h"

#include <QAudioDevice>
#include <QAudioOutput>
#include <QMediaDevices>
#include <QMediaPlayer>

namespace atrium::widgets {

bool routeSoundIfPossible(QMediaPlayer& player, QAudioOutput& output) {
    const bool device = !QMediaDevices::audioOutputs().isEmpty();
    QAudioOutput* wanted = device ? &output : nullptr;
    if (player.audioOutput() != wanted) player.setAudioOutput(wanted);
    return device;
}

} // namespace atrium::widgets
