// A lecture's panels as they look (under Xvfb in CI): a picture opens fitted whole and
// stays fitted as the window resizes, a sound says when this computer has no audio
// device, and a locked lecture's edit buttons look disabled.

#include "tests/ui/LectureWindow.h"
#include "tests/ui/UiTestSupport.h"
#include "tests/ui/LectureUiTestSupport.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/ResourceViewer.h"

#include <QAction>
#include <QGraphicsView>
#include <QImage>
#include <QScrollBar>
#include <QAudioDevice>
#include <QMediaDevices>
#include <QTemporaryDir>
#include <QTest>

#include <gtest/gtest.h>

#include <fstream>

#include <cmath>
#include <numbers>

using namespace atrium;

namespace {

using atrium::test::kLecture;
using atrium::test::openLecture;
using atrium::test::waitFor;

/// A 1280x800 window with a resource panel in it, as the lecture's window has.
struct ViewerWindow {
    QWidget window;
    widgets::ResourceViewer viewer{&window};
    /// Shows the window, then `file` as a resource of `kind` in the panel.
    bool show(narrative::ResourceKind kind, const QString& file) {
        window.resize(1280, 800);
        window.show();
        if (!QTest::qWaitForWindowExposed(&window)) return false;
        narrative::Resource r;
        r.id = "shown";
        r.name = "A resource";
        r.kind = kind;
        QString error;
        const bool shown = viewer.showResource(r, file, &error);
        EXPECT_TRUE(shown) << error.toStdString();
        return shown;
    }
};
} // namespace

// Issue 23: a picture opened cropped, with scroll bars: fitted only when shown, before
// the panel's layout gave its view its size. It is fitted whole, and stays fitted as
// the window (and the panel with it) resizes, until the user zooms.
TEST(LectureUi, APictureOpensFittedWholeAndStaysFittedAsTheWindowResizes) {
    QTemporaryDir dir;
    const QString file = dir.filePath("wide.png");
    QImage picture(3000, 1200, QImage::Format_RGB32);
    picture.fill(Qt::darkRed);
    ASSERT_TRUE(picture.save(file));
    ViewerWindow window;
    widgets::ResourceViewer& viewer = window.viewer;
    ASSERT_TRUE(window.show(narrative::ResourceKind::Image, file));
    auto* view = viewer.findChild<QGraphicsView*>();
    ASSERT_NE(view, nullptr);
    const auto fitted = [&] {
        const QRect shown = view->mapFromScene(view->scene()->sceneRect()).boundingRect();
        const QRect port = view->viewport()->rect().adjusted(-2, -2, 2, 2); // fitInView's margin
        return port.contains(shown) && (shown.width() >= port.width() - 8 || shown.height() >= port.height() - 8) &&
               !view->horizontalScrollBar()->isVisible() && !view->verticalScrollBar()->isVisible();
    };
    EXPECT_TRUE(waitFor(fitted, 5)) << "the picture is not fitted in the panel";
    window.window.resize(900, 600);
    viewer.place(0);
    EXPECT_TRUE(waitFor(fitted, 5)) << "the picture is not fitted after the window shrank";
    EXPECT_EQ(viewer.imageZoom(), 1.0);
}

// Issue 23: with no audio device a sound sat at 0 with no word of why. The panel says
// so where there is no device, and says nothing where there is one.
TEST(LectureUi, ASoundSaysWhenThisComputerHasNoAudioDevice) {
    QTemporaryDir dir;
    const QString file = dir.filePath("tone.wav");
    {
        // 0.5 s of a 440 Hz tone, 16-bit mono PCM at 8 kHz.
        constexpr std::uint32_t rate = 8000, samples = 4000;
        std::string wav = "RIFF";
        const auto u32 = [&](std::uint32_t v) { for (int i = 0; i < 4; ++i) wav += char((v >> (8 * i)) & 0xff); };
        const auto u16 = [&](std::uint16_t v) { wav += char(v & 0xff); wav += char(v >> 8); };
        u32(36 + samples * 2);
        wav += "WAVEfmt ";
        u32(16); u16(1); u16(1); u32(rate); u32(rate * 2); u16(2); u16(16);
        wav += "data";
        u32(samples * 2);
        for (std::uint32_t i = 0; i < samples; ++i)
            u16(std::uint16_t(std::int16_t(8000 * std::sin(2 * std::numbers::pi * 440 * i / rate))));
        std::ofstream(file.toStdString(), std::ios::binary) << wav;
    }
    ViewerWindow window;
    widgets::ResourceViewer& viewer = window.viewer;
    ASSERT_TRUE(window.show(narrative::ResourceKind::Audio, file));
    if (QMediaDevices::audioOutputs().isEmpty())
        EXPECT_TRUE(viewer.soundNote().contains("No audio device")) << viewer.soundNote().toStdString();
    else
        EXPECT_TRUE(viewer.soundNote().isEmpty()) << viewer.soundNote().toStdString();
    viewer.closePanel();
}

namespace {
/// The mean opacity of an icon's picture in `mode` at the bars' size.
double meanAlpha(const QIcon& icon, QIcon::Mode mode) {
    const QImage image = icon.pixmap(QSize(22, 22), mode).toImage().convertToFormat(QImage::Format_ARGB32);
    double sum = 0.0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) sum += qAlpha(image.pixel(x, y));
    return sum / (255.0 * std::max(1, image.width() * image.height()));
}
} // namespace

// Issue 23: in a locked lecture the narrative bar's + and - looked enabled (disabled,
// with their tooltips right, but Qt's greying of these light icons stayed bright).
TEST(LectureUi, ALockedLecturesEditButtonsLookDisabled) {
    auto w = openLecture(kLecture);
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));
    QAction* add = w->narratives()->addNodeAction();
    EXPECT_FALSE(add->isEnabled()) << "a locked lecture's narratives can be edited";
    const double normal = meanAlpha(add->icon(), QIcon::Normal), disabled = meanAlpha(add->icon(), QIcon::Disabled);
    ASSERT_GT(normal, 0.02) << "the icon draws nothing";
    EXPECT_LT(disabled, 0.5 * normal) << "the disabled + is not faded: " << disabled << " against " << normal;
}
