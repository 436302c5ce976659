#pragma once
// Shared by the UI tests (real windows under Xvfb).

#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTest>
#include <QWidget>

#include <functional>

namespace atrium::test {

/// Runs the event loop until `done` or `seconds` pass; returns done().
inline bool waitFor(const std::function<bool()>& done, double seconds) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > seconds * 1000) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        QTest::qWait(5);
    }
    return true;
}

/// Makes `w` the active window (shortcuts and focus need one), asking again while the
/// display is busy: a single request can be lost on a loaded machine.
inline bool activate(QWidget& w, double seconds = 30) {
    return waitFor(
        [&] {
            w.activateWindow();
            return QApplication::activeWindow() == &w;
        },
        seconds);
}

} // namespace atrium::test
