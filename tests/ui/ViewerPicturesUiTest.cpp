// The blood and the pictures over the viewer's view (under Xvfb in CI): real-time flow
// baked once and played at the heart rate, the lecture's pictures (axes, scale bar,
// labels, cycle panel, recording indicator), painted in the view's frame without
// changing the scene, and kept in surface mode.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/window/CardiacCyclePanel.h"
#include "widgets/window/ControlBar.h"
#include "widgets/view/ColorMap.h"
#include "widgets/window/MainWindow.h"
#include "widgets/view/SceneView.h"
#include "widgets/media/VideoRecorder.h"
#include "widgets/view/ViewAnnotations.h"
#include "tests/ui/UiTestSupport.h"
#include "tests/ui/ViewerUiTestSupport.h"

#include <QAction>
#include <QCursor>
#include <QScreen>
#include <QDir>
#include <QElapsedTimer>
#include <QMenuBar>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <memory>

using namespace atrium;
using atrium::test::FreshHeartCache;
using atrium::test::openViewer;
using atrium::test::PaintCounter;
using atrium::test::runTicks;
using atrium::test::waitFor;
using atrium::test::waitForBlood;
using widgets::MainWindow;
using widgets::SceneView;

namespace {

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

} // namespace

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
