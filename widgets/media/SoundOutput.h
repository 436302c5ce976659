#pragma once

class QAudioOutput;
class QMediaPlayer;

namespace atrium::widgets {

/// Gives `player` the audio output `output` when the system has an audio device, and
/// takes it away when it has none, so that a sound or video plays silently instead of
/// crashing: Qt 6.4's FFmpeg backend dereferences a null audio sink when it plays sound
/// with no device (a classroom PC without a sound card, a CI machine). Call before each
/// play(), since devices come and go. Returns whether the sound will be heard.
bool routeSoundIfPossible(QMediaPlayer& player, QAudioOutput& output);

} // namespace atrium::widgets
