// atrium_picture_stats FILE: what a headless run wrote, measured for the CLI tests
// (tests/ui/OffscreenCliTest.cmake), which CMake cannot decode itself. Prints one JSON
// line: {"width", "height", "lit", "blood"} of a PNG, or of an MP4's frame in the middle
// of the video (read with FFmpeg, as the viewer reads a narrative's videos).
//  - lit: share of the pixels that differ from the view's background (RGB 18, 20, 26)
//    by more than 24 in some channel: 0 for a blank or uniform picture;
//  - blood: share of the pixels that are saturated red (the blood, the wall over it).
// Exit 1, with a message, when the file cannot be read.
#include "widgets/media/VideoFrameReader.h"

#include <QColor>
#include <QImage>
#include <QString>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: atrium_picture_stats FILE.png|FILE.mp4\n");
        return 1;
    }
    const QString path = QString::fromLocal8Bit(argv[1]);
    QImage image;
    if (path.endsWith(".mp4", Qt::CaseInsensitive)) {
        try {
            atrium::widgets::VideoFrameReader video(path.toStdString());
            image = video.frameAt(0.5 * video.duration(), false);
        } catch (const std::exception& e) {
            std::fprintf(stderr, "atrium_picture_stats: %s\n", e.what());
            return 1;
        }
    } else {
        image.load(path);
    }
    if (image.isNull()) {
        std::fprintf(stderr, "atrium_picture_stats: %s: no picture could be read\n", argv[1]);
        return 1;
    }
    const QColor background(18, 20, 26);
    double lit = 0, blood = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor p = image.pixelColor(x, y);
            const int r = p.red(), g = p.green(), b = p.blue();
            if (std::abs(r - background.red()) > 24 || std::abs(g - background.green()) > 24 ||
                std::abs(b - background.blue()) > 24)
                lit += 1;
            if (r > 60 && g < 0.45 * r && b < 0.45 * r) blood += 1;
        }
    const double n = double(image.width()) * image.height();
    std::printf("{\"width\": %d, \"height\": %d, \"lit\": %.4f, \"blood\": %.4f}\n", image.width(), image.height(), lit / n,
                blood / n);
    return 0;
}
