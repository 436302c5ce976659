// The sample lecture in a real window (under Xvfb in CI): it opens signed, locked and
// branded; what its flags forbid is disabled and says why; a resource appears on the
// bar when the camera flies into its sphere looking at its target, and opens in place;
// the author's password unlocks editing, with undo; a tampered copy is refused.

#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"
#include "tests/ui/LectureWindow.h"
#include "tests/ui/UiTestSupport.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshSeries.h"
#include "widgets/flow/BakedFlowPlayer.h"
#include "widgets/flow/FlowBaker.h"
#include "widgets/flow/HeartLoader.h"
#include "widgets/lecture/BrandingBar.h"
#include "widgets/window/CardiacCyclePanel.h"
#include "widgets/view/ViewAnnotations.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeBar.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeHome.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/narrative/OverlayPainter.h"
#include "widgets/lecture/ResourceBar.h"
#include "widgets/lecture/ResourceDialog.h"
#include "widgets/lecture/ResourceEditor.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QDropEvent>
#include <QLabel>
#include <QElapsedTimer>
#include <QGraphicsView>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPointer>
#include <QPushButton>
#include <QScopeGuard>
#include <QScrollBar>
#include <QSettings>
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
#include <functional>
#include <memory>
#include <numbers>

using namespace atrium;
using widgets::MainWindow;

namespace {

using atrium::test::activate;
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

const QString kLecture = ATRIUM_SAMPLE_LECTURE;

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

namespace {

/// A small baked beat (docs/baked-flow.md) named as baked in `heart`: three particles, 6 frames.
void writeFlow(const std::string& file, const std::string& heart) {
    std::vector<heart::BloodFrame> frames(6);
    for (std::size_t k = 0; k < frames.size(); ++k) {
        const float x = float(k);
        frames[k].positionMm = {x, 0, -20, 5, x, -30, -5, 0, -40};
        frames[k].velocity = {0.1f, 0, 0, 0, 0.1f, 0, 0, 0, -0.2f};
        frames[k].densityError = {0.01f, 0, -0.01f};
        frames[k].pressure = {10, 20, 30};
    }
    sph::Aabb box;
    box.lo = {-60, -60, -90};
    box.hi = {60, 60, 30};
    heart::BakedBeat(heart::flowCacheKey(heart, 0.8, {}, {}), 0.8, 2.0, box, frames).save(file);
}

/// A copy of the sample lecture at `file` whose flow is a small beat named as baked in
/// `heart`, re-signed with its lock's password.
void writeLectureWithFlow(const QString& file, const std::string& heart) {
    const std::string flow = file.toStdString() + ".atriumflow";
    writeFlow(flow, heart);
    auto p = package::ContentPackage::open(kLecture.toStdString());
    ASSERT_TRUE(p.unlock("atrium-demo"));
    ASSERT_TRUE(p.addFile("flow/beat.atriumflow", flow));
    ASSERT_TRUE(p.setFlow("flow/beat.atriumflow"));
    p.save(file.toStdString());
}

const widgets::BakedFlowPlayer* bakedPlayer(const MainWindow& w) {
    return dynamic_cast<const widgets::BakedFlowPlayer*>(w.sceneView()->bloodSource());
}

} // namespace

TEST(LectureUi, ALecturesBakedFlowPlaysWhenItOpensOneClickFromLive) {
    QTemporaryDir dir;
    const QString lecture = dir.filePath("with-flow.atrium");
    const std::string sampleHeart = // the sample lecture's heart
        heart::heartIdentity(heart::HeartSource::fromPreset("four-chamber"), heart::PipelineSettings::forBlood());
    writeLectureWithFlow(lecture, sampleHeart);
    auto w = openLecture(lecture);
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));

    // The lecture's beat plays at once, in real time: no bake, the same blood on every screen.
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(*w) && bakedPlayer(*w)->beat(); }, 30)) << "no baked beat plays";
    const heart::BakedBeat* beat = w->lectureUi()->lecture()->flow().get();
    ASSERT_NE(beat, nullptr);
    EXPECT_EQ(bakedPlayer(*w)->beat(), beat) << "the lecture's own beat";
    EXPECT_EQ(heart::bakedHeartOf(*beat), sampleHeart);
    EXPECT_TRUE(w->realTimeFlow());
    EXPECT_FALSE(w->flowBaker()->busy());
    auto* hud = w->sceneView()->findChild<QLabel*>("hud");
    ASSERT_NE(hud, nullptr);
    EXPECT_TRUE(waitFor([&] { return hud->text().contains("baked beat of the lecture, real time"); }, 10))
        << hud->text().toStdString();
    const auto snapshot = bakedPlayer(*w)->latest();
    ASSERT_NE(snapshot, nullptr);
    EXPECT_EQ(snapshot->particles(), 3u);

    // One click back to the live simulation, and one more to the lecture's beat again.
    QAction* realTime = w->findChild<QAction*>("realTimeFlowAction");
    ASSERT_NE(realTime, nullptr);
    realTime->trigger();
    EXPECT_FALSE(w->realTimeFlow());
    EXPECT_EQ(bakedPlayer(*w), nullptr) << "the blood is simulated live";
    EXPECT_NE(w->sceneView()->bloodSource(), nullptr);
    realTime->trigger();
    ASSERT_NE(bakedPlayer(*w), nullptr);
    EXPECT_EQ(bakedPlayer(*w)->beat(), beat) << "the lecture's beat, not a bake";
    EXPECT_FALSE(w->flowBaker()->busy());
    realTime->trigger(); // live again, so that nothing bakes below

    // A lecture whose flow was baked in another heart: refused, saying so; the blood stays live.
    const QString other = dir.filePath("other-heart.atrium");
    writeLectureWithFlow(other, heart::heartIdentity(heart::HeartSource::fromPreset("athlete"),
                                                     heart::PipelineSettings::forBlood()));
    QString refused;
    QObject::connect(w.get(), &MainWindow::flowRefused, [&refused](const QString& m) { refused = m; });
    bool loaded = false;
    QObject::connect(w.get(), &MainWindow::heartLoaded, [&loaded] { loaded = true; });
    QString error;
    ASSERT_TRUE(w->lectureUi()->openNow(other, &error)) << error.toStdString();
    ASSERT_TRUE(waitFor([&] { return loaded; }, 240));
    EXPECT_TRUE(refused.contains("The lecture's baked flow was baked in another heart")) << refused.toStdString();
    EXPECT_FALSE(w->realTimeFlow());
    EXPECT_EQ(bakedPlayer(*w), nullptr);
    EXPECT_EQ(w->suppliedFlow(), nullptr);
}

TEST(LectureUi, ALecturesFlowIsNotSavedAsTheUsersChoice) {
    // The sample lecture carries a baked beat. Opening it turns real-time flow on, but
    // the next start without it still simulates live, as the user chose; a T pressed
    // in the lecture is the user's choice, and kept.
    QSettings().setValue("simulation/flow", "live");
    widgets::ViewerOptions options;
    options.lecture = kLecture;
    options.particleBudget = 3000;
    options.headless = true;
    const auto session = [&](int presses) {
        MainWindow w(options);
        w.show();
        ASSERT_TRUE(waitFor([&] { return bakedPlayer(w) && bakedPlayer(w)->beat(); }, 240)) << "the lecture's beat";
        for (int i = 0; i < presses; ++i) w.findChild<QAction*>("realTimeFlowAction")->trigger();
        ASSERT_TRUE(w.close());
    };
    session(0);
    EXPECT_EQ(QSettings().value("simulation/flow").toString(), "live");
    session(2); // live, then the lecture's beat again
    EXPECT_EQ(QSettings().value("simulation/flow").toString(), "baked");
    QSettings().setValue("simulation/flow", "live");
}

TEST(LectureUi, AMeshSeriesHeartTravelsInsideAPackageWithItsFlow) {
    // A pulsing ball as a two-phase mesh series where its author keeps it, and a beat
    // named as baked in it there. The viewer extracts the series elsewhere, under other
    // names: the same heart all the same, so the beat plays.
    QTemporaryDir dir;
    const QString series = dir.filePath("series");
    ASSERT_TRUE(QDir().mkpath(series));
    const narrative::Vec3 c{40, -10, 25};
    atrium::test::writeSphereObj((series + "/ball_00.obj").toStdString(), c, 30);
    atrium::test::writeSphereObj((series + "/ball_01.obj").toStdString(), c, 26);
    const std::string ball =
        heart::heartIdentity(heart::HeartSource::fromMeshes(series.toStdString()), heart::PipelineSettings::forBlood());
    writeFlow(dir.filePath("ball.atriumflow").toStdString(), ball);
    const QString file = dir.filePath("ball.atrium");
    {
        package::Manifest m;
        m.title = "A pulsing ball";
        package::ContentPackage p(m);
        ASSERT_TRUE(p.addFile("heart/ball_00.obj", (series + "/ball_00.obj").toStdString()));
        ASSERT_TRUE(p.addFile("heart/ball_01.obj", (series + "/ball_01.obj").toStdString()));
        package::HeartSpec h;
        h.source = package::HeartSpec::Source::Meshes;
        h.entries = {"heart/ball_00.obj", "heart/ball_01.obj"};
        h.cycleSeconds = 0.8;
        ASSERT_TRUE(p.setHeart(h));
        ASSERT_TRUE(p.addFile("flow/ball.atriumflow", dir.filePath("ball.atriumflow").toStdString()));
        ASSERT_TRUE(p.setFlow("flow/ball.atriumflow"));
        p.save(file.toStdString());
    }
    QDir(series).removeRecursively(); // only the package holds the heart now

    auto w = openLecture(file);
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));
    EXPECT_EQ(w->windowTitle(), "Atrium - A pulsing ball");
    widgets::SceneView* v = w->sceneView();
    const narrative::Vec3 centre = v->heartCenter();
    EXPECT_LT(narrative::length(centre - c), 1.0) << "the heart shown is the packed ball";
    EXPECT_NEAR(v->heartRadius(), 30 * std::sqrt(3.0), 2.0);
    ASSERT_TRUE(waitFor([&] { return v->shownSnapshot() && !v->shownSnapshot()->wallVertexMm.empty(); }, 60));
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(*w) && bakedPlayer(*w)->beat(); }, 30)) << "the ball's beat does not play";
    EXPECT_EQ(bakedPlayer(*w)->beat(), w->lectureUi()->lecture()->flow().get());
    EXPECT_FALSE(w->flowBaker()->busy());
}

TEST(LectureUi, ALectureOpenedWhileAnotherHeartLoadsBringsItsOwnHeartAndFlow) {
    // The window starts on a mesh series it has never processed (seconds of work), and
    // the lecture is opened meanwhile: the lecture's heart replaces that load, and its
    // beat plays; nothing is refused as baked in another heart.
    QTemporaryDir dir;
    const QString lecture = dir.filePath("with-flow.atrium");
    writeLectureWithFlow(lecture, heart::heartIdentity(heart::HeartSource::fromPreset("four-chamber"),
                                                       heart::PipelineSettings::forBlood()));
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 1.5;
    p.phases = 10; // a mesh series to open, not the cycle's phases: kept short
    const std::filesystem::path series = std::filesystem::path(dir.path().toStdString()) / "lv_%02d.vtk";
    heart::writeMeshSeries(heart::phantomSurfaces(p, true), series);
    widgets::ViewerOptions options;
    options.source = heart::HeartSource::fromMeshes(series.string(), heart::HeartPhantom(p).cycleSeconds());
    options.particleBudget = 3000;
    options.persistSettings = false;
    options.headless = true;
    MainWindow w(options);
    QStringList refused;
    QObject::connect(&w, &MainWindow::flowRefused, [&](const QString& why) { refused << why; });
    w.resize(1100, 720);
    w.show();
    ASSERT_TRUE(waitFor([&] { return w.heartLoader()->busy(); }, 30));
    ASSERT_TRUE(w.lectureUi()->openNow(lecture));
    ASSERT_TRUE(waitFor([&] { return bakedPlayer(w) && bakedPlayer(w)->beat(); }, 240)) << "the lecture's beat";
    EXPECT_EQ(bakedPlayer(w)->beat(), w.lectureUi()->lecture()->flow().get());
    EXPECT_TRUE(refused.isEmpty()) << refused.join("; ").toStdString();
    // The beat is handed over before the heart loads (LectureUi::adopt), and the right
    // heart's shell comes after the left heart: on a cold machine minutes later, so wait
    // for it, not for a time.
    EXPECT_TRUE(waitFor([&] { return w.sceneView()->shellTriangles() > 1000u && !w.heartLoader()->busy(); }, 300))
        << "the lecture's four-chamber heart, with its shell: " << w.sceneView()->shellTriangles() << " triangles";
    EXPECT_FALSE(w.heartLoader()->busy());
}

namespace {

/// Nodes of the first narrative in a package's narratives document.
std::size_t firstNarrativeNodes(const package::ContentPackage& p) {
    return narrative::parseNarrativeDocument(p.narrativesDocument(), "narratives.json").narratives.at(0).nodes.size();
}

/// Answers the modal dialogs that open while it lives, as an author would: `answer` gets
/// each one and clicks or fills it; the texts of the message boxes are kept.
class DialogAnswerer {
public:
    explicit DialogAnswerer(std::function<void(QWidget*)> answer) : answer_(std::move(answer)) {
        timer_.setInterval(50);
        QObject::connect(&timer_, &QTimer::timeout, [this] {
            QWidget* modal = QApplication::activeModalWidget();
            if (!modal || !modal->isVisible() || modal == last_) return;
            last_ = modal;
            if (auto* box = qobject_cast<QMessageBox*>(modal)) asked << box->text();
            answer_(modal);
        });
        timer_.start();
    }
    QStringList asked;

private:
    std::function<void(QWidget*)> answer_;
    QTimer timer_;
    QPointer<QWidget> last_;
};

/// A window (not headless: it asks as it does for an author) on the lecture at `path`,
/// once it is open and its heart shown.
std::unique_ptr<MainWindow> openLectureWindow(const QString& path) {
    return openLecture(path, {.headless = false, .waitForLecture = true});
}

QByteArray bytesOf(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The sample lecture as its author would leave it for others to adapt: signed, not
/// locked, its narratives open to edits.
void writeSignedUnlockedCopy(const QString& path) {
    auto p = package::ContentPackage::open(kLecture.toStdString());
    ASSERT_TRUE(p.unlock("atrium-demo"));
    narrative::Restrictions r = p.manifest().restrictions;
    r.narrativesLocked = false;
    ASSERT_TRUE(p.setRestrictions(r));
    ASSERT_TRUE(p.removeLock());
    p.save(path.toStdString());
}

/// The files in `dir`, hidden ones included (a temporary beside a package is hidden).
QStringList filesIn(const QString& dir) { return QDir(dir).entryList(QDir::Files | QDir::Hidden | QDir::System); }

} // namespace

TEST(LectureUi, SaveAtQuitSavesTheLectureItselfSignedByItsAuthor) {
    QTemporaryDir dir;
    const QString copy = dir.filePath("left-heart.atrium");
    ASSERT_TRUE(QFile::copy(kLecture, copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    const auto original = package::ContentPackage::open(copy.toStdString());
    const std::size_t before = firstNarrativeNodes(original);

    // The author answers Save to "The narratives have unsaved edits", and would close
    // anything else (nothing else may ask).
    DialogAnswerer author([](QWidget* modal) {
        auto* box = qobject_cast<QMessageBox*>(modal);
        if (box && box->text().contains("unsaved edits")) box->button(QMessageBox::Save)->click();
        else if (auto* d = qobject_cast<QDialog*>(modal)) d->reject();
    });
    auto w = openLectureWindow(copy);
    QString error;
    ASSERT_TRUE(w->lectureUi()->unlock("atrium-demo", &error)) << error.toStdString();
    widgets::NarrativeWorkspace* tour = w->narratives();
    ASSERT_TRUE(tour->addNodeAction()->isEnabled());
    tour->addNodeFromView();
    ASSERT_EQ(tour->editor()->document().narratives.at(0).nodes.size(), before + 1);
    EXPECT_TRUE(tour->editor()->isModified());

    // Ctrl+Q: the window asks before it closes.
    ASSERT_TRUE(atrium::test::activate(*w));
    QTest::keyClick(w.get(), Qt::Key_Q, Qt::ControlModifier);
    ASSERT_TRUE(waitFor([&] { return !w->isVisible(); }, 60)) << author.asked.join(" | ").toStdString();
    ASSERT_EQ(author.asked.size(), 1) << author.asked.join(" | ").toStdString();
    EXPECT_TRUE(author.asked.front().contains("The narratives have unsaved edits"));

    // The lecture file holds the node, signed again by its author (opening verifies the
    // signature), still locked, and it was written atomically: nothing else beside it.
    const auto saved = package::ContentPackage::open(copy.toStdString());
    EXPECT_EQ(firstNarrativeNodes(saved), before + 1) << "the edit went into the lecture";
    EXPECT_EQ(saved.signatureState(), package::SignatureState::Signed);
    ASSERT_TRUE(saved.signer());
    EXPECT_EQ(saved.signer(), original.signer()) << "signed by the lecture's own author";
    EXPECT_EQ(saved.signer(), saved.lockOwner());
    EXPECT_TRUE(saved.locked());
    EXPECT_EQ(filesIn(dir.path()), QStringList{"left-heart.atrium"});
}

TEST(LectureUi, SavingWithoutTheAuthorsKeyAsksWhereAndKeepsTheSignedLecture) {
    // A signed lecture its author left unlocked, narratives open to edits: anyone may edit
    // it, but only the author can sign it again.
    QTemporaryDir dir;
    const QString signedCopy = dir.filePath("open-lecture.atrium"), edited = dir.filePath("my-version.atrium");
    writeSignedUnlockedCopy(signedCopy);
    const QByteArray signedBytes = bytesOf(signedCopy);
    const auto author = package::ContentPackage::open(signedCopy.toStdString());
    ASSERT_TRUE(author.signer());
    ASSERT_FALSE(author.locked());
    const std::size_t before = firstNarrativeNodes(author);

    bool askedWhere = false;
    DialogAnswerer user([&](QWidget* modal) {
        if (auto* files = qobject_cast<QFileDialog*>(modal)) {
            askedWhere = true;
            files->selectFile(edited);
            QMetaObject::invokeMethod(files, "accept"); // as the Save button does
        } else if (auto* d = qobject_cast<QDialog*>(modal)) {
            d->reject();
        }
    });
    auto w = openLectureWindow(signedCopy);
    widgets::NarrativeWorkspace* tour = w->narratives();
    ASSERT_TRUE(tour->addNodeAction()->isEnabled()) << tour->addNodeAction()->toolTip().toStdString();
    tour->addNodeFromView();

    // File > Save: a file dialog asks where, since saving over the lecture would drop its
    // author's signature.
    tour->saveAction()->trigger();
    ASSERT_TRUE(waitFor([&] { return !tour->editor()->isModified(); }, 30)) << user.asked.join(" | ").toStdString();
    EXPECT_TRUE(askedWhere);
    EXPECT_TRUE(user.asked.isEmpty()) << user.asked.join(" | ").toStdString();
    EXPECT_EQ(bytesOf(signedCopy), signedBytes) << "the author's lecture is untouched";
    const auto mine = package::ContentPackage::open(edited.toStdString());
    EXPECT_EQ(firstNarrativeNodes(mine), before + 1);
    EXPECT_EQ(mine.signatureState(), package::SignatureState::Unsigned);
    EXPECT_EQ(w->lectureUi()->lecture()->path(), edited) << "the window now shows the saved copy";
}

TEST(LectureUi, HeadlessASignedLectureIsNotWrittenOverWithoutItsAuthor) {
    QTemporaryDir dir;
    const QString signedCopy = dir.filePath("open-lecture.atrium");
    writeSignedUnlockedCopy(signedCopy);
    const QByteArray signedBytes = bytesOf(signedCopy);
    auto w = openLecture(signedCopy); // headless: nothing can ask where
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));
    widgets::NarrativeWorkspace* tour = w->narratives();
    tour->addNodeFromView();
    QString error;
    EXPECT_FALSE(tour->saveToHome(&error));
    EXPECT_TRUE(error.contains("signed by its author")) << error.toStdString();
    EXPECT_TRUE(error.contains("Save lecture as")) << error.toStdString();
    EXPECT_TRUE(tour->editor()->isModified()) << "the edit is kept for another try";
    EXPECT_EQ(bytesOf(signedCopy), signedBytes);
    EXPECT_EQ(filesIn(dir.path()), QStringList{"open-lecture.atrium"});
}

TEST(LectureUi, APictureTheAuthorAddsToALecturesNarrativeGoesIntoTheLecture) {
    QTemporaryDir dir;
    const QString copy = dir.filePath("left-heart.atrium");
    ASSERT_TRUE(QFile::copy(kLecture, copy));
    QFile::setPermissions(copy, QFile::ReadOwner | QFile::WriteOwner);
    const QString picture = dir.filePath("echo.png");
    {
        QImage image(64, 48, QImage::Format_RGB32);
        image.fill(QColor(200, 40, 40));
        ASSERT_TRUE(image.save(picture));
    }
    auto w = openLecture(copy);
    widgets::LectureUi* ui = w->lectureUi();
    ASSERT_TRUE(waitFor([&] { return ui->lecture() != nullptr; }, 60));
    QString error;
    ASSERT_TRUE(ui->unlock("atrium-demo", &error)) << error.toStdString();

    // The picture chosen for an overlay is taken into the lecture, under media/.
    widgets::NarrativeEditor* editor = w->narratives()->editor();
    ASSERT_NE(editor->home(), nullptr);
    const std::string media = editor->home()->addMedia(picture, &error);
    ASSERT_EQ(media, "media/echo.png") << error.toStdString();
    narrative::Node node = editor->document().narratives.at(0).nodes.at(0);
    narrative::OverlayItem item;
    item.kind = narrative::OverlayKind::Image;
    item.media = media;
    item.rect = {0.6, 0.1, 0.3, 0.3};
    node.overlays.push_back(item);
    editor->setNode(0, node, "Add overlay");
    // It shows from the lecture, before any save.
    EXPECT_FALSE(w->narratives()->overlays()->painter().image(media).isNull());

    ASSERT_TRUE(w->narratives()->saveToHome(&error)) << error.toStdString();
    EXPECT_FALSE(editor->isModified());
    const auto saved = package::ContentPackage::open(copy.toStdString());
    EXPECT_TRUE(saved.hasFile("media/echo.png"));
    const auto document = narrative::parseNarrativeDocument(saved.narrativesDocument(), "narratives.json");
    EXPECT_EQ(document.narratives.at(0).nodes.at(0).overlays.back().media, "media/echo.png");
    EXPECT_EQ(saved.signer(), saved.lockOwner()) << "signed again by its author";
}

TEST(LectureUi, ALecturesNarrativesComeFromItsPackageAndRecentListsTheLecture) {
    // A private temporary folder, holding what an older version listed among the recent
    // narratives: a lecture's narratives unpacked there.
    QTemporaryDir tmp;
    const QByteArray oldTmp = qgetenv("TMPDIR");
    qputenv("TMPDIR", tmp.path().toUtf8());
    const auto restore = qScopeGuard([&] {
        if (oldTmp.isEmpty()) qunsetenv("TMPDIR");
        else qputenv("TMPDIR", oldTmp);
        QSettings().remove("narratives/recent");
        QSettings().remove("lectures/recent");
    });
    ASSERT_TRUE(QDir(tmp.path()).mkpath("atrium-lecture-Ab12Cd"));
    const QString unpacked = tmp.path() + "/atrium-lecture-Ab12Cd/narratives.json";
    {
        QFile f(unpacked);
        ASSERT_TRUE(f.open(QIODevice::WriteOnly));
        f.write("{}");
    }
    QSettings().setValue("narratives/recent", QStringList{unpacked, tmp.path() + "/atrium-lecture-Zz99Yy/narratives.json"});

    widgets::ViewerOptions options;
    options.lecture = kLecture;
    options.particleBudget = 3000;
    options.persistSettings = true;
    options.headless = true;
    auto w = std::make_unique<MainWindow>(options);
    w->resize(1100, 720);
    w->show();
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 240));
    const QString lecture = QFileInfo(kLecture).absoluteFilePath();

    // The narratives were read from the package in memory: they live in the lecture.
    widgets::NarrativeWorkspace* tour = w->narratives();
    ASSERT_EQ(tour->editor()->document().narratives.size(), 1u);
    EXPECT_TRUE(tour->editor()->filePath().isEmpty());
    ASSERT_NE(tour->editor()->home(), nullptr);
    EXPECT_EQ(tour->editor()->home()->path(), lecture);
    EXPECT_EQ(QDir(tmp.path()).entryList({"atrium-lecture-*"}, QDir::Dirs | QDir::NoDotAndDotDot), QStringList{"atrium-lecture-Ab12Cd"})
        << "nothing of the lecture was unpacked to show it";

    // The recent narratives list the lecture, never a temporary folder.
    const QStringList recent = tour->recentFiles();
    EXPECT_EQ(recent.value(0), lecture);
    for (const QStringList& list : {recent, QSettings().value("narratives/recent").toStringList()})
        for (const QString& path : list) EXPECT_FALSE(path.startsWith(tmp.path())) << path.toStdString();

    // A media file goes to disk only when asked for, into this process's folder...
    const QString media = tour->overlays()->painter().mediaPath("media/left-heart-diagram.svg");
    EXPECT_TRUE(QFileInfo::exists(media)) << media.toStdString();
    EXPECT_TRUE(media.startsWith(tmp.path() + "/atrium-lecture-" + QString::number(QCoreApplication::applicationPid()) + "-"))
        << media.toStdString();
    // ... and goes when the lecture closes, with its narratives.
    ASSERT_TRUE(w->lectureUi()->close());
    EXPECT_FALSE(QFileInfo::exists(media));
    EXPECT_EQ(tour->editor()->home(), nullptr);
    EXPECT_TRUE(tour->editor()->document().narratives.empty());

    // The recent entry opens the lecture, with its narratives.
    QMenu* menu = nullptr;
    for (QMenu* m : w->findChildren<QMenu*>())
        if (m->title() == "Recent narratives") menu = m;
    ASSERT_NE(menu, nullptr);
    ASSERT_FALSE(menu->actions().isEmpty());
    EXPECT_EQ(menu->actions().front()->toolTip(), lecture);
    menu->actions().front()->trigger();
    ASSERT_TRUE(waitFor([&] { return w->lectureUi()->lecture() != nullptr; }, 60));
    ASSERT_NE(tour->editor()->home(), nullptr);
    EXPECT_EQ(tour->editor()->home()->path(), lecture);
}

int main(int argc, char** argv) { return atrium::test::runUiTests(argc, argv, "AtriumLectureUiTest"); }

namespace {
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
