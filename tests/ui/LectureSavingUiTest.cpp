// Saving a lecture from the viewer (under Xvfb in CI): at quit, into the lecture itself
// signed again by its author; without the author's key, asking where and keeping the
// signed lecture; never over a signed lecture when headless; a picture the author adds
// to a narrative goes into the lecture; and the narratives and recent list come from
// the package, never a temporary folder.

#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"
#include "tests/ui/LectureWindow.h"
#include "tests/ui/UiTestSupport.h"
#include "tests/ui/LectureUiTestSupport.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/lecture/LectureUi.h"
#include "widgets/window/MainWindow.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativeHome.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/narrative/OverlayLayer.h"
#include "widgets/narrative/OverlayPainter.h"

#include <QApplication>
#include <QDir>
#include <QFileDialog>
#include <QImage>
#include <QMenu>
#include <QMessageBox>
#include <QPointer>
#include <QPushButton>
#include <QScopeGuard>
#include <QSettings>
#include <QTemporaryDir>
#include <QTimer>
#include <QTest>

#include <gtest/gtest.h>

#include <functional>
#include <memory>

using namespace atrium;
using widgets::MainWindow;

namespace {

using atrium::test::kLecture;
using atrium::test::openLecture;
using atrium::test::waitFor;

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
