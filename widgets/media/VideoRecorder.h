#pragma once
// Records the view to a video file with FFmpeg's libraries: H.264 (libx264) in MP4
// when the codec is present, MPEG-4 Part 2 otherwise. Frames are handed over as RGBA
// with a presentation time and encoded on a worker thread, so recording costs the
// render loop one read-back per recorded frame and never waits for the encoder
// (while the queue is full, frames are dropped and counted).

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace atrium::widgets {

class VideoRecorder {
public:
    static constexpr std::size_t kMaxQueuedFrames = 32;

    /// Opens `path` for frames of width x height pixels (odd sizes are cropped by one
    /// pixel: the encoder needs even sizes) at `fps` frames per second. Throws
    /// std::runtime_error naming the file and the reason when it cannot.
    VideoRecorder(const std::string& path, int width, int height, int fps = 30);
    /// Finishes the file if finish() was not called.
    ~VideoRecorder();
    VideoRecorder(const VideoRecorder&) = delete;
    VideoRecorder& operator=(const VideoRecorder&) = delete;

    /// Queues one frame: RGBA rows of sourceWidth x sourceHeight pixels (other sizes are
    /// refused), bottom row first when
    /// `bottomUp` (OpenGL's read-back order). `seconds` since the recording started
    /// sets its presentation time; frames within the same 1/fps slot as the previous
    /// one are skipped. Returns false when the frame was dropped or skipped.
    bool addFrame(std::vector<std::uint8_t> rgba, double seconds, bool bottomUp);

    /// Encodes what is queued and writes the file's trailer. `progress` gets the
    /// fraction of the queued frames encoded so far. Throws std::runtime_error on a
    /// write error. Safe to call once; later calls do nothing.
    void finish(const std::function<void(double)>& progress = {});

    int width() const { return width_; }   ///< encoded (even) size
    int height() const { return height_; }
    int sourceWidth() const { return sourceWidth_; } ///< the size addFrame expects
    int sourceHeight() const { return sourceHeight_; }
    std::size_t framesEncoded() const;
    std::size_t framesDropped() const;
    const std::string& codecName() const { return codecName_; }

private:
    struct Frame {
        std::vector<std::uint8_t> rgba;
        std::int64_t pts;
        bool bottomUp;
    };
    struct Encoder;
    void run();

    std::string path_;
    int width_, height_, sourceWidth_, sourceHeight_, fps_;
    std::string codecName_;
    std::unique_ptr<Encoder> encoder_;
    mutable std::mutex mutex_;
    std::condition_variable wake_, drained_;
    std::deque<Frame> queue_;
    std::int64_t lastPts_ = -1;
    std::size_t encoded_ = 0, dropped_ = 0;
    bool closing_ = false, finished_ = false;
    std::string error_;
    std::thread worker_;
};

} // namespace atrium::widgets
