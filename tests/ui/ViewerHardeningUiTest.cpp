// The viewer never retries at start-up a heart that crashed or failed last time
// (issue 11): it shows the synthetic heart instead and says why. And a heart asked for
// while another loads is loaded once that one ends.

#include "UiTestSupport.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/window/MainWindow.h"
#include "widgets/view/SceneView.h"

#include <QApplication>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <gtest/gtest.h>

#include <functional>

using namespace atrium;
using widgets::MainWindow;
using atrium::test::waitFor;

namespace {

/// Accepts every message box that opens and keeps the last text.
struct MessageWatcher {
    QTimer timer;
    QString last;
    int boxes = 0;
    MessageWatcher() {
        timer.setInterval(50);
        QObject::connect(&timer, &QTimer::timeout, [this] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(top); box && box->isVisible()) {
                    last = box->text();
                    ++boxes;
                    box->accept();
                }
        });
        timer.start();
    }
};

widgets::ViewerOptions rememberingOptions() {
    widgets::ViewerOptions options; // no source: the remembered heart
    options.particleBudget = 2000;
    return options;
}

} // namespace

TEST(ViewerStartup, AHeartThatCrashedLastTimeIsNotRetried) {
    QSettings().clear();
    {
        // What a run that crashed while loading (or simulating) this heart leaves behind.
        QSettings s;
        s.setValue("heart/kind", "meshes");
        s.setValue("heart/value", "/data/broken/lv_%02d.ply");
        s.setValue("heart/unfinished", "meshes /data/broken/lv_%02d.ply");
    }
    MessageWatcher messages;
    MainWindow w(rememberingOptions());
    w.resize(800, 600);
    w.show();
    ASSERT_TRUE(waitFor([&] { return w.windowTitle().contains("phantom adult"); }, 240)) << w.windowTitle().toStdString();
    ASSERT_TRUE(waitFor([&] { return messages.boxes > 0; }, 10));
    EXPECT_TRUE(messages.last.contains("meshes /data/broken/lv_%02d.ply")) << messages.last.toStdString();
    EXPECT_TRUE(messages.last.contains("Atrium stopped while it was loading")) << messages.last.toStdString();
    EXPECT_TRUE(messages.last.contains("synthetic heart")) << messages.last.toStdString();
    // Once the phantom's blood has run, nothing is marked any more.
    EXPECT_TRUE(waitFor([] { return !QSettings().contains("heart/unfinished"); }, 240));
    QSettings().clear();
}

TEST(ViewerStartup, AHeartThatFailedToLoadIsNotRetriedAndTheNextStartSaysWhy) {
    QSettings().clear();
    QTemporaryDir dir;
    const QString truncated = dir.filePath("truncated.ply");
    {
        QFile f(truncated);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\nproperty float z\n"
                "element face 1\nproperty list uchar int vertex_indices\nend_header\n0 0 0\n1 0\n");
        QSettings s;
        s.setValue("heart/kind", "meshes");
        s.setValue("heart/value", truncated);
    }
    MessageWatcher messages;
    {
        MainWindow first(rememberingOptions());
        first.show();
        ASSERT_TRUE(waitFor([&] { return messages.boxes > 0 && !first.heartLoader()->busy(); }, 120));
        EXPECT_TRUE(messages.last.contains("truncated")) << messages.last.toStdString();
    }
    messages.boxes = 0;
    MainWindow second(rememberingOptions());
    second.show();
    ASSERT_TRUE(waitFor([&] { return second.windowTitle().contains("phantom adult"); }, 240));
    ASSERT_TRUE(waitFor([&] { return messages.boxes > 0; }, 10));
    EXPECT_TRUE(messages.last.contains("it could not be loaded")) << messages.last.toStdString();
    EXPECT_TRUE(messages.last.contains(truncated)) << messages.last.toStdString();
    QSettings().clear();
}

// A load started from a handler of the last one's loaded() (as MainWindow starts the
// heart it was asked for meanwhile, e.g. a lecture's) delivers its heart too: the loader
// once dropped that result, and the replay of a lecture waited for it forever.
TEST(HeartLoading, ALoadStartedWhenTheLastOneLoadedDeliversItsHeart) {
    QWidget parent;
    widgets::HeartLoader loader(&parent);
    const auto adult = heart::HeartSource::fromPreset("adult"); // prepared for the run: quick
    int loads = 0;
    QObject::connect(&loader, &widgets::HeartLoader::loaded, [&] {
        if (++loads == 1) {
            EXPECT_TRUE(loader.start(adult, {})) << "the second load did not start";
        }
    });
    bool failed = false;
    QObject::connect(&loader, &widgets::HeartLoader::failed, [&] { failed = true; });
    ASSERT_TRUE(loader.start(adult, {}));
    EXPECT_TRUE(waitFor([&] { return loads == 2 || failed; }, 60)) << "the second heart never came (" << loads << " loaded)";
    EXPECT_EQ(loads, 2);
    EXPECT_FALSE(failed);
    EXPECT_TRUE(waitFor([&] { return !loader.busy(); }, 10));
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "ViewerHardening"); }
