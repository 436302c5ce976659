#pragma once
// Shared by the UI tests (real windows under Xvfb).

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTest>

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

} // namespace atrium::test
