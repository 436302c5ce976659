// The sample lecture in a real window (under Xvfb in CI): it opens signed, locked and
// branded; what its flags forbid is disabled and says why; a resource appears on the
// bar when the camera flies into its sphere looking at its target, and opens in place;
// the author's password unlocks editing, with undo; a tampered copy is refused. A
// lecture's baked flow, saving a lecture, and its panels' looks: LectureFlowUiTest.cpp,
// LectureSavingUiTest.cpp, LecturePanelsUiTest.cpp.

#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"
#include "tests/ui/LectureWindow.h"
#include "tests/ui/UiTestSupport.h"
#include "tests/ui/LectureUiTestSupport.h"
#include "sim/heart/HeartPipeline.h"
#include "widgets/lecture/BrandingBar.h"
#include "widgets/window/CardiacCyclePanel.h"
#include "widgets/view/ViewAnnotations.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeBar.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/lecture/ResourceBar.h"
#include "widgets/lecture/ResourceDialog.h"
#include "widgets/lecture/ResourceEditor.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QUrl>
#include <QAudioDevice>
#include <QMediaDevices>
#include <QMediaPlayer>
#include <QMouseEvent>
#include <QProgressDialog>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

#include <gtest/gtest.h>

#include <fstream>
#include <zip.h>

#include <cmath>
#include <filesystem>
#include <numbers>

using namespace atrium;
using widgets::MainWindow;

namespace {

using atrium::test::activate;
using atrium::test::kLecture;
using atrium::test::openLecture;
using atrium::test::waitFor;

bool shown(const MainWindow& w, const std::string& id) {
    const auto ids = w.lectureUi()->resourceBar()->shownIds();
    return std::find(ids.begin(), ids.end(), id) != ids.end();
}

/// Puts the camera at `pose` (first-person mode, at rest) and lets a few frames pass.
void placeCamera(MainWindow& w, const narrative::CameraPose& pose) {
    w.sceneView()->setNavigationMode(narrative::CameraMode::FirstPerson);
    w.sceneView()->camera().setPose(pose);
    const auto frames = w.sceneView()->framesRendered();
    waitFor([&] { return w.sceneView()->framesRendered() >= frames + 3; }, 20);
}

} // namespace

TEST(LectureUi, TheSampleLectureOpensSignedLockedAndBranded) {
    auto w = openLecture(kLecture);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_TRUE(waitFor([&] { return ui->lecture() != nullptr; }, 60)) << "the lecture did not open";
    EXPECT_EQ(w->windowTitle(), "Atrium - The left heart");
    const auto& p = ui->lecture()->package();
    EXPECT_TRUE(p.locked());
    EXPECT_EQ(p.signatureState(), package::SignatureState::Signed);
    EXPECT_FALSE(p.authorPresent());

    // The branding bar is there, with the lock and the signer always in sight.
    ASSERT_TRUE(waitFor([&] { return ui->brandingBar()->isVisible(); }, 10));
    EXPECT_TRUE(ui->brandingBar()->brandingText().contains("Atrium demo college"));
    EXPECT_TRUE(ui->brandingBar()->lockText().contains("Locked by its author"));
    EXPECT_TRUE(ui->brandingBar()->signatureText().contains("unknown author")) << "the demo key is on no trust list";

    // Locked narratives and resources: their edit controls are disabled and say why.
    for (QAction* a : {ui->resourceEditor()->newAction(), ui->resourceEditor()->editAction(), ui->resourceEditor()->removeAction()}) {
        EXPECT_FALSE(a->isEnabled()) << a->text().toStdString();
        EXPECT_TRUE(a->toolTip().contains("locked this content's embedded resources")) << a->toolTip().toStdString();
    }
    const auto narratives = ui->refusal(narrative::Operation::EditNarratives);
    ASSERT_TRUE(narratives);
    EXPECT_TRUE(narratives->contains("locked this content's narratives"));
    // The lecture's narrative is in the narrative bar, playable, its editing refused.
    widgets::NarrativeWorkspace* tour = w->narratives();
    EXPECT_EQ(tour->editor()->document().narratives.size(), 1u);
    EXPECT_TRUE(tour->playAction()->isEnabled());
    for (QAction* a : {tour->addNodeAction(), tour->removeNodeAction(), tour->editOverlaysAction()}) {
        EXPECT_FALSE(a->isEnabled()) << a->text().toStdString();
        EXPECT_TRUE(a->toolTip().contains("locked this content's narratives")) << a->toolTip().toStdString();
    }
    QString error;
    EXPECT_FALSE(ui->resourceEditor()->removeResource("aorta", &error)) << "the API refuses too";
    EXPECT_TRUE(error.contains("locked"));
    EXPECT_EQ(p.manifest().resources.size(), 11u);
    EXPECT_TRUE(ui->unlockAction()->isEnabled());

    // Free flight is allowed here (the control for FlagsDisableWhatTheyForbidAndSayWhy).
    w->sceneView()->setNavigationMode(narrative::CameraMode::FirstPerson);
    const narrative::Vec3 before = w->sceneView()->camera().pose().position();
    QTest::keyPress(w->sceneView(), Qt::Key_W);
    QTest::qWait(400);
    QTest::keyRelease(w->sceneView(), Qt::Key_W);
    EXPECT_GT(narrative::length(w->sceneView()->camera().pose().position() - before), 0.1);

    // The global resources are listed wherever the camera is.
    EXPECT_TRUE(waitFor([&] { return shown(*w, "heart-sounds") && shown(*w, "handout"); }, 10));

    // Filtered by category, then sorted by name.
    auto* category = ui->resourceBar()->findChild<QComboBox*>("resourceCategory");
    auto* order = ui->resourceBar()->findChild<QComboBox*>("resourceOrder");
    ASSERT_TRUE(category && order);
    EXPECT_EQ(category->count(), 5) << "all, and the four categories";
    category->setCurrentIndex(category->findData("Valves"));
    EXPECT_TRUE(waitFor([&] { return !shown(*w, "heart-sounds"); }, 5)) << "not a valve";
    category->setCurrentIndex(category->findData("Listening and reading"));
    order->setCurrentIndex(order->findData(int(narrative::ResourceOrder::Name)));
    EXPECT_TRUE(waitFor([&] {
        return ui->resourceBar()->shownIds() == std::vector<std::string>{"handout", "heart-sounds"};
    }, 5)) << "Handout before Heart sounds by name";
}

TEST(LectureUi, AResourceBecomesActiveWhenTheCameraFliesIntoItsSphere) {
    auto w = openLecture(kLecture);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_TRUE(waitFor([&] { return ui->lecture() != nullptr; }, 60));
    const auto* mitral = ui->lecture()->manifest().findResource("mitral-valve-picture");
    ASSERT_NE(mitral, nullptr);

    // Far outside its sphere: not on the bar.
    placeCamera(*w, narrative::CameraPose::lookAt({0, -300, 0}, mitral->target));
    EXPECT_FALSE(shown(*w, "mitral-valve-picture"));
    // Inside the sphere but turned away from the valve: still not (Poyart 2016 fig. 5.5).
    const narrative::CameraPose away = narrative::CameraPose::lookAt(mitral->centre, mitral->centre + (mitral->centre - mitral->target));
    placeCamera(*w, away);
    EXPECT_FALSE(shown(*w, "mitral-valve-picture"));
    // Inside the sphere looking at the valve: its icon appears.
    placeCamera(*w, narrative::CameraPose::lookAt(mitral->centre + narrative::Vec3{2, 0, 0}, mitral->target));
    ASSERT_TRUE(waitFor([&] { return shown(*w, "mitral-valve-picture"); }, 10));

    // A click opens it in place; it asks to reposition, so the camera flies to its view.
    QToolButton* button = ui->resourceBar()->button("mitral-valve-picture");
    ASSERT_NE(button, nullptr);
    QTest::mouseClick(button, Qt::LeftButton);
    EXPECT_EQ(ui->resourceViewer()->shownId(), "mitral-valve-picture");
    EXPECT_TRUE(ui->resourceViewer()->isVisible());
    ASSERT_TRUE(waitFor([&] { return !ui->flying(); }, 10));
    EXPECT_LT(narrative::length(w->sceneView()->camera().pose().position() - mitral->centre), 1e-6);
    ui->resourceViewer()->closePanel();
    EXPECT_FALSE(ui->resourceViewer()->isVisible());

    // A sound plays in place (Qt Multimedia): the synthetic heart sounds, 4 beats at 72 bpm.
    ui->openResource("heart-sounds");
    EXPECT_EQ(ui->resourceViewer()->shownId(), "heart-sounds");
    EXPECT_TRUE(waitFor([&] { return ui->resourceViewer()->player()->duration() > 0; }, 15))
        << ui->resourceViewer()->player()->errorString().toStdString();
    EXPECT_NEAR(double(ui->resourceViewer()->player()->duration()), 4 * 60000.0 / 72.0, 50.0);
    // With no audio device (CI, a PC without a sound card) it plays silently: Qt 6.4's
    // FFmpeg backend would crash writing to a missing audio sink.
    EXPECT_EQ(ui->resourceViewer()->player()->audioOutput() != nullptr, !QMediaDevices::audioOutputs().isEmpty());
    EXPECT_TRUE(waitFor([&] { return ui->resourceViewer()->player()->playbackState() == QMediaPlayer::PlayingState; }, 5));
    QTest::qWait(500);
    ui->resourceViewer()->closePanel();

    // The text of the left atrium opens by itself when the camera enters its sphere.
    const auto* atrium = ui->lecture()->manifest().findResource("left-atrium");
    ASSERT_NE(atrium, nullptr);
    placeCamera(*w, narrative::CameraPose::lookAt(atrium->centre, atrium->target));
    ASSERT_TRUE(waitFor([&] { return ui->resourceViewer()->shownId() == "left-atrium"; }, 10));
}

// Issue 23: the auto-launched "Left atrium" text opened over the middle of the view at
// node 2, stayed open through nodes 3-6 hiding their overlays and labels, and Esc did
// not close it.
TEST(LectureUi, AnAutoLaunchedPanelSitsAsideAndClosesWhenItsMomentEnds) {
    auto w = openLecture(kLecture);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_TRUE(waitFor([&] { return ui->lecture() != nullptr; }, 60));
    widgets::ResourceViewer* panel = ui->resourceViewer();
    const auto* atrium = ui->lecture()->manifest().findResource("left-atrium");
    ASSERT_NE(atrium, nullptr);
    const narrative::CameraPose inside = narrative::CameraPose::lookAt(atrium->centre, atrium->target);
    const narrative::CameraPose far = narrative::CameraPose::lookAt({0, -300, 0}, atrium->target);

    // Flown into by hand: it opens aside (the middle of the view stays clear) and closes
    // when the camera leaves the resource.
    placeCamera(*w, far);
    placeCamera(*w, inside);
    ASSERT_TRUE(waitFor([&] { return panel->shownId() == "left-atrium"; }, 10));
    EXPECT_EQ(ui->autoLaunchedId(), "left-atrium");
    const QRect view = w->sceneView()->rect();
    EXPECT_GT(panel->geometry().left(), view.center().x()) << "the panel covers the middle of the view";
    EXPECT_TRUE(view.contains(panel->geometry()));
    placeCamera(*w, far);
    EXPECT_TRUE(waitFor([&] { return !panel->isVisible(); }, 10)) << "the panel stayed after the camera left";

    // In a narrative: it closes when the node it opened at ends, though the next node is
    // still inside the resource's sphere looking at it.
    narrative::Narrative tour;
    narrative::Node a;
    a.pose = inside;
    a.waitForKey = true;
    narrative::Node b = a;
    b.pose = narrative::CameraPose::lookAt(atrium->centre + narrative::Vec3{3, 0, 0}, atrium->target);
    narrative::insertNode(tour, 0, a);
    narrative::insertNode(tour, 1, b);
    QTemporaryDir dir;
    narrative::NarrativeDocument document;
    document.narratives = {tour};
    const std::string file = dir.filePath("aside.narratives.json").toStdString();
    narrative::saveNarrativeDocument(document, file);
    QString error;
    ASSERT_TRUE(w->narratives()->openFile(QString::fromStdString(file), &error)) << error.toStdString();
    widgets::NarrativePlayback* playback = w->narratives()->playback();
    placeCamera(*w, far);
    ASSERT_TRUE(playback->jumpTo(0));
    ASSERT_TRUE(waitFor([&] { return panel->isVisible() && panel->shownId() == "left-atrium"; }, 10));
    EXPECT_EQ(ui->autoLaunchedId(), "left-atrium");
    ASSERT_TRUE(playback->jumpTo(1));
    EXPECT_TRUE(waitFor([&] { return !panel->isVisible(); }, 10)) << "the panel stayed open into the next node";
    EXPECT_TRUE(ui->lecture()->active().size() > 0);

    // Esc closes the topmost panel, wherever the focus is, before it stops the narrative.
    ASSERT_TRUE(activate(*w));
    ui->openResource("heart-sounds");
    ASSERT_TRUE(panel->isVisible());
    EXPECT_FALSE(panel->aside()) << "a resource asked for opens in the middle";
    w->narratives()->bar()->setFocus();
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : w.get(), Qt::Key_Escape);
    EXPECT_FALSE(panel->isVisible()) << "Esc did not close the resource";
    EXPECT_TRUE(playback->active()) << "Esc stopped the narrative instead of closing the panel";
    QTest::keyClick(w.get(), Qt::Key_Escape);
    EXPECT_FALSE(playback->active());
}

// Issue 23: the resource and branding bars lay over the bottom of the 3D view, hiding the
// cycle panel's valve rows and the scale bar (and at 800x600 leaving 280 px of view), the
// last line of overlays, and a strip that F12's default image still held.
TEST(LectureUi, TheBarsReserveTheirRowsAndNothingInTheViewLiesUnderThem) {
    auto w = openLecture(kLecture, {.size = QSize(1280, 800), .waitForLecture = true});
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_NE(ui->lecture(), nullptr);
    ASSERT_TRUE(waitFor([&] { return ui->resourceBar()->isVisible() && ui->brandingBar()->isVisible(); }, 20));
    widgets::SceneView* v = w->sceneView();
    const auto inWindow = [&](const QWidget* widget) { return QRect(widget->mapTo(w.get(), QPoint(0, 0)), widget->size()); };
    for (const QSize size : {QSize(1280, 800), QSize(1920, 1080), QSize(800, 600)}) {
        w->resize(size);
        ASSERT_TRUE(waitFor([&] { return w->size() == size && inWindow(ui->brandingBar()).bottom() <= w->height(); }, 10));
        const auto frames = v->framesRendered(); // the panels follow the view's size on its next frames
        ASSERT_TRUE(waitFor([&] { return v->framesRendered() >= frames + 3; }, 20));
        const QRect view = inWindow(v);
        SCOPED_TRACE(QString("%1x%2").arg(size.width()).arg(size.height()).toStdString());
        for (const QWidget* bar : {static_cast<QWidget*>(ui->resourceBar()), static_cast<QWidget*>(ui->brandingBar())}) {
            EXPECT_FALSE(inWindow(bar).intersects(view)) << bar->objectName().toStdString() << " covers the view";
            EXPECT_GE(inWindow(bar).top(), view.bottom()) << bar->objectName().toStdString() << " is not below the view";
        }
        // What the view draws lies in the view: the cycle panel, the scale bar, the overlays.
        const QRect seen = v->rect();
        EXPECT_TRUE(seen.contains(w->cyclePanel()->geometry()));
        EXPECT_TRUE(seen.contains(w->annotations()->overlayRegion().boundingRect()));
        EXPECT_EQ(w->narratives()->overlays()->geometry(), seen);
        // The view is what is left of the window: F12's default image (the view's size) has no hidden strip.
        EXPECT_GE(v->height(), size.height() / 3) << "too little of the window is left to the view";
    }
}

// Issue 23: the sample tour, node by node at 1280x800, as a student sees it: every
// overlay and 3D label lies in the view (none under a bar or off its edge), and a node
// whose camera stands inside the heart does not show a screen of blood (it hides the
// blood or cuts the heart open), so that the walls and valves it talks about show.
TEST(LectureUi, EveryNodeOfTheSampleTourLiesInTheViewAndShowsWhatItTalksAbout) {
    auto w = openLecture(kLecture, {.size = QSize(1280, 800), .waitForLecture = true});
    widgets::NarrativePlayback* playback = w->narratives()->playback();
    widgets::SceneView* v = w->sceneView();
    const widgets::OverlayLayer* layer = w->narratives()->overlays();
    ASSERT_TRUE(playback->jumpTo(0));
    const narrative::Narrative tour = playback->player().narrative();
    ASSERT_GE(tour.nodes.size(), 8u) << "inflow, atrium, mitral valve, filling, systole, aorta, the cycle, stenosis";
    ASSERT_TRUE(waitFor([&] { return v->framesWithBlood() >= 3; }, 240));
    int inside = 0;
    for (int k = 0; k < int(tour.nodes.size()); ++k) {
        SCOPED_TRACE("node " + std::to_string(k + 1) + " " + tour.nodes[std::size_t(k)].title);
        ASSERT_TRUE(playback->jumpTo(k));
        ASSERT_TRUE(waitFor([&] { return playback->frame().node == k && playback->frame().overlayAlpha > 0.99; }, 30));
        const auto frames = v->framesRendered();
        ASSERT_TRUE(waitFor([&] { return v->framesRendered() >= frames + 3; }, 20));
        const QRect view = v->rect();
        EXPECT_TRUE(view.contains(layer->overlayRegion().boundingRect())) << "an overlay lies outside the view";
        for (std::size_t i = 0; i < layer->items().size(); ++i)
            if (layer->items()[i].kind == narrative::OverlayKind::Label3D) {
                const auto at = layer->labelPoint(i, view.size());
                ASSERT_TRUE(at.has_value()) << "label " << i << " behind the camera";
                EXPECT_TRUE(view.contains(at->toPoint())) << "label " << i << " points off the view";
            }
        // The camera is inside the heart when a line from it to far behind crosses the
        // surfaces an odd number of times.
        const narrative::CameraPose pose = v->camera().pose();
        if (v->surfacesCrossedTo(pose.position() - pose.forward() * 2000.0) % 2 == 1) {
            ++inside;
            EXPECT_TRUE(!v->bloodVisible() || v->clipping()) << "inside the heart, the blood fills the view";
        }
    }
    EXPECT_GE(inside, 1) << "the tour goes inside the heart";
}

// Issue 23: a bad file left its "Verifying... 0 %" progress dialog over the error message,
// blocking the message's OK.
TEST(LectureUi, ABadFileLeavesNoProgressDialogOverItsError) {
    QTemporaryDir dir;
    const QString bad = dir.filePath("bad.atrium");
    {
        std::ofstream out(bad.toStdString(), std::ios::binary);
        out << std::string(4096, 'x'); // not a package at all
    }
    auto w = openLecture(kLecture, {.headless = false, .waitForLecture = true});
    QString failure;
    QObject::connect(w->lectureUi(), &widgets::LectureUi::openFailed, [&](const QString& why) { failure = why; });
    QPointer<QMessageBox> box; // the box lives on QMessageBox::warning's stack
    bool boxShown = false, progressOverTheBox = false;
    // The message box runs its own event loop: it is looked at from a timer.
    QTimer watch;
    QElapsedTimer sinceBox;
    QObject::connect(&watch, &QTimer::timeout, [&] {
        if (!boxShown) {
            box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
            if (box) {
                boxShown = true;
                sinceBox.start();
            }
            return;
        }
        if (!box) return;
        for (QProgressDialog* p : w->findChildren<QProgressDialog*>()) progressOverTheBox = progressOverTheBox || p->isVisible();
        if (sinceBox.elapsed() > 1500) box->accept(); // past the dialog's 300 ms and several of its ticks
    });
    watch.start(50);
    w->lectureUi()->open(bad);
    ASSERT_TRUE(waitFor([&] { return boxShown && (!box || !box->isVisible()); }, 60)) << "no error message";
    watch.stop();
    EXPECT_FALSE(failure.isEmpty());
    EXPECT_FALSE(progressOverTheBox) << "the progress dialog showed over the error";
    for (QProgressDialog* p : w->findChildren<QProgressDialog*>()) EXPECT_FALSE(p->isVisible());
}

TEST(LectureUi, TheAuthorsPasswordUnlocksEditingWithUndo) {
    auto w = openLecture(kLecture);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_TRUE(waitFor([&] { return ui->lecture() != nullptr; }, 60));
    widgets::ResourceEditor* editor = ui->resourceEditor();
    QString error;
    EXPECT_FALSE(ui->unlock("atrium-Demo", &error));
    EXPECT_TRUE(error.contains("wrong password"));
    EXPECT_FALSE(editor->newAction()->isEnabled());

    ASSERT_TRUE(ui->unlock("atrium-demo", &error)) << error.toStdString();
    EXPECT_TRUE(editor->newAction()->isEnabled());
    EXPECT_TRUE(w->narratives()->addNodeAction()->isEnabled()) << "the author may edit the narratives";
    EXPECT_TRUE(ui->brandingBar()->lockText().contains("Unlocked"));

    narrative::Resource here = editor->resourceHere();
    here.name = "Here";
    ASSERT_TRUE(editor->addResource(here, &error)) << error.toStdString();
    EXPECT_NE(ui->lecture()->manifest().findResource(here.id), nullptr);
    placeCamera(*w, narrative::CameraPose::lookAt(here.centre, here.target));
    EXPECT_TRUE(waitFor([&] { return shown(*w, here.id); }, 10));
    editor->undoStack()->undo();
    EXPECT_EQ(ui->lecture()->manifest().findResource(here.id), nullptr);
    editor->undoStack()->redo();
    EXPECT_NE(ui->lecture()->manifest().findResource(here.id), nullptr);

    // Saved by the author: signed again with the lecture's own key, still locked.
    QTemporaryDir dir;
    const std::string copy = dir.filePath("edited.atrium").toStdString();
    ui->lecture()->package().save(copy);
    const auto again = package::ContentPackage::open(copy);
    EXPECT_EQ(again.signer(), ui->lecture()->package().lockOwner());
    EXPECT_TRUE(again.locked());
    EXPECT_NE(again.manifest().findResource(here.id), nullptr);
}

TEST(LectureUi, ATamperedCopyIsRefusedNamingTheEntry) {
    QTemporaryDir dir;
    const QString copy = dir.filePath("tampered.atrium");
    std::filesystem::copy_file(kLecture.toStdString(), copy.toStdString());
    {
        int error = 0;
        zip_t* z = zip_open(copy.toStdString().c_str(), 0, &error);
        ASSERT_NE(z, nullptr);
        static const std::string handout = "A different handout.";
        zip_file_add(z, "media/left-heart-handout.txt", zip_source_buffer(z, handout.data(), handout.size(), 0), ZIP_FL_OVERWRITE);
        ASSERT_EQ(zip_close(z), 0);
    }
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.persistSettings = false;
    options.headless = true;
    MainWindow w(options);
    QString error;
    EXPECT_FALSE(w.lectureUi()->openNow(copy, &error));
    EXPECT_TRUE(error.contains("media/left-heart-handout.txt")) << error.toStdString();
    EXPECT_TRUE(error.contains("tampered")) << error.toStdString();
    EXPECT_EQ(w.lectureUi()->lecture(), nullptr);
}

TEST(LectureUi, FlagsDisableWhatTheyForbidAndSayWhy) {
    // The sample lecture, re-flagged by its author: no free flight, no video export.
    QTemporaryDir dir;
    const QString flagged = dir.filePath("flagged.atrium");
    {
        auto p = package::ContentPackage::open(kLecture.toStdString());
        ASSERT_TRUE(p.unlock("atrium-demo"));
        narrative::Restrictions r = p.manifest().restrictions;
        r.narrativeNavigationOnly = true;
        r.videoExportForbidden = true;
        r.maxResolution = narrative::Resolution{1280, 720};
        ASSERT_TRUE(p.setRestrictions(r));
        p.save(flagged.toStdString());
    }
    auto w = openLecture(flagged);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_NE(ui->lecture(), nullptr);
    QAction* record = nullptr;
    for (QAction* a : w->findChildren<QAction*>())
        if (a->text() == "Record video") record = a;
    ASSERT_NE(record, nullptr);
    EXPECT_FALSE(record->isEnabled());
    EXPECT_TRUE(record->toolTip().contains("forbids video export")) << record->toolTip().toStdString();
    const auto big = ui->refusal(narrative::Operation::RenderImage, 1920, 1080);
    ASSERT_TRUE(big);
    EXPECT_TRUE(big->contains("at most 1280 x 720"));
    EXPECT_FALSE(ui->refusal(narrative::Operation::RenderImage, 1280, 720));

    // No free flight: the keys that move the camera do nothing.
    w->sceneView()->setNavigationMode(narrative::CameraMode::FirstPerson);
    const narrative::Vec3 before = w->sceneView()->camera().pose().position();
    QTest::keyPress(w->sceneView(), Qt::Key_W);
    QTest::qWait(400);
    QTest::keyRelease(w->sceneView(), Qt::Key_W);
    EXPECT_LT(narrative::length(w->sceneView()->camera().pose().position() - before), 1e-9);
}

TEST(LectureUi, TheEditorPlacesAResourceFromTheViewWithItsGizmo) {
    auto w = openLecture(kLecture);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_TRUE(ui->unlock("atrium-demo"));
    widgets::ResourceEditor* editor = ui->resourceEditor();
    w->sceneView()->goHome(); // the whole heart in view, from outside
    QTest::qWait(100);
    editor->openDialog();
    widgets::ResourceDialog* dialog = editor->dialog();
    ASSERT_TRUE(dialog && dialog->isVisible());
    EXPECT_LT(narrative::length(dialog->resource().centre - w->sceneView()->camera().pose().position()), 0.1)
        << "c from the camera (the form keeps tenths of a millimetre)";

    // t by a ray cast: the view's centre looks at the heart, so the ray meets its wall,
    // on the line of sight and within the framed radius of the centre. (The home view
    // frames the four-chamber heart's right-heart shell too, which the ray does not see,
    // so the wall it meets may lie beyond the framed centre.)
    const QPoint middle(w->sceneView()->width() / 2, w->sceneView()->height() / 2);
    ASSERT_TRUE(editor->pickTargetAt(middle));
    const narrative::Vec3 t = dialog->resource().target;
    const narrative::Vec3 eye = w->sceneView()->camera().pose().position();
    EXPECT_LT(narrative::length(t - w->sceneView()->heartCenter()), 1.2 * w->sceneView()->heartRadius());
    const narrative::Vec3 toTarget = t - eye, toCentre = w->sceneView()->heartCenter() - eye;
    EXPECT_GT(narrative::dot(toTarget, toCentre) / (narrative::length(toTarget) * narrative::length(toCentre)),
              std::cos(1.0 * std::numbers::pi / 180.0))
        << "t lies on the ray through the view's centre";
    // A click off the heart picks nothing.
    editor->openDialog();
    EXPECT_FALSE(editor->pickTargetAt(QPoint(3, 3)));

    // Ctrl+drag up in the view grows the sphere.
    const double r0 = dialog->resource().radius;
    QTest::mousePress(w->sceneView(), Qt::LeftButton, Qt::ControlModifier, middle);
    QMouseEvent move(QEvent::MouseMove, QPointF(middle.x(), middle.y() - 50), QPointF(), Qt::LeftButton, Qt::LeftButton,
                     Qt::ControlModifier);
    QApplication::sendEvent(w->sceneView(), &move);
    QTest::mouseRelease(w->sceneView(), Qt::LeftButton, Qt::ControlModifier, QPoint(middle.x(), middle.y() - 50));
    EXPECT_NEAR(dialog->resource().radius, r0 * std::exp(0.5), 0.02 * r0);

    const std::size_t count = ui->lecture()->manifest().resources.size();
    Q_EMIT dialog->applyRequested(true);
    EXPECT_EQ(ui->lecture()->manifest().resources.size(), count + 1);
    EXPECT_FALSE(dialog->isVisible());
    editor->undoStack()->undo();
    EXPECT_EQ(ui->lecture()->manifest().resources.size(), count);
}

TEST(LectureUi, ExpiredContentIsRefusedAndADroppedLectureOpens) {
    QTemporaryDir dir;
    const QString expired = dir.filePath("expired.atrium");
    {
        auto p = package::ContentPackage::open(kLecture.toStdString());
        ASSERT_TRUE(p.unlock("atrium-demo"));
        narrative::Restrictions r = p.manifest().restrictions;
        r.expires = narrative::parseDate("2020-12-31");
        ASSERT_TRUE(p.setRestrictions(r));
        p.save(expired.toStdString());
    }
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromPreset("adult");
    options.persistSettings = false;
    options.headless = true;
    MainWindow w(options);
    w.show();
    QString error;
    EXPECT_FALSE(w.lectureUi()->openNow(expired, &error));
    EXPECT_TRUE(error.contains("expired after 2020-12-31")) << error.toStdString();
    EXPECT_EQ(w.lectureUi()->lecture(), nullptr);

    // Dropping a lecture on the window opens it (on a worker thread).
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(kLecture)});
    QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &enter);
    EXPECT_TRUE(enter.isAccepted());
    QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&w, &drop);
    ASSERT_TRUE(waitFor([&] { return w.lectureUi()->lecture() != nullptr; }, 60));
    EXPECT_EQ(w.lectureUi()->lecture()->title(), "The left heart");
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLectureUiTest"); }
