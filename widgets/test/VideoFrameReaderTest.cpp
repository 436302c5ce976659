// Frames of a video at exact times (narrative video overlays in screenshots and
// exports): a clip whose frame k is grey level 10 k, read forwards, backwards, looped
// and past its end.

#include "widgets/media/VideoFrameReader.h"
#include "widgets/media/VideoRecorder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using atrium::widgets::VideoFrameReader;
using atrium::widgets::VideoRecorder;

namespace {

/// 20 frames at 10 fps, 64 x 48, frame k all grey 10 k.
std::string greyClip() {
    const auto path = std::filesystem::temp_directory_path() / "atrium-grey-clip.mp4";
    VideoRecorder clip(path.string(), 64, 48, 10);
    for (int k = 0; k < 20; ++k) {
        std::vector<std::uint8_t> rgba(64 * 48 * 4, std::uint8_t(10 * k));
        EXPECT_TRUE(clip.addFrame(rgba, (k + 0.5) / 10.0, false)) << "frame " << k;
    }
    clip.finish();
    return path.string();
}

/// The grey level in the middle of the frame at `seconds` (-1 for no frame).
int greyAt(VideoFrameReader& reader, double seconds, bool loop = false) {
    const QImage frame = reader.frameAt(seconds, loop);
    return frame.isNull() ? -1 : qGray(frame.pixel(32, 24));
}

} // namespace

TEST(VideoFrameReader, FramesAtExactTimes) {
    VideoFrameReader reader(greyClip());
    EXPECT_NEAR(reader.duration(), 2.0, 0.15);
    // Forwards, as an export reads it (mid-slot times at 30 fps): each time shows the
    // frame it falls in.
    for (int i = 0; i < 60; ++i) {
        const double t = (i + 0.5) / 30.0;
        EXPECT_NEAR(greyAt(reader, t), 10 * int(t * 10), 6) << "at " << t << " s";
    }
    // Backwards and jumps.
    EXPECT_NEAR(greyAt(reader, 0.25), 20, 6);
    EXPECT_NEAR(greyAt(reader, 1.55), 150, 6);
    EXPECT_NEAR(greyAt(reader, 0.05), 0, 6);
    // Past the end: the last frame, or round again when looping.
    EXPECT_NEAR(greyAt(reader, 7.0), 190, 6);
    EXPECT_NEAR(greyAt(reader, 2.0 + 0.35, true), 30, 6);
}

TEST(VideoFrameReader, AFileThatIsNoVideoIsNamed) {
    const auto path = std::filesystem::temp_directory_path() / "atrium-not-a-video.mp4";
    std::ofstream(path) << "not a video";
    try {
        VideoFrameReader reader(path.string());
        FAIL() << "no error";
    } catch (const std::runtime_error& e) {
        EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
    }
}
