// Issue 21 items 3 and 5 in a real window: every way a picture leaves the viewer - the
// F12 screenshot, the recording, the narratives' video export, the view's own renders -
// asks one gate (widgets::OutputGate) bound to the open lecture, whatever narratives
// file is played beside it; the screenshot dialog offers a size within the lecture's
// limit; the narrative export says it is forbidden before asking for a file. And the
// window, like atrium-pack (item 6), trusts no second key under a name already trusted.

#include "narrative/package/ContentPackage.h"
#include "narrative/package/TrustStore.h"
#include "tests/ui/LectureWindow.h"
#include "tests/ui/UiTestSupport.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativeVideoExport.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/view/SceneView.h"
#include "widgets/media/VideoRecorder.h"

#include <QAction>
#include <QApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMessageBox>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>

#include <gtest/gtest.h>

#include <functional>
#include <memory>

using namespace atrium;
using atrium::test::waitFor;
using widgets::MainWindow;

namespace {

const QString kLecture = ATRIUM_SAMPLE_LECTURE;
const QString kTour = ATRIUM_SOURCE_DIR "/content/narratives/phantom-tour.narratives.json";

/// The sample lecture as its author re-flagged it: no video, at most 640 x 400.
QString flaggedLecture(const QTemporaryDir& dir) {
    const QString flagged = dir.filePath("flagged.atrium");
    auto p = package::ContentPackage::open(kLecture.toStdString());
    EXPECT_TRUE(p.unlock("atrium-demo"));
    narrative::Restrictions r = p.manifest().restrictions;
    r.videoExportForbidden = true;
    r.maxResolution = narrative::Resolution{640, 400};
    EXPECT_TRUE(p.setRestrictions(r));
    p.save(flagged.toStdString());
    return flagged;
}

/// The viewer on `lecture`, as `atrium FILE.atrium` opens it, once its heart shows.
std::unique_ptr<MainWindow> openLecture(const QString& lecture) { return test::openLecture(lecture, {.size = {1300, 800}}); }

QAction* action(const MainWindow& w, const QString& text) {
    for (QAction* a : w.findChildren<QAction*>())
        if (a->text() == text) return a;
    return nullptr;
}

/// Triggers `a` and answers each modal dialog it opens with `answer` (polled, as a user
/// would meet them one after another); returns once `a`'s handler has returned.
void triggerAnswering(QAction* a, const std::function<void(QWidget*)>& answer) {
    QTimer poll;
    poll.setInterval(30);
    QObject::connect(&poll, &QTimer::timeout, [&] {
        if (QWidget* m = QApplication::activeModalWidget(); m && m->isVisible()) answer(m);
    });
    poll.start();
    a->trigger();
}

} // namespace

TEST(LectureOutput, EveryWayOutOfTheWindowAsksTheLecturesGate) {
    QTemporaryDir dir;
    auto w = openLecture(flaggedLecture(dir));
    ASSERT_NE(w->lectureUi()->lecture(), nullptr);
    widgets::SceneView* view = w->sceneView();
    ASSERT_GT(view->width(), 640) << "the view must be larger than the lecture's limit";

    // Another narratives file beside the lecture (its extracted copy, say) is still the
    // lecture's: the export is refused before a file is written.
    QString error;
    ASSERT_TRUE(w->narratives()->openFile(kTour, &error)) << error.toStdString();
    w->narratives()->editor()->setCurrentIndex(0);
    widgets::NarrativeVideoExport exporter(view, w->narratives()->overlays(), w->narratives()->playback());
    const QString video = dir.filePath("x.mp4");
    try {
        exporter.start(video, QSize(160, 100), 4);
        ADD_FAILURE() << "the export started";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("forbids video export"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(exporter.running());
    try {
        view->startRecording(video.toStdString());
        ADD_FAILURE() << "the recording started";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("forbids video export"), std::string::npos) << e.what();
    }
    EXPECT_FALSE(view->isRecording());
    EXPECT_FALSE(QFileInfo::exists(video));

    // The view renders nothing beyond the limit, whoever asks.
    EXPECT_THROW(view->renderImage(QSize(1920, 1080)), std::invalid_argument);
    EXPECT_EQ(view->renderImage(QSize(640, 400)).size(), QSize(640, 400));

    // F12: the size offered lies within the limit (the view is larger), keeping its shape.
    QString offered, prompt;
    triggerAnswering(action(*w, "Screenshot..."), [&](QWidget* m) {
        if (auto* f = qobject_cast<QFileDialog*>(m)) {
            f->selectFile(dir.filePath("shot.png"));
            static_cast<QDialog*>(f)->accept(); // QFileDialog::accept, public through QDialog
        } else if (auto* i = qobject_cast<QInputDialog*>(m)) {
            offered = i->textValue();
            prompt = i->labelText();
            i->reject();
        }
    });
    const auto size = QRegularExpression("^(\\d+)x(\\d+)$").match(offered);
    ASSERT_TRUE(size.hasMatch()) << offered.toStdString();
    EXPECT_LE(size.captured(1).toInt(), 640) << offered.toStdString();
    EXPECT_LE(size.captured(2).toInt(), 400) << offered.toStdString();
    EXPECT_NEAR(size.captured(1).toDouble() / size.captured(2).toDouble(), double(view->width()) / view->height(), 0.02);
    EXPECT_TRUE(prompt.contains("640 x 400")) << prompt.toStdString();

    // The narratives' export says why before asking for a file.
    QString said;
    bool askedForAFile = false;
    triggerAnswering(action(*w, "Export narrative video..."), [&](QWidget* m) {
        if (auto* box = qobject_cast<QMessageBox*>(m)) {
            said = box->text();
            box->accept();
        } else if (auto* f = qobject_cast<QFileDialog*>(m)) {
            askedForAFile = true;
            f->reject();
        } else if (auto* i = qobject_cast<QInputDialog*>(m)) {
            i->reject();
        }
    });
    EXPECT_FALSE(askedForAFile);
    EXPECT_TRUE(said.contains("forbids video export")) << said.toStdString();
}

TEST(LectureOutput, TheAuthorIsHeldToNoLimitAndClosingTheLectureFreesTheView) {
    QTemporaryDir dir;
    auto w = openLecture(flaggedLecture(dir));
    widgets::SceneView* view = w->sceneView();
    EXPECT_TRUE(view->outputGate().refuseVideo());
    ASSERT_TRUE(w->lectureUi()->unlock("atrium-demo"));
    EXPECT_FALSE(view->outputGate().refuseVideo()) << "its author";
    EXPECT_FALSE(view->outputGate().refuseImage(QSize(1920, 1080)));
    EXPECT_FALSE(view->outputGate().limit());

    auto again = openLecture(flaggedLecture(dir));
    EXPECT_TRUE(again->sceneView()->outputGate().refuseImage(QSize(1920, 1080)));
    again->lectureUi()->close();
    EXPECT_FALSE(again->sceneView()->outputGate().refuseImage(QSize(1920, 1080))) << "no lecture, no limit";
    EXPECT_EQ(again->sceneView()->outputGate().fit(QSize(1920, 1080)), QSize(1920, 1080));
}

TEST(LectureOutput, ALectureThatForbidsVideoOpenedWhileRecordingStaysOutOfTheRecording) {
    QTemporaryDir dir;
    QStringList said; // what the view says in the status bar (outlives the window)
    auto w = openLecture(kLecture); // video allowed
    widgets::SceneView* view = w->sceneView();
    const QString video = dir.filePath("recording.mp4");
    QObject::connect(view, &widgets::SceneView::statusMessage, [&](const QString& text) { said << text; });
    view->startRecording(video.toStdString());
    const auto f0 = view->framesRendered();
    ASSERT_TRUE(waitFor([&] { return view->framesRendered() >= f0 + 10; }, 60));
    const auto f1 = view->framesRendered();
    QString error;
    ASSERT_TRUE(w->lectureUi()->openNow(flaggedLecture(dir), &error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return view->framesRendered() >= f1 + 30; }, 120));
    EXPECT_TRUE(said.join("\n").contains("Recording paused: Cannot export video: the author forbids video export"))
        << said.join("\n").toStdString();
    std::shared_ptr<widgets::VideoRecorder> recorder = view->stopRecording();
    ASSERT_NE(recorder, nullptr);
    recorder->finish();
    const std::size_t written = recorder->framesEncoded() + recorder->framesDropped();
    EXPECT_LE(written, std::size_t(f1 - f0) + 2) << "frames of the forbidding lecture were recorded";
}

TEST(LectureOutput, TheWindowTrustsNoSecondKeyUnderANameAlreadyTrusted) {
    // Issue 21 item 6, in the window: Lecture > Trust this author.
    QTemporaryDir config;
    const QByteArray before = qgetenv("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    package::TrustStore store;
    store.add("Atrium demo author", package::SigningKey::generate().publicKey()); // the sample's claimed name, another key
    store.save(package::TrustStore::defaultPath());
    const std::string list = [] {
        QFile f(QString::fromStdString(package::TrustStore::defaultPath().string()));
        f.open(QIODevice::ReadOnly);
        return f.readAll().toStdString();
    }();
    {
        auto w = openLecture(kLecture);
        QAction* trust = action(*w, "Trust this author");
        ASSERT_NE(trust, nullptr);
        trust->trigger();
        EXPECT_TRUE(w->statusBar()->currentMessage().contains("You already trust Atrium demo author"))
            << w->statusBar()->currentMessage().toStdString();
    }
    QFile f(QString::fromStdString(package::TrustStore::defaultPath().string()));
    ASSERT_TRUE(f.open(QIODevice::ReadOnly));
    EXPECT_EQ(f.readAll().toStdString(), list) << "the trust list is unchanged";
    qputenv("XDG_CONFIG_HOME", before);
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLectureOutputUiTest"); }
