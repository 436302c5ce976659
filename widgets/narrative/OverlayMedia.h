#pragma once
// The videos and sounds of the node on screen, played through Qt Multimedia: one
// player per video or sound overlay, started at the item's start offset when the node
// is reached, with its volume and loop flag, paused with the narrative and stopped when
// the node's overlays go. Video frames arrive through a QVideoSink and are drawn by
// OverlayPainter; a file that cannot be played shows its error in its rectangle.

#include "narrative/Narrative.h"

#include <QImage>
#include <QObject>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

class QAudioOutput;
class QMediaPlayer;
class QVideoSink;

namespace atrium::widgets {

class OverlayMedia : public QObject {
    Q_OBJECT
public:
    explicit OverlayMedia(QObject* parent = nullptr);
    ~OverlayMedia() override;

    /// Plays the media of `items` (absolute paths from `pathOf`) for the node `key`
    /// (a new key starts them again, the same key keeps them going); `playing` false
    /// pauses them.
    void show(const QString& key, const std::vector<narrative::OverlayItem>& items,
              const std::function<QString(const std::string&)>& pathOf, bool playing);
    /// Stops and forgets every player.
    void stop();

    /// Item k's latest video frame (null until one arrives, or for other kinds).
    QImage frame(std::size_t item) const;
    /// Item k's playback error, empty when none.
    QString error(std::size_t item) const;
    const QString& key() const { return key_; }
    /// Players alive (tests): one per video or sound item shown.
    std::size_t players() const;
    /// Whether item k's player is playing.
    bool isPlaying(std::size_t item) const;

Q_SIGNALS:
    /// A video frame arrived or a player failed: the overlays should be drawn again.
    void changed();

private:
    struct Track {
        QMediaPlayer* player = nullptr;
        QAudioOutput* audio = nullptr;
        QVideoSink* sink = nullptr;
        QImage frame;
        QString error;
        bool started = false, pausedByUs = false;
    };
    QString key_;
    std::vector<Track> tracks_; // by item index; empty tracks for other kinds
};

} // namespace atrium::widgets
