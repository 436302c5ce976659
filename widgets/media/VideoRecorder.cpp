#include "widgets/media/VideoRecorder.h"

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

namespace atrium::widgets {
namespace {

std::string avError(int code) {
    char text[AV_ERROR_MAX_STRING_SIZE] = {};
    av_strerror(code, text, sizeof text);
    return text;
}

} // namespace

struct VideoRecorder::Encoder {
    AVFormatContext* format = nullptr;
    AVCodecContext* codec = nullptr;
    AVStream* stream = nullptr;
    AVFrame* frame = nullptr;
    AVPacket* packet = nullptr;
    SwsContext* scale = nullptr;
    bool headerWritten = false;

    ~Encoder() {
        sws_freeContext(scale);
        av_packet_free(&packet);
        av_frame_free(&frame);
        avcodec_free_context(&codec);
        if (format && !(format->oformat->flags & AVFMT_NOFILE)) avio_closep(&format->pb);
        avformat_free_context(format);
    }

    /// Sends `f` (null: flush) and writes every packet the encoder has ready.
    void encode(AVFrame* f, const std::string& path) {
        int rc = avcodec_send_frame(codec, f);
        if (rc < 0) throw std::runtime_error(path + ": encoding failed: " + avError(rc));
        while ((rc = avcodec_receive_packet(codec, packet)) >= 0) {
            if (packet->duration <= 0) packet->duration = 1; // one frame; else MP4 drops the last sample
            av_packet_rescale_ts(packet, codec->time_base, stream->time_base);
            packet->stream_index = stream->index;
            rc = av_interleaved_write_frame(format, packet);
            if (rc < 0) throw std::runtime_error(path + ": writing failed: " + avError(rc));
        }
        if (rc != AVERROR(EAGAIN) && rc != AVERROR_EOF) throw std::runtime_error(path + ": encoding failed: " + avError(rc));
    }
};

VideoRecorder::VideoRecorder(const std::string& path, int width, int height, int fps)
    : path_(path), width_(width & ~1), height_(height & ~1), sourceWidth_(width), sourceHeight_(height), fps_(fps),
      encoder_(std::make_unique<Encoder>()) {
    if (width_ < 16 || height_ < 16) throw std::runtime_error(path + ": the video must be at least 16 x 16 pixels");
    if (fps < 1 || fps > 240) throw std::runtime_error(path + ": frame rate must be 1..240");
    av_log_set_level(AV_LOG_ERROR); // the encoder's statistics are not for the user's terminal
    Encoder& e = *encoder_;
    int rc = avformat_alloc_output_context2(&e.format, nullptr, nullptr, path.c_str());
    if (rc < 0 || !e.format) throw std::runtime_error(path + ": unknown video format (use .mp4, .mkv or .avi): " + avError(rc));
    const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!codec) codec = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    if (!codec) throw std::runtime_error(path + ": no H.264 or MPEG-4 encoder in this FFmpeg");
    codecName_ = codec->name;
    e.stream = avformat_new_stream(e.format, nullptr);
    e.codec = avcodec_alloc_context3(codec);
    if (!e.stream || !e.codec) throw std::runtime_error(path + ": out of memory");
    e.codec->width = width_;
    e.codec->height = height_;
    e.codec->time_base = AVRational{1, fps};
    e.codec->framerate = AVRational{fps, 1};
    e.codec->pix_fmt = AV_PIX_FMT_YUV420P;
    e.codec->gop_size = 2 * fps;
    if (codec->id == AV_CODEC_ID_H264) {
        av_opt_set(e.codec->priv_data, "preset", "veryfast", 0);
        av_opt_set(e.codec->priv_data, "crf", "20", 0);
    } else {
        e.codec->bit_rate = std::int64_t(width_) * height_ * fps / 4; // ~0.25 bit per pixel
    }
    if (e.format->oformat->flags & AVFMT_GLOBALHEADER) e.codec->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((rc = avcodec_open2(e.codec, codec, nullptr)) < 0)
        throw std::runtime_error(path + ": cannot open the " + codecName_ + " encoder: " + avError(rc));
    avcodec_parameters_from_context(e.stream->codecpar, e.codec);
    e.stream->time_base = e.codec->time_base;
    if (!(e.format->oformat->flags & AVFMT_NOFILE) && (rc = avio_open(&e.format->pb, path.c_str(), AVIO_FLAG_WRITE)) < 0)
        throw std::runtime_error(path + ": cannot create the file: " + avError(rc));
    if ((rc = avformat_write_header(e.format, nullptr)) < 0)
        throw std::runtime_error(path + ": cannot write the header: " + avError(rc));
    e.headerWritten = true;
    e.frame = av_frame_alloc();
    e.packet = av_packet_alloc();
    e.frame->format = AV_PIX_FMT_YUV420P;
    e.frame->width = width_;
    e.frame->height = height_;
    if (!e.frame || !e.packet || av_frame_get_buffer(e.frame, 0) < 0) throw std::runtime_error(path + ": out of memory");
    e.scale = sws_getContext(width_, height_, AV_PIX_FMT_RGBA, width_, height_, AV_PIX_FMT_YUV420P, SWS_BILINEAR,
                             nullptr, nullptr, nullptr);
    if (!e.scale) throw std::runtime_error(path + ": no RGBA -> YUV conversion");
    worker_ = std::thread([this] { run(); });
}

VideoRecorder::~VideoRecorder() {
    try {
        finish();
    } catch (const std::exception&) {
        // The caller did not ask for finish(): nothing to report to.
    }
}

bool VideoRecorder::addFrame(std::vector<std::uint8_t> rgba, double seconds, bool bottomUp) {
    if (rgba.size() != std::size_t(sourceWidth_) * std::size_t(sourceHeight_) * 4) return false;
    const auto pts = std::int64_t(std::floor(std::max(seconds, 0.0) * fps_));
    std::lock_guard lock(mutex_);
    if (closing_ || pts <= lastPts_) return false;
    if (queue_.size() >= kMaxQueuedFrames) {
        ++dropped_;
        return false;
    }
    lastPts_ = pts;
    queue_.push_back({std::move(rgba), pts, bottomUp});
    wake_.notify_one();
    return true;
}

void VideoRecorder::run() {
    Encoder& e = *encoder_;
    for (;;) {
        Frame f;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return !queue_.empty() || closing_; });
            if (queue_.empty()) break;
            f = std::move(queue_.front());
            queue_.pop_front();
        }
        try {
            av_frame_make_writable(e.frame);
            const int stride = sourceWidth_ * 4;
            // Bottom-up: start at the top row of the picture (the buffer's last) and walk back.
            const std::uint8_t* src = f.bottomUp ? f.rgba.data() + std::size_t(stride) * (sourceHeight_ - 1) : f.rgba.data();
            const int srcStride = f.bottomUp ? -stride : stride;
            sws_scale(e.scale, &src, &srcStride, 0, height_, e.frame->data, e.frame->linesize);
            e.frame->pts = f.pts;
            e.encode(e.frame, path_);
        } catch (const std::exception& ex) {
            std::lock_guard lock(mutex_);
            if (error_.empty()) error_ = ex.what();
        }
        std::lock_guard lock(mutex_);
        ++encoded_;
        drained_.notify_all();
    }
}

void VideoRecorder::finish(const std::function<void(double)>& progress) {
    std::size_t total = 0;
    {
        std::unique_lock lock(mutex_);
        if (finished_) return;
        finished_ = true;
        total = queue_.size();
        const std::size_t start = encoded_;
        while (!queue_.empty()) {
            drained_.wait_for(lock, std::chrono::milliseconds(100));
            if (progress && total) {
                const double fraction = std::min(1.0, double(encoded_ - start) / double(total));
                lock.unlock();
                progress(fraction);
                lock.lock();
            }
        }
        closing_ = true;
        wake_.notify_all();
    }
    worker_.join();
    encoder_->encode(nullptr, path_);
    const int rc = av_write_trailer(encoder_->format);
    if (progress) progress(1.0);
    std::lock_guard lock(mutex_);
    if (!error_.empty()) throw std::runtime_error(error_);
    if (rc < 0) throw std::runtime_error(path_ + ": cannot finish the file: " + avError(rc));
}

std::size_t VideoRecorder::framesEncoded() const {
    std::lock_guard lock(mutex_);
    return encoded_;
}

std::size_t VideoRecorder::framesDropped() const {
    std::lock_guard lock(mutex_);
    return dropped_;
}

} // namespace atrium::widgets
