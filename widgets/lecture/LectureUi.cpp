#include "widgets/lecture/LectureUi.h"

#include "narrative/NarrativeDocument.h"
#include "narrative/NarrativePlayer.h"
#include "narrative/package/PackageError.h"
#include "narrative/package/TrustStore.h"
#include "widgets/lecture/BrandingBar.h"
#include "widgets/lecture/Lecture.h"
#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativeHome.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/NarrativeWorkspace.h"
#include "widgets/lecture/ResourceBar.h"
#include "widgets/lecture/ResourceEditor.h"
#include "widgets/lecture/ResourceViewer.h"
#include "widgets/view/SceneView.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QBoxLayout>
#include <QBuffer>
#include <QDesktopServices>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QImageReader>
#include <QInputDialog>
#include <QKeyEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressDialog>
#include <QSaveFile>
#include <QSettings>
#include <QStatusBar>
#include <QUndoStack>
#include <QUrl>
#include <QtConcurrent/QtConcurrentRun>

#include <atomic>

namespace atrium::widgets {

using narrative::Operation;

struct LectureUi::Flight {
    narrative::CameraPose from, to;
    QElapsedTimer clock;
    double seconds = 1.5;
};

/// The lecture's narratives in the workspace live in the lecture: their media come
/// out of its package, media the author adds go into it, and Save saves the lecture.
/// It holds the lecture weakly: once the lecture is closed, it saves nothing.
class LectureUi::Home final : public NarrativeHome {
public:
    Home(LectureUi* ui, const std::shared_ptr<Lecture>& lecture) : ui_(ui), lecture_(lecture) {}

    QString name() const override {
        const auto l = lecture_.lock();
        return l ? QFileInfo(l->path()).fileName() : QString("a closed lecture");
    }
    QString path() const override {
        const auto l = lecture_.lock();
        return l ? QFileInfo(l->path()).absoluteFilePath() : QString();
    }
    QString mediaFile(const std::string& media) override {
        const auto l = lecture_.lock();
        if (!l) return {};
        try {
            return l->mediaPath(media);
        } catch (const std::exception&) {
            return {};
        }
    }
    std::string addMedia(const QString& file, QString* error) override {
        const auto l = lecture_.lock();
        if (!l) {
            *error = "The lecture these narratives belong to is closed";
            return {};
        }
        // media/NAME, or NAME-2, NAME-3... when another file has the name.
        const QFileInfo info(file);
        std::string entry = "media/" + info.fileName().toStdString();
        for (int k = 2; l->package().hasFile(entry); ++k)
            entry = "media/" + QString("%1-%2.%3").arg(info.completeBaseName()).arg(k).arg(info.suffix()).toStdString();
        if (const auto r = l->package().addFile(entry, file.toStdString()); !r) {
            *error = QString::fromStdString(r.error());
            return {};
        }
        return entry;
    }
    bool save(const narrative::NarrativeDocument& document, QString* error) override {
        const auto l = lecture_.lock();
        if (!l || !ui_) {
            *error = "The lecture these narratives came from is closed: save them as a file (File > Save narratives as)";
            return false;
        }
        return ui_->saveLecture(*l, &document, {}, error);
    }
    bool holds(const Lecture* lecture) const { return lecture_.lock().get() == lecture; }

private:
    QPointer<LectureUi> ui_;
    std::weak_ptr<Lecture> lecture_;
};

namespace {

constexpr int kMaxRecent = 8;

bool isLectureFile(const QString& path) { return path.endsWith(".atrium", Qt::CaseInsensitive); }

} // namespace

LectureUi::LectureUi(QMainWindow* window, SceneView* view, bool persistSettings, bool interactive)
    : QObject(window), window_(window), view_(view), persist_(persistSettings), interactive_(interactive),
      bar_(new ResourceBar(view)), viewer_(new ResourceViewer(view)), branding_(new BrandingBar(view)),
      editor_(new ResourceEditor(window, view)) {
    bar_->hide();
    branding_->hide();
    buildActions();
    view_->installEventFilter(this);
    window_->setAcceptDrops(true);
    window_->installEventFilter(this);
    connect(bar_, &ResourceBar::openRequested, this, [this](const QString& id) { openResource(id); });
    connect(bar_, &ResourceBar::filterChanged, this, &LectureUi::updateBars);
    connect(view_, &SceneView::frameRendered, this, &LectureUi::onFrame);
    connect(editor_, &ResourceEditor::resourcesEdited, this, [this] {
        if (lecture_) lecture_->resourcesChanged();
        updateBars();
    });
}

LectureUi::~LectureUi() = default;

void LectureUi::setGatedActions(QAction* record, QActionGroup* navigation) {
    record_ = record;
    navigation_ = navigation;
    if (record_) recordTip_ = record_->toolTip();
    reflectGate();
}

QUndoStack* LectureUi::undoStack() const { return editor_->undoStack(); }

void LectureUi::buildActions() {
    open_ = new QAction("Open lecture...", this);
    open_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
    open_->setToolTip("Open a content package (.atrium): a heart lecture with its narratives and resources");
    connect(open_, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(window_, "Open lecture", QString(), "Atrium lectures (*.atrium)");
        if (!path.isEmpty()) open(path);
    });
    saveAs_ = new QAction("Save lecture as...", this);
    saveAs_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_L));
    saveAs_->setToolTip("Write the lecture to a package file (signed again when its author unlocked it)");
    connect(saveAs_, &QAction::triggered, this, &LectureUi::saveAs);
    unlock_ = new QAction("Unlock for editing...", this);
    unlock_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_U));
    unlock_->setToolTip("The author's password opens the lecture's lock: its flags then no longer bind, and saving signs it");
    connect(unlock_, &QAction::triggered, this, &LectureUi::askUnlock);
    trust_ = new QAction("Trust this author", this);
    trust_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    trust_->setToolTip("Remember the key that signed this lecture as a trusted author's");
    connect(trust_, &QAction::triggered, this, &LectureUi::trustAuthor);
    info_ = new QAction("About this lecture...", this);
    info_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    info_->setToolTip("Title, author, signature, lock and restrictions");
    connect(info_, &QAction::triggered, this, &LectureUi::showInformation);
    closeLecture_ = new QAction("Close lecture", this);
    closeLecture_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    closeLecture_->setToolTip("Close the lecture (its heart stays)");
    connect(closeLecture_, &QAction::triggered, this, &LectureUi::close);

    menu_ = new QMenu("&Lecture", window_);
    menu_->setToolTipsVisible(true);
    menu_->addAction(info_);
    menu_->addAction(unlock_);
    menu_->addAction(trust_);
    menu_->addSeparator();
    editor_->addActions(menu_);
    menu_->addSeparator();
    menu_->addAction(closeLecture_);
    reflectGate();
}

void LectureUi::addFileActions(QMenu* file) {
    QAction* first = file->actions().isEmpty() ? nullptr : file->actions().first();
    file->insertAction(first, open_);
    recent_ = new QMenu("Recent lectures", file);
    file->insertMenu(first, recent_);
    file->insertAction(first, saveAs_);
    file->insertSeparator(first);
    fillRecent();
}

// --- Opening ---------------------------------------------------------------------------------

void LectureUi::open(const QString& path) {
    if (opening_) return message("A lecture is opening: wait for it or cancel it first");
    if (!mayLeave()) return; // the open lecture's unsaved edits: the author may cancel
    opening_ = true;
    auto* dialog = new QProgressDialog("Verifying " + QFileInfo(path).fileName() + "...", "Cancel", 0, 1000, window_);
    dialog->setWindowModality(Qt::WindowModal);
    dialog->setMinimumDuration(300);
    auto cancelled = std::make_shared<std::atomic<bool>>(false);
    auto done = std::make_shared<std::atomic<int>>(0);
    connect(dialog, &QProgressDialog::canceled, this, [cancelled] { *cancelled = true; });
    auto* timer = new QTimer(dialog);
    connect(timer, &QTimer::timeout, dialog, [dialog, done] { dialog->setValue(*done); });
    timer->start(100);
    using Result = std::pair<std::shared_ptr<Lecture>, QString>;
    auto* watcher = new QFutureWatcher<Result>(this);
    connect(watcher, &QFutureWatcher<Result>::finished, this, [this, watcher, dialog, timer, path] {
        const Result r = watcher->result();
        watcher->deleteLater();
        // Gone before any message: a message box's own event loop would not delete it,
        // and its timer would show it ("Verifying... 0 %") over the box, blocking its OK.
        timer->stop();
        dialog->hide();
        dialog->deleteLater();
        opening_ = false;
        std::optional<QString> refused;
        if (r.first && admit_) refused = admit_(r.first->package());
        if (!r.first || refused) {
            const QString why = refused.value_or(r.second);
            Q_EMIT openFailed(why);
            if (!why.isEmpty()) message("Could not open the lecture: " + why, true);
            return;
        }
        adopt(r.first);
    });
    watcher->setFuture(QtConcurrent::run([path, cancelled, done]() -> Result {
        try {
            auto lecture = Lecture::open(path, [&](std::uint64_t d, std::uint64_t total) {
                *done = total ? int(1000 * d / total) : 1000;
                return !*cancelled;
            });
            return {std::shared_ptr<Lecture>(std::move(lecture)), {}};
        } catch (const package::PackageError& e) {
            if (e.kind() == package::PackageError::Kind::Cancelled) return {nullptr, {}};
            return {nullptr, QString::fromStdString(e.what())};
        } catch (const std::exception& e) {
            return {nullptr, QString::fromStdString(e.what())};
        }
    }));
}

bool LectureUi::openNow(const QString& path, QString* error) {
    try {
        auto lecture = Lecture::open(path);
        std::optional<QString> refused;
        if (admit_) refused = admit_(lecture->package());
        if (auto why = refused ? refused : lecture->refusal(Operation::OpenContent)) {
            if (error) *error = *why;
            Q_EMIT openFailed(*why);
            return false;
        }
        adopt(std::move(lecture));
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        Q_EMIT openFailed(QString::fromStdString(e.what()));
        return false;
    }
}

void LectureUi::adopt(std::shared_ptr<Lecture> lecture) {
    // Expired content opens only for its author.
    if (auto why = lecture->refusal(Operation::OpenContent)) {
        bool opened = false;
        if (interactive_ && lecture->package().locked()) {
            bool ok = false;
            const QString pw = QInputDialog::getText(window_, "Lecture expired", *why + "\n\nThe author's password:",
                                                     QLineEdit::Password, QString(), &ok);
            opened = ok && lecture->package().unlock(pw.toStdString()).ok();
        }
        if (!opened) {
            Q_EMIT openFailed(*why);
            message(*why, true);
            return;
        }
    }
    viewer_->closePanel();
    lecture_ = std::move(lecture);
    view_->outputGate().setLecture(std::shared_ptr<const package::ContentPackage>(lecture_, &lecture_->package()));
    rememberRecent(lecture_->path());
    editor_->setLecture(lecture_.get());
    const package::Manifest& m = lecture_->manifest();
    bar_->setCategories(m.categories);
    QImage logo;
    if (!m.branding.image.empty()) {
        try {
            // Read in memory: nothing of the lecture goes to disk that need not.
            QByteArray bytes = lecture_->readMedia(m.branding.image);
            QBuffer buffer(&bytes);
            buffer.open(QIODevice::ReadOnly);
            QImageReader reader(&buffer, QFileInfo(QString::fromStdString(m.branding.image)).suffix().toLower().toLatin1());
            if (reader.size().isValid()) reader.setScaledSize(reader.size().scaled(400, 56, Qt::KeepAspectRatio));
            logo = reader.read();
        } catch (const std::exception&) {
        }
    }
    branding_->setBranding(QString::fromStdString(m.branding.text), logo, QString::fromStdString(m.branding.link));
    refreshTitle();
    Q_EMIT flowOffered(lecture_->flow(), lecture_->flowError());
    try {
        Q_EMIT heartRequested(lecture_->heartSource());
        if (!m.narratives.empty()) handNarratives(refusal(Operation::EditNarratives).value_or(QString()));
    } catch (const std::exception& e) {
        message(QString("The lecture's heart or narratives could not be read: ") + e.what(), true);
    }
    reflectGate();
    updateBars();
    layoutOverlays();
    message("Lecture opened: " + lecture_->title());
    Q_EMIT lectureChanged(lecture_->title());
}

void LectureUi::handNarratives(const QString& locked) {
    if (!narratives_ || !lecture_) return;
    // From the package in memory (its signed bytes), never through a file on disk.
    narrative::NarrativeDocument document =
        narrative::parseNarrativeDocument(lecture_->package().narrativesDocument(), lecture_->manifest().narratives);
    auto home = std::make_shared<Home>(this, lecture_);
    home_ = home;
    narratives_->openInHome(std::move(document), std::move(home), locked);
}

const narrative::NarrativeDocument* LectureUi::narrativesInLecture() const {
    const auto home = home_.lock();
    if (!narratives_ || !home || !lecture_ || !home->holds(lecture_.get()) || narratives_->editor()->home() != home.get())
        return nullptr;
    return &narratives_->editor()->document();
}

bool LectureUi::mayLeave() {
    if (narrativesInLecture() && !narratives_->maybeSave()) return false;
    return maybeSave();
}

bool LectureUi::maybeSave() {
    if (!lecture_ || !lecture_->package().modified() || !interactive_) return true;
    const auto answer = QMessageBox::warning(window_, "Lecture", "The lecture " + lecture_->title() + " has unsaved edits. Save it?",
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Discard) return true;
    // Its narratives as stored in it: edits of them that the author discarded stay out.
    QString error;
    if (saveLecture(*lecture_, nullptr, {}, &error)) return true;
    if (!error.isEmpty()) message(error, true);
    return false;
}

bool LectureUi::saveLecture(Lecture& lecture, const narrative::NarrativeDocument* narratives, QString path, QString* error) {
    package::ContentPackage& p = lecture.package();
    try {
        if (narratives) {
            // Compared as documents: the editor writes its own layout.
            const std::string stored = p.narrativesDocument();
            bool same = false;
            if (!stored.empty()) {
                try {
                    same = narrative::toJson(narrative::parseNarrativeDocument(stored, lecture.manifest().narratives)) ==
                           narrative::toJson(*narratives);
                } catch (const std::exception&) {
                }
            }
            if (!same) {
                if (const auto r = p.setNarrativesDocument(narrative::toJson(*narratives).dump(2) + "\n"); !r) {
                    *error = "The narratives were not stored in the lecture: " + QString::fromStdString(r.error());
                    return false;
                }
            }
        }
        if (path.isEmpty()) {
            if (p.signer() && p.modified() && !p.authorPresent()) {
                // Written over, it would lose its author's signature, which is not ours to give.
                const QString why = QFileInfo(lecture.path()).fileName() +
                                    " is signed by its author, and saving it without the author's key would drop the "
                                    "signature";
                if (!interactive_) {
                    *error = why + ": unlock it (Lecture > Unlock for editing) or save it as another file (File > Save "
                                   "lecture as)";
                    return false;
                }
                const QFileInfo info(lecture.path());
                path = QFileDialog::getSaveFileName(window_, "Save the edited lecture as another file (unsigned)",
                                                    info.dir().filePath(info.completeBaseName() + "-edited.atrium"),
                                                    "Atrium lectures (*.atrium)");
                if (path.isEmpty()) {
                    error->clear();
                    return false;
                }
            } else {
                path = lecture.path();
            }
        }
        lecture.save(path);
    } catch (const std::exception& e) {
        *error = "Could not save " + (path.isEmpty() ? lecture.path() : path) + ": " + e.what();
        return false;
    }
    rememberRecent(path);
    reflectGate();
    message("Saved " + path + (p.signer() ? " (signed by its author)" : " (unsigned)"));
    return true;
}

bool LectureUi::close() {
    if (!lecture_) return true;
    if (!mayLeave()) return false;
    if (narratives_ && narrativesInLecture()) narratives_->closeDocument();
    viewer_->closePanel();
    editor_->setLecture(nullptr);
    lecture_.reset();
    view_->outputGate().setLecture(nullptr);
    Q_EMIT flowOffered(nullptr, {});
    bar_->hide();
    branding_->hide();
    window_->setWindowTitle("Atrium");
    reflectGate();
    Q_EMIT lectureChanged({});
    return true;
}

void LectureUi::refreshTitle() {
    if (lecture_) window_->setWindowTitle("Atrium - " + lecture_->title());
}

// --- The gate in the window ----------------------------------------------------------------

std::optional<QString> LectureUi::refusal(Operation op) const {
    if (!lecture_) return std::nullopt;
    return lecture_->refusal(op);
}

std::optional<QString> LectureUi::refusal(Operation op, int width, int height) const {
    if (!lecture_) return std::nullopt;
    return lecture_->refusal(op, width, height);
}

bool LectureUi::navigationRestricted() const { return refusal(Operation::FreeNavigation).has_value(); }

void LectureUi::reflectGate() {
    const bool open = lecture_ != nullptr;
    saveAs_->setEnabled(open);
    info_->setEnabled(open);
    closeLecture_->setEnabled(open);
    const bool locked = open && lecture_->package().locked();
    const bool author = open && lecture_->package().authorPresent();
    unlock_->setEnabled(locked && !author);
    unlock_->setToolTip(!open     ? "No lecture is open"
                        : !locked ? "This lecture is not locked"
                        : author  ? "Unlocked: you are its author in this session"
                                  : "The author's password opens the lecture's lock");
    trust_->setEnabled(open && lecture_->package().signer().has_value());
    if (record_) {
        const auto why = view_->outputGate().refuseVideo();
        record_->setEnabled(!why);
        record_->setToolTip(why ? *why : recordTip_);
    }
    if (navigation_) {
        const auto why = refusal(Operation::FreeNavigation);
        for (QAction* a : navigation_->actions()) {
            a->setEnabled(!why);
            if (why) a->setStatusTip(*why);
        }
    }
    editor_->refresh();
    if (!open) return;
    const auto& p = lecture_->package();
    const QString fingerprint = p.signer() ? QString::fromStdString(package::fingerprint(*p.signer())) : QString();
    if (!locked) branding_->setLockState("Not locked", "Anyone may edit this lecture (its flags still apply until changed)");
    else if (author) branding_->setLockState("Unlocked by its author", "Edits are allowed; saving signs the lecture again");
    else branding_->setLockState("Locked by its author", "Editing needs the author's password (Lecture > Unlock for editing)");
    const auto trust = package::TrustStore::load(package::TrustStore::defaultPath());
    if (!p.signer()) {
        branding_->setSignature("Unsigned", "No author signed this lecture: it may have been changed by anyone", false);
    } else if (const auto* a = trust.find(*p.signer())) {
        branding_->setSignature("Signed by " + QString::fromStdString(a->name) + " (trusted)", "Key " + fingerprint, true);
    } else {
        branding_->setSignature("Signed by an unknown author " + fingerprint.left(9),
                                "Key " + fingerprint + ", not on your list of trusted authors. Check the fingerprint with "
                                "the author, then use Lecture > Trust this author.",
                                false);
    }
}

// --- Resources --------------------------------------------------------------------------------

void LectureUi::onFrame() {
    if (flight_) {
        const double u = std::min(1.0, double(flight_->clock.elapsed()) / 1000.0 / flight_->seconds);
        view_->camera().setPose(narrative::interpolatePose(flight_->from, flight_->to, narrative::cubicEase(u)));
        if (u >= 1.0) flight_.reset();
    }
    if (!lecture_) return;
    if (lecture_->updateActivation(view_->camera().pose(), view_->viewFrustum())) {
        updateBars();
        launchEntered();
    }
    closeEndedLaunch();
}

/// The narrative node on screen (cycle, node), or none while no narrative shows.
static std::optional<std::pair<int, int>> narrativeNodeShown(const NarrativeWorkspace* narratives) {
    if (!narratives || !narratives->playback()->active()) return std::nullopt;
    const narrative::PlayerFrame f = narratives->playback()->frame();
    return std::pair{f.cycle, f.node};
}

void LectureUi::launchEntered() {
    if (viewer_->isVisible()) return;
    for (auto i : lecture_->entered()) {
        const auto& r = lecture_->manifest().resources[i];
        if (!narrative::launchesWhenActive(r)) continue;
        openResource(QString::fromStdString(r.id), true);
        return;
    }
}

void LectureUi::closeEndedLaunch() {
    if (autoLaunched_.id.empty()) return;
    if (!viewer_->isVisible() || viewer_->shownId() != autoLaunched_.id) { // closed, or another opened over it
        autoLaunched_ = {};
        return;
    }
    const auto& resources = lecture_->manifest().resources;
    const bool stillActive = std::any_of(lecture_->active().begin(), lecture_->active().end(),
                                         [&](auto i) { return resources[i].id == autoLaunched_.id; });
    const bool nodeEnded = autoLaunched_.narrativeNode && narrativeNodeShown(narratives_) != autoLaunched_.narrativeNode;
    if (!stillActive || nodeEnded) viewer_->closePanel(); // its closed() forgets it
}

void LectureUi::updateBars() {
    if (!lecture_) return;
    const auto& resources = lecture_->manifest().resources;
    const auto listed = narrative::listedResources(resources, lecture_->active(), lecture_->manifest().categories, bar_->filter());
    std::vector<const narrative::Resource*> shown;
    for (auto i : listed) shown.push_back(&resources[i]);
    bar_->setResources(shown);
    bar_->setVisible(!resources.empty());
    branding_->setVisible(!lecture_->manifest().branding.empty() || lecture_->manifest().restrictions.brandingRequired ||
                          lecture_->package().locked() || lecture_->package().signer());
    layoutOverlays();
    Q_EMIT resourcesListed();
}

void LectureUi::layoutOverlays() {
    // The bars have rows of their own below the view (placeBarsBelow): the whole view is seen.
    if (viewer_->isVisible()) viewer_->place(0);
}

void LectureUi::placeBarsBelow(QBoxLayout* column) {
    bar_->setMinimumHeight(64);
    column->addWidget(bar_);
    column->addWidget(branding_);
}

void LectureUi::openResource(const QString& id) { openResource(id, false); }

void LectureUi::openResource(const QString& id, bool launchedByItself) {
    if (!lecture_) return;
    const narrative::Resource* r = lecture_->manifest().findResource(id.toStdString());
    if (!r) return;
    if (r->reposition) flyTo(r->view());
    using narrative::ResourceKind;
    try {
        switch (r->kind) {
        case ResourceKind::WebLink:
            if (!QDesktopServices::openUrl(QUrl(QString::fromStdString(r->url))))
                message("No browser could open " + QString::fromStdString(r->url), true);
            return;
        case ResourceKind::File: {
            const QString name = QFileInfo(QString::fromStdString(r->media)).fileName();
            const QString target =
                interactive_ ? QFileDialog::getSaveFileName(window_, "Save " + QString::fromStdString(r->name), name) : QString();
            if (target.isEmpty()) return;
            // Straight from the package, whole or not at all.
            QSaveFile out(target);
            const QByteArray bytes = lecture_->readMedia(r->media);
            if (!out.open(QIODevice::WriteOnly) || out.write(bytes) != bytes.size() || !out.commit())
                message("Could not write " + target + ": " + out.errorString(), true);
            else message("Saved " + target);
            return;
        }
        default: {
            // Opened by itself: aside, the middle of the view left to the lecture's overlays and
            // labels, until its moment ends. Asked for: in the middle, the user's to close.
            autoLaunched_ = {};
            viewer_->setAside(launchedByItself);
            const QString media = r->media.empty() ? QString() : lecture_->mediaPath(r->media);
            QString error;
            if (!viewer_->showResource(*r, media, &error)) message(QString::fromStdString(r->name) + ": " + error, true);
            else if (launchedByItself) autoLaunched_ = {r->id, narrativeNodeShown(narratives_)};
            layoutOverlays();
        }
        }
    } catch (const std::exception& e) {
        message(QString::fromStdString(r->name) + ": " + e.what(), true);
    }
}

void LectureUi::flyTo(const narrative::CameraPose& target) {
    flight_ = std::make_unique<Flight>();
    flight_->from = view_->camera().pose();
    flight_->to = target;
    view_->camera().stop();
    flight_->clock.start();
}

// --- Author and audience actions -------------------------------------------------------------

bool LectureUi::unlock(const QString& password, QString* error) {
    if (!lecture_) return false;
    const auto r = lecture_->package().unlock(password.toStdString());
    if (!r && error) *error = QString::fromStdString(r.error());
    reflectGate();
    if (r && narrativesInLecture()) narratives_->setEditRefusal({}); // the author may edit them now
    return r.ok();
}

void LectureUi::askUnlock() {
    if (!lecture_) return;
    bool ok = false;
    const QString pw = QInputDialog::getText(window_, "Unlock lecture", "The author's password:", QLineEdit::Password, QString(), &ok);
    if (!ok) return;
    QString error;
    if (unlock(pw, &error)) message("Unlocked: you may edit the lecture, and saving signs it again");
    else message(error, true);
}

void LectureUi::saveAs() {
    if (!lecture_) return;
    const QString path = QFileDialog::getSaveFileName(window_, "Save lecture as", lecture_->path(), "Atrium lectures (*.atrium)");
    if (path.isEmpty()) return;
    const narrative::NarrativeDocument* narratives = narrativesInLecture();
    QString error;
    if (saveLecture(*lecture_, narratives, path, &error)) {
        if (narratives) narratives_->editor()->markSaved();
    } else if (!error.isEmpty()) {
        message(error, true);
    }
}

void LectureUi::trustAuthor() {
    if (!lecture_ || !lecture_->package().signer()) return;
    const auto& key = *lecture_->package().signer();
    bool ok = true;
    QString name = QString::fromStdString(lecture_->manifest().author);
    if (interactive_)
        name = QInputDialog::getText(window_, "Trust this author",
                                     "Check the fingerprint with the author first:\n" +
                                         QString::fromStdString(package::fingerprint(key)) + "\n\nThe author's name:",
                                     QLineEdit::Normal, name, &ok);
    if (!ok || name.isEmpty()) return;
    try {
        auto store = package::TrustStore::load(package::TrustStore::defaultPath());
        // Another key under a name already trusted is how a forger would pass as that
        // author: only when the user says so (as atrium-pack trust --another-key).
        QStringList others;
        for (const package::TrustedAuthor* a : store.findName(name.toStdString()))
            if (a->key != key) others << QString::fromStdString(package::fingerprint(a->key));
        if (!others.isEmpty()) {
            const QString why = "You already trust " + name + " with key " + others.join(", ") + ". This lecture is signed by key " +
                                QString::fromStdString(package::fingerprint(key)) + ", another key.";
            if (!interactive_) return message(why + " Not trusted.", true);
            if (QMessageBox::warning(window_, "Trust this author", why + "\n\nTrust this key as " + name + " too?",
                                     QMessageBox::Yes | QMessageBox::No, QMessageBox::No) != QMessageBox::Yes)
                return;
        }
        store.add(name.toStdString(), key);
        store.save(package::TrustStore::defaultPath());
        reflectGate();
    } catch (const std::exception& e) {
        message(QString("Could not update the trusted authors: ") + e.what(), true);
    }
}

void LectureUi::showInformation() {
    if (!lecture_) return;
    const auto& m = lecture_->manifest();
    const auto& r = m.restrictions;
    QStringList flags;
    if (r.brandingRequired) flags << "branding bar required";
    if (r.narrativesLocked) flags << "narratives locked";
    if (r.resourcesLocked) flags << "resources locked";
    if (r.narrativeNavigationOnly) flags << "navigation along the narratives only";
    if (r.videoExportForbidden) flags << "no video export";
    if (r.maxResolution) flags << QString("renders up to %1 x %2").arg(r.maxResolution->width).arg(r.maxResolution->height);
    if (r.expires) flags << "opens until " + QString::fromStdString(narrative::formatDate(*r.expires));
    const QString text = QString("<h3>%1</h3><p>%2</p><p><b>Author (as written):</b> %3<br><b>Signature:</b> %4<br>"
                                 "<b>Lock:</b> %5<br><b>Restrictions:</b> %6<br><b>Resources:</b> %7</p>")
                             .arg(lecture_->title().toHtmlEscaped(), QString::fromStdString(m.description).toHtmlEscaped(),
                                  QString::fromStdString(m.author).toHtmlEscaped(), branding_->signatureText().toHtmlEscaped(),
                                  branding_->lockText().toHtmlEscaped(), flags.isEmpty() ? "none" : flags.join(", "))
                             .arg(m.resources.size());
    QMessageBox::information(window_, "About this lecture", text);
}

void LectureUi::rememberRecent(const QString& path) {
    if (!persist_) return;
    QSettings settings;
    QStringList recent = settings.value("lectures/recent").toStringList();
    recent.removeAll(QFileInfo(path).absoluteFilePath());
    recent.prepend(QFileInfo(path).absoluteFilePath());
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue("lectures/recent", recent);
    fillRecent();
}

void LectureUi::fillRecent() {
    if (!recent_) return;
    recent_->clear();
    const QStringList recent = persist_ ? QSettings().value("lectures/recent").toStringList() : QStringList();
    for (const QString& path : recent) recent_->addAction(QFileInfo(path).fileName(), this, [this, path] { open(path); })->setToolTip(path);
    recent_->setEnabled(!recent.isEmpty());
}

void LectureUi::message(const QString& text, bool warning) {
    if (auto* bar = window_->statusBar()) bar->showMessage(text, warning ? 0 : 6000);
    if (warning && interactive_ && window_->isVisible()) QMessageBox::warning(window_, "Atrium", text);
}

bool LectureUi::eventFilter(QObject* watched, QEvent* event) {
    if (watched == window_) {
        if (event->type() == QEvent::DragEnter) {
            auto* e = static_cast<QDragEnterEvent*>(event);
            for (const QUrl& url : e->mimeData()->urls())
                if (isLectureFile(url.toLocalFile())) {
                    e->acceptProposedAction();
                    return true;
                }
        } else if (event->type() == QEvent::Drop) {
            auto* e = static_cast<QDropEvent*>(event);
            for (const QUrl& url : e->mimeData()->urls())
                if (isLectureFile(url.toLocalFile())) {
                    open(url.toLocalFile());
                    e->acceptProposedAction();
                    return true;
                }
        }
    } else if (watched == view_) {
        if (event->type() == QEvent::Resize) layoutOverlays();
        // The user takes the camera back from a reposition flight.
        if (flight_ && (event->type() == QEvent::MouseButtonPress || event->type() == QEvent::KeyPress ||
                        event->type() == QEvent::Wheel))
            flight_.reset();
        // Navigation kept to the narratives: the camera takes no input but the keys
        // that are not movement (help, playback, menus).
        if (navigationRestricted() && !editor_->picking()) {
            switch (event->type()) {
            case QEvent::MouseButtonPress:
            case QEvent::MouseMove:
            case QEvent::Wheel:
                if (event->type() == QEvent::MouseButtonPress) message(*refusal(Operation::FreeNavigation));
                return true;
            case QEvent::KeyPress:
            case QEvent::KeyRelease: {
                const int k = static_cast<QKeyEvent*>(event)->key();
                if (k == Qt::Key_W || k == Qt::Key_A || k == Qt::Key_S || k == Qt::Key_D || k == Qt::Key_Q || k == Qt::Key_E ||
                    k == Qt::Key_Up || k == Qt::Key_Down || k == Qt::Key_Left || k == Qt::Key_Right || k == Qt::Key_Shift ||
                    k == Qt::Key_Space)
                    return true;
                break;
            }
            default: break;
            }
        }
    }
    return QObject::eventFilter(watched, event);
}

} // namespace atrium::widgets
