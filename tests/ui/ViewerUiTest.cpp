// The viewer in a real window (under Xvfb in CI): what a user sees at start, that
// scripted input moves the camera exactly as the narrative controllers predict, the
// overlays and actions, settings kept between runs, and the start-up time with a
// cached heart.

#include "narrative/FirstPersonController.h"
#include "narrative/UsimController.h"
#include "widgets/ControlBar.h"
#include "widgets/MainWindow.h"
#include "widgets/SceneView.h"
#include "widgets/SimulationRunner.h"
#include "widgets/VideoRecorder.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMenuBar>
#include <QMouseEvent>
#include <QSettings>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>

using namespace atrium;
using widgets::MainWindow;
using widgets::SceneView;

namespace {

/// Runs the event loop until `done` or `seconds` pass; returns done().
bool waitFor(const std::function<bool()>& done, double seconds) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > seconds * 1000) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QTest::qWait(5);
    }
    return true;
}

std::unique_ptr<MainWindow> openViewer(int particles = 3000) {
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = particles;
    options.persistSettings = false;
    options.headless = true;
    auto w = std::make_unique<MainWindow>(options);
    w->resize(900, 640);
    w->show();
    return w;
}

bool waitForBlood(MainWindow& w, std::uint64_t frames = 3) {
    return waitFor([&] { return w.sceneView()->framesWithBlood() >= frames; }, 240);
}

/// Share of the image's pixels that look like blood (saturated red) and like the
/// translucent wall (pink-brown: red over green over blue, not saturated).
struct PixelCensus {
    double blood = 0, wall = 0, background = 0;
};

PixelCensus census(const QImage& image) {
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

void sendKey(QWidget* w, QEvent::Type type, Qt::Key key) {
    QKeyEvent e(type, key, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

void sendMouseMove(QWidget* w, QPointF p) {
    QMouseEvent e(QEvent::MouseMove, p, w->mapToGlobal(p), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(w, &e);
}

/// Waits for exactly `ticks` more camera updates.
void runTicks(SceneView* v, std::uint64_t ticks) {
    const std::uint64_t target = v->cameraTicks() + ticks;
    ASSERT_TRUE(waitFor([&] { return v->cameraTicks() >= target; }, 60));
}

double distance(const narrative::Vec3& a, const narrative::Vec3& b) { return length(a - b); }

} // namespace

TEST(Viewer, DefaultStartShowsTheHeartAndTheBlood) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w)) << "no blood drawn; failure: " << (w->sceneView()->runner() ? w->sceneView()->runner()->failure() : "no runner");
    const QImage image = w->sceneView()->renderImage(QSize(640, 400));
    const PixelCensus c = census(image);
    // Not a blank frame: the heart fills a good part of the home view, its blood shows
    // through the translucent wall, and the wall's rim is visible around it.
    EXPECT_GT(c.blood, 0.03) << "blood share";
    EXPECT_GT(c.wall, 0.005) << "wall share";
    EXPECT_GT(c.background, 0.3) << "background share";
    EXPECT_LT(c.blood + c.wall, 0.7);

    // Hiding the blood leaves the wall and removes the blood-red pixels.
    w->sceneView()->setBloodVisible(false);
    const PixelCensus hidden = census(w->sceneView()->renderImage(QSize(640, 400)));
    EXPECT_LT(hidden.blood, 0.2 * c.blood);
    EXPECT_GT(hidden.wall, 0.005);
}

TEST(Viewer, UnderASoftwareRasteriserTheSimulationYieldsTheCores) {
    // Xvfb draws with Mesa's llvmpipe, on the cores the simulation runs on: its thread
    // runs at lower priority there, so that the view keeps its frame rate.
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    SceneView* v = w->sceneView();
    ASSERT_TRUE(v->softwareRenderer()) << "these tests run under Xvfb, which draws in software";
    EXPECT_EQ(v->runner()->threadNiceness(), 5);
}

TEST(Viewer, ScreenshotsHaveTheRequestedSizeWithinTheLimit) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    EXPECT_EQ(w->sceneView()->renderImage(QSize(1000, 300)).size(), QSize(1000, 300));
    EXPECT_THROW(w->sceneView()->renderImage(QSize(0, 10)), std::invalid_argument);
    EXPECT_THROW(w->sceneView()->renderImage(QSize(SceneView::kMaxImageSide + 1, 10)), std::invalid_argument);
}

TEST(Viewer, RecordsTheViewToAVideo) {
    auto w = openViewer();
    SceneView* v = w->sceneView();
    ASSERT_TRUE(waitForBlood(*w, 1));
    const std::string path = (QDir::tempPath() + "/atrium-ui-recording.mp4").toStdString();
    std::filesystem::remove(path);
    v->startRecording(path);
    EXPECT_TRUE(v->isRecording());
    const std::uint64_t f0 = v->framesRendered();
    ASSERT_TRUE(waitFor([&] { return v->framesRendered() >= f0 + 20; }, 60));
    std::unique_ptr<widgets::VideoRecorder> recorder = v->stopRecording();
    ASSERT_NE(recorder, nullptr);
    EXPECT_FALSE(v->isRecording());
    recorder->finish();
    EXPECT_GT(recorder->framesEncoded(), 3u);
    EXPECT_GT(std::filesystem::file_size(path), 1000u);
    std::filesystem::remove(path);
    EXPECT_THROW(v->startRecording("/no-such-directory-for-atrium/x.mp4"), std::runtime_error);
    EXPECT_FALSE(v->isRecording());
}

TEST(Viewer, FirstPersonKeysMoveTheCameraAsTheControllerPredicts) {
    auto w = openViewer();
    SceneView* v = w->sceneView();
    ASSERT_TRUE(waitForBlood(*w, 1));
    const double dt = 1.0 / 60.0;
    v->setFixedFrameTime(dt);
    v->setNavigationMode(narrative::CameraMode::FirstPerson);
    v->setFocus();
    runTicks(v, 2);

    narrative::FirstPersonController reference(v->camera().pose());
    reference.setMaxSpeed(v->camera().firstPerson().maxSpeed());
    const narrative::Vec3 start = v->camera().pose().position();

    // W held for 50 updates (0.83 s: past the 0.66 s ramp), then released for 50.
    sendKey(v, QEvent::KeyPress, Qt::Key_W);
    reference.handle(narrative::InputEvent::keyDown(narrative::Key::Forward));
    std::uint64_t t0 = v->cameraTicks();
    runTicks(v, 50);
    sendKey(v, QEvent::KeyRelease, Qt::Key_W);
    const std::uint64_t held = v->cameraTicks() - t0;
    for (std::uint64_t k = 0; k < held; ++k) reference.update(dt);
    reference.handle(narrative::InputEvent::keyUp(narrative::Key::Forward));
    t0 = v->cameraTicks();
    runTicks(v, 50);
    const std::uint64_t coasting = v->cameraTicks() - t0;
    for (std::uint64_t k = 0; k < coasting; ++k) reference.update(dt);

    const narrative::Vec3 end = v->camera().pose().position();
    const double travelled = distance(start, end);
    EXPECT_GT(travelled, 0.3 * reference.maxSpeed()) << "the camera did not move";
    EXPECT_NEAR(distance(end, reference.pose().position()), 0.0, 1e-6 * std::max(1.0, travelled));
    EXPECT_NEAR(length(v->camera().velocity()), 0.0, 1e-9) << "released keys ramp the speed down to rest";
}

TEST(Viewer, UsimMouseOffsetTurnsTheCameraAsTheControllerPredicts) {
    auto w = openViewer();
    SceneView* v = w->sceneView();
    ASSERT_TRUE(waitForBlood(*w, 1));
    const double dt = 1.0 / 60.0;
    v->setFixedFrameTime(dt);
    v->setNavigationMode(narrative::CameraMode::Usim);
    v->setFocus();
    runTicks(v, 2);
    EXPECT_FALSE(v->camera().mouseCaptured()) << "flight modes start with the mouse released";
    const double w0 = v->width(), h0 = v->height();

    // Released: moving the mouse does not steer.
    const double yaw0 = v->camera().pose().yaw();
    sendMouseMove(v, QPointF(w0 * 0.9, h0 * 0.5));
    runTicks(v, 10);
    EXPECT_DOUBLE_EQ(v->camera().pose().yaw(), yaw0);

    // Space takes the mouse; a constant offset right of the centre turns right at a
    // constant rate, the same as a UsimController fed the same input.
    sendKey(v, QEvent::KeyPress, Qt::Key_Space);
    sendKey(v, QEvent::KeyRelease, Qt::Key_Space);
    ASSERT_TRUE(v->camera().mouseCaptured());
    EXPECT_EQ(v->cursor().shape(), Qt::BlankCursor);
    narrative::UsimController reference(v->camera().pose());
    reference.setMouseCaptured(true);
    const QPointF offset(w0 * 0.5 + h0 * 0.25, h0 * 0.5); // a quarter view height right
    sendMouseMove(v, offset);
    reference.handle(narrative::InputEvent::mouseMove(offset.x(), offset.y(), w0, h0));
    const double yawStart = v->camera().pose().yaw();
    const std::uint64_t t0 = v->cameraTicks();
    runTicks(v, 30);
    const std::uint64_t n = v->cameraTicks() - t0;
    for (std::uint64_t k = 0; k < n; ++k) reference.update(dt);
    const double turned = narrative::wrapAngle(v->camera().pose().yaw() - yawStart);
    EXPECT_LT(turned, -0.05) << "an offset to the right turns right (negative yaw)";
    EXPECT_NEAR(v->camera().pose().yaw(), reference.pose().yaw(), 1e-9);
    EXPECT_NEAR(turned / (double(n) * dt), reference.yawRate(), 1e-9);

    // Space again releases the mouse: the cursor comes back.
    sendKey(v, QEvent::KeyPress, Qt::Key_Space);
    EXPECT_FALSE(v->camera().mouseCaptured());
    EXPECT_EQ(v->cursor().shape(), Qt::ArrowCursor);
}

TEST(Viewer, EveryActionHasATooltipAndTheMainOnesAShortcut) {
    auto w = openViewer();
    int withShortcut = 0, total = 0;
    for (QAction* menu : w->menuBar()->actions())
        for (QAction* a : menu->menu()->actions()) {
            if (a->isSeparator() || a->menu()) continue;
            ++total;
            EXPECT_FALSE(a->toolTip().isEmpty()) << a->text().toStdString();
            withShortcut += !a->shortcut().isEmpty();
        }
    EXPECT_GE(total, 12);
    EXPECT_GE(withShortcut, total - 2);
}

TEST(Viewer, ControlBarSlidesOpenWithInverseExponentialEasing) {
    auto w = openViewer();
    widgets::ControlBar* bar = w->controlBar();
    ASSERT_TRUE(waitFor([&] { return bar->openFraction() < 0.01; }, 5)) << "starts closed";
    // Each step covers the same fraction of the remaining distance: open = 1 - exp(-rate t),
    // fast at first and settling softly.
    bar->setOpen(true);
    const double dt = 1.0 / 60.0;
    for (int k = 1; k <= 30; ++k) {
        bar->advance(dt);
        const double expected = 1.0 - std::exp(-widgets::ControlBar::kEasingRate * k * dt);
        if (expected < 0.995) {
            EXPECT_NEAR(bar->openFraction(), expected, 0.03) << "after " << k << " frames";
        }
    }
    // The real animation closes it again and stops when it gets there.
    bar->setOpen(false);
    EXPECT_TRUE(waitFor([&] { return bar->openFraction() < 0.01; }, 5));
    // The pointer at the top edge of the view opens it.
    bar->pointerAt(2);
    EXPECT_TRUE(bar->isOpen());
    EXPECT_TRUE(waitFor([&] { return bar->openFraction() > 0.99; }, 5));
}

TEST(Viewer, HelpOverlayTogglesWithF1) {
    auto w = openViewer();
    QWidget* help = w->findChild<QWidget*>("helpOverlay");
    ASSERT_NE(help, nullptr);
    EXPECT_FALSE(help->isVisible());
    w->activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(w.get()));
    QTest::keyClick(w.get(), Qt::Key_F1);
    EXPECT_TRUE(help->isVisible());
    QTest::keyClick(help, Qt::Key_Escape);
    EXPECT_FALSE(help->isVisible());
}

TEST(Viewer, SettingsPersistBetweenRuns) {
    QSettings().clear();
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = 2000;
    {
        MainWindow w(options);
        w.show();
        w.sceneView()->setNavigationMode(narrative::CameraMode::FirstPerson);
        w.resize(777, 555);
        w.close();
    }
    widgets::ViewerOptions next;
    next.particleBudget = 2000;
    MainWindow w(next);
    w.show();
    EXPECT_EQ(w.sceneView()->navigationMode(), narrative::CameraMode::FirstPerson);
    EXPECT_EQ(w.size(), QSize(777, 555));
    QSettings().clear();
}

TEST(Viewer, ClosingWhileTheBloodSettlesDoesNotWaitForIt) {
    auto w = openViewer(20000); // several seconds of relaxation
    ASSERT_TRUE(waitFor(
        [&] {
            auto* r = w->sceneView()->runner();
            return r && r->state() == widgets::SimulationRunner::State::Preparing && r->preparation() > 0.0;
        },
        120));
    QElapsedTimer t;
    t.start();
    w.reset();
    EXPECT_LT(t.elapsed(), 2000) << "ms to close the window";
}

TEST(Viewer, StartsInUnderFiveSecondsWithACachedHeart) {
    {
        auto warm = openViewer(); // fills the heart cache if this is the first test to run
        ASSERT_TRUE(waitFor([&] { return warm->secondsToFirstHeart() > 0; }, 240));
    }
    QElapsedTimer t;
    t.start();
    auto w = openViewer();
    ASSERT_TRUE(waitFor([&] { return w->secondsToFirstHeart() > 0; }, 30));
    EXPECT_LT(t.elapsed() / 1000.0, 5.0) << "from opening the window to the heart drawn";
}

int main(int argc, char** argv) {
    ::testing::InitGoogleTest(&argc, argv);
    if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS(); // listing needs no display
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AtriumTest");
    QApplication::setApplicationName("AtriumUiTest");
    return RUN_ALL_TESTS();
}
