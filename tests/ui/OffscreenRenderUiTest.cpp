// The scene drawn headless is the window's scene: one fixed heart wall and blood, drawn
// by a SceneView in a window under X (its QOpenGLWidget's GLX context) and by a
// SceneView drawing offscreen (SceneRenderer on an EglContext, no window), give the
// same picture within a small tolerance (llvmpipe on both under Xvfb; the two contexts
// may still round a little differently).
#include "widgets/view/BloodSource.h"
#include "widgets/view/EglContext.h"
#include "widgets/view/SceneView.h"
#include "tests/ui/UiTestSupport.h"

#include <QColor>
#include <QImage>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <numbers>

namespace {

using namespace atrium;

/// A blood source that always shows one snapshot: an ellipsoidal wall (mm) around a
/// block of blood whose speed rises along x, at a fixed phase.
class FixedBlood : public widgets::BloodSource {
public:
    FixedBlood() {
        auto s = std::make_shared<widgets::BloodSnapshot>();
        const int rings = 24, segments = 48;
        const auto vertex = [&](double theta, double phi) {
            s->wallVertexMm.push_back(float(28.0 * std::sin(theta) * std::cos(phi)));
            s->wallVertexMm.push_back(float(22.0 * std::sin(theta) * std::sin(phi)));
            s->wallVertexMm.push_back(float(40.0 * std::cos(theta)));
        };
        vertex(0, 0);
        for (int i = 1; i < rings; ++i)
            for (int j = 0; j < segments; ++j) vertex(std::numbers::pi * i / rings, 2 * std::numbers::pi * j / segments);
        vertex(std::numbers::pi, 0);
        const auto ring = [&](int i, int j) { return std::uint32_t(1 + (i - 1) * segments + (j % segments)); };
        const std::uint32_t south = std::uint32_t(1 + (rings - 1) * segments);
        for (int j = 0; j < segments; ++j) {
            s->wallTriangles.insert(s->wallTriangles.end(), {0, ring(1, j), ring(1, j + 1)});
            s->wallTriangles.insert(s->wallTriangles.end(), {south, ring(rings - 1, j + 1), ring(rings - 1, j)});
        }
        for (int i = 1; i + 1 < rings; ++i)
            for (int j = 0; j < segments; ++j)
                s->wallTriangles.insert(s->wallTriangles.end(), {ring(i, j), ring(i + 1, j), ring(i + 1, j + 1), ring(i, j),
                                                                 ring(i + 1, j + 1), ring(i, j + 1)});
        s->wallTopology = widgets::nextWallTopology();
        for (double x = -14; x <= 14; x += kSpacingMm)
            for (double y = -10; y <= 10; y += kSpacingMm)
                for (double z = -24; z <= 24; z += kSpacingMm) {
                    s->positionMm.insert(s->positionMm.end(), {float(x), float(y), float(z)});
                    s->speed.push_back(float((x + 14) / 28 * 2.0));
                    s->densityError.push_back(0.f);
                    s->pressure.push_back(float(z));
                }
        s->cyclePhase = 0.3;
        s->heartRateBpm = 60;
        s->backend = "fixed";
        snapshot_ = std::move(s);
    }
    static constexpr double kSpacingMm = 2.5;
    std::shared_ptr<const widgets::BloodSnapshot> latest() const override { return snapshot_; }
    std::uint64_t publications() const override { return 1; }
    void setPaused(bool) override {}
    bool paused() const override { return true; }
    void stepOnce() override {}
    void holdAtPhase(double) override {}
    std::optional<double> pendingHold() const override { return std::nullopt; }
    double particleSpacingMm() const override { return kSpacingMm; }
    std::string status() const override { return {}; }

private:
    std::shared_ptr<const widgets::BloodSnapshot> snapshot_;
};

/// How far two pictures of the same size are apart.
struct Difference {
    double meanPerChannel = 0; ///< mean |a - b| over the pixels and the R, G, B channels (0..255)
    double overThreshold = 0;  ///< share of the pixels with some channel more than 32 apart
};

Difference compare(const QImage& a, const QImage& b) {
    Difference d;
    const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
    double sum = 0, over = 0;
    for (int row = 0; row < x.height(); ++row)
        for (int col = 0; col < x.width(); ++col) {
            const QRgb p = x.pixel(col, row), q = y.pixel(col, row);
            const int dr = std::abs(qRed(p) - qRed(q)), dg = std::abs(qGreen(p) - qGreen(q)), db = std::abs(qBlue(p) - qBlue(q));
            sum += dr + dg + db;
            over += std::max({dr, dg, db}) > 32;
        }
    const double n = double(x.width()) * x.height();
    d.meanPerChannel = sum / (3 * n);
    d.overThreshold = over / n;
    return d;
}

/// Share of the pixels that are not the view's background (so that two blank pictures
/// cannot pass for equal ones).
double drawnShare(const QImage& image) {
    const QImage x = image.convertToFormat(QImage::Format_RGB32);
    double drawn = 0;
    for (int row = 0; row < x.height(); ++row)
        for (int col = 0; col < x.width(); ++col) {
            const QRgb p = x.pixel(col, row);
            drawn += std::abs(qRed(p) - 18) > 24 || std::abs(qGreen(p) - 20) > 24 || std::abs(qBlue(p) - 26) > 24;
        }
    return drawn / (double(x.width()) * x.height());
}

/// A window's view and an offscreen view of the same fixed scene, from the same camera.
struct TwoViews {
    widgets::SceneView window;
    widgets::SceneView offscreen;
    TwoViews() {
        for (widgets::SceneView* v : {&window, &offscreen}) {
            v->resize(480, 360);
            v->setHudVisible(false);
            v->setFixedFrameTime(1.0 / 60);
            v->setBloodSource(std::make_shared<FixedBlood>());
            v->frameHeart({-28, -22, -40}, {28, 22, 40});
        }
        offscreen.renderOffscreen(std::make_unique<widgets::EglContext>()); // never shown: no window at all
        window.show();
    }
    bool drawn() {
        return test::waitFor([&] { return window.framesWithBlood() >= 3 && offscreen.framesWithBlood() >= 3; }, 120);
    }
};

TEST(OffscreenRender, TheHeadlessPictureIsTheWindowsPicture) {
    TwoViews views;
    ASSERT_TRUE(views.drawn()) << "window frames " << views.window.framesWithBlood() << ", offscreen frames "
                               << views.offscreen.framesWithBlood();
    EXPECT_TRUE(views.offscreen.offscreen());
    EXPECT_FALSE(views.window.offscreen());
    EXPECT_FALSE(views.offscreen.glRenderer().empty());

    // What the window shows (its own framebuffer, drawn by paintGL: no overlay is
    // visible here) against the headless view's picture of the same size.
    const QImage shown = views.window.grabFramebuffer();
    const QImage headless = views.offscreen.renderImage(shown.size());
    ASSERT_EQ(headless.size(), shown.size());
    EXPECT_GT(drawnShare(shown), 0.15) << "the window drew too little of the scene to compare";
    EXPECT_GT(drawnShare(headless), 0.15);
    const Difference d = compare(shown, headless);
    EXPECT_LT(d.meanPerChannel, 1.5) << "mean difference per channel";
    EXPECT_LT(d.overThreshold, 0.005) << "share of pixels more than 32 apart";
    std::printf("spheres: mean |difference| %.3f per channel, %.4f %% of the pixels over 32\n", d.meanPerChannel,
                100 * d.overThreshold);
}

TEST(OffscreenRender, TheSurfaceAndItsColoursMatchAtAnotherSize) {
    // The smooth surface's passes (its own framebuffers, then a composite) and the speed
    // colouring, drawn by renderImage at a size other than the view's.
    TwoViews views;
    for (widgets::SceneView* v : {&views.window, &views.offscreen}) {
        v->setFluidMode(widgets::FluidMode::Surface);
        v->setColorQuantity(widgets::ColorQuantity::Speed);
        v->setFixedColorRange(widgets::ColorQuantity::Speed, widgets::ColorRange{0.f, 2.f});
    }
    ASSERT_TRUE(views.drawn());
    const QSize size(640, 400);
    const QImage window = views.window.renderImage(size);
    const QImage headless = views.offscreen.renderImage(size);
    if (const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); !shots.isEmpty()) {
        window.save(shots + "/surface-window.png");
        headless.save(shots + "/surface-offscreen.png");
    }
    ASSERT_EQ(window.size(), size);
    ASSERT_EQ(headless.size(), size);
    EXPECT_GT(drawnShare(window), 0.15);
    const Difference d = compare(window, headless);
    EXPECT_LT(d.meanPerChannel, 1.5);
    EXPECT_LT(d.overThreshold, 0.005);
    std::printf("surface: mean |difference| %.3f per channel, %.4f %% of the pixels over 32\n", d.meanPerChannel,
                100 * d.overThreshold);
    // The headless frames go on at the view's own size after the picture.
    const std::uint64_t frames = views.offscreen.framesRendered();
    ASSERT_TRUE(test::waitFor([&] { return views.offscreen.framesRendered() >= frames + 2; }, 30));
}

} // namespace

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "atrium-offscreen-render-ui-test"); }
