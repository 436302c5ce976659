// The live lecture as a classroom meets it (issue 21): real windows under Xvfb, a real
// socket on loopback, the sample lecture. A student who opened Atrium on its own heart
// and joined gets the lecture's baked blood in step with the lecturer's; the lecturer's
// narrative pauses while a student has the floor; quitting with students connected asks
// first; a replay finds its lecture and starts once the window is ready; and `--name`
// reaches the lecturer from the command line.
#include "UiTestSupport.h"

#include "app/viewer/LiveTransport.h"
#include "session/ContentIdentity.h"
#include "widgets/BakedFlowPlayer.h"
#include "widgets/BloodSource.h"
#include "widgets/FlowBaker.h"
#include "widgets/Lecture.h"
#include "widgets/LectureUi.h"
#include "widgets/LiveLecturePanel.h"
#include "widgets/LiveLectureUi.h"
#include "widgets/MainWindow.h"
#include "widgets/NarrativePlayback.h"
#include "widgets/NarrativeWorkspace.h"
#include "widgets/SceneView.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDateTime>
#include <QFile>
#include <QMessageBox>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

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

/// Clicks `button` of the next message box that opens (modal, as a question is), and
/// records its text.
void answerNextMessageBox(QMessageBox::StandardButton button, QString* text) {
    auto* timer = new QTimer;
    timer->setInterval(20);
    QObject::connect(timer, &QTimer::timeout, [timer, button, text] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        timer->stop();
        timer->deleteLater();
        if (text) *text = box->text();
        box->button(button)->click();
    });
    timer->start();
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

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLiveClassroomUiTest"); }
