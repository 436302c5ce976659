// A lecture's baked flow in the viewer (under Xvfb in CI): it plays when the lecture
// opens, one click from the live simulation; it is not saved as the user's choice; a
// mesh-series heart travels inside the package with its flow; and a lecture opened while
// another heart loads brings its own heart and flow.

#include "narrative/package/ContentPackage.h"
#include "tests/ui/LectureWindow.h"
#include "tests/ui/UiTestSupport.h"
#include "tests/ui/LectureUiTestSupport.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshSeries.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/view/SceneView.h"

#include <QAction>
#include <QDir>
#include <QLabel>
#include <QSettings>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

using namespace atrium;
using widgets::MainWindow;

namespace {

using atrium::test::kLecture;
using atrium::test::openLecture;
using atrium::test::waitFor;

/// A small baked beat (docs/baked-flow.md) named as baked in `heart`: three particles, 6 frames.
void writeFlow(const std::string& file, const std::string& heart) {
    std::vector<heart::BloodFrame> frames(6);
    for (std::size_t k = 0; k < frames.size(); ++k) {
        const float x = float(k);
        frames[k].positionMm = {x, 0, -20, 5, x, -30, -5, 0, -40};
        frames[k].velocity = {0.1f, 0, 0, 0, 0.1f, 0, 0, 0, -0.2f};
        frames[k].densityError = {0.01f, 0, -0.01f};
        frames[k].pressure = {10, 20, 30};
    }
    sph::Aabb box;
    box.lo = {-60, -60, -90};
    box.hi = {60, 60, 30};
    heart::BakedBeat(heart::flowCacheKey(heart, 0.8, {}, {}), 0.8, 2.0, box, frames).save(file);
}

/// A copy of the sample lecture at `file` whose flow is a small beat named as baked in
/// `heart`, re-signed with its lock's password.
void writeLectureWithFlow(const QString& file, const std::string& heart) {
    const std::string flow = file.toStdString() + ".atriumflow";
    writeFlow(flow, heart);
    auto p = package::ContentPackage::open(kLecture.toStdString());
    ASSERT_TRUE(p.unlock("atrium-demo"));
    ASSERT_TRUE(p.addFile("flow/beat.atriumflow", flow));
    ASSERT_TRUE(p.setFlow("flow/beat.atriumflow"));
    p.save(file.toStdString());
}

const widgets::BakedFlowPlayer* bakedPlayer(const MainWindow& w) {
    return dynamic_cast<const widgets::BakedFlowPlayer*>(w.sceneView()->bloodSource());
}

} // namespace

TEST(LectureUi, ALecturesBakedFlowPlaysWhenItOpensOneClickFromLive) {
    QTemporaryDir dir;
    const QString lecture = dir.filePath("with-flow.atrium");
    const std::string sampleHeart = // the sample lecture's heart
        heart::heartIdentity(heart::HeartSource::fromPreset("four-chamber"), heart::PipelineSettings::forBlood());
    writeLectureWithFlow(lecture, sampleHeart);
    auto w = openLecture(lecture);
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));

    // The lecture's beat plays at once, in real time: no bake, the same blood on every screen.
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(*w) && bakedPlayer(*w)->beat(); }, 30)) << "no baked beat plays";
    const heart::BakedBeat* beat = w->lectureUi()->lecture()->flow().get();
    ASSERT_NE(beat, nullptr);
    EXPECT_EQ(bakedPlayer(*w)->beat(), beat) << "the lecture's own beat";
    EXPECT_EQ(heart::bakedHeartOf(*beat), sampleHeart);
    EXPECT_TRUE(w->realTimeFlow());
    EXPECT_FALSE(w->flowBaker()->busy());
    auto* hud = w->sceneView()->findChild<QLabel*>("hud");
    ASSERT_NE(hud, nullptr);
    EXPECT_TRUE(waitFor([&] { return hud->text().contains("baked beat of the lecture, real time"); }, 10))
        << hud->text().toStdString();
    const auto snapshot = bakedPlayer(*w)->latest();
    ASSERT_NE(snapshot, nullptr);
    EXPECT_EQ(snapshot->particles(), 3u);

    // One click back to the live simulation, and one more to the lecture's beat again.
    QAction* realTime = w->findChild<QAction*>("realTimeFlowAction");
    ASSERT_NE(realTime, nullptr);
    realTime->trigger();
    EXPECT_FALSE(w->realTimeFlow());
    EXPECT_EQ(bakedPlayer(*w), nullptr) << "the blood is simulated live";
    EXPECT_NE(w->sceneView()->bloodSource(), nullptr);
    realTime->trigger();
    ASSERT_NE(bakedPlayer(*w), nullptr);
    EXPECT_EQ(bakedPlayer(*w)->beat(), beat) << "the lecture's beat, not a bake";
    EXPECT_FALSE(w->flowBaker()->busy());
    realTime->trigger(); // live again, so that nothing bakes below

    // A lecture whose flow was baked in another heart: refused, saying so; the blood stays live.
    const QString other = dir.filePath("other-heart.atrium");
    writeLectureWithFlow(other, heart::heartIdentity(heart::HeartSource::fromPreset("athlete"),
                                                     heart::PipelineSettings::forBlood()));
    QString refused;
    QObject::connect(w.get(), &MainWindow::flowRefused, [&refused](const QString& m) { refused = m; });
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&loaded] { loaded = true; });
    QString error;
    ASSERT_TRUE(w->lectureUi()->openNow(other, &error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return loaded; }, 240));
    EXPECT_TRUE(refused.contains("The lecture's baked flow was baked in another heart")) << refused.toStdString();
    EXPECT_FALSE(w->realTimeFlow());
    EXPECT_EQ(bakedPlayer(*w), nullptr);
    EXPECT_EQ(w->suppliedFlow(), nullptr);
}

TEST(LectureUi, ALecturesFlowIsNotSavedAsTheUsersChoice) {
    // The sample lecture carries a baked beat. Opening it turns real-time flow on, but
    // the next start without it still simulates live, as the user chose; a T pressed
    // in the lecture is the user's choice, and kept.
    QSettings().setValue("simulation/flow", "live");
    widgets::ViewerOptions options;
    options.lecture = kLecture;
    options.particleBudget = 3000;
    options.headless = true;
    const auto session = [&](int presses) {
        MainWindow w(options);
        w.show();
        ASSERT_TRUE(waitFor([&] { return bakedPlayer(w) && bakedPlayer(w)->beat(); }, 240)) << "the lecture's beat";
        for (int i = 0; i < presses; ++i) w.findChild<QAction*>("realTimeFlowAction")->trigger();
        ASSERT_TRUE(w.close());
    };
    session(0);
    EXPECT_EQ(QSettings().value("simulation/flow").toString(), "live");
    session(2); // live, then the lecture's beat again
    EXPECT_EQ(QSettings().value("simulation/flow").toString(), "baked");
    QSettings().setValue("simulation/flow", "live");
}

TEST(LectureUi, AMeshSeriesHeartTravelsInsideAPackageWithItsFlow) {
    // A pulsing ball as a two-phase mesh series where its author keeps it, and a beat
    // named as baked in it there. The viewer extracts the series elsewhere, under other
    // names: the same heart all the same, so the beat plays.
    QTemporaryDir dir;
    const QString series = dir.filePath("series");
    ASSERT_TRUE(QDir().mkpath(series));
    const narrative::Vec3 c{40, -10, 25};
    atrium::test::writeSphereObj((series + "/ball_00.obj").toStdString(), c, 30);
    atrium::test::writeSphereObj((series + "/ball_01.obj").toStdString(), c, 26);
    const std::string ball =
        heart::heartIdentity(heart::HeartSource::fromMeshes(series.toStdString()), heart::PipelineSettings::forBlood());
    writeFlow(dir.filePath("ball.atriumflow").toStdString(), ball);
    const QString file = dir.filePath("ball.atrium");
    {
        package::Manifest m;
        m.title = "A pulsing ball";
        package::ContentPackage p(m);
        ASSERT_TRUE(p.addFile("heart/ball_00.obj", (series + "/ball_00.obj").toStdString()));
        ASSERT_TRUE(p.addFile("heart/ball_01.obj", (series + "/ball_01.obj").toStdString()));
        package::HeartSpec h;
        h.source = package::HeartSpec::Source::Meshes;
        h.entries = {"heart/ball_00.obj", "heart/ball_01.obj"};
        h.cycleSeconds = 0.8;
        ASSERT_TRUE(p.setHeart(h));
        ASSERT_TRUE(p.addFile("flow/ball.atriumflow", dir.filePath("ball.atriumflow").toStdString()));
        ASSERT_TRUE(p.setFlow("flow/ball.atriumflow"));
        p.save(file.toStdString());
    }
    QDir(series).removeRecursively(); // only the package holds the heart now

    auto w = openLecture(file);
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));
    EXPECT_EQ(w->windowTitle(), "Atrium - A pulsing ball");
    widgets::SceneView* v = w->sceneView();
    const narrative::Vec3 centre = v->heartCenter();
    EXPECT_LT(narrative::length(centre - c), 1.0) << "the heart shown is the packed ball";
    EXPECT_NEAR(v->heartRadius(), 30 * std::sqrt(3.0), 2.0);
    ASSERT_TRUE(waitFor([&] { return v->shownSnapshot() && !v->shownSnapshot()->wallVertexMm.empty(); }, 60));
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(*w) && bakedPlayer(*w)->beat(); }, 30)) << "the ball's beat does not play";
    EXPECT_EQ(bakedPlayer(*w)->beat(), w->lectureUi()->lecture()->flow().get());
    EXPECT_FALSE(w->flowBaker()->busy());
}

TEST(LectureUi, ALectureOpenedWhileAnotherHeartLoadsBringsItsOwnHeartAndFlow) {
    // The window starts on a mesh series it has never processed (seconds of work), and
    // the lecture is opened meanwhile: the lecture's heart replaces that load, and its
    // beat plays; nothing is refused as baked in another heart.
    QTemporaryDir dir;
    const QString lecture = dir.filePath("with-flow.atrium");
    writeLectureWithFlow(lecture, heart::heartIdentity(heart::HeartSource::fromPreset("four-chamber"),
                                                       heart::PipelineSettings::forBlood()));
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 1.5;
    p.phases = 10; // a mesh series to open, not the cycle's phases: kept short
    const std::filesystem::path series = std::filesystem::path(dir.path().toStdString()) / "lv_%02d.vtk";
    heart::writeMeshSeries(heart::phantomSurfaces(p, true), series);
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromMeshes(series.string(), heart::HeartPhantom(p).cycleSeconds());
    options.particleBudget = 3000;
    options.persistSettings = false;
    options.headless = true;
    MainWindow w(options);
    QStringList refused;
    QObject::connect(&w, &MainWindow::flowRefused, [&](const QString& why) { refused << why; });
    w.resize(1100, 720);
    w.show();
    ASSERT_TRUE(waitFor([&] { return w.heartLoader()->busy(); }, 30));
    ASSERT_TRUE(w.lectureUi()->openNow(lecture));
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(w) && bakedPlayer(w)->beat(); }, 240)) << "the lecture's beat";
    EXPECT_EQ(bakedPlayer(w)->beat(), w.lectureUi()->lecture()->flow().get());
    EXPECT_TRUE(refused.isEmpty()) << refused.join("; ").toStdString();
    // The beat is handed over before the heart loads (LectureUi::adopt), and the right
    // heart's shell comes after the left heart: on a cold machine minutes later, so wait
    // for it, not for a time.
    EXPECT_TRUE(waitFor([&] { return w.sceneView()->shellTriangles() > 1000u && !w.heartLoader()->busy(); }, 300))
        << "the lecture's four-chamber heart, with its shell: " << w.sceneView()->shellTriangles() << " triangles";
    EXPECT_FALSE(w.heartLoader()->busy());
}
