#include "widgets/media/VideoRecorder.h"

extern "C" {
#include <libavformat/avformat.h>
}

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <stdexcept>

using atrium::widgets::VideoRecorder;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
    const fs::path dir = fs::temp_directory_path() / ("atrium-video-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

std::vector<std::uint8_t> gradient(int w, int h, int shift) {
    std::vector<std::uint8_t> rgba(std::size_t(w) * h * 4);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            std::uint8_t* p = &rgba[(std::size_t(y) * w + x) * 4];
            p[0] = std::uint8_t(x * 2 + shift);
            p[1] = std::uint8_t(y * 3);
            p[2] = std::uint8_t(shift * 5);
            p[3] = 255;
        }
    return rgba;
}

struct VideoFacts {
    int width = 0, height = 0;
    int packets = 0;
    double seconds = 0;
};

VideoFacts inspect(const fs::path& file) {
    AVFormatContext* ctx = nullptr;
    if (avformat_open_input(&ctx, file.c_str(), nullptr, nullptr) < 0) throw std::runtime_error("cannot open " + file.string());
    avformat_find_stream_info(ctx, nullptr);
    VideoFacts f;
    const AVStream* s = ctx->streams[0];
    f.width = s->codecpar->width;
    f.height = s->codecpar->height;
    AVPacket* pkt = av_packet_alloc();
    std::int64_t lastEnd = 0;
    while (av_read_frame(ctx, pkt) >= 0) {
        ++f.packets;
        lastEnd = std::max(lastEnd, pkt->pts + pkt->duration);
        av_packet_unref(pkt);
    }
    f.seconds = double(lastEnd) * av_q2d(s->time_base);
    av_packet_free(&pkt);
    avformat_close_input(&ctx);
    return f;
}

} // namespace

TEST(VideoRecorder, WritesEveryFrameAtItsTime) {
    const fs::path file = scratch("frames.mp4");
    {
        VideoRecorder rec(file.string(), 96, 64, 30);
        // Faster than real time: when the queue is full the frame is refused, and
        // offered again once the encoder has caught up.
        for (int k = 0; k < 45; ++k)
            while (!rec.addFrame(gradient(96, 64, k), k / 30.0 + 1e-6, true))
                std::this_thread::sleep_for(std::chrono::milliseconds(2));
        double last = -1;
        rec.finish([&](double f) {
            EXPECT_GE(f, last);
            last = f;
        });
        EXPECT_DOUBLE_EQ(last, 1.0);
        EXPECT_EQ(rec.framesEncoded(), 45u);
    }
    const VideoFacts v = inspect(file);
    EXPECT_EQ(v.width, 96);
    EXPECT_EQ(v.height, 64);
    EXPECT_EQ(v.packets, 45);
    EXPECT_NEAR(v.seconds, 1.5, 0.05);
}

TEST(VideoRecorder, FramesInTheSameSlotAreSkippedAndOddSizesCropped) {
    const fs::path file = scratch("odd.mp4");
    VideoRecorder rec(file.string(), 97, 65, 10);
    EXPECT_EQ(rec.width(), 96);
    EXPECT_EQ(rec.height(), 64);
    EXPECT_TRUE(rec.addFrame(gradient(97, 65, 0), 0.00, false));
    EXPECT_FALSE(rec.addFrame(gradient(97, 65, 1), 0.05, false)) << "same 1/10 s slot";
    EXPECT_TRUE(rec.addFrame(gradient(97, 65, 2), 0.10, false));
    EXPECT_FALSE(rec.addFrame(std::vector<std::uint8_t>(10), 0.3, false)) << "too few bytes";
    rec.finish();
    EXPECT_EQ(inspect(file).packets, 2);
}

TEST(VideoRecorder, ErrorsNameTheFile) {
    const std::string missing = "/no-such-directory-for-atrium/x.mp4";
    try {
        VideoRecorder rec(missing, 64, 64);
        FAIL() << "expected an error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
    }
    EXPECT_THROW(VideoRecorder(scratch("x.notavideoformat").string(), 64, 64), std::runtime_error);
    EXPECT_THROW(VideoRecorder(scratch("tiny.mp4").string(), 4, 4), std::runtime_error);
}
