#pragma once
// The viewer opened on a lecture, as `atrium FILE.atrium` opens it, for the UI tests.
#include "tests/ui/UiTestSupport.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"

#include <QObject>
#include <QSize>
#include <QString>

#include <memory>

namespace atrium::test {

struct LectureWindowOptions {
    bool headless = true;        ///< no dialog that waits for a person (errors go to loadFailed)
    QSize size{1100, 720};
    bool waitForLecture = false; ///< also wait until the lecture is open (not only a heart)
};

/// The viewer on `lecture`, once a heart is shown (framing it sends the camera home).
inline std::unique_ptr<widgets::MainWindow> openLecture(const QString& lecture, const LectureWindowOptions& how = {}) {
    widgets::ViewerOptions options;
    options.lecture = lecture;
    options.particleBudget = 3000;
    options.persistSettings = false;
    options.headless = how.headless;
    auto w = std::make_unique<widgets::MainWindow>(options);
    bool loaded = false;
    const auto c = QObject::connect(w.get(), &widgets::MainWindow::heartLoaded, [&loaded] { loaded = true; });
    w->resize(how.size);
    w->show();
    EXPECT_TRUE(waitFor([&] { return loaded && (!how.waitForLecture || w->lectureUi()->lecture()); }, 240))
        << "the lecture did not open";
    QObject::disconnect(c); // `loaded` dies here; a later heart must not write to it
    return w;
}

} // namespace atrium::test
