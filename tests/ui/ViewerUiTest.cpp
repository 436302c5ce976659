// The viewer in a real window (under Xvfb in CI): what a user sees at start, that
// scripted input moves the camera by the laws of Poyart 2016 5.2, the
// overlays and actions, settings kept between runs, and the start-up time with a
// cached heart.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshSeries.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/window/CardiacCyclePanel.h"
#include "widgets/window/ControlBar.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/view/ColorMap.h"
#include "widgets/window/HelpOverlay.h"
#include "widgets/window/MainWindow.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/SimulationRunner.h"
#include "widgets/media/VideoRecorder.h"
#include "widgets/view/ViewAnnotations.h"
#include "tests/ui/UiTestSupport.h"

#include <QAction>
#include <QApplication>
#include <QCursor>
#include <QScreen>
#include <QDir>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPointer>
#include <QProgressDialog>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QScrollArea>
#include <QScrollBar>
#include <QWheelEvent>
#include <QLabel>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>

using namespace atrium;
using atrium::test::waitFor;
using atrium::test::writeSphereObj;
using widgets::MainWindow;
using widgets::SceneView;

namespace {

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

/// The texts of the File > Synthetic heart entries that are ticked.
QStringList checkedPresets(MainWindow& w) {
    QStringList texts;
    for (QAction* a : w.findChildren<QAction*>())
        if (a->isCheckable() && a->isChecked() && a->toolTip().startsWith("Load the synthetic")) texts << a->text();
    return texts;
}

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

    // Every pixel is opaque: the translucent wall blends its colour, not the picture's
    // alpha (which, below 1, Qt showed cyan and a PNG as a hole).
    int seeThrough = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) seeThrough += qAlpha(image.pixel(x, y)) < 255;
    EXPECT_EQ(seeThrough, 0);

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

// The camera tests check the window against Poyart 2016 5.2 (and docs/navigation.md),
// not against the controllers themselves, so that a controller bug cannot hide.

TEST(Viewer, FirstPersonKeysRampTheSpeedOverThePapers066Seconds) {
    auto w = openViewer();
    SceneView* v = w->sceneView();
    ASSERT_TRUE(waitForBlood(*w, 1));
    const double dt = 1.0 / 60.0, ramp = 0.66; // Poyart 2016 5.2.2: linear ramps of 0.66 s
    v->setFixedFrameTime(dt);
    v->setNavigationMode(narrative::CameraMode::FirstPerson);
    v->setFocus();
    runTicks(v, 2);
    const double vmax = v->camera().firstPerson().maxSpeed();
    const narrative::Vec3 start = v->camera().pose().position();
    const narrative::Vec3 forward = v->camera().pose().forward();

    // W held: after 1/3 s the speed is half the maximum (linear ramp), after 0.83 s all of it.
    sendKey(v, QEvent::KeyPress, Qt::Key_W);
    std::uint64_t t0 = v->cameraTicks();
    runTicks(v, 20);
    double t = double(v->cameraTicks() - t0) * dt;
    EXPECT_NEAR(length(v->camera().velocity()), vmax * std::min(t / ramp, 1.0), vmax * dt / ramp + 1e-9);
    runTicks(v, 30);
    const double held = double(v->cameraTicks() - t0) * dt;
    EXPECT_NEAR(length(v->camera().velocity()), vmax, 1e-9) << "the maximum speed after the ramp";
    // Released: back to rest in 0.66 s.
    sendKey(v, QEvent::KeyRelease, Qt::Key_W);
    t0 = v->cameraTicks();
    runTicks(v, 20);
    t = double(v->cameraTicks() - t0) * dt;
    EXPECT_NEAR(length(v->camera().velocity()), vmax * std::max(1.0 - t / ramp, 0.0), vmax * dt / ramp + 1e-9);
    runTicks(v, 30);
    EXPECT_NEAR(length(v->camera().velocity()), 0.0, 1e-9) << "released keys ramp the speed down to rest";
    // Up, hold and down: as far as the maximum speed for the time W was held, forward.
    const narrative::Vec3 moved = v->camera().pose().position() - start;
    EXPECT_NEAR(length(moved), vmax * held, 2.0 * vmax * dt);
    EXPECT_GT(dot(moved, forward), 0.999 * length(moved)) << "W moves along the view";
}

TEST(Viewer, FirstPersonViewClosesTheGapAsExpMinus8T) {
    auto w = openViewer();
    SceneView* v = w->sceneView();
    ASSERT_TRUE(waitForBlood(*w, 1));
    const double dt = 1.0 / 60.0, k = 8.0; // Poyart 2016 eq. 5.1, k = 8
    v->setFixedFrameTime(dt);
    v->setNavigationMode(narrative::CameraMode::FirstPerson);
    v->setFocus();
    runTicks(v, 2);
    sendKey(v, QEvent::KeyPress, Qt::Key_Space); // take the mouse
    sendKey(v, QEvent::KeyRelease, Qt::Key_Space);
    ASSERT_TRUE(v->camera().mouseCaptured());
    const QPointF centre(v->width() * 0.5, v->height() * 0.5);
    sendMouseMove(v, centre);
    runTicks(v, 2);
    const double yaw0 = v->camera().pose().yaw();
    sendMouseMove(v, centre + QPointF(40, 0)); // right: turn right
    const std::uint64_t t0 = v->cameraTicks();
    runTicks(v, 6);
    const double t = double(v->cameraTicks() - t0) * dt;
    const double early = narrative::wrapAngle(v->camera().pose().yaw() - yaw0);
    runTicks(v, 180); // 3 s: e^-24, the gap is closed
    const double total = narrative::wrapAngle(v->camera().pose().yaw() - yaw0);
    EXPECT_LT(total, -0.01) << "a pointer move right turns the view right";
    // p(t) = p0 e^{-kt} + p_d (1 - e^{-kt}): the share of the turn done after t.
    EXPECT_NEAR(early / total, 1.0 - std::exp(-k * t), 0.01);
}

TEST(Viewer, UsimMouseOffsetSetsAConstantTurnRate) {
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

    // Space takes the mouse. The pointer's offset from the centre is an angular velocity
    // (Poyart 2016 5.2.1): a constant offset turns at a constant rate, here a quarter
    // view height right, |n| = 0.5 of the half height, turning at
    // turnRate (|n| - deadZone) / (1 - deadZone) (docs/navigation.md).
    sendKey(v, QEvent::KeyPress, Qt::Key_Space);
    sendKey(v, QEvent::KeyRelease, Qt::Key_Space);
    ASSERT_TRUE(v->camera().mouseCaptured());
    EXPECT_EQ(v->cursor().shape(), Qt::BlankCursor);
    sendMouseMove(v, QPointF(w0 * 0.5 + h0 * 0.25, h0 * 0.5));
    const double rate = v->camera().usim().turnRate() * (0.5 - v->camera().usim().deadZone()) /
                        (1.0 - v->camera().usim().deadZone());
    const std::uint64_t t0 = v->cameraTicks();
    const double yawStart = v->camera().pose().yaw();
    for (int part = 0; part < 3; ++part) { // constant: every part turns at the same rate
        const std::uint64_t p0 = v->cameraTicks();
        const double y0 = v->camera().pose().yaw();
        runTicks(v, 10);
        const double partTurn = narrative::wrapAngle(v->camera().pose().yaw() - y0);
        EXPECT_NEAR(-partTurn / (double(v->cameraTicks() - p0) * dt), rate, 0.01 * rate) << "part " << part;
    }
    const double turned = narrative::wrapAngle(v->camera().pose().yaw() - yawStart);
    EXPECT_LT(turned, -0.05) << "an offset to the right turns right (negative yaw)";
    EXPECT_NEAR(-turned / (double(v->cameraTicks() - t0) * dt), rate, 0.01 * rate);

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
    ASSERT_TRUE(atrium::test::activate(*w));
    QTest::keyClick(w.get(), Qt::Key_F1);
    EXPECT_TRUE(help->isVisible());
    QTest::keyClick(help, Qt::Key_Escape);
    EXPECT_FALSE(help->isVisible());
}

// Issue 23: at 1280x800 the F1 sheet was cut off and did not scroll, so the narrative and
// Live keys never showed, and the mouse wheel closed it.
TEST(Viewer, TheHelpSheetScrollsAndListsTheNarrativeAndLiveKeys) {
    auto w = openViewer();
    w->resize(1280, 800);
    ASSERT_TRUE(atrium::test::activate(*w));
    QTest::keyClick(w.get(), Qt::Key_F1);
    auto* help = w->findChild<widgets::HelpOverlay*>("helpOverlay");
    ASSERT_NE(help, nullptr);
    ASSERT_TRUE(help->isVisible());
    auto* scroll = w->findChild<QScrollArea*>("helpScroll");
    ASSERT_NE(scroll, nullptr) << "the sheet does not scroll";
    auto* text = w->findChild<QLabel*>("helpText");
    ASSERT_NE(text, nullptr);
    for (const char* key : {"Play narrative", "Next node", "Stop narrative", "continue a node that waits", "Alt+click",
                            "follow the lecturer"})
        EXPECT_TRUE(text->text().contains(key)) << key;
    QScrollBar* bar = scroll->verticalScrollBar();
    ASSERT_TRUE(waitFor([&] { return bar->maximum() > 0; }, 5)) << "the sheet fits: nothing to scroll at 1280x800";
    // The wheel scrolls the sheet and does not close it (nor reach the view).
    const QPoint at = scroll->viewport()->rect().center();
    QWheelEvent down(at, scroll->viewport()->mapToGlobal(at), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                     Qt::NoScrollPhase, false);
    QApplication::sendEvent(scroll->viewport(), &down);
    EXPECT_TRUE(help->isVisible()) << "the wheel closed the sheet";
    EXPECT_GT(bar->value(), 0) << "the wheel did not scroll the sheet";
    // The keys scroll it to its end, where the last menu's keys are.
    QTest::keyClick(help, Qt::Key_End);
    EXPECT_EQ(bar->value(), bar->maximum());
    EXPECT_TRUE(help->isVisible());
    QTest::keyClick(help, Qt::Key_Escape);
    EXPECT_FALSE(help->isVisible());
}

// Issue 23: the speed legend's automatic range jumped between frames (1.05, 2.24, 1.14 m/s
// within one systole), so a colour meant a different speed each frame. It is held per beat.
TEST(Viewer, TheSpeedLegendHoldsItsRangeThroughABeat) {
    // The rule: 0 to the last beat's fastest blood, rounded up to a nice value, >= 2 m/s.
    widgets::BeatSpeedRange beats;
    for (double phase = 0.0; phase < 1.0; phase += 0.05) EXPECT_EQ(beats.update(phase, 1.3f).max, 2.0f); // a normal heart
    for (double phase = 0.0; phase < 1.0; phase += 0.05) beats.update(phase, phase > 0.2 && phase < 0.4 ? 4.3f : 1.0f);
    for (double phase = 0.0; phase < 1.0; phase += 0.05)
        EXPECT_EQ(beats.update(phase, 1.0f).max, 5.0f) << "the stenotic jet's beat sets the next one's range";
    EXPECT_EQ(beats.update(0.0, 1.0f).max, 2.0f); // a normal beat again
    EXPECT_EQ(widgets::niceCeiling(2.24f), 2.5f);
    EXPECT_EQ(widgets::niceCeiling(0.7f), 0.8f);

    // In the window: the range does not move from snapshot to snapshot within a beat.
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    SceneView* v = w->sceneView();
    v->setColorQuantity(widgets::ColorQuantity::Speed);
    auto snapshot = v->shownSnapshot();
    widgets::ColorRange range = v->colorRange();
    double phase = snapshot->cyclePhase;
    int snapshots = 0;
    while (snapshots < 25) {
        ASSERT_TRUE(waitFor([&] { return v->shownSnapshot() != snapshot; }, 60)) << "the blood stopped";
        snapshot = v->shownSnapshot();
        ++snapshots;
        const widgets::ColorRange now = v->colorRange();
        EXPECT_EQ(now.min, 0.0f);
        EXPECT_GE(now.max, widgets::BeatSpeedRange::kFloor);
        EXPECT_EQ(widgets::niceCeiling(now.max), now.max) << now.max << " m/s is not a round top";
        const bool newBeat = snapshot->cyclePhase < phase;
        if (!newBeat) EXPECT_GE(now.max, range.max) << "the range narrowed within a beat at phase " << snapshot->cyclePhase;
        range = now;
        phase = snapshot->cyclePhase;
    }
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

TEST(Viewer, ANewStartOpensTheFourChamberHeartWithItsRightHeartShell) {
    // No heart asked for and no settings: the four-chamber phantom, its left heart
    // with blood (baked), its right heart as the display-only shell; the menu marks it.
    QSettings().clear();
    widgets::ViewerOptions options;
    options.particleBudget = 2000;
    MainWindow w(options);
    bool loaded = false;
    QObject::connect(&w, &MainWindow::heartLoaded, [&] { loaded = true; });
    w.resize(900, 640);
    w.show();
    ASSERT_TRUE(waitFor([&] { return loaded; }, 240));
    EXPECT_EQ(w.windowTitle(), "Atrium - phantom four-chamber");
    EXPECT_EQ(checkedPresets(w), QStringList{"four-chamber (default)"});
    // On the CPU the blood is baked and plays in real time (live on a GPU).
    EXPECT_TRUE(w.realTimeFlow());
    ASSERT_TRUE(waitForBlood(w)) << "the left heart carries the blood";
    EXPECT_NE(dynamic_cast<widgets::BakedFlowPlayer*>(w.sceneView()->bloodSource()), nullptr);
    EXPECT_GT(w.sceneView()->shellTriangles(), 1000u) << "the right heart shown as a shell";
    // The mitral and aortic leaflets are shown, and open and close as the beat plays
    // (issue 23: valves were plain holes).
    EXPECT_GT(w.sceneView()->leafletTriangles(), 200u);
    bool mitralOpen = false, aorticOpen = false, aorticShut = false;
    EXPECT_TRUE(waitFor(
        [&] {
            const std::vector<double> o = w.sceneView()->valveOpenings();
            if (o.size() != 2) return false;
            mitralOpen = mitralOpen || o[0] > 0.99;
            aorticOpen = aorticOpen || o[1] > 0.99;
            aorticShut = aorticShut || o[1] < 0.01;
            return mitralOpen && aorticOpen && aorticShut;
        },
        60))
        << "mitral seen open " << mitralOpen << ", aortic open " << aorticOpen << ", aortic shut " << aorticShut;
    // Its chambers are labelled too, and the home view frames them all.
    QStringList names;
    for (const auto& label : w.annotations()->labels()) {
        names << label.text;
        const auto at = w.sceneView()->project(label.positionMm, w.sceneView()->size());
        ASSERT_TRUE(at.has_value()) << label.text.toStdString();
        EXPECT_TRUE(w.sceneView()->rect().contains(at->toPoint())) << label.text.toStdString();
    }
    EXPECT_EQ(names, (QStringList{"LV", "LA", "Ao", "RA", "RV", "PA"}));
    // A label behind another chamber is faded (issue 23: PA sat on the left atrium).
    // Seen from beyond the RV on the line from the LV's label through the RV's, the
    // sight line to the LV crosses the RV's shell twice and the LV's wall once; the one
    // to the RV crosses only its own shell. From beyond the LV, the other way round.
    const auto labelNamed = [&](const QString& text) {
        const auto& labels = w.annotations()->labels();
        return *std::find_if(labels.begin(), labels.end(), [&](const widgets::ChamberLabel& l) { return l.text == text; });
    };
    const widgets::ChamberLabel lv = labelNamed("LV"), rv = labelNamed("RV");
    const narrative::CameraMode mode = w.sceneView()->camera().mode();
    const narrative::CameraPose home = w.sceneView()->camera().pose();
    w.sceneView()->setNavigationMode(narrative::CameraMode::FirstPerson);
    w.sceneView()->camera().setPose(narrative::CameraPose::lookAt(rv.positionMm + (rv.positionMm - lv.positionMm) * 4.0, lv.positionMm));
    EXPECT_TRUE(w.annotations()->labelBehindWall(lv)) << w.sceneView()->surfacesCrossedTo(lv.positionMm);
    EXPECT_FALSE(w.annotations()->labelBehindWall(rv)) << w.sceneView()->surfacesCrossedTo(rv.positionMm);
    w.sceneView()->camera().setPose(narrative::CameraPose::lookAt(lv.positionMm + (lv.positionMm - rv.positionMm) * 4.0, rv.positionMm));
    EXPECT_FALSE(w.annotations()->labelBehindWall(lv)) << w.sceneView()->surfacesCrossedTo(lv.positionMm);
    EXPECT_TRUE(w.annotations()->labelBehindWall(rv)) << w.sceneView()->surfacesCrossedTo(rv.positionMm);
    w.sceneView()->camera().setPose(home);
    w.sceneView()->setNavigationMode(mode);
    // The cycle panel plots the right heart's chambers beside the left's: the RV ejects
    // the LV's stroke volume at its documented EF (docs/heart-phantom.md).
    const widgets::CardiacCycle& cycle = w.cyclePanel()->cycle();
    QStringList curves;
    for (const auto& c : cycle.others) curves << c.name;
    ASSERT_EQ(curves, (QStringList{"LA", "RV", "RA"}));
    const auto [rvEs, rvEd] = std::minmax_element(cycle.others[1].ml.begin(), cycle.others[1].ml.end());
    const auto [lvEs, lvEd] = std::minmax_element(cycle.lvMl.begin(), cycle.lvMl.end());
    EXPECT_NEAR((*rvEd - *rvEs) / *rvEd, 0.56, 0.03);
    EXPECT_NEAR(*rvEd - *rvEs, *lvEd - *lvEs, 0.1 * (*lvEd - *lvEs));
    if (const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); !shots.isEmpty())
        w.sceneView()->grabFramebuffer().save(shots + "/four-chamber.png");
    // Another preset shows no right heart.
    loaded = false;
    w.loadHeart(heart::HeartSource::fromPreset("adult"));
    ASSERT_TRUE(waitFor([&] { return loaded; }, 240));
    EXPECT_EQ(w.sceneView()->shellTriangles(), 0u);
    w.close();
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

/// Names the widgets that moved, resized, showed or hid, or whose window changed its
/// activation or palette, while it watched.
struct GeometryWitness : QObject {
    QStringList events;
    bool eventFilter(QObject* o, QEvent* e) override {
        switch (e->type()) {
        case QEvent::Move: case QEvent::Resize: case QEvent::Show: case QEvent::Hide:
        case QEvent::WindowActivate: case QEvent::WindowDeactivate: case QEvent::PaletteChange:
            events << QStringLiteral("%1 (event %2)").arg(o->objectName()).arg(int(e->type()));
            break;
        default: break;
        }
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

TEST(Viewer, LoadingPaintsAProgressDialogWhileTheViewKeepsDrawing) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    FreshHeartCache cache;
    const std::uint64_t frames0 = w->sceneView()->framesRendered();
    // The UI thread's longest stall while the heart loads: a timer that should fire
    // every 16 ms.
    QElapsedTimer clock;
    clock.start();
    qint64 last = 0, longestStall = 0;
    QTimer ticker;
    ticker.setInterval(16);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        longestStall = std::max(longestStall, clock.elapsed() - last);
        last = clock.elapsed();
    });
    ticker.start();
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&] { loaded = true; });
    PaintCounter painted;
    w->loadHeart(heart::HeartSource::fromPreset("child"));
    QProgressDialog* dialog = w->heartLoader()->dialog();
    ASSERT_NE(dialog, nullptr);
    dialog->installEventFilter(&painted);
    ASSERT_TRUE(waitFor([&] { return loaded; }, 240));
    EXPECT_GE(painted.paints, 3) << "the progress dialog painted";
    EXPECT_GT(w->sceneView()->framesRendered(), frames0 + 20) << "the view drew while the heart loaded";
    // Generous: a shared 2-core machine may stall any process a while; the freeze this
    // guards against held the window for the whole load (2.7 s for this heart).
    EXPECT_LT(longestStall, 2500) << "ms the window did not respond while the heart loaded";
    EXPECT_TRUE(w->windowTitle().contains("child"));
}

TEST(Viewer, OneProgressBarRunsAcrossEveryStageOfALoad) {
    // Issue 20: between the stages of a load (generating, surfaces, interpolating, right
    // heart) the bar ran to its end and began again, and the app looked finished when it
    // was not. One dialog stays up across all of them, its bar never moves back.
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    FreshHeartCache cache;
    const QByteArray dataDirs = qgetenv("XDG_DATA_DIRS");
    qunsetenv("XDG_DATA_DIRS"); // no prepared heart: every stage runs
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&] { loaded = true; });
    w->loadHeart(heart::HeartSource::fromPreset("four-chamber"));
    const QPointer<QProgressDialog> dialog = w->heartLoader()->dialog();
    ASSERT_FALSE(dialog.isNull());
    std::vector<int> values;
    QStringList labels;
    bool shown = false, hiddenBeforeTheEnd = false;
    QTimer sampler;
    sampler.setInterval(20);
    QObject::connect(&sampler, &QTimer::timeout, [&] {
        if (loaded || dialog.isNull()) return;
        values.push_back(dialog->value());
        if (labels.isEmpty() || labels.back() != dialog->labelText()) labels << dialog->labelText();
        if (dialog->isVisible()) shown = true;
        else if (shown && w->heartLoader()->busy()) hiddenBeforeTheEnd = true;
    });
    sampler.start();
    const bool done = waitFor([&] { return loaded; }, 420);
    qputenv("XDG_DATA_DIRS", dataDirs);
    ASSERT_TRUE(done) << "the four-chamber heart, processed from nothing";
    ASSERT_FALSE(values.empty());
    EXPECT_TRUE(std::is_sorted(values.begin(), values.end())) << "the bar moved back";
    EXPECT_TRUE(shown) << "the dialog was never shown";
    EXPECT_FALSE(hiddenBeforeTheEnd) << "the dialog went away while the heart still loaded";
    const QString all = labels.join(" | ");
    for (const char* stage : {"generating phantom", "interpolating", "right heart: "})
        EXPECT_TRUE(all.contains(stage)) << stage << " in " << all.toStdString();
    EXPECT_GT(*std::max_element(values.begin(), values.end()), 800) << "the bar neared its end with the right heart";
}

TEST(Viewer, CancellingALoadKeepsThePreviousHeartRunning) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    FreshHeartCache cache;
    widgets::SimulationRunner* before = w->sceneView()->runner();
    const QString title = w->windowTitle();
    bool cancelled = false, loaded = false;
    QObject::connect(w->heartLoader(), &widgets::HeartLoader::cancelled, [&] { cancelled = true; });
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&] { loaded = true; });
    w->loadHeart(heart::HeartSource::fromPreset("heart-failure"));
    ASSERT_TRUE(waitFor([&] { return w->heartLoader()->dialog() && w->heartLoader()->dialog()->isVisible(); }, 30));
    QPushButton* cancel = w->heartLoader()->dialog()->findChild<QPushButton*>();
    ASSERT_NE(cancel, nullptr);
    QTest::mouseClick(cancel, Qt::LeftButton);
    ASSERT_TRUE(waitFor([&] { return cancelled || loaded; }, 60));
    EXPECT_TRUE(cancelled);
    EXPECT_FALSE(loaded);
    EXPECT_FALSE(w->heartLoader()->busy());
    EXPECT_EQ(w->sceneView()->runner(), before);
    EXPECT_EQ(w->windowTitle(), title);
}

TEST(Viewer, AFailedLoadLeavesOneMessageAndThePreviousHeartRunning) {
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = 3000;
    options.persistSettings = false; // but not headless: errors are shown to a person
    MainWindow w(options);
    w.resize(900, 640);
    w.show();
    ASSERT_TRUE(waitForBlood(w, 1));
    widgets::SimulationRunner* before = w.sceneView()->runner();
    const QString title = w.windowTitle();
    QTemporaryDir empty;
    int messageBoxes = -1, progressDialogs = -1;
    QString message;
    // The message box runs its own event loop: look at the screen from inside it.
    QTimer inspector;
    inspector.setInterval(50);
    QObject::connect(&inspector, &QTimer::timeout, [&] {
        QMessageBox* box = nullptr;
        int boxes = 0, dialogs = 0;
        for (QWidget* top : QApplication::topLevelWidgets()) {
            if (!top->isVisible()) continue;
            if (auto* b = qobject_cast<QMessageBox*>(top)) box = b, ++boxes;
            dialogs += qobject_cast<QProgressDialog*>(top) != nullptr;
        }
        if (!box) return;
        messageBoxes = boxes;
        progressDialogs = dialogs;
        message = box->text();
        box->accept();
    });
    inspector.start();
    w.loadHeart(heart::HeartSource::fromVolumes(empty.path().toStdString()));
    ASSERT_TRUE(waitFor([&] { return messageBoxes >= 0 && !w.heartLoader()->busy(); }, 60));
    EXPECT_EQ(messageBoxes, 1);
    EXPECT_EQ(progressDialogs, 0) << "the progress dialog closes before the message opens";
    EXPECT_TRUE(message.contains(empty.path())) << message.toStdString();
    EXPECT_EQ(w.sceneView()->runner(), before);
    EXPECT_EQ(w.windowTitle(), title);
    const std::uint64_t published = before->publications();
    EXPECT_TRUE(waitFor([&] { return before->publications() > published + 2; }, 30)) << "the previous blood runs on";
}

TEST(Viewer, EveryNewHeartIsFramedWhereverItLies) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    SceneView* v = w->sceneView();
    const narrative::Vec3 adultCenter = v->heartCenter();
    // A pulsing sphere of 30 mm around (259, 68, 278) mm, as a two-phase mesh series.
    QTemporaryDir dir;
    const narrative::Vec3 c{259, 68, 278};
    writeSphereObj((dir.path() + "/ball_00.obj").toStdString(), c, 30);
    writeSphereObj((dir.path() + "/ball_01.obj").toStdString(), c, 26);
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&] { loaded = true; });
    v->camera().orbit().setDistanceLimits(1, 1e6);
    w->loadHeart(heart::HeartSource::fromMeshes(dir.path().toStdString()));
    ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
    EXPECT_LT(distance(v->heartCenter(), c), 1.0);
    EXPECT_NEAR(v->heartRadius(), 30 * std::sqrt(3.0), 2.0);
    const double eyeDistance = distance(v->camera().pose().position(), c);
    EXPECT_GT(eyeDistance, 30.0);
    EXPECT_LT(eyeDistance, 10 * 30.0);
    ASSERT_TRUE(waitFor([&] { return v->shownSnapshot() && !v->shownSnapshot()->wallVertexMm.empty(); }, 60));
    QTest::qWait(200);
    const PixelCensus seen = census(v->renderImage(QSize(320, 200)));
    EXPECT_GT(seen.wall + seen.blood, 0.05) << "the sphere is in view";
    // Orbiting turns round the new centre; H comes back to it.
    v->camera().orbit().setDistanceLimits(1, 1e6);
    w->findChild<QAction*>("homeAction")->trigger();
    EXPECT_NEAR(distance(v->camera().pose().position(), c), eyeDistance, 1e-6);

    // The next heart is framed afresh, not left with this one's camera.
    loaded = false;
    w->loadHeart(heart::HeartSource::fromPreset("adult"));
    ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
    EXPECT_LT(distance(v->heartCenter(), adultCenter), 1e-6);
}

TEST(Viewer, AnOpenVentricleSeriesShowsItsChamberAndAShellAroundIt) {
    // The phantom's ventricle cut out at its valves (a fitted series' shape), with the
    // whole phantom's surface as an outer shell: the cycle panel plots the chamber (its
    // openings closed flat), not the blood pool with the tubes behind its valves.
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 1.5;
    p.phases = 10; // what the viewer shows of a series, not the cycle's phases: kept short
    QTemporaryDir dir;
    const std::filesystem::path root = dir.path().toStdString();
    heart::writeMeshSeries(heart::phantomSurfaces(p, true), root / "lv_%02d.vtk");
    heart::writeMeshSeries(heart::phantomSurfaces(p, false), root / "heart_%02d.vtk");
    auto w = openViewer(1500);
    ASSERT_TRUE(waitForBlood(*w, 1));
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&] { loaded = true; });
    w->loadHeart(heart::HeartSource::fromMeshes((root / "lv_%02d.vtk").string(), heart::HeartPhantom(p).cycleSeconds()),
                 (root / "heart_%02d.vtk").string());
    ASSERT_TRUE(waitFor([&] { return loaded; }, 180));
    const widgets::CardiacCycle& cycle = w->cyclePanel()->cycle();
    EXPECT_EQ(cycle.lvName, "lv");
    ASSERT_EQ(cycle.lvMl.size(), 100u);
    const double edv = *std::max_element(cycle.lvMl.begin(), cycle.lvMl.end()),
                 esv = *std::min_element(cycle.lvMl.begin(), cycle.lvMl.end());
    EXPECT_NEAR(edv, heart::HeartPhantom(p).lvVolumeMl(0.0), 0.06 * edv);
    EXPECT_NEAR((edv - esv) / edv, p.ejectionFraction, 0.05);
    EXPECT_FALSE(cycle.mitralOpen.empty());
    EXPECT_FALSE(cycle.aorticOpen.empty());
    EXPECT_TRUE(waitFor([&] { return w->sceneView()->shellTriangles() > 1000; }, 60)) << "the shell is drawn";
}

TEST(Viewer, ControlBarFitsAnyWidthWithTheRestInItsOverflowMenu) {
    auto w = openViewer();
    widgets::ControlBar* bar = w->controlBar();
    SceneView* v = w->sceneView();
    QWidget* hud = v->findChild<QWidget*>("hud");
    ASSERT_NE(hud, nullptr);
    const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); // a folder for PNGs to look at
    for (const int width : {700, 1024, 1600}) {
        SCOPED_TRACE(width);
        w->resize(width, 700);
        QTest::qWait(100);
        ASSERT_EQ(v->width(), width);
        bar->setOpen(true);
        ASSERT_TRUE(waitFor([&] { return bar->openFraction() > 0.999; }, 5));
        QTest::qWait(50);
        if (!shots.isEmpty()) w->grab().save(QString("%1/bar-%2.png").arg(shots).arg(width));
        // Nothing visible sticks out of the bar or overlaps another control.
        std::vector<QRect> controls;
        for (QWidget* c : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (c->isVisible() && c->width() > widgets::ControlBar::kGap) controls.push_back(c->geometry());
        for (std::size_t i = 0; i < controls.size(); ++i) {
            EXPECT_GE(controls[i].left(), 0);
            EXPECT_LE(controls[i].right(), bar->width());
            for (std::size_t j = i + 1; j < controls.size(); ++j) EXPECT_FALSE(controls[i].intersects(controls[j]));
        }
        // Every action of the bar is a button there or an entry of its overflow menu.
        QMenu* overflow = bar->overflowMenu();
        for (QToolButton* b : bar->findChildren<QToolButton*>()) {
            if (b == bar->overflowButton()) continue;
            EXPECT_TRUE(b->isVisible() || overflow->actions().contains(b->defaultAction())) << b->toolTip().toStdString();
            EXPECT_FALSE(b->toolTip().isEmpty());
        }
        EXPECT_EQ(bar->overflowButton()->isVisible(), width < 1024) << "all fits from 1024 px on";
        // The HUD keeps clear of the open bar.
        EXPECT_GE(hud->y(), bar->y() + bar->height());
        bar->setOpen(false);
    }
}

TEST(Viewer, HelpListsEveryShortcutOfTheMenus) {
    auto w = openViewer();
    const QString html = widgets::HelpOverlay::helpHtml(w->menuBar());
    int shortcuts = 0;
    for (QAction* a : w->findChildren<QAction*>()) {
        if (a->shortcut().isEmpty()) continue;
        bool inMenu = false;
        for (QAction* top : w->menuBar()->actions())
            for (QMenu* m : QList<QMenu*>{top->menu()} + top->menu()->findChildren<QMenu*>())
                inMenu = inMenu || m->actions().contains(a);
        if (!inMenu) continue;
        ++shortcuts;
        EXPECT_TRUE(html.contains(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped()))
            << a->text().toStdString();
    }
    EXPECT_GE(shortcuts, 20);
    for (const char* key : {"Ctrl+R", "Ctrl+P", "Ctrl+O", ">1<", ">4<", ">B<", ">F2<", ">F5<"})
        EXPECT_TRUE(html.contains(key)) << key;
}

TEST(Viewer, NoTwoActionsShareAShortcut) {
    // Issue 23: L was bound to both the chamber labels and the narrative's loop. Qt takes
    // a key that two enabled actions of a window share as ambiguous and runs neither.
    auto w = openViewer();
    std::map<QString, QStringList> byKey;
    for (QAction* a : w->findChildren<QAction*>()) {
        if (a->shortcutContext() == Qt::WidgetShortcut) continue; // only where its widget has focus
        for (const QKeySequence& key : a->shortcuts())
            if (!key.isEmpty()) byKey[key.toString()] << a->text();
    }
    EXPECT_GE(byKey.size(), 20u);
    for (const auto& [key, actions] : byKey)
        EXPECT_EQ(actions.size(), 1) << key.toStdString() << " is bound to " << actions.join(", ").toStdString();
}

TEST(Viewer, TheViewGetsTheKeysBackAfterDialogsAndMenus) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    ASSERT_TRUE(atrium::test::activate(*w));
    SceneView* v = w->sceneView();
    // A dialog (Parameters), closed without a change.
    QTimer::singleShot(300, [] {
        if (QWidget* d = QApplication::activeModalWidget()) d->close();
    });
    w->findChild<QAction*>("parametersAction")->trigger();
    ASSERT_TRUE(waitFor([&] { return QApplication::focusWidget() == v; }, 5)) << "focus after the dialog";
    // A menu closed with Esc: H then goes home instead of opening the Help menu.
    QMenu* file = w->menuBar()->actions().front()->menu();
    w->menuBar()->setActiveAction(w->menuBar()->actions().front());
    ASSERT_TRUE(waitFor([&] { return file->isVisible(); }, 5));
    QTest::keyClick(file, Qt::Key_Escape);
    ASSERT_TRUE(waitFor([&] { return !file->isVisible() && QApplication::focusWidget() == v; }, 5));
    v->camera().orbit().setDistanceLimits(1, 1e6);
    const narrative::Vec3 home = v->camera().pose().position();
    v->camera().handle(narrative::InputEvent::wheel(-5)); // zoom out
    runTicks(v, 5);
    ASSERT_GT(distance(v->camera().pose().position(), home), 1.0);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_H);
    EXPECT_EQ(QApplication::activePopupWidget(), nullptr) << "no menu opened";
    runTicks(v, 2);
    EXPECT_LT(distance(v->camera().pose().position(), home), 1e-6);
}

TEST(Viewer, ParametersAndTheHeartRatePersistBetweenRuns) {
    QSettings().clear();
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = 2000;
    {
        MainWindow w(options);
        bool loaded = false;
        QObject::connect(&w, &MainWindow::heartLoaded, [&] { loaded = true; });
        w.show();
        ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
        widgets::SimulationChoices c = w.simulationChoices();
        c.heartRateBpm = 58;
        c.viscosityMilliPaS = 4.5;
        c.soundSpeed = 12;
        w.restartSimulation(c);
        w.close();
    }
    widgets::ViewerOptions next = options;
    MainWindow w(next);
    bool loaded = false;
    QObject::connect(&w, &MainWindow::heartLoaded, [&] { loaded = true; });
    w.show();
    ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
    EXPECT_DOUBLE_EQ(w.simulationChoices().heartRateBpm, 58);
    EXPECT_DOUBLE_EQ(w.simulationChoices().viscosityMilliPaS, 4.5);
    EXPECT_DOUBLE_EQ(w.simulationChoices().soundSpeed, 12);
    // The synthetic heart menu marks the heart shown.
    EXPECT_EQ(checkedPresets(w), QStringList{"adult"});
    // Another heart plays at its own rate.
    loaded = false;
    w.loadHeart(heart::HeartSource::fromPreset("child"));
    ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
    EXPECT_NEAR(w.simulationChoices().heartRateBpm, 100, 1e-9);
    QSettings().clear();
}

TEST(Viewer, RealTimeFlowBakesOncePlaysAtTheHeartRateAndSwitchesBack) {
    FreshHeartCache cache; // the bake is kept in the cache: start without one
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = 1500;
    options.persistSettings = false;
    options.headless = true;
    options.bake.settleBeats = 0; // a small, quick bake
    options.bake.framesPerBeat = 12;
    MainWindow w(options);
    w.resize(900, 640);
    w.show();
    ASSERT_TRUE(waitForBlood(w, 1));
    SceneView* v = w.sceneView();
    const auto player = [&] { return dynamic_cast<widgets::BakedFlowPlayer*>(v->bloodSource()); };
    QAction* realTime = w.findChild<QAction*>("realTimeFlowAction");
    ASSERT_NE(realTime, nullptr);
    realTime->trigger();
    // While it bakes the wall beats alone, in real time.
    ASSERT_NE(player(), nullptr);
    EXPECT_EQ(player()->beat(), nullptr);
    EXPECT_TRUE(w.flowBaker()->busy());
    ASSERT_TRUE(waitFor([&] { return player() && player()->beat(); }, 300)) << "the bake did not finish";
    EXPECT_EQ(player()->beat()->framesPerBeat(), 12);
    ASSERT_TRUE(waitFor([&] { return v->shownSnapshot() && v->shownSnapshot()->baked && v->framesWithBlood() > 3; }, 30));
    if (const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); !shots.isEmpty()) {
        QTest::qWait(700); // a HUD refresh
        w.grab().save(shots + "/baked-flow.png");
    }

    // The phase moves on at the heart's own rate, whatever the frame rate.
    const double cycle = player()->cycleSeconds();
    EXPECT_NEAR(cycle, 60.0 / 72.0, 1e-6) << "the adult phantom's 72 bpm";
    // (Phase and time sampled together as each frame is drawn: under load a frame
    // may take a good part of a beat.)
    QElapsedTimer clock;
    clock.start();
    std::vector<std::pair<double, double>> samples; // (s, phase)
    const auto sampling = QObject::connect(v, &SceneView::frameRendered,
                                           [&] { samples.emplace_back(clock.elapsed() / 1000.0, player()->phase()); });
    QTest::qWait(1500);
    QObject::disconnect(sampling);
    ASSERT_GE(samples.size(), 3u);
    const double expected = (samples.back().first - samples.front().first) / cycle,
                 moved = samples.back().second - samples.front().second;
    const double off = std::remainder(moved - expected, 1.0);
    // Loose: the time is read when a frame is drawn, the phase moved on a little before.
    EXPECT_LT(std::fabs(off), 0.1) << "phase moved " << moved << ", real time says " << expected;
    // Exactly: each frame moves the phase by its time over the cycle.
    v->setFixedFrameTime(0.01);
    runTicks(v, 1);
    const double before = player()->phase();
    const std::uint64_t ticks0 = v->cameraTicks();
    runTicks(v, 20);
    const double ticks = double(v->cameraTicks() - ticks0);
    EXPECT_NEAR(std::remainder(player()->phase() - before - ticks * 0.01 / cycle, 1.0), 0.0, 1e-9);
    v->setFixedFrameTime(std::nullopt);

    // Seekable by phase while paused.
    w.findChild<QAction*>("pauseAction")->trigger();
    player()->setPhase(0.25);
    ASSERT_TRUE(waitFor([&] { return std::fabs(v->shownSnapshot()->cyclePhase - 0.25) < 1e-9; }, 5));
    QTest::qWait(300);
    EXPECT_DOUBLE_EQ(player()->phase(), 0.25) << "paused playback stays";
    w.findChild<QAction*>("pauseAction")->trigger();

    // Clicking in the cardiac-cycle panel pauses the flow at the phase clicked.
    widgets::CardiacCyclePanel* panel = w.cyclePanel();
    const QRectF plot = panel->plotRect();
    QTest::mouseClick(panel, Qt::LeftButton, {}, QPoint(int(plot.left() + 0.6 * plot.width()), int(plot.center().y())));
    EXPECT_TRUE(player()->paused());
    EXPECT_NEAR(player()->phase(), 0.6, 0.01);
    w.findChild<QAction*>("pauseAction")->trigger();

    // One click back to the live simulation, and again to the bake, now from the cache.
    realTime->trigger();
    ASSERT_NE(v->runner(), nullptr);
    realTime->trigger();
    ASSERT_TRUE(waitFor([&] { return player() && player()->beat(); }, 20)) << "the cached bake was not used";
    EXPECT_TRUE(w.findChild<QAction*>("saveBakedBeatAction")->isEnabled());

    // Saved and opened elsewhere (a student's window), the beat plays without a bake.
    QTemporaryDir share;
    const std::string file = (share.path() + "/beat.atriumflow").toStdString();
    player()->beat()->save(file);
    widgets::ViewerOptions student = options;
    student.flowFile = file;
    MainWindow s(student);
    s.show();
    const auto studentPlayer = [&] { return dynamic_cast<widgets::BakedFlowPlayer*>(s.sceneView()->bloodSource()); };
    ASSERT_TRUE(waitFor([&] { return studentPlayer() && studentPlayer()->beat(); }, 60));
    EXPECT_FALSE(s.flowBaker()->busy());
    EXPECT_EQ(studentPlayer()->beat()->key, player()->beat()->key);
}

TEST(Viewer, LecturePicturesAxesScaleBarLabelsCyclePanelAndRecordingIndicator) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    SceneView* v = w->sceneView();
    widgets::ViewAnnotations* notes = w->annotations();
    ASSERT_NE(notes, nullptr);
    // Chamber labels of the phantom, each in view.
    ASSERT_EQ(notes->labels().size(), 3u);
    for (const auto& label : notes->labels()) {
        const auto at = v->project(label.positionMm, v->size());
        ASSERT_TRUE(at.has_value()) << label.text.toStdString();
        EXPECT_TRUE(v->rect().contains(at->toPoint())) << label.text.toStdString();
    }
    // The scale bar: a round length, and as long on screen as that length at the
    // orbit centre's depth is in the projection.
    const auto bar = notes->scaleBar();
    ASSERT_GT(bar.pixels, 20.0);
    const double mantissa = bar.mm / std::pow(10.0, std::floor(std::log10(bar.mm)));
    EXPECT_TRUE(std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 || std::fabs(mantissa - 5) < 1e-9)
        << bar.mm;
    const narrative::Vec3 c = v->heartCenter(), right = v->camera().pose().right();
    const auto a = v->project(c, v->size()), b = v->project(c + right * bar.mm, v->size());
    ASSERT_TRUE(a && b);
    EXPECT_NEAR(std::hypot(b->x() - a->x(), b->y() - a->y()), bar.pixels, 0.02 * bar.pixels);
    // Both switch off.
    w->findChild<QAction*>("axesAction")->trigger();
    EXPECT_EQ(notes->scaleBar().pixels, 0.0);
    w->findChild<QAction*>("labelsAction")->trigger();
    EXPECT_FALSE(notes->labelsVisible());

    // The cardiac cycle of the adult phantom: its ejection fraction, the aortic valve
    // open in ejection, the mitral in rapid filling, both shut in the isovolumic phases
    // (HeartPhantom::timing(), from Weissler 1968 and Nagueh 2009: docs/heart-phantom.md).
    const widgets::CardiacCycle& cycle = w->cyclePanel()->cycle();
    ASSERT_EQ(cycle.lvMl.size(), 100u);
    const double edv = *std::max_element(cycle.lvMl.begin(), cycle.lvMl.end()),
                 esv = *std::min_element(cycle.lvMl.begin(), cycle.lvMl.end());
    EXPECT_NEAR((edv - esv) / edv, 0.6, 0.05);
    ASSERT_EQ(cycle.others.size(), 1u) << "the adult's left atrium; no right heart";
    EXPECT_EQ(cycle.others[0].name, "LA");
    ASSERT_FALSE(cycle.aorticOpen.empty());
    ASSERT_FALSE(cycle.mitralOpen.empty());
    const auto openAt = [](const std::vector<std::pair<double, double>>& open, double phase) {
        for (auto [from, to] : open)
            if (to >= from ? (phase >= from && phase < to) : (phase >= from || phase < to)) return true;
        return false;
    };
    const heart::CycleTiming timing = heart::HeartPhantom(heart::HeartPhantom::preset("adult")).timing();
    const double ejection = 0.5 * (timing.ejection + timing.isovolumicRelaxation),
                 rapidFilling = 0.5 * (timing.rapidFilling + timing.diastasis),
                 relaxation = 0.5 * (timing.isovolumicRelaxation + timing.rapidFilling),
                 contraction = 0.5 * timing.ejection;
    EXPECT_TRUE(openAt(cycle.aorticOpen, ejection));
    EXPECT_FALSE(openAt(cycle.mitralOpen, ejection));
    EXPECT_TRUE(openAt(cycle.mitralOpen, rapidFilling));
    EXPECT_FALSE(openAt(cycle.aorticOpen, rapidFilling));
    for (const double isovolumic : {contraction, relaxation}) {
        EXPECT_FALSE(openAt(cycle.aorticOpen, isovolumic)) << isovolumic;
        EXPECT_FALSE(openAt(cycle.mitralOpen, isovolumic)) << isovolumic;
    }
    EXPECT_TRUE(w->cyclePanel()->isVisible());
    // Above the volumes, the Wiggers diagram's pressures of the circulation model: an
    // adult's ~120/80 mmHg aorta (Guyton & Hall), within 10 mmHg, and an LV end-diastolic
    // pressure of 4-14 mmHg (normal 5-12) that rises above the aortic peak in systole by
    // no more than a normal valve's gradient (15 mmHg).
    ASSERT_EQ(cycle.lvMmHg.size(), cycle.lvMl.size());
    ASSERT_EQ(cycle.aorticMmHg.size(), cycle.lvMl.size());
    const auto [aoMin, aoMax] = std::minmax_element(cycle.aorticMmHg.begin(), cycle.aorticMmHg.end());
    EXPECT_NEAR(*aoMax, 120.0, 10.0);
    EXPECT_NEAR(*aoMin, 80.0, 10.0);
    // End-diastolic: as the mitral valve closes.
    const std::size_t endDiastole =
        (std::size_t(std::lround(cycle.mitralOpen.front().second * double(cycle.lvMl.size()))) + cycle.lvMl.size() - 1) %
        cycle.lvMl.size();
    EXPECT_GE(cycle.lvMmHg[endDiastole], 4.0);
    EXPECT_LE(cycle.lvMmHg[endDiastole], 14.0);
    EXPECT_LE(*std::max_element(cycle.lvMmHg.begin(), cycle.lvMmHg.end()) - *aoMax, 15.0);
    EXPECT_FALSE(w->cyclePanel()->pressureRect().isEmpty());

    // While recording, a red indicator in the top right corner.
    const std::string path = (QDir::tempPath() + "/atrium-ui-indicator.mp4").toStdString();
    v->startRecording(path);
    QTest::qWait(200);
    const QImage shot = v->grabFramebuffer(); // the annotations are drawn in the view's frame
    int red = 0;
    for (int y = 10; y < 40; ++y)
        for (int x = shot.width() - 110; x < shot.width() - 10; ++x) {
            const QColor p = shot.pixelColor(x, y);
            red += p.red() > 180 && p.green() < 80 && p.blue() < 80;
        }
    EXPECT_GT(red, 20) << "red pixels of the indicator";
    if (const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); !shots.isEmpty()) {
        w->findChild<QAction*>("axesAction")->trigger();
        w->findChild<QAction*>("labelsAction")->trigger();
        QTest::qWait(600);
        w->grab().save(shots + "/pictures.png");
    }
    v->stopRecording()->finish();
    std::filesystem::remove(path);
}

// The pictures over the view that change every frame are painted into the view's own
// frame: their widgets never repaint (each repaint made Qt repaint and upload the whole
// view's backing store, 15 ms a frame on llvmpipe), and painting them leaves OSG's
// drawing of the next frame as it was.
TEST(Viewer, PicturesOverTheViewArePaintedInItsFrameAndLeaveTheSceneAsItWas) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    SceneView* v = w->sceneView();
    widgets::ViewAnnotations* notes = w->annotations();
    widgets::CardiacCyclePanel* panel = w->cyclePanel();
    ASSERT_TRUE(notes->isVisible() && panel->isVisible());

    // Once the control bar has slid shut (an animation that does repaint), and coloured
    // by speed: the legend's automatic range changes with every snapshot.
    auto* bar = w->findChild<widgets::ControlBar*>("controlBar");
    ASSERT_TRUE(waitFor([&] { return !bar->isOpen() && bar->y() == widgets::ControlBar::kHandleHeight - bar->height(); }, 30));
    v->setColorQuantity(widgets::ColorQuantity::Speed);
    const std::uint64_t shown = v->framesRendered();
    ASSERT_TRUE(waitFor([&] { return v->framesRendered() >= shown + 2; }, 30)); // the legend shown
    // A steady view is measured: a picture that moved, resized, showed or hid, or a
    // window repainted as a whole (the menu bar, outside the view, saw it), repaints
    // the widgets it overlaps once, which a loaded machine may delay into the interval.
    // Such an interval is measured again (the HUD resizes as its text's width changes).
    // The pointer away from the window: a picture under it repaints with hover.
    QCursor::setPos(w->screen()->geometry().bottomRight());
    std::map<QWidget*, std::unique_ptr<PaintCounter>> painted;
    for (int attempt = 0; attempt < 8; ++attempt) {
        painted.clear();
        GeometryWitness settled;
        PaintCounter windowPaints;
        w->menuBar()->installEventFilter(&windowPaints);
        w->installEventFilter(&settled);
        v->installEventFilter(&settled);
        for (QWidget* child : v->findChildren<QWidget*>()) {
            child->installEventFilter((painted[child] = std::make_unique<PaintCounter>()).get());
            child->installEventFilter(&settled);
        }
        const std::uint64_t frames0 = v->framesRendered();
        ASSERT_TRUE(waitFor([&] { return v->framesRendered() >= frames0 + 40; }, 60)) << "40 frames (over 0.5 s: the HUD's refresh)";
        for (QObject* o : std::initializer_list<QObject*>{w->menuBar(), w.get(), v}) {
            o->removeEventFilter(&windowPaints);
            o->removeEventFilter(&settled);
        }
        for (const auto& [child, counter] : painted) {
            child->removeEventFilter(counter.get());
            child->removeEventFilter(&settled);
        }
        // The repaints such an event causes may also land in the next interval (seen as
        // every picture repainted once, with no event): only an interval with no event
        // and no repaint passes. A picture that repaints itself does so in every one.
        QStringList repainted;
        for (const auto& [child, counter] : painted)
            if (counter->paints > 0) repainted << child->objectName() + " (" + counter->seen.join(",") + ")";
        if (settled.events.isEmpty() && windowPaints.paints == 0 && repainted.isEmpty()) break;
        ASSERT_LT(attempt, 7) << "eight intervals of 40 frames, none steady: " << settled.events.join(", ").toStdString()
                              << "; window repaints " << windowPaints.paints << "; repainted as widgets over the view: "
                              << repainted.join(", ").toStdString();
    }
    v->setColorQuantity(widgets::ColorQuantity::Blood);

    // One moment, with no event between: the scene alone, the frame with the pictures,
    // the scene alone again.
    const QImage before = v->renderImage(v->size()).convertToFormat(QImage::Format_RGB32);
    const QImage frame = v->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    const QImage after = v->renderImage(v->size()).convertToFormat(QImage::Format_RGB32);
    ASSERT_EQ(frame.size(), before.size());
    if (const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); !shots.isEmpty()) {
        before.save(shots + "/scene.png");
        frame.save(shots + "/frame.png");
    }
    const QRegion pictures = notes->overlayRegion() | panel->geometry() | v->findChild<QWidget*>("hud")->geometry();
    ASSERT_GT(notes->overlayRegion().rectCount(), 3) << "labels, triad and scale bar";
    const auto differs = [](QRgb a, QRgb b) {
        return std::abs(qRed(a) - qRed(b)) > 8 || std::abs(qGreen(a) - qGreen(b)) > 8 || std::abs(qBlue(a) - qBlue(b)) > 8;
    };
    int changedAfter = 0, inPanel = 0, panelPixels = 0, changedElsewhere = 0;
    for (int y = 0; y < before.height(); ++y)
        for (int x = 0; x < before.width(); ++x) {
            changedAfter += differs(before.pixel(x, y), after.pixel(x, y));
            const bool changed = differs(before.pixel(x, y), frame.pixel(x, y));
            if (panel->geometry().contains(x, y)) ++panelPixels, inPanel += changed;
            else if (!pictures.contains(QPoint(x, y))) changedElsewhere += changed;
        }
    EXPECT_EQ(changedAfter, 0) << "painting the pictures changed how OSG draws the next frame";
    EXPECT_GT(inPanel, panelPixels / 10) << "the cycle panel is not in the frame"; // its curves, bars and text
    EXPECT_EQ(changedElsewhere, 0) << "away from the pictures, the frame is not the scene";
}

// Issue 23: in surface mode (F6) the pictures over the view (the statistics, chamber
// labels, legend and cycle panel) were drawn as solid black boxes, every frame.
TEST(Viewer, SurfaceModeKeepsThePicturesOverTheView) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    SceneView* v = w->sceneView();
    widgets::CardiacCyclePanel* panel = w->cyclePanel();
    ASSERT_TRUE(panel->isVisible());
    v->setFluidMode(widgets::FluidMode::Surface);
    const std::uint64_t frames0 = v->framesRendered();
    ASSERT_TRUE(waitFor([&] { return v->framesRendered() >= frames0 + 10; }, 60));
    const QImage frame = v->grabFramebuffer().convertToFormat(QImage::Format_RGB32);
    if (const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); !shots.isEmpty()) frame.save(shots + "/surface.png");
    const QRect r = panel->geometry() & frame.rect();
    ASSERT_FALSE(r.isEmpty());
    int black = 0, bright = 0;
    for (int y = r.top(); y <= r.bottom(); ++y)
        for (int x = r.left(); x <= r.right(); ++x) {
            const QRgb p = frame.pixel(x, y);
            black += qRed(p) < 4 && qGreen(p) < 4 && qBlue(p) < 4;
            bright += qGray(p) > 120; // its text and curves
        }
    const int pixels = r.width() * r.height();
    EXPECT_LT(black, pixels / 2) << "the cycle panel is a black box in surface mode";
    EXPECT_GT(bright, pixels / 200) << "the cycle panel's curves and text are not drawn in surface mode";
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumUiTest"); }
