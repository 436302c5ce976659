#pragma once
// Opens an embedded resource in place, over the 3D view (VSim 2 handed media to an
// external application): a text, a picture with zoom (wheel) and pan (drag), or a
// video or sound played with Qt Multimedia, under a header with the resource's name,
// author, years and copyright. Esc (the window's, for the topmost panel) or the close
// button closes it; the view goes on behind it.

#include "narrative/Resource.h"

#include <QFrame>
#include <QImage>

class QGraphicsView;
class QLabel;
class QMediaPlayer;
class QAudioOutput;
class QSlider;
class QStackedWidget;
class QTextBrowser;
class QToolButton;
class QVideoSink;

namespace atrium::widgets {

/// Paints the frames of a QVideoSink (no native window: works over an OpenGL view and
/// under a virtual display).
class VideoFrameView : public QWidget {
    Q_OBJECT
public:
    explicit VideoFrameView(QWidget* parent);
    QVideoSink* sink() const { return sink_; }
    const QImage& lastFrame() const { return frame_; }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    QVideoSink* sink_;
    QImage frame_;
};

class ResourceViewer : public QFrame {
    Q_OBJECT
public:
    explicit ResourceViewer(QWidget* parent);
    ~ResourceViewer() override;

    /// Shows `resource`; `mediaFile` is its media on disk (Image, Video, Audio).
    /// Returns false, with `error` set, when the media cannot be shown.
    bool showResource(const narrative::Resource& resource, const QString& mediaFile, QString* error = nullptr);
    /// The resource shown (empty id when closed).
    const std::string& shownId() const { return shownId_; }
    /// The media player (made on first use).
    QMediaPlayer* player();
    /// The note shown under a sound or video when this computer has no audio device
    /// (empty while hidden).
    QString soundNote() const;
    /// The picture's zoom factor (1: fitted).
    double imageZoom() const;
    /// Places the panel in the middle of its parent, above `bottomMargin` pixels; aside,
    /// at its right edge, a third of its width.
    void place(int bottomMargin);
    /// Whether the panel sits aside (an auto-launched resource: the middle of the view
    /// stays the lecture's) rather than in the middle. Takes effect at the next place().
    void setAside(bool aside) { aside_ = aside; }
    bool aside() const { return aside_; }

    void closePanel();

Q_SIGNALS:
    void closed();

protected:
    void keyPressEvent(QKeyEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    /// Plays the media, with sound where the system has an audio device.
    void play();
    void stopMedia();
    /// The whole picture in the view, zoom 1.
    void fitImage();

    QLabel *title_, *meta_;
    QToolButton* close_;
    QStackedWidget* pages_;
    QTextBrowser* text_;
    QGraphicsView* image_;
    QWidget* mediaPage_;
    VideoFrameView* video_;
    QToolButton* playPause_;
    QSlider* position_;
    QLabel* soundNote_;
    QMediaPlayer* player_ = nullptr;
    QAudioOutput* audio_ = nullptr;
    std::string shownId_;
    double zoom_ = 1.0;
    bool aside_ = false;
};

} // namespace atrium::widgets
