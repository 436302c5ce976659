// icon_raster SVG SIZE OUT.png: renders the application icon at one size for the
// desktop's hicolor theme, at build time, through Qt's SVG image plugin (libqt6svg6,
// which the viewer needs anyway), so that no PNG is kept beside its source.
#include <QGuiApplication>
#include <QImage>
#include <QImageReader>
#include <QSaveFile>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: icon_raster SVG SIZE OUT.png\n");
        return 1;
    }
    qputenv("QT_QPA_PLATFORM", "offscreen"); // no display at build time
    QGuiApplication app(argc, argv);
    const int size = std::atoi(argv[2]);
    if (size < 16 || size > 1024) {
        std::fprintf(stderr, "icon_raster: SIZE must be 16-1024, got '%s'\n", argv[2]);
        return 1;
    }
    QImageReader reader(QString::fromLocal8Bit(argv[1]), "svg");
    reader.setScaledSize(QSize(size, size));
    const QImage image = reader.read();
    if (image.isNull()) {
        std::fprintf(stderr, "icon_raster: %s: %s (is Qt's SVG plugin, libqt6svg6, installed?)\n", argv[1],
                     qPrintable(reader.errorString()));
        return 1;
    }
    QSaveFile out(QString::fromLocal8Bit(argv[3]));
    if (!out.open(QIODevice::WriteOnly) || !image.save(&out, "PNG") || !out.commit()) {
        std::fprintf(stderr, "icon_raster: %s: could not write (%s)\n", argv[3], qPrintable(out.errorString()));
        return 1;
    }
    return 0;
}
