#pragma once
// Shared by the viewer's UI tests (ViewerUiTest.cpp and the Viewer*UiTest.cpp beside it):
// the viewer on the adult phantom, waiting for its blood, a census of a picture's pixels,
// camera ticks, the ticked synthetic heart, paint counting and a fresh heart cache.

#include "sim/heart/HeartPipeline.h"
#include "widgets/window/MainWindow.h"
#include "widgets/view/SceneView.h"
#include "tests/ui/UiTestSupport.h"

#include <QAction>
#include <QByteArray>
#include <QColor>
#include <QEvent>
#include <QImage>
#include <QObject>
#include <QStringList>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>

namespace atrium::test {

inline std::unique_ptr<widgets::MainWindow> openViewer(int particles = 3000) {
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = particles;
    options.persistSettings = false;
    options.headless = true;
    auto w = std::make_unique<widgets::MainWindow>(options);
    w->resize(900, 640);
    w->show();
    return w;
}

inline bool waitForBlood(widgets::MainWindow& w, std::uint64_t frames = 3) {
    return waitFor([&] { return w.sceneView()->framesWithBlood() >= frames; }, 240);
}

/// Share of the image's pixels that look like blood (saturated red) and like the
/// translucent wall (pink-brown: red over green over blue, not saturated).
struct PixelCensus {
    double blood = 0, wall = 0, background = 0;
};

inline PixelCensus census(const QImage& image) {
    PixelCensus c;
    const double n = double(image.width()) * image.height();
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor p = image.pixelColor(x, y);
            const int r = p.red(), g = p.green(), b = p.blue();
            if (r < 40 && g < 40 && b < 45) c.background += 1;
            else if (r > 60 && g < 0.45 * r && b < 0.45 * r) c.blood += 1;
            else if (r > 45 && g >= 0.45 * r && g < 0.92 * r && b < 0.92 * r) c.wall += 1;
        }
    c.blood /= n;
    c.wall /= n;
    c.background /= n;
    return c;
}

/// Waits for exactly `ticks` more camera updates.
inline void runTicks(widgets::SceneView* v, std::uint64_t ticks) {
    const std::uint64_t target = v->cameraTicks() + ticks;
    ASSERT_TRUE(waitFor([&] { return v->cameraTicks() >= target; }, 60));
}

inline double distance(const narrative::Vec3& a, const narrative::Vec3& b) { return length(a - b); }

/// The texts of the File > Synthetic heart entries that are ticked.
inline QStringList checkedPresets(widgets::MainWindow& w) {
    QStringList texts;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->isCheckable() && a->isChecked() && a->toolTip().startsWith("Load the synthetic")) texts << a->text();
    return texts;
}

/// Counts paint events of a widget.
struct PaintCounter : QObject {
    int paints = 0;
    QStringList seen;
    bool eventFilter(QObject*, QEvent* e) override {
        paints += e->type() == QEvent::Paint;
        seen << QString::number(int(e->type()));
        return false;
    }
};

/// Points the heart cache at a fresh folder for one test, so that a load does all its
/// work (the build tree's shared cache would make it instant).
struct FreshHeartCache {
    QTemporaryDir dir;
    QByteArray previous = qgetenv("XDG_CACHE_HOME");
    FreshHeartCache() { qputenv("XDG_CACHE_HOME", dir.path().toUtf8()); }
    ~FreshHeartCache() { qputenv("XDG_CACHE_HOME", previous); }
};

} // namespace atrium::test
