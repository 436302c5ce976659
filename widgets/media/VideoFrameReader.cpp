#include "widgets/media/VideoFrameReader.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libswscale/swscale.h>
}

#include <cmath>
#include <stdexcept>

namespace atrium::widgets {

struct VideoFrameReader::Decoder {
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    SwsContext* scale = nullptr;
    int stream = -1;
    double timeBase = 0.0;
    bool ended = false;

    ~Decoder() {
        sws_freeContext(scale);
        av_packet_free(&packet);
        av_frame_free(&frame);
        avcodec_free_context(&codec);
        avformat_close_input(&format);
    }
};

namespace {

std::string why(int error) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(error, text, sizeof text);
    return text;
}

} // namespace

VideoFrameReader::VideoFrameReader(const std::string& path) : path_(path), d_(std::make_unique<Decoder>()) {
    auto fail = [&](const std::string& what) { return std::runtime_error(path + ": " + what); };
    if (const int e = avformat_open_input(&d_->format, path.c_str(), nullptr, nullptr); e < 0) throw fail("cannot open it: " + why(e));
    if (const int e = avformat_find_stream_info(d_->format, nullptr); e < 0) throw fail("cannot read its streams: " + why(e));
    const AVCodec* codec = nullptr;
    d_->stream = av_find_best_stream(d_->format, AVMEDIA_TYPE_VIDEO, -1, -1, &codec, 0);
    if (d_->stream < 0 || !codec) throw fail("no video stream that this FFmpeg decodes");
    const AVStream* stream = d_->format->streams[d_->stream];
    d_->timeBase = av_q2d(stream->time_base);
    d_->codec = avcodec_alloc_context3(codec);
    if (!d_->codec || avcodec_parameters_to_context(d_->codec, stream->codecpar) < 0) throw fail("cannot set up its decoder");
    if (const int e = avcodec_open2(d_->codec, codec, nullptr); e < 0) throw fail("cannot open its decoder: " + why(e));
    d_->frame = av_frame_alloc();
    d_->packet = av_packet_alloc();
    if (!d_->frame || !d_->packet) throw fail("out of memory");
    if (d_->format->duration > 0) duration_ = double(d_->format->duration) / AV_TIME_BASE;
    else if (stream->duration > 0) duration_ = double(stream->duration) * d_->timeBase;
}

VideoFrameReader::~VideoFrameReader() = default;

bool VideoFrameReader::decodeNext() {
    for (;;) {
        const int got = avcodec_receive_frame(d_->codec, d_->frame);
        if (got == AVERROR(EAGAIN)) {
            if (d_->ended) return false;
            if (av_read_frame(d_->format, d_->packet) < 0) {
                d_->ended = true;
                avcodec_send_packet(d_->codec, nullptr); // drain what the decoder still holds
            } else {
                if (d_->packet->stream_index == d_->stream) avcodec_send_packet(d_->codec, d_->packet);
                av_packet_unref(d_->packet);
            }
            continue;
        }
        if (got < 0) return false; // the end, or a broken stream
        const std::int64_t pts = d_->frame->best_effort_timestamp;
        const int w = d_->frame->width, h = d_->frame->height;
        d_->scale = sws_getCachedContext(d_->scale, w, h, AVPixelFormat(d_->frame->format), w, h, AV_PIX_FMT_RGB24,
                                         SWS_BILINEAR, nullptr, nullptr, nullptr);
        if (!d_->scale) return false;
        QImage image(w, h, QImage::Format_RGB888);
        std::uint8_t* planes[4] = {image.bits(), nullptr, nullptr, nullptr};
        const int strides[4] = {int(image.bytesPerLine()), 0, 0, 0};
        sws_scale(d_->scale, d_->frame->data, d_->frame->linesize, 0, h, planes, strides);
        next_ = image;
        nextTime_ = pts == AV_NOPTS_VALUE ? std::max(currentTime_, 0.0) : double(pts) * d_->timeBase;
        return true;
    }
}

void VideoFrameReader::decodeUntil(double seconds) {
    // current_: the last frame at or before `seconds`; next_: the first one after it.
    for (;;) {
        if (!next_.isNull()) {
            if (nextTime_ > seconds && !current_.isNull()) return;
            current_ = next_;
            currentTime_ = nextTime_;
            next_ = QImage();
            if (currentTime_ > seconds) return; // before the first frame: show the first
        }
        if (!decodeNext()) return;
    }
}

QImage VideoFrameReader::frameAt(double seconds, bool loop) {
    if (!std::isfinite(seconds)) seconds = 0.0;
    seconds = std::max(seconds, 0.0);
    if (loop && duration_ > 0.0) seconds = std::fmod(seconds, duration_);
    // Backwards, or more than two seconds ahead: seek to the key frame before and decode on.
    if (seconds < currentTime_ || seconds > currentTime_ + 2.0) {
        const auto target = std::int64_t(seconds / d_->timeBase);
        if (av_seek_frame(d_->format, d_->stream, target, AVSEEK_FLAG_BACKWARD) >= 0) {
            avcodec_flush_buffers(d_->codec);
            d_->ended = false;
            current_ = next_ = QImage();
            currentTime_ = -1.0;
        }
    }
    decodeUntil(seconds);
    return current_;
}

} // namespace atrium::widgets
