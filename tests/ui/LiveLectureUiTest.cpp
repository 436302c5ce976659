// The live lecture in real windows under Xvfb, over a real socket on loopback: a
// lecturing window and a following one in the same process, each with its own view,
// heart and simulation, as two apps would be.
#include "UiTestSupport.h"

#include "app/transport/SessionClient.h"
#include "app/viewer/LiveTransport.h"
#include "session/Recording.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/live/LiveLecturePanel.h"
#include "widgets/live/LiveLectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/view/BloodSource.h"

#include <QAction>
#include <QApplication>
#include <QMouseEvent>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>

using namespace atrium;
using atrium::test::waitFor;
using widgets::LiveLectureUi;
using widgets::MainWindow;

namespace {

const QString kLecture = ATRIUM_SAMPLE_LECTURE;

std::unique_ptr<MainWindow> openLecture(bool persistSettings = false) {
    widgets::ViewerOptions options;
    options.lecture = kLecture;
    options.particleBudget = 1000; // the fewest: the hearts below must beat to a phase on a busy machine
    options.persistSettings = persistSettings;
    options.headless = true;
    auto w = std::make_unique<MainWindow>(options);
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&loaded] { loaded = true; });
    w->resize(900, 600);
    w->show();
    EXPECT_TRUE(waitFor([&] { return loaded && w->lectureUi()->lecture(); }, 240)) << "the lecture did not load";
    return w;
}

double degreesBetween(const narrative::CameraPose& a, const narrative::CameraPose& b) {
    return 2.0 * std::asin(std::min(1.0, narrative::length(a.forward() - b.forward()) / 2.0)) * 180.0 / std::numbers::pi;
}

bool sameCamera(MainWindow& a, MainWindow& b) {
    const auto& pa = a.sceneView()->camera().pose();
    const auto& pb = b.sceneView()->camera().pose();
    return narrative::length(pa.position() - pb.position()) < 1.0 && degreesBetween(pa, pb) < 0.1;
}

/// Mean absolute difference of two images, 0..255 per channel.
double meanDifference(const QImage& a, const QImage& b) {
    const QImage x = a.convertToFormat(QImage::Format_RGB32), y = b.convertToFormat(QImage::Format_RGB32);
    if (x.size() != y.size()) return 255.0;
    double sum = 0;
    for (int r = 0; r < x.height(); ++r) {
        const auto* p = reinterpret_cast<const QRgb*>(x.constScanLine(r));
        const auto* q = reinterpret_cast<const QRgb*>(y.constScanLine(r));
        for (int c = 0; c < x.width(); ++c)
            sum += std::abs(qRed(p[c]) - qRed(q[c])) + std::abs(qGreen(p[c]) - qGreen(q[c])) + std::abs(qBlue(p[c]) - qBlue(q[c]));
    }
    return sum / (3.0 * x.width() * x.height());
}

void click(MainWindow& w) {
    QWidget* view = w.sceneView();
    QTest::mousePress(view, Qt::LeftButton, {}, view->rect().center());
    QTest::mouseRelease(view, Qt::LeftButton, {}, view->rect().center());
}

} // namespace

TEST(LiveLectureUi, AFollowerSeesWhatTheLecturerShows) {
    auto lecturerWindow = openLecture();
    auto studentWindow = openLecture();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    LiveLectureUi student(studentWindow.get(), service, false);

    QString error;
    ASSERT_TRUE(lecturer.startLecture(0, &error)) << error.toStdString();
    EXPECT_EQ(lecturer.panel()->shownCode(), lecturer.host()->code());
    EXPECT_FALSE(lecturer.panel()->shownQr().isNull());
    const QString loopback = lecturer.host()->urls().back();
    ASSERT_TRUE(loopback.startsWith("ws://127.0.0.1:")) << loopback.toStdString();
    ASSERT_TRUE(student.join({loopback, lecturer.host()->code(), "Ana", std::nullopt}, &error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return student.guest()->synced(); }, 20));
    ASSERT_TRUE(waitFor([&] { return lecturer.panel()->rosterRows() == 1; }, 10));

    // The sample lecture carries a baked beat: both windows play it, not a bake of their
    // own, and the student's is held to the lecturer's heart: knocked half a beat out of
    // step, it comes back.
    const auto baked = [](MainWindow& w) { return dynamic_cast<widgets::BakedFlowPlayer*>(w.sceneView()->bloodSource()); };
    for (MainWindow* w : {lecturerWindow.get(), studentWindow.get()}) {
        ASSERT_NE(baked(*w), nullptr) << "no baked beat plays";
        EXPECT_EQ(baked(*w)->beat(), w->lectureUi()->lecture()->flow().get()) << "the lecture's own beat";
    }
    const auto apart = [&] {
        return std::abs(std::remainder(baked(*lecturerWindow)->phase() - baked(*studentWindow)->phase(), 1.0));
    };
    baked(*studentWindow)->setPhase(baked(*lecturerWindow)->phase() + 0.5);
    ASSERT_TRUE(waitFor([&] { return apart() < 0.08; }, 20)) << "the student's beat is " << apart() << " of a cycle off";

    // The lecturer shows the narrative's third node (which holds the heart at 0.7), then
    // holds it at 0.3 instead and hides the blood, so that the pictures depend only on
    // the camera, the wall and the view.
    ASSERT_TRUE(lecturerWindow->narratives()->playback()->jumpTo(2));
    QTest::qWait(100);
    narrative::ViewState still;
    still.heartRunning = false;
    still.heartPhase = 0.3;
    still.bloodVisible = false;
    still.colouring = narrative::BloodColouring::Speed;
    lecturerWindow->applyViewState(still);
    ASSERT_TRUE(waitFor([&] { return sameCamera(*lecturerWindow, *studentWindow); }, 20)) << "the student's camera did not follow";
    const auto* studentPlayback = studentWindow->narratives()->playback();
    ASSERT_TRUE(waitFor([&] { return studentPlayback->active() && studentPlayback->frame().node == 2; }, 10));
    auto held = [](MainWindow& w) {
        const auto* r = w.sceneView()->bloodSource(); // live or baked
        const auto s = w.sceneView()->shownSnapshot();
        return r && r->paused() && !r->pendingHold() && s && std::abs(s->cyclePhase - 0.3) < 0.02;
    };
    // The hearts beat on (at the simulation's pace, slow on a loaded machine) until 0.3.
    ASSERT_TRUE(waitFor([&] { return held(*lecturerWindow) && held(*studentWindow); }, 240))
        << "the hearts did not stop at 0.3: lecturer at " << lecturerWindow->sceneView()->shownSnapshot()->cyclePhase
        << ", student at " << studentWindow->sceneView()->shownSnapshot()->cyclePhase;
    EXPECT_FALSE(studentWindow->currentViewState().bloodVisible.value_or(true));
    EXPECT_EQ(studentWindow->currentViewState().colouring, narrative::BloodColouring::Speed);

    const QSize size(480, 300);
    const QImage a = lecturerWindow->sceneView()->renderImage(size);
    const QImage b = studentWindow->sceneView()->renderImage(size);
    if (!qEnvironmentVariableIsEmpty("ATRIUM_LIVE_TEST_IMAGES")) {
        a.save(qEnvironmentVariable("ATRIUM_LIVE_TEST_IMAGES") + "/lecturer.png");
        b.save(qEnvironmentVariable("ATRIUM_LIVE_TEST_IMAGES") + "/student.png");
    }
    const double difference = meanDifference(a, b);
    std::cout << "mean pixel difference between the lecturer's and the student's view: " << difference << " / 255\n";
    EXPECT_LT(difference, 4.0); // the held phases may differ by a sub-step
    QImage black(size, QImage::Format_RGB32);
    black.fill(Qt::black);
    EXPECT_GT(meanDifference(a, black), 5.0); // the picture shows something

    // Alt+click on the heart points at it for everyone.
    QTest::mouseClick(lecturerWindow->sceneView(), Qt::LeftButton, Qt::AltModifier, lecturerWindow->sceneView()->rect().center());
    ASSERT_TRUE(lecturer.host()->state().pointer.has_value()) << "the click missed the wall";
    ASSERT_TRUE(waitFor([&] { return student.guest()->state().pointer == lecturer.host()->state().pointer; }, 10));

    // The student explores with the mouse; the lecturer sees it; F brings it back.
    click(*studentWindow);
    EXPECT_FALSE(student.following());
    ASSERT_TRUE(waitFor([&] {
        const auto r = lecturer.host()->roster();
        return r.size() == 1 && !r[0].following;
    }, 10));
    QTest::keyClick(studentWindow->sceneView(), Qt::Key_F);
    EXPECT_TRUE(student.following());

    // While the lecturer holds attention, exploring is refused.
    lecturer.setHoldAttention(true);
    ASSERT_TRUE(waitFor([&] { return student.guest()->state().attention == session::Attention::Hold; }, 10));
    click(*studentWindow);
    EXPECT_TRUE(student.following());
    lecturer.setHoldAttention(false);

    // The floor: the student presents, and its camera drives the lecturer's server.
    ASSERT_TRUE(lecturer.handFloor(student.guest()->memberId()));
    ASSERT_TRUE(waitFor([&] { return student.guest()->maySteer(); }, 10));
    const narrative::CameraPose presented({5, -150, 20}, 0.1, 0.05);
    studentWindow->sceneView()->camera().setPose(presented);
    ASSERT_TRUE(waitFor([&] {
        const auto p = lecturer.host()->state().pose;
        return p && narrative::length(p->pose.position() - presented.position()) < 1e-6;
    }, 10));
    ASSERT_TRUE(waitFor([&] { // the lecturer's screen shows the presenter's view too
        return narrative::length(lecturerWindow->sceneView()->camera().pose().position() - presented.position()) < 1e-6;
    }, 10));
    ASSERT_TRUE(lecturer.handFloor(std::nullopt));
    ASSERT_TRUE(waitFor([&] { return !student.guest()->maySteer(); }, 10));

    // A resource the lecturer opens opens for everyone, and closes with the lecturer's.
    auto* studentViewer = studentWindow->lectureUi()->resourceViewer();
    lecturerWindow->lectureUi()->openResource("mitral-valve");
    ASSERT_TRUE(waitFor([&] { return studentViewer->isVisible() && studentViewer->shownId() == "mitral-valve"; }, 10))
        << "the student's screen did not open the lecturer's resource";
    lecturerWindow->lectureUi()->resourceViewer()->closePanel();
    ASSERT_TRUE(waitFor([&] { return !studentViewer->isVisible(); }, 10));
    // Not shared: the lecturer looks at one alone.
    lecturer.setSharingResources(false);
    lecturerWindow->lectureUi()->openResource("aorta");
    QTest::qWait(300);
    EXPECT_TRUE(lecturerWindow->lectureUi()->resourceViewer()->isVisible());
    EXPECT_FALSE(studentViewer->isVisible());
    EXPECT_FALSE(lecturer.host()->state().resource);
    lecturer.setSharingResources(true); // shared again: it opens for everyone
    ASSERT_TRUE(waitFor([&] { return studentViewer->isVisible() && studentViewer->shownId() == "aorta"; }, 10));
}

TEST(LiveLectureUi, AStudentWithoutTheLectureDownloadsItByItsHashOverTls) {
    QTemporaryDir cache;
    qputenv("XDG_CACHE_HOME", cache.path().toUtf8()); // the download cache starts empty
    auto lecturerWindow = openLecture();
    widgets::ViewerOptions options; // the student has only the phantom
    options.particleBudget = 2000;
    options.persistSettings = false;
    options.headless = true;
    MainWindow studentWindow(options);
    studentWindow.resize(900, 600);
    studentWindow.show();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    LiveLectureUi student(&studentWindow, service, false);
    // A private lecture: wss:// with a classroom certificate, the download over https.
    QString error;
    ASSERT_TRUE(lecturer.startLecture(0, &error, true)) << error.toStdString();
    ASSERT_TRUE(lecturer.host()->urls().back().startsWith("wss://127.0.0.1:"));
    EXPECT_EQ(lecturer.host()->fingerprint().size(), 32 * 3 - 1);
    ASSERT_TRUE(student.join({lecturer.host()->urls().back(), lecturer.host()->code(), "Ben", std::nullopt, true}));
    ASSERT_TRUE(waitFor([&] { return studentWindow.lectureUi()->lecture() != nullptr; }, 60)) << "the lecture was not downloaded";
    EXPECT_EQ(studentWindow.lectureUi()->lecture()->title(), lecturerWindow->lectureUi()->lecture()->title());
    const QString downloaded = studentWindow.lectureUi()->lecture()->path();
    EXPECT_TRUE(downloaded.startsWith(cache.path())) << downloaded.toStdString();
    EXPECT_TRUE(downloaded.endsWith(QString::fromStdString(lecturer.host()->state().content->hash) + ".atrium"));
    // Its narratives follow the lecturer's now.
    ASSERT_TRUE(lecturerWindow->narratives()->playback()->jumpTo(1));
    ASSERT_TRUE(waitFor([&] {
        const auto* pb = studentWindow.narratives()->playback();
        return pb->active() && pb->frame().node == 1;
    }, 30));
    qunsetenv("XDG_CACHE_HOME");
}

TEST(LiveLectureUi, StudentsRejoinWhenTheLecturersAppRestarts) {
    QTemporaryDir config; // the lecturer's app keeps its settings, here
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, config.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, config.path());
    auto service = std::make_shared<app::LiveTransport>();
    auto lecturerWindow = openLecture(true);
    QString url, code;
    std::unique_ptr<transport::SessionClient> student;
    {
        LiveLectureUi lecturer(lecturerWindow.get(), service, false);
        QString error;
        ASSERT_TRUE(lecturer.startLecture(0, &error)) << error.toStdString();
        url = lecturer.host()->urls().back();
        code = lecturer.host()->code();
        transport::ClientOptions o;
        o.url = url.toStdString();
        o.code = code.toStdString();
        o.name = "Cy";
        student = std::make_unique<transport::SessionClient>(o);
        ASSERT_TRUE(waitFor([&] { return student->synced(); }, 20));
    }
    lecturerWindow.reset(); // the lecturer's app closes
    ASSERT_TRUE(waitFor([&] { return student->link() == transport::LinkState::Connecting; }, 10));

    auto restarted = openLecture(true); // and starts again
    LiveLectureUi lecturer(restarted.get(), service, false);
    ASSERT_TRUE(lecturer.startLecture(0));
    EXPECT_EQ(lecturer.host()->code(), code);
    EXPECT_EQ(lecturer.host()->urls().back(), url);
    ASSERT_TRUE(restarted->narratives()->playback()->jumpTo(1));
    ASSERT_TRUE(waitFor([&] {
        return student->synced() && lecturer.host()->roster().size() == 1 &&
               student->state().narrative == lecturer.host()->state().narrative;
    }, 30)) << "the student did not rejoin the restarted lecture";
}

TEST(LiveLectureUi, ARecordedLectureReplaysInTheWindow) {
    auto lecturerWindow = openLecture();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    ASSERT_TRUE(lecturer.startLecture(0));
    QTemporaryDir dir;
    const QString file = dir.filePath("lecture.atriumrec");
    QString error;
    ASSERT_TRUE(lecturer.startRecording(file, &error)) << error.toStdString();
    // The camera moves over a second, then rests.
    for (int i = 0; i <= 30; ++i) {
        lecturerWindow->sceneView()->camera().setPose(narrative::CameraPose({double(i), -150, 10}, 0.01 * i, 0));
        QTest::qWait(33);
    }
    QTest::qWait(200);
    const narrative::CameraPose last = lecturerWindow->sceneView()->camera().pose();
    lecturer.stopRecording();
    lecturer.stop();

    LiveLectureUi replay(lecturerWindow.get(), service, false);
    lecturerWindow->sceneView()->camera().setPose(narrative::CameraPose({0, 0, 0}, 0, 0));
    ASSERT_TRUE(replay.openRecording(file, &error)) << error.toStdString();
    EXPECT_GT(replay.replayLength(), 0.5);
    replay.seekReplay(replay.replayLength());
    ASSERT_TRUE(waitFor([&] {
        return narrative::length(lecturerWindow->sceneView()->camera().pose().position() - last.position()) < 1e-6;
    }, 10));
    replay.seekReplay(0.0);
    replay.setReplayPlaying(false);
    ASSERT_TRUE(waitFor([&] { return lecturerWindow->sceneView()->camera().pose().position().x < 1.0; }, 10));
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLiveLectureUiTest"); }
