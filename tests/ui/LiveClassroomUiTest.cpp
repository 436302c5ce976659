// The live lecture as a classroom meets it (issue 21): real windows under Xvfb, a real
// socket on loopback, the sample lecture. A student who opened Atrium on its own heart
// and joined gets the lecture's baked blood in step with the lecturer's; the lecturer's
// narrative pauses while a student has the floor; quitting with students connected asks
// first; a replay finds its lecture and starts once the window is ready; and `--name`
// reaches the lecturer from the command line.
#include "UiTestSupport.h"

#include "app/transport/SessionClient.h"
#include "app/viewer/LiveTransport.h"
#include "session/ContentIdentity.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/view/BloodSource.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/live/LiveLecturePanel.h"
#include "widgets/live/LiveLectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/view/SceneView.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

using namespace atrium;
using atrium::test::waitFor;
using widgets::LiveLectureUi;
using widgets::MainWindow;

namespace {

const QString kLecture = ATRIUM_SAMPLE_LECTURE;

std::unique_ptr<MainWindow> openWindow(widgets::ViewerOptions options) {
    options.persistSettings = false;
    options.headless = true;
    if (!options.particleBudget) options.particleBudget = 1000; // the fewest: hearts must beat to a phase on a busy machine
    auto w = std::make_unique<MainWindow>(options);
    w->resize(900, 600);
    w->show();
    return w;
}

std::unique_ptr<MainWindow> openLecture() {
    widgets::ViewerOptions options;
    options.lecture = kLecture;
    auto w = openWindow(options);
    EXPECT_TRUE(waitFor([&] { return w->lectureUi()->lecture() && w->sceneView()->shownSnapshot(); }, 240))
        << "the lecture did not load";
    return w;
}

widgets::BakedFlowPlayer* bakedPlayer(MainWindow& w) {
    return dynamic_cast<widgets::BakedFlowPlayer*>(w.sceneView()->bloodSource());
}

double phaseApart(double a, double b) { return std::abs(std::remainder(a - b, 1.0)); }

/// Clicks `button` of the next message box that opens (modal, as a question is) and
/// records its text; stops when destroyed.
std::unique_ptr<QTimer> answerNextMessageBox(QMessageBox::StandardButton button, QString* text) {
    auto timer = std::make_unique<QTimer>();
    timer->setInterval(20);
    QObject::connect(timer.get(), &QTimer::timeout, [t = timer.get(), button, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        t->stop();
        *text = box->text() + "\n" + box->informativeText();
        box->button(button)->click();
    });
    timer->start();
    return timer;
}

transport::ClientOptions studentOptions(const LiveLectureUi& lecturer, const char* name) {
    transport::ClientOptions o;
    o.url = lecturer.host()->urls().back().toStdString();
    o.code = lecturer.host()->code().toStdString();
    o.name = name;
    return o;
}

} // namespace

// Issue 21, item 9: a student who opened Atrium on its own heart (baking its blood, as a
// first start on the CPU does) and then joined played the blood live, slower than real
// time and out of step: the bake that the lecture's beat replaced ended as "cancelled",
// and a cancelled bake fell back to the live simulation.
TEST(LiveClassroomUi, AStudentPlaysTheLecturesBakedBeatHeldToTheLecturersHeart) {
    auto lecturerWindow = openLecture();
    ASSERT_NE(bakedPlayer(*lecturerWindow), nullptr);
    ASSERT_NE(lecturerWindow->lectureUi()->lecture()->flow(), nullptr) << "the sample lecture carries a baked beat";

    widgets::ViewerOptions own; // the student's own heart, its blood baked here
    own.realTimeFlow = true;
    own.bake.settleBeats = 30; // a bake that is still running when the lecture arrives
    auto studentWindow = openWindow(own);
    ASSERT_TRUE(waitFor([&] { return studentWindow->flowBaker()->busy(); }, 240)) << "the student's own bake did not start";

    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    LiveLectureUi student(studentWindow.get(), service, false);
    QString error;
    ASSERT_TRUE(lecturer.startLecture(0, &error)) << error.toStdString();
    ASSERT_TRUE(student.join({lecturer.host()->urls().back(), lecturer.host()->code(), "Ana", std::nullopt}, &error))
        << error.toStdString();

    // The lecture is downloaded (or taken from the download cache) and opened; its beat plays, and goes on playing once the
    // student's own bake has stopped.
    const auto playsTheLecturesBeat = [&] {
        const widgets::Lecture* lecture = studentWindow->lectureUi()->lecture();
        const auto* player = bakedPlayer(*studentWindow);
        return lecture && player && player->beat() == lecture->flow().get() && lecture->flow();
    };
    ASSERT_TRUE(waitFor([&] { return playsTheLecturesBeat() && !studentWindow->flowBaker()->busy(); }, 240))
        << "the student does not play the lecture's beat";
    QTest::qWait(500); // the end of the bake has been handled by now
    ASSERT_TRUE(playsTheLecturesBeat()) << "the student's blood fell back to "
                                        << (studentWindow->realTimeFlow() ? "a bake of its own" : "the live simulation");
    EXPECT_TRUE(studentWindow->realTimeFlow());
    const auto shown = studentWindow->sceneView()->shownSnapshot();
    ASSERT_TRUE(shown);
    EXPECT_TRUE(shown->baked);
    EXPECT_EQ(shown->bakedOrigin, "the lecture");

    // Beating, the student's heart keeps the lecturer's phase.
    ASSERT_TRUE(waitFor([&] { return student.guest()->synced(); }, 20));
    ASSERT_TRUE(waitFor([&] {
        return phaseApart(bakedPlayer(*lecturerWindow)->phase(), bakedPlayer(*studentWindow)->phase()) < 0.03;
    }, 20)) << "the phases are " << bakedPlayer(*lecturerWindow)->phase() << " and " << bakedPlayer(*studentWindow)->phase();

    // At a node that holds the heart at 0.7 and colours by speed, both show the same
    // particles at the same places, coloured over the same range.
    ASSERT_TRUE(lecturerWindow->narratives()->playback()->jumpTo(2));
    lecturerWindow->applyViewState([] {
        narrative::ViewState v;
        v.colouring = narrative::BloodColouring::Speed;
        return v;
    }());
    const auto heldAt = [](MainWindow& w, double phase) {
        const auto* r = w.sceneView()->bloodSource();
        const auto s = w.sceneView()->shownSnapshot();
        return r && r->paused() && !r->pendingHold() && s && s->baked && phaseApart(s->cyclePhase, phase) < 1e-6;
    };
    ASSERT_TRUE(waitFor([&] { return heldAt(*lecturerWindow, 0.7) && heldAt(*studentWindow, 0.7); }, 60))
        << "held at " << lecturerWindow->sceneView()->shownSnapshot()->cyclePhase << " and "
        << studentWindow->sceneView()->shownSnapshot()->cyclePhase;
    ASSERT_TRUE(waitFor([&] { return studentWindow->sceneView()->colorQuantity() == widgets::ColorQuantity::Speed; }, 20));
    const auto a = lecturerWindow->sceneView()->shownSnapshot();
    const auto b = studentWindow->sceneView()->shownSnapshot();
    ASSERT_GT(a->particles(), 100u);
    ASSERT_EQ(a->particles(), b->particles());
    float worst = 0.f;
    for (std::size_t i = 0; i < a->positionMm.size(); ++i) worst = std::max(worst, std::abs(a->positionMm[i] - b->positionMm[i]));
    EXPECT_LT(worst, 1e-3f) << "mm between the same particle on the two screens";
    // The legend: the same quantity over the same range, once each view's automatic range has settled.
    ASSERT_TRUE(waitFor([&] {
        const auto x = lecturerWindow->sceneView()->colorRange(), y = studentWindow->sceneView()->colorRange();
        const float tolerance = 0.02f * std::max(1e-3f, x.max - x.min);
        return std::abs(x.min - y.min) < tolerance && std::abs(x.max - y.max) < tolerance;
    }, 20)) << "the speed legends differ";
}

// A baked beat plays at its own rate, whatever rate the lecturer's window was set to (a
// rate kept from an earlier session). The session says the rate the lecturer's heart
// really beats at, which students and scripts extrapolate its phase with (a wrong one
// also restarted each student's blood when the rate arrived).
TEST(LiveClassroomUi, TheStudentsBeatKeepsStepAtTheRateTheBeatPlays) {
    auto lecturerWindow = openLecture();
    auto studentWindow = openLecture();
    ASSERT_NE(bakedPlayer(*lecturerWindow), nullptr);
    const double beatBpm = 60.0 / bakedPlayer(*lecturerWindow)->cycleSeconds();
    narrative::ViewState faster;
    faster.heartRateBpm = beatBpm * 1.3;
    lecturerWindow->applyViewState(faster);
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(*lecturerWindow) && bakedPlayer(*lecturerWindow)->beat(); }, 30));

    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    LiveLectureUi student(studentWindow.get(), service, false);
    ASSERT_TRUE(lecturer.startLecture(0));
    ASSERT_TRUE(student.join({lecturer.host()->urls().back(), lecturer.host()->code(), "Ana", std::nullopt}));
    ASSERT_TRUE(waitFor([&] { return student.guest()->synced(); }, 20));
    QTest::qWait(500); // settled

    // Over 3 s the student's beat stays in step (within a frame or two of a busy machine).
    double worst = 0.0;
    waitFor([&] {
        if (bakedPlayer(*studentWindow) && bakedPlayer(*lecturerWindow))
            worst = std::max(worst, phaseApart(bakedPlayer(*lecturerWindow)->phase(), bakedPlayer(*studentWindow)->phase()));
        return false;
    }, 3.0);
    EXPECT_LT(worst, 0.1) << "of a cycle between the two beats";
    EXPECT_NEAR(lecturer.host()->state().sim.rateBpm, beatBpm, 1e-6) << "the rate the lecturer's heart beats at";
}

// Issue 21, item 15: closing the lecturer's window ended the lecture for every student
// without a word.
TEST(LiveClassroomUi, QuittingWithStudentsConnectedAsksFirst) {
    QApplication::setQuitOnLastWindowClosed(false);
    auto lecturerWindow = openLecture();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, true); // as the app's: it asks
    ASSERT_TRUE(lecturer.startLecture(0));

    // Nobody connected: nothing to ask.
    {
        QString asked;
        const auto answer = answerNextMessageBox(QMessageBox::Cancel, &asked);
        EXPECT_TRUE(lecturerWindow->close());
        EXPECT_TRUE(asked.isEmpty()) << asked.toStdString();
        lecturerWindow->show();
    }
    transport::SessionClient student(studentOptions(lecturer, "Ana"));
    ASSERT_TRUE(waitFor([&] { return student.synced() && lecturer.host()->roster().size() == 1; }, 20));

    QString asked;
    {
        const auto answer = answerNextMessageBox(QMessageBox::Cancel, &asked);
        EXPECT_FALSE(lecturerWindow->close()) << "the window closed without asking";
    }
    EXPECT_TRUE(asked.contains("A student is connected")) << asked.toStdString();
    EXPECT_TRUE(lecturerWindow->isVisible());
    ASSERT_NE(lecturer.host(), nullptr);
    QTest::qWait(200);
    EXPECT_TRUE(student.synced()) << "cancelled, the lecture goes on";

    asked.clear();
    {
        const auto answer = answerNextMessageBox(QMessageBox::Yes, &asked);
        EXPECT_TRUE(lecturerWindow->close());
    }
    EXPECT_FALSE(asked.isEmpty());
    QApplication::setQuitOnLastWindowClosed(true);
}

// Issue 21, item 15: while a student presented, the lecturer's narrative played on
// underneath, moving through its nodes, overlays and sounds.
TEST(LiveClassroomUi, TheLecturersNarrativeWaitsWhileAStudentHasTheFloor) {
    auto lecturerWindow = openLecture();
    auto studentWindow = openLecture();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    LiveLectureUi student(studentWindow.get(), service, false);
    ASSERT_TRUE(lecturer.startLecture(0));
    ASSERT_TRUE(student.join({lecturer.host()->urls().back(), lecturer.host()->code(), "Ana", std::nullopt}));
    ASSERT_TRUE(waitFor([&] { return student.guest()->synced(); }, 20));
    transport::SessionClient listener(studentOptions(lecturer, "Ben")); // another student, who watches
    ASSERT_TRUE(waitFor([&] { return listener.synced(); }, 20));

    widgets::NarrativePlayback* narrative = lecturerWindow->narratives()->playback();
    narrative->play();
    ASSERT_TRUE(waitFor([&] { return narrative->playing() && narrative->player().time() > 0.5; }, 30));

    ASSERT_TRUE(lecturer.handFloor(student.guest()->memberId()));
    ASSERT_TRUE(waitFor([&] { return !narrative->playing(); }, 10)) << "the narrative plays on under the presenter";
    const double heldAt = narrative->player().time();
    ASSERT_TRUE(waitFor([&] { return listener.state().floor && !listener.state().narrative.playing; }, 10))
        << "the students' narratives play on";
    EXPECT_NEAR(listener.state().narrative.time, heldAt, 0.05);
    // The presenter's camera is everyone's, the lecturer's too: the paused narrative does not take it back.
    const narrative::CameraPose presented({5, -150, 20}, 0.1, 0.05);
    studentWindow->sceneView()->camera().setPose(presented);
    const auto showsPresented = [&] {
        return narrative::length(lecturerWindow->sceneView()->camera().pose().position() - presented.position()) < 1e-6;
    };
    ASSERT_TRUE(waitFor(showsPresented, 10));
    QTest::qWait(300);
    EXPECT_TRUE(showsPresented());
    EXPECT_NEAR(narrative->player().time(), heldAt, 1e-9);

    // The floor comes back: the narrative plays on from where it waited, for everyone.
    ASSERT_TRUE(lecturer.handFloor(std::nullopt));
    ASSERT_TRUE(waitFor([&] { return narrative->playing() && narrative->player().time() > heldAt; }, 10));
    EXPECT_LT(narrative->player().time(), heldAt + 1.0);
    ASSERT_TRUE(waitFor([&] { return !listener.state().floor && listener.state().narrative.playing; }, 10));
}

// Issue 21, item 13, for the window: a lecturer who drives from another machine (with
// the secret) had their camera interleaved with the lecturing window's, so students'
// cameras alternated between the two. The window stands back until they leave.
TEST(LiveClassroomUi, TheLecturingWindowStandsBackWhileALecturerDrivesFromElsewhere) {
    auto lecturerWindow = openLecture();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    ASSERT_TRUE(lecturer.startLecture(0));
    transport::SessionClient listener(studentOptions(lecturer, "Ben"));
    std::mutex mutex;
    std::vector<session::PoseSample> seen; // every camera sample the student received
    listener.setPoseArrived([&](int, const session::PoseSample& sample, double) {
        std::lock_guard lock(mutex);
        seen.push_back(sample);
    });
    ASSERT_TRUE(waitFor([&] { return listener.synced(); }, 20));
    widgets::NarrativePlayback* narrative = lecturerWindow->narratives()->playback();
    narrative->play();
    ASSERT_TRUE(waitFor([&] { return narrative->playing() && narrative->player().time() > 0.3; }, 30));

    transport::ClientOptions remoteOptions = studentOptions(lecturer, "remote lecturer");
    remoteOptions.secret = lecturer.host()->secret().toStdString();
    auto remote = std::make_unique<transport::SessionClient>(remoteOptions);
    ASSERT_TRUE(waitFor([&] { return remote->synced() && remote->role() == session::Role::Lecturer; }, 20));
    const auto remotePose = [](double t) { return narrative::CameraPose::lookAt({5000.0, 100.0 * std::sin(t), 0.0}, {0, 0, 0}); };
    const auto isRemote = [](const session::PoseSample& sample) { return sample.pose.position().x > 4000.0; };
    // The remote lecturer moves the camera for a second, as one taking over does.
    for (int i = 0; i < 30; ++i) {
        ASSERT_TRUE(remote->drive(session::msg::Pose{{remote->lecturerNow(), remotePose(i / 30.0)}}));
        QTest::qWait(33);
    }
    ASSERT_TRUE(waitFor([&] { return !narrative->playing(); }, 10)) << "the window's narrative plays on under the remote lecturer";
    // A pose the window sent before it stood back may still be on its way: count from the
    // first of the remote lecturer's sent after that (one connection keeps their order).
    const double stoodBack = remote->lecturerNow();
    std::size_t from = 0;
    for (int i = 30; i < 60 && from == 0; ++i) {
        ASSERT_TRUE(remote->drive(session::msg::Pose{{remote->lecturerNow(), remotePose(i / 30.0)}}));
        QTest::qWait(33);
        std::lock_guard lock(mutex);
        if (!seen.empty() && isRemote(seen.back()) && seen.back().t > stoodBack) from = seen.size();
    }
    ASSERT_GT(from, 0u) << "the remote lecturer's camera did not reach the student";
    for (int i = 60; i < 90; ++i) {
        ASSERT_TRUE(remote->drive(session::msg::Pose{{remote->lecturerNow(), remotePose(i / 30.0)}}));
        QTest::qWait(33);
    }
    {
        std::lock_guard lock(mutex);
        ASSERT_GT(seen.size(), from + 10) << "the student got no camera";
        const auto windows = std::count_if(seen.begin() + std::ptrdiff_t(from), seen.end(),
                                           [&](const session::PoseSample& sample) { return !isRemote(sample); });
        EXPECT_EQ(windows, 0) << "the window's camera interleaved with the remote lecturer's";
    }
    EXPECT_TRUE(waitFor([&] { return isRemote({0, lecturerWindow->sceneView()->camera().pose()}); }, 5))
        << "the lecturing window does not show the remote lecturer's view";

    // The remote lecturer leaves: the window drives again, its narrative plays on.
    remote.reset();
    ASSERT_TRUE(waitFor([&] { return narrative->playing(); }, 20)) << "the window did not take the lecture back";
}

// Issue 21, item 15: `--replay` in a window without the recording's lecture showed the
// bare heart, and played while the window was still starting.
TEST(LiveClassroomUi, AReplayOpensItsLectureAndStartsOnceTheWindowIsReady) {
    QTemporaryDir dir;
    const QString besideRecording = dir.filePath("the-left-heart.atrium");
    ASSERT_TRUE(QFile::copy(kLecture, besideRecording));
    const QString file = dir.filePath("lecture.atriumrec");
    narrative::CameraPose last;
    {
        auto lecturerWindow = openLecture();
        auto service = std::make_shared<app::LiveTransport>();
        LiveLectureUi lecturer(lecturerWindow.get(), service, false);
        ASSERT_TRUE(lecturer.startLecture(0));
        QString error;
        ASSERT_TRUE(lecturer.startRecording(file, &error)) << error.toStdString();
        for (int i = 0; i <= 40; ++i) {
            lecturerWindow->sceneView()->camera().setPose(narrative::CameraPose({double(i), -150, 10}, 0.01 * i, 0));
            QTest::qWait(33);
        }
        last = lecturerWindow->sceneView()->camera().pose();
        QTest::qWait(200);
        lecturer.stopRecording();
    }

    // A window on its own heart replays it: the lecture is found beside the recording by
    // its hash, and the replay waits for it.
    auto service = std::make_shared<app::LiveTransport>();
    widgets::ViewerOptions own;
    own.source = heart::HeartSource::fromPreset("adult");
    auto window = openWindow(own);
    LiveLectureUi replay(window.get(), service, true); // as the app's: the lecture opens on a worker thread
    std::optional<double> startedAt; // where the replay was when it started running
    bool heartLoadingAtStart = false;
    QObject::connect(&replay, &LiveLectureUi::statusChanged, [&] {
        if (startedAt || !replay.replayRunning()) return;
        startedAt = replay.replayPosition();
        heartLoadingAtStart = window->heartLoader()->busy() || !window->lectureUi()->lecture();
    });
    QString error;
    ASSERT_TRUE(replay.openRecording(file, &error)) << error.toStdString();
    EXPECT_FALSE(replay.replayRunning()) << "the replay runs before its lecture is shown";
    ASSERT_TRUE(waitFor([&] { return window->lectureUi()->lecture() != nullptr; }, 60)) << "the lecture was not opened";
    EXPECT_EQ(QFileInfo(window->lectureUi()->lecture()->path()).fileName(), "the-left-heart.atrium");
    EXPECT_EQ(replay.replayPosition(), 0.0);
    ASSERT_TRUE(waitFor([&] { return startedAt.has_value(); }, 120)) << "the replay did not start"; // the lecture's heart is prepared for the run (content/data)
    EXPECT_FALSE(heartLoadingAtStart) << "it started before the lecture's heart was shown";
    EXPECT_LT(*startedAt, 0.05) << "it did not start at 0";
    ASSERT_TRUE(waitFor([&] { // and plays to its end
        return narrative::length(window->sceneView()->camera().pose().position() - last.position()) < 1e-6;
    }, 20));

    // Nowhere to be found, a window that cannot ask refuses it, naming the lecture.
    QTemporaryDir elsewhere;
    const QString alone = elsewhere.filePath("lecture.atriumrec");
    ASSERT_TRUE(QFile::copy(file, alone));
    const QByteArray cacheBefore = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", elsewhere.path().toUtf8()); // no downloaded copy either
    widgets::ViewerOptions bare;
    bare.source = heart::HeartSource::fromPreset("adult");
    auto other = openWindow(bare);
    LiveLectureUi refused(other.get(), service, false);
    EXPECT_FALSE(refused.openRecording(alone, &error));
    qputenv("XDG_CACHE_HOME", cacheBefore);
    EXPECT_TRUE(error.contains(QFileInfo(kLecture).fileName())) << error.toStdString();
    EXPECT_FALSE(refused.replaying());
}

// The same with nothing to find: the window asks for the lecture, refuses a file that is
// not it, and starts once the right one is shown.
TEST(LiveClassroomUi, AReplayAsksForItsLectureWhenItCannotFindIt) {
    QTemporaryDir recordings, lectures;
    const QString file = recordings.filePath("lecture.atriumrec");
    {
        auto lecturerWindow = openLecture();
        auto service = std::make_shared<app::LiveTransport>();
        LiveLectureUi lecturer(lecturerWindow.get(), service, false);
        ASSERT_TRUE(lecturer.startLecture(0));
        ASSERT_TRUE(lecturer.startRecording(file));
        lecturerWindow->sceneView()->camera().setPose(narrative::CameraPose({3, -150, 10}, 0.1, 0));
        QTest::qWait(300);
        lecturer.stopRecording();
    }
    const QString lecture = lectures.filePath("renamed.atrium"), wrong = lectures.filePath("another.atrium");
    ASSERT_TRUE(QFile::copy(kLecture, lecture));
    {
        QFile junk(wrong);
        ASSERT_TRUE(junk.open(QIODevice::WriteOnly));
        junk.write("not this lecture");
    }
    const QByteArray cacheBefore = qgetenv("XDG_CACHE_HOME");
    qputenv("XDG_CACHE_HOME", lectures.path().toUtf8()); // no downloaded copy

    widgets::ViewerOptions own;
    own.source = heart::HeartSource::fromPreset("adult");
    auto window = openWindow(own);
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi replay(window.get(), service, true);
    // The file dialog: the wrong file first (refused with a warning), then the lecture.
    QStringList answers{wrong, lecture};
    QStringList titles, warnings;
    QTimer answer;
    answer.setInterval(20);
    QObject::connect(&answer, &QTimer::timeout, [&] {
        QWidget* modal = QApplication::activeModalWidget();
        if (auto* dialog = qobject_cast<QFileDialog*>(modal); dialog && !answers.isEmpty()) {
            titles << dialog->windowTitle();
            dialog->selectFile(answers.takeFirst());
            static_cast<QDialog*>(dialog)->accept(); // QFileDialog::accept: as its Open button
        } else if (auto* box = qobject_cast<QMessageBox*>(modal)) {
            warnings << box->text();
            box->accept();
        }
    });
    answer.start();
    QString error;
    const bool opened = replay.openRecording(file, &error);
    answer.stop();
    qputenv("XDG_CACHE_HOME", cacheBefore);
    ASSERT_TRUE(opened) << error.toStdString();
    ASSERT_EQ(titles.size(), 2) << "asked " << titles.size() << " times";
    EXPECT_TRUE(titles[0].contains(QFileInfo(kLecture).fileName())) << titles[0].toStdString();
    ASSERT_EQ(warnings.size(), 1);
    EXPECT_TRUE(warnings[0].contains("another.atrium is not the lecture")) << warnings[0].toStdString();
    ASSERT_TRUE(waitFor([&] { return replay.replayRunning(); }, 240)) << "the replay did not start";
    ASSERT_NE(window->lectureUi()->lecture(), nullptr);
    EXPECT_EQ(QFileInfo(window->lectureUi()->lecture()->path()).fileName(), "renamed.atrium");
}

// Issue 21, item 15: Qt took `--name` as its own X11 option (-name), so the name never
// reached the lecture.
TEST(LiveClassroomUi, TheNameGivenOnTheCommandLineReachesTheLecturer) {
    auto lecturerWindow = openLecture();
    auto service = std::make_shared<app::LiveTransport>();
    LiveLectureUi lecturer(lecturerWindow.get(), service, false);
    ASSERT_TRUE(lecturer.startLecture(0));
    QTemporaryDir config; // the students' apps keep their settings apart
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("XDG_CONFIG_HOME", config.path());
    const QString url = lecturer.host()->urls().back(), code = lecturer.host()->code();
    std::vector<std::unique_ptr<QProcess>> students;
    for (const QStringList& name : {QStringList{"--name", "Ana Lima"}, QStringList{"--name=Bo"}}) {
        auto p = std::make_unique<QProcess>();
        p->setProcessEnvironment(env);
        p->setProcessChannelMode(QProcess::ForwardedChannels);
        p->start(ATRIUM_VIEWER, QStringList{"--join", url, "--code", code} + name);
        ASSERT_TRUE(p->waitForStarted(10000));
        students.push_back(std::move(p));
    }
    const auto names = [&] {
        std::set<std::string> n;
        for (const session::Member& m : lecturer.host()->roster()) n.insert(m.name);
        return n;
    };
    std::set<std::string> joined;
    waitFor([&] { return (joined = names()).size() == 2; }, 120);
    for (auto& p : students) {
        p->terminate();
        if (!p->waitForFinished(10000)) p->kill();
    }
    EXPECT_EQ(joined, (std::set<std::string>{"Ana Lima", "Bo"}));
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLiveClassroomUiTest"); }
