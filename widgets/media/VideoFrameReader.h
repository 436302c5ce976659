#pragma once
// One frame of a video file at a given time, decoded with FFmpeg's libraries: what a
// narrative's video overlay shows at an exact moment, for screenshots and video export,
// which must not depend on how fast a media player happens to run. Reading forward
// (frame after frame of an export) decodes on from the last frame; reading backwards
// or far ahead seeks first.

#include <QImage>

#include <memory>
#include <string>

namespace atrium::widgets {

class VideoFrameReader {
public:
    /// Opens `path`. Throws std::runtime_error naming the file when it has no video
    /// stream or cannot be decoded.
    explicit VideoFrameReader(const std::string& path);
    ~VideoFrameReader();
    VideoFrameReader(const VideoFrameReader&) = delete;
    VideoFrameReader& operator=(const VideoFrameReader&) = delete;

    /// The frame on screen `seconds` after the start (the last frame whose time is at or
    /// before it), as RGB. With `loop`, times past the end wrap round; without, they
    /// show the last frame. Null when nothing could be decoded.
    QImage frameAt(double seconds, bool loop);
    /// Seconds, from the container (0 when it does not say).
    double duration() const { return duration_; }
    const std::string& path() const { return path_; }

private:
    struct Decoder;
    bool decodeNext();              // the next frame into next_; false at the end
    void decodeUntil(double seconds);

    std::string path_;
    std::unique_ptr<Decoder> d_;
    double duration_ = 0.0;
    double currentTime_ = -1.0; // time of the frame in `current_`
    double nextTime_ = -1.0;    // time of the frame in `next_`
    QImage current_, next_;
};

} // namespace atrium::widgets
