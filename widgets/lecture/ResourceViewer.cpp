#include "widgets/lecture/ResourceViewer.h"
#include "widgets/media/SoundOutput.h"

#include <QAudioOutput>
#include <QGraphicsPixmapItem>
#include <QGraphicsView>
#include <QHBoxLayout>
#include <QImageReader>
#include <QKeyEvent>
#include <QLabel>
#include <QMediaPlayer>
#include <QPainter>
#include <QSlider>
#include <QStackedWidget>
#include <QStyle>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>
#include <QVideoFrame>
#include <QVideoSink>
#include <QWheelEvent>

#include <algorithm>

namespace atrium::widgets {

using narrative::Resource;
using narrative::ResourceKind;

VideoFrameView::VideoFrameView(QWidget* parent) : QWidget(parent), sink_(new QVideoSink(this)) {
    setMinimumSize(320, 180);
    connect(sink_, &QVideoSink::videoFrameChanged, this, [this](const QVideoFrame& frame) {
        frame_ = frame.toImage();
        update();
    });
}

void VideoFrameView::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), Qt::black);
    if (frame_.isNull()) return;
    const QSize s = frame_.size().scaled(size(), Qt::KeepAspectRatio);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.drawImage(QRect(QPoint((width() - s.width()) / 2, (height() - s.height()) / 2), s), frame_);
}

namespace {

QString yearsOf(const Resource& r) {
    if (!r.yearFrom && !r.yearTo) return {};
    const int a = r.yearFrom.value_or(*r.yearTo), b = r.yearTo.value_or(*r.yearFrom);
    return a == b ? QString::number(a) : QString("%1-%2").arg(a).arg(b);
}

QString copyrightOf(narrative::CopyrightStatus s) {
    switch (s) {
    case narrative::CopyrightStatus::Unknown: return {};
    case narrative::CopyrightStatus::Copyrighted: return "copyrighted";
    case narrative::CopyrightStatus::FairUse: return "fair use";
    case narrative::CopyrightStatus::CreativeCommons: return "Creative Commons";
    case narrative::CopyrightStatus::PublicDomain: return "public domain";
    case narrative::CopyrightStatus::HeldByAuthor: return "\u00A9 held by the author";
    }
    return {};
}

} // namespace

ResourceViewer::ResourceViewer(QWidget* parent) : QFrame(parent) {
    setObjectName("resourceViewer");
    setAttribute(Qt::WA_StyledBackground);
    setStyleSheet("#resourceViewer { background: rgba(248, 248, 250, 245); border: 1px solid #889; border-radius: 8px; }");
    auto* layout = new QVBoxLayout(this);
    auto* header = new QHBoxLayout;
    auto* titles = new QVBoxLayout;
    title_ = new QLabel(this);
    QFont f = title_->font();
    f.setPointSizeF(f.pointSizeF() * 1.3);
    f.setBold(true);
    title_->setFont(f);
    meta_ = new QLabel(this);
    meta_->setStyleSheet("color: #555;");
    meta_->setWordWrap(true);
    titles->addWidget(title_);
    titles->addWidget(meta_);
    header->addLayout(titles, 1);
    close_ = new QToolButton(this);
    close_->setText("\u2715");
    close_->setToolTip("Close (Esc)");
    connect(close_, &QToolButton::clicked, this, &ResourceViewer::closePanel);
    header->addWidget(close_, 0, Qt::AlignTop);
    layout->addLayout(header);

    pages_ = new QStackedWidget(this);
    text_ = new QTextBrowser(pages_);
    text_->setOpenLinks(false);
    image_ = new QGraphicsView(pages_);
    image_->setScene(new QGraphicsScene(image_));
    image_->setDragMode(QGraphicsView::ScrollHandDrag);
    image_->setTransformationAnchor(QGraphicsView::AnchorUnderMouse);
    image_->setRenderHint(QPainter::SmoothPixmapTransform);
    image_->setToolTip("Wheel: zoom; drag: pan");
    image_->viewport()->installEventFilter(this);
    mediaPage_ = new QWidget(pages_);
    auto* mediaLayout = new QVBoxLayout(mediaPage_);
    video_ = new VideoFrameView(mediaPage_);
    mediaLayout->addWidget(video_, 1);
    auto* controls = new QHBoxLayout;
    playPause_ = new QToolButton(mediaPage_);
    playPause_->setIcon(style()->standardIcon(QStyle::SP_MediaPause));
    playPause_->setToolTip("Play or pause");
    position_ = new QSlider(Qt::Horizontal, mediaPage_);
    controls->addWidget(playPause_);
    controls->addWidget(position_, 1);
    mediaLayout->addLayout(controls);
    // Said on the panel, not only in a tooltip: without a device the player may not move.
    soundNote_ = new QLabel("No audio device on this computer: the sound cannot be heard here. Connect speakers or "
                            "headphones and open the resource again.",
                            mediaPage_);
    soundNote_->setObjectName("soundNote");
    soundNote_->setWordWrap(true);
    soundNote_->hide();
    mediaLayout->addWidget(soundNote_);
    pages_->addWidget(text_);
    pages_->addWidget(image_);
    pages_->addWidget(mediaPage_);
    layout->addWidget(pages_, 1);

    hide();
}

ResourceViewer::~ResourceViewer() { stopMedia(); }

QMediaPlayer* ResourceViewer::player() {
    // Made on first use: a media backend costs time and may be absent (tests, servers).
    if (player_) return player_;
    // FFmpeg, which the viewer links already: Qt's GStreamer backend fails to start
    // without GStreamer's plugins (see app/viewer/main.cpp).
    if (qEnvironmentVariableIsEmpty("QT_MEDIA_BACKEND")) qputenv("QT_MEDIA_BACKEND", "ffmpeg");
    player_ = new QMediaPlayer(this);
    audio_ = new QAudioOutput(this);
    player_->setVideoSink(video_->sink());
    connect(playPause_, &QToolButton::clicked, this, [this] {
        if (player_->playbackState() == QMediaPlayer::PlayingState) player_->pause();
        else play();
    });
    connect(player_, &QMediaPlayer::playbackStateChanged, this, [this](QMediaPlayer::PlaybackState s) {
        playPause_->setIcon(style()->standardIcon(s == QMediaPlayer::PlayingState ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    });
    connect(player_, &QMediaPlayer::durationChanged, this, [this](qint64 d) { position_->setRange(0, int(d)); });
    connect(player_, &QMediaPlayer::positionChanged, this, [this](qint64 p) {
        if (!position_->isSliderDown()) position_->setValue(int(p));
    });
    connect(position_, &QSlider::sliderMoved, player_, [this](int v) { player_->setPosition(v); });
    return player_;
}

void ResourceViewer::play() {
    const bool heard = routeSoundIfPossible(*player(), *audio_);
    playPause_->setToolTip(heard ? "Play or pause" : "Play or pause (no audio device here: the sound is silent)");
    soundNote_->setVisible(!heard);
    player_->play();
}

void ResourceViewer::stopMedia() {
    if (player_) {
        player_->stop();
        player_->setSource(QUrl());
    }
}

bool ResourceViewer::showResource(const Resource& r, const QString& mediaFile, QString* error) {
    stopMedia();
    title_->setText(QString::fromStdString(r.name));
    QStringList meta;
    if (!r.author.empty()) meta << QString::fromStdString(r.author);
    if (const QString y = yearsOf(r); !y.isEmpty()) meta << y;
    if (const QString c = copyrightOf(r.copyright); !c.isEmpty()) meta << c;
    if (!r.category.empty()) meta << QString::fromStdString(r.category);
    QString line = meta.join(" \u00B7 ");
    if (!r.description.empty()) line += (line.isEmpty() ? "" : "\n") + QString::fromStdString(r.description);
    meta_->setText(line);
    meta_->setVisible(!line.isEmpty());
    switch (r.kind) {
    case ResourceKind::Text: {
        const QString body = QString::fromStdString(r.text);
        if (Qt::mightBeRichText(body)) text_->setHtml(body);
        else text_->setPlainText(body);
        pages_->setCurrentWidget(text_);
        break;
    }
    case ResourceKind::Image: {
        QImageReader reader(mediaFile);
        // Vector pictures (SVG) are drawn at a size that stays sharp when zoomed.
        if (reader.format() == "svg" || mediaFile.endsWith(".svg", Qt::CaseInsensitive)) {
            const QSize natural = reader.size().isValid() ? reader.size() : QSize(800, 600);
            reader.setScaledSize(natural.scaled(2048, 2048, Qt::KeepAspectRatio));
        }
        const QImage picture = reader.read();
        if (picture.isNull()) {
            if (error) *error = mediaFile + ": " + reader.errorString();
            return false;
        }
        image_->scene()->clear();
        image_->scene()->addPixmap(QPixmap::fromImage(picture));
        image_->scene()->setSceneRect(picture.rect());
        pages_->setCurrentWidget(image_);
        break;
    }
    case ResourceKind::Video:
    case ResourceKind::Audio:
        video_->setVisible(r.kind == ResourceKind::Video);
        player()->setSource(QUrl::fromLocalFile(mediaFile));
        play();
        pages_->setCurrentWidget(mediaPage_);
        break;
    default:
        if (error) *error = "this kind of resource does not open in place";
        return false;
    }
    shownId_ = r.id;
    show();
    raise();
    place(0);
    if (r.kind == ResourceKind::Image) {
        zoom_ = 1.0;
        fitImage();
    }
    return true;
}

void ResourceViewer::fitImage() {
    image_->resetTransform();
    image_->fitInView(image_->scene()->sceneRect(), Qt::KeepAspectRatio);
}

double ResourceViewer::imageZoom() const { return zoom_; }

QString ResourceViewer::soundNote() const { return soundNote_->isHidden() ? QString() : soundNote_->text(); }

void ResourceViewer::place(int bottomMargin) {
    if (!parentWidget()) return;
    const QSize area = parentWidget()->size() - QSize(0, bottomMargin);
    if (aside_) {
        constexpr int kMargin = 8;
        const QSize s(std::clamp(area.width() / 3, 280, 520), std::clamp(area.height() / 2, 200, 600));
        resize(s.boundedTo(area - QSize(2 * kMargin, 2 * kMargin)));
        move(area.width() - width() - kMargin, kMargin);
        return;
    }
    const QSize s(std::clamp(area.width() * 3 / 5, 360, 1100), std::clamp(area.height() * 3 / 4, 260, 900));
    resize(s.boundedTo(area));
    move((area.width() - width()) / 2, std::max(8, (area.height() - height()) / 2));
}

void ResourceViewer::closePanel() {
    stopMedia();
    shownId_.clear();
    hide();
    Q_EMIT closed();
}

void ResourceViewer::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape) closePanel();
    else QFrame::keyPressEvent(e);
}

bool ResourceViewer::eventFilter(QObject* watched, QEvent* event) {
    // A picture not zoomed stays fitted as the panel is laid out and resized: fitted
    // only when shown, it kept the size of the panel's first layout, cropped.
    if (watched == image_->viewport() && event->type() == QEvent::Resize && zoom_ == 1.0 &&
        pages_->currentWidget() == image_)
        fitImage();
    if (watched == image_->viewport() && event->type() == QEvent::Wheel) {
        const auto* w = static_cast<QWheelEvent*>(event);
        const double factor = w->angleDelta().y() > 0 ? 1.25 : 0.8;
        if (zoom_ * factor >= 0.2 && zoom_ * factor <= 40.0) {
            image_->scale(factor, factor);
            zoom_ *= factor;
        }
        return true;
    }
    return QFrame::eventFilter(watched, event);
}

} // namespace atrium::widgets
