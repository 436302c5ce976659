#include "widgets/narrative/OverlayMedia.h"
#include "widgets/media/SoundOutput.h"

#include <QAudioOutput>
#include <QMediaPlayer>
#include <QUrl>
#include <QVideoFrame>
#include <QVideoSink>

namespace atrium::widgets {

using narrative::OverlayKind;

OverlayMedia::OverlayMedia(QObject* parent) : QObject(parent) {}

OverlayMedia::~OverlayMedia() { stop(); }

void OverlayMedia::stop() {
    for (Track& t : tracks_)
        if (t.player) {
            t.player->stop();
            t.player->deleteLater();
        }
    tracks_.clear();
    key_.clear();
}

void OverlayMedia::show(const QString& key, const std::vector<narrative::OverlayItem>& items,
                        const std::function<QString(const std::string&)>& pathOf, bool playing) {
    if (key != key_ || tracks_.size() != items.size()) {
        stop();
        key_ = key;
        tracks_.resize(items.size());
        for (std::size_t k = 0; k < items.size(); ++k) {
            const narrative::OverlayItem& item = items[k];
            if (item.kind != OverlayKind::Video && item.kind != OverlayKind::Sound) continue;
            Track& t = tracks_[k];
            t.player = new QMediaPlayer(this);
            t.audio = new QAudioOutput(t.player);
            t.audio->setVolume(float(item.volume));
            if (item.kind == OverlayKind::Video) {
                t.sink = new QVideoSink(t.player);
                t.player->setVideoSink(t.sink);
                connect(t.sink, &QVideoSink::videoFrameChanged, this, [this, k](const QVideoFrame& f) {
                    if (k < tracks_.size()) tracks_[k].frame = f.toImage();
                    Q_EMIT changed();
                });
            }
            t.player->setLoops(item.loop ? QMediaPlayer::Infinite : 1);
            connect(t.player, &QMediaPlayer::errorOccurred, this, [this, k, name = item.media](QMediaPlayer::Error, const QString& why) {
                if (k < tracks_.size()) tracks_[k].error = QString("cannot play %1: %2").arg(QString::fromStdString(name), why);
                Q_EMIT changed();
            });
            const qint64 start = qint64(item.startOffset * 1000.0);
            connect(t.player, &QMediaPlayer::mediaStatusChanged, t.player, [player = t.player, start](QMediaPlayer::MediaStatus s) {
                if (s == QMediaPlayer::LoadedMedia && start > 0) player->setPosition(start);
            });
            t.player->setSource(QUrl::fromLocalFile(pathOf(item.media)));
        }
    }
    // Started once per node (a finished sound does not start again), paused and resumed
    // with the narrative.
    for (Track& t : tracks_) {
        if (!t.player) continue;
        if (playing && (!t.started || t.pausedByUs)) {
            routeSoundIfPossible(*t.player, *t.audio);
            t.player->play();
            t.started = true;
            t.pausedByUs = false;
        } else if (!playing && t.player->playbackState() == QMediaPlayer::PlayingState) {
            t.player->pause();
            t.pausedByUs = true;
        }
    }
}

QImage OverlayMedia::frame(std::size_t item) const { return item < tracks_.size() ? tracks_[item].frame : QImage(); }

QString OverlayMedia::error(std::size_t item) const { return item < tracks_.size() ? tracks_[item].error : QString(); }

std::size_t OverlayMedia::players() const {
    return std::size_t(std::count_if(tracks_.begin(), tracks_.end(), [](const Track& t) { return t.player != nullptr; }));
}

bool OverlayMedia::isPlaying(std::size_t item) const {
    return item < tracks_.size() && tracks_[item].player && tracks_[item].player->playbackState() == QMediaPlayer::PlayingState;
}

} // namespace atrium::widgets
