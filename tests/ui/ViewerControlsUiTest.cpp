// The viewer's controls and keys (under Xvfb in CI): the control bar at any width, the
// help listing every shortcut, no shortcut shared, the keys back to the view after
// dialogs and menus, and the parameters and heart rate kept between runs.

#include "sim/heart/HeartPipeline.h"
#include "widgets/window/ControlBar.h"
#include "widgets/window/HelpOverlay.h"
#include "widgets/window/MainWindow.h"
#include "widgets/view/SceneView.h"
#include "tests/ui/UiTestSupport.h"
#include "tests/ui/ViewerUiTestSupport.h"

#include <QAction>
#include <QApplication>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QTest>
#include <QTimer>
#include <QToolButton>

#include <gtest/gtest.h>

#include <map>

using namespace atrium;
using atrium::test::checkedPresets;
using atrium::test::distance;
using atrium::test::openViewer;
using atrium::test::runTicks;
using atrium::test::waitFor;
using atrium::test::waitForBlood;
using widgets::MainWindow;
using widgets::SceneView;

TEST(Viewer, ControlBarFitsAnyWidthWithTheRestInItsOverflowMenu) {
    auto w = openViewer();
    widgets::ControlBar* bar = w->controlBar();
    SceneView* v = w->sceneView();
    QWidget* hud = v->findChild<QWidget*>("hud");
    ASSERT_NE(hud, nullptr);
    const QString shots = qEnvironmentVariable("ATRIUM_UI_SHOTS"); // a folder for PNGs to look at
    for (const int width : {700, 1024, 1600}) {
        SCOPED_TRACE(width);
        w->resize(width, 700);
        QTest::qWait(100);
        ASSERT_EQ(v->width(), width);
        bar->setOpen(true);
        ASSERT_TRUE(waitFor([&] { return bar->openFraction() > 0.999; }, 5));
        QTest::qWait(50);
        if (!shots.isEmpty()) w->grab().save(QString("%1/bar-%2.png").arg(shots).arg(width));
        // Nothing visible sticks out of the bar or overlaps another control.
        std::vector<QRect> controls;
        for (QWidget* c : bar->findChildren<QWidget*>(Qt::FindDirectChildrenOnly))
            if (c->isVisible() && c->width() > widgets::ControlBar::kGap) controls.push_back(c->geometry());
        for (std::size_t i = 0; i < controls.size(); ++i) {
            EXPECT_GE(controls[i].left(), 0);
            EXPECT_LE(controls[i].right(), bar->width());
            for (std::size_t j = i + 1; j < controls.size(); ++j) EXPECT_FALSE(controls[i].intersects(controls[j]));
        }
        // Every action of the bar is a button there or an entry of its overflow menu.
        QMenu* overflow = bar->overflowMenu();
        for (QToolButton* b : bar->findChildren<QToolButton*>()) {
            if (b == bar->overflowButton()) continue;
            EXPECT_TRUE(b->isVisible() || overflow->actions().contains(b->defaultAction())) << b->toolTip().toStdString();
            EXPECT_FALSE(b->toolTip().isEmpty());
        }
        EXPECT_EQ(bar->overflowButton()->isVisible(), width < 1024) << "all fits from 1024 px on";
        // The HUD keeps clear of the open bar.
        EXPECT_GE(hud->y(), bar->y() + bar->height());
        bar->setOpen(false);
    }
}

TEST(Viewer, HelpListsEveryShortcutOfTheMenus) {
    auto w = openViewer();
    const QString html = widgets::HelpOverlay::helpHtml(w->menuBar());
    int shortcuts = 0;
    for (QAction* a : w->findChildren<QAction*>()) {
        if (a->shortcut().isEmpty()) continue;
        bool inMenu = false;
        for (QAction* top : w->menuBar()->actions())
            for (QMenu* m : QList<QMenu*>{top->menu()} + top->menu()->findChildren<QMenu*>())
                inMenu = inMenu || m->actions().contains(a);
        if (!inMenu) continue;
        ++shortcuts;
        EXPECT_TRUE(html.contains(a->shortcut().toString(QKeySequence::NativeText).toHtmlEscaped()))
            << a->text().toStdString();
    }
    EXPECT_GE(shortcuts, 20);
    for (const char* key : {"Ctrl+R", "Ctrl+P", "Ctrl+O", ">1<", ">4<", ">B<", ">F2<", ">F5<"})
        EXPECT_TRUE(html.contains(key)) << key;
}

TEST(Viewer, NoTwoActionsShareAShortcut) {
    // Issue 23: L was bound to both the chamber labels and the narrative's loop. Qt takes
    // a key that two enabled actions of a window share as ambiguous and runs neither.
    auto w = openViewer();
    std::map<QString, QStringList> byKey;
    for (QAction* a : w->findChildren<QAction*>()) {
        if (a->shortcutContext() == Qt::WidgetShortcut) continue; // only where its widget has focus
        for (const QKeySequence& key : a->shortcuts())
            if (!key.isEmpty()) byKey[key.toString()] << a->text();
    }
    EXPECT_GE(byKey.size(), 20u);
    for (const auto& [key, actions] : byKey)
        EXPECT_EQ(actions.size(), 1) << key.toStdString() << " is bound to " << actions.join(", ").toStdString();
}

TEST(Viewer, TheViewGetsTheKeysBackAfterDialogsAndMenus) {
    auto w = openViewer();
    ASSERT_TRUE(waitForBlood(*w, 1));
    ASSERT_TRUE(atrium::test::activate(*w));
    SceneView* v = w->sceneView();
    // A dialog (Parameters), closed without a change.
    QTimer::singleShot(300, [] {
        if (QWidget* d = QApplication::activeModalWidget()) d->close();
    });
    w->findChild<QAction*>("parametersAction")->trigger();
    ASSERT_TRUE(waitFor([&] { return QApplication::focusWidget() == v; }, 5)) << "focus after the dialog";
    // A menu closed with Esc: H then goes home instead of opening the Help menu.
    QMenu* file = w->menuBar()->actions().front()->menu();
    w->menuBar()->setActiveAction(w->menuBar()->actions().front());
    ASSERT_TRUE(waitFor([&] { return file->isVisible(); }, 5));
    QTest::keyClick(file, Qt::Key_Escape);
    ASSERT_TRUE(waitFor([&] { return !file->isVisible() && QApplication::focusWidget() == v; }, 5));
    v->camera().orbit().setDistanceLimits(1, 1e6);
    const narrative::Vec3 home = v->camera().pose().position();
    v->camera().handle(narrative::InputEvent::wheel(-5)); // zoom out
    runTicks(v, 5);
    ASSERT_GT(distance(v->camera().pose().position(), home), 1.0);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_H);
    EXPECT_EQ(QApplication::activePopupWidget(), nullptr) << "no menu opened";
    runTicks(v, 2);
    EXPECT_LT(distance(v->camera().pose().position(), home), 1e-6);
}

TEST(Viewer, ParametersAndTheHeartRatePersistBetweenRuns) {
    QSettings().clear();
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.particleBudget = 2000;
    {
        MainWindow w(options);
        bool loaded = false;
        QObject::connect(&w, &MainWindow::heartLoaded, [&] { loaded = true; });
        w.show();
        ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
        widgets::SimulationChoices c = w.simulationChoices();
        c.heartRateBpm = 58;
        c.viscosityMilliPaS = 4.5;
        c.soundSpeed = 12;
        w.restartSimulation(c);
        w.close();
    }
    widgets::ViewerOptions next = options;
    MainWindow w(next);
    bool loaded = false;
    QObject::connect(&w, &MainWindow::heartLoaded, [&] { loaded = true; });
    w.show();
    ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
    EXPECT_DOUBLE_EQ(w.simulationChoices().heartRateBpm, 58);
    EXPECT_DOUBLE_EQ(w.simulationChoices().viscosityMilliPaS, 4.5);
    EXPECT_DOUBLE_EQ(w.simulationChoices().soundSpeed, 12);
    // The synthetic heart menu marks the heart shown.
    EXPECT_EQ(checkedPresets(w), QStringList{"adult"});
    // Another heart plays at its own rate.
    loaded = false;
    w.loadHeart(heart::HeartSource::fromPreset("child"));
    ASSERT_TRUE(waitFor([&] { return loaded; }, 120));
    EXPECT_NEAR(w.simulationChoices().heartRateBpm, 100, 1e-9);
    QSettings().clear();
}
