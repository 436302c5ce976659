// NarrativeWorkspace: where its document lives - a narratives file of its own, or a
// lecture's package (NarrativeHome: read in memory, saved into the lecture) - opening,
// saving, asking before edits are lost, and the recent files, which never list a
// temporary folder.

#include "widgets/narrative/NarrativeWorkspace.h"

#include "widgets/narrative/NarrativeEditor.h"
#include "widgets/narrative/NarrativeHome.h"
#include "widgets/narrative/NarrativePlayback.h"
#include "widgets/narrative/OverlayLayer.h"

#include <QAction>
#include <QDir>
#include <QFileInfo>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>

namespace atrium::widgets {

namespace {

constexpr int kMaxRecent = 8;

/// A file in a lecture's scratch folder (widgets/lecture/LectureScratch.h), or in the temporary
/// folders older versions unpacked lectures to: gone once the lecture closes.
bool isScratchPath(const QString& path) {
    const QString file = QFileInfo(path).absoluteFilePath();
    for (const QString& tmp : {QDir::tempPath(), QDir(QDir::tempPath()).canonicalPath()})
        if (!tmp.isEmpty() && QDir(tmp).relativeFilePath(file).startsWith("atrium-lecture-")) return true;
    return false;
}

} // namespace

bool NarrativeWorkspace::openFile(const QString& path, QString* error) {
    if (!editRefusal_.isEmpty()) setEditRefusal({});
    try {
        playback_->stop();
        setEditingOverlays(false);
        editor_->open(path);
        mediaChanged();
        thumbnails_.clear();
        pendingThumbnails_.clear();
        rememberRecent(editor_->filePath());
        window_->statusBar()->showMessage("Opened " + path, 5000);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        else if (interactive_) QMessageBox::warning(dialogParent(), "Open narratives", QString::fromStdString(e.what()));
        return false;
    }
}

bool NarrativeWorkspace::saveFile(const QString& path, QString* error) {
    try {
        editor_->save(path);
        mediaChanged();
        rememberRecent(editor_->filePath());
        window_->statusBar()->showMessage("Saved " + path, 5000);
        return true;
    } catch (const std::exception& e) {
        if (error) *error = QString::fromStdString(e.what());
        else if (interactive_) QMessageBox::warning(dialogParent(), "Save narratives", QString::fromStdString(e.what()));
        return false;
    }
}

void NarrativeWorkspace::openInHome(narrative::NarrativeDocument document, std::shared_ptr<NarrativeHome> home,
                                    const QString& locked) {
    playback_->stop();
    setEditingOverlays(false);
    const QString path = home->path(), name = home->name();
    editor_->openInHome(std::move(document), std::move(home));
    mediaChanged();
    thumbnails_.clear();
    pendingThumbnails_.clear();
    setEditRefusal(locked);
    rememberRecent(path);
    window_->statusBar()->showMessage("Opened the narratives of " + name, 5000);
}

void NarrativeWorkspace::closeDocument() {
    playback_->stop();
    setEditingOverlays(false);
    editor_->newDocument();
    mediaChanged();
    thumbnails_.clear();
    pendingThumbnails_.clear();
    setEditRefusal({});
}

bool NarrativeWorkspace::saveToHome(QString* error) {
    NarrativeHome* home = editor_->home();
    if (!home) return false;
    QString why;
    if (editor_->saveToHome(&why)) {
        rememberRecent(home->path()); // where the lecture was saved (another file when asked)
        window_->statusBar()->showMessage("Saved the narratives in " + home->name(), 5000);
        return true;
    }
    if (error) *error = why;
    else if (!why.isEmpty()) {
        window_->statusBar()->showMessage(why);
        if (interactive_) QMessageBox::warning(dialogParent(), "Save narratives", why);
    }
    return false;
}

void NarrativeWorkspace::mediaChanged() {
    overlays_->painter().setMediaSource([this](const std::string& media) { return editor_->mediaFile(media); });
}

bool NarrativeWorkspace::maybeSave() {
    if (!editor_->isModified() || !interactive_) return true;
    const QString where = editor_->home() ? " They are saved in the lecture, " + editor_->home()->name() + "." : QString();
    const auto answer = QMessageBox::warning(dialogParent(), "Narratives", "The narratives have unsaved edits. Save them?" + where,
                                             QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel) return false;
    if (answer == QMessageBox::Discard) return true;
    save_->trigger();
    return !editor_->isModified();
}

void NarrativeWorkspace::rememberRecent(const QString& path) {
    if (!persist_ || path.isEmpty() || isScratchPath(path)) return;
    QSettings settings;
    QStringList recent = settings.value("narratives/recent").toStringList();
    recent.removeAll(path);
    recent.prepend(path);
    while (recent.size() > kMaxRecent) recent.removeLast();
    settings.setValue("narratives/recent", recent);
    fillRecentMenu();
}

void NarrativeWorkspace::fillRecentMenu() {
    if (!recent_) return;
    recent_->clear();
    const QStringList recent = recentFiles();
    for (const QString& path : recent)
        recent_->addAction(QFileInfo(path).fileName(), this, [this, path] {
            if (!maybeSave()) return;
            // A lecture's narratives open with the lecture.
            if (path.endsWith(".atrium", Qt::CaseInsensitive)) Q_EMIT lectureRequested(path);
            else openFile(path);
        })->setToolTip(path);
    recent_->setEnabled(!recent.isEmpty());
}

QStringList NarrativeWorkspace::recentFiles() const {
    if (!persist_) return {};
    QSettings settings;
    const QStringList stored = settings.value("narratives/recent").toStringList();
    QStringList kept;
    // Never a file of a temporary folder (older versions listed a lecture's unpacked
    // narratives, gone once it closed), nor one that is no longer there.
    for (const QString& path : stored)
        if (!isScratchPath(path) && QFileInfo::exists(path)) kept << path;
    if (kept != stored) settings.setValue("narratives/recent", kept);
    return kept;
}

} // namespace atrium::widgets
