#pragma once
// Shared by the UI tests (real windows under Xvfb).

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>
#include <QWidget>

#include "narrative/Vec3.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <numbers>
#include <string>

namespace atrium::test {

/// The main() of a UI test binary: gtest's flags, a private cache and settings folder,
/// then a QApplication named `name` with the viewer's media backend. Listing the tests
/// needs no display.
inline int runUiTests(int argc, char** argv, const char* name) {
    ::testing::InitGoogleTest(&argc, argv);
    if (::testing::GTEST_FLAG(list_tests)) return RUN_ALL_TESTS();
    // Its own heart cache and settings, empty, removed when it ends (ctest runs each test
    // in a process of its own): nothing the user, an earlier test or an earlier run left
    // can change a result. Hearts prepared for the run are read through XDG_DATA_DIRS.
    QTemporaryDir home(QDir::tempPath() + "/atrium-ui-test-XXXXXX");
    if (!home.isValid()) {
        std::fprintf(stderr, "%s: no private folder for the test (%s)\n", name, qPrintable(home.errorString()));
        return 1;
    }
    qputenv("XDG_CACHE_HOME", home.filePath("cache").toLocal8Bit());
    qputenv("XDG_CONFIG_HOME", home.filePath("config").toLocal8Bit());
    if (qEnvironmentVariableIsEmpty("QT_MEDIA_BACKEND")) qputenv("QT_MEDIA_BACKEND", "ffmpeg"); // as app/viewer/main.cpp
    QApplication app(argc, argv);
    QApplication::setOrganizationName("AtriumTest");
    QApplication::setApplicationName(name);
    return RUN_ALL_TESTS();
}

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

/// A closed sphere of `radius` mm around `c` as a Wavefront OBJ (a heart phase of a
/// mesh series).
inline void writeSphereObj(const std::string& path, narrative::Vec3 c, double radius) {
    std::ofstream out(path);
    const int rings = 14, segments = 28;
    out << "v " << c.x << ' ' << c.y << ' ' << c.z + radius << '\n';
    for (int i = 1; i < rings; ++i)
        for (int j = 0; j < segments; ++j) {
            const double t = std::numbers::pi * i / rings, p = 2 * std::numbers::pi * j / segments;
            out << "v " << c.x + radius * std::sin(t) * std::cos(p) << ' ' << c.y + radius * std::sin(t) * std::sin(p)
                << ' ' << c.z + radius * std::cos(t) << '\n';
        }
    out << "v " << c.x << ' ' << c.y << ' ' << c.z - radius << '\n';
    const auto ring = [&](int i, int j) { return 2 + (i - 1) * segments + (j % segments); };
    const int bottom = 2 + (rings - 1) * segments;
    for (int j = 0; j < segments; ++j) {
        out << "f 1 " << ring(1, j) << ' ' << ring(1, j + 1) << '\n';
        for (int i = 1; i + 1 < rings; ++i) {
            out << "f " << ring(i, j) << ' ' << ring(i + 1, j) << ' ' << ring(i + 1, j + 1) << '\n';
            out << "f " << ring(i, j) << ' ' << ring(i + 1, j + 1) << ' ' << ring(i, j + 1) << '\n';
        }
        out << "f " << bottom << ' ' << ring(rings - 1, j + 1) << ' ' << ring(rings - 1, j) << '\n';
    }
}

} // namespace atrium::test
