#pragma once
// The narrative document being edited in the viewer: its narratives, which one is
// current, its file, and an undo stack that every edit goes through (Qt's undo
// framework; Ctrl+Z, Ctrl+Shift+Z). Each edit is a command that holds the narrative
// (or, for adding and removing narratives, the document) before and after, so undo
// and redo restore exactly what was there.

#include "narrative/NarrativeDocument.h"

#include <QObject>
#include <QString>

#include <functional>
#include <memory>

class QUndoStack;

namespace atrium::widgets {

class NarrativeHome;

class NarrativeEditor : public QObject {
    Q_OBJECT
public:
    explicit NarrativeEditor(QObject* parent = nullptr);

    const narrative::NarrativeDocument& document() const { return document_; }
    /// The narrative shown and edited (-1: none, the document is empty).
    int currentIndex() const { return current_; }
    void setCurrentIndex(int index);
    const narrative::Narrative* current() const;

    QUndoStack* undoStack() const { return undo_; }
    /// The file the document came from or was last saved to; empty for a new one, or
    /// one that lives in a home (a lecture).
    const QString& filePath() const { return path_; }
    /// Where the document lives when it is not a file of its own (a lecture's package),
    /// else null.
    NarrativeHome* home() const { return home_.get(); }
    /// The folder media paths are relative to (the file's; empty for a new document or
    /// one in a home).
    QString mediaFolder() const;
    /// A media path of the document as a file on disk: beside the document's file, or
    /// from its home. Empty when there is none.
    QString mediaFile(const std::string& media) const;
    /// Unsaved edits.
    bool isModified() const;

    /// An empty document (no undo history).
    void newDocument();
    /// Replaces the document with a file's (no undo history). Throws
    /// narrative::NarrativeDocumentError; the current document is then kept untouched.
    void open(const QString& path);
    /// Replaces the document with one that lives in `home` (no undo history, no file):
    /// save() then stores it there.
    void openInHome(narrative::NarrativeDocument document, std::shared_ptr<NarrativeHome> home);
    /// Stores the document in its home. False when it has none or the home did not save
    /// it (`error` says why; empty: the author cancelled); the document stays modified.
    bool saveToHome(QString* error);
    /// The document was stored by its home's owner (e.g. Save Lecture As): no unsaved edits.
    void markSaved();
    /// Writes the document atomically to `path`, which becomes its file (it leaves its
    /// home); saved into another folder, its media files are copied along (under the
    /// same relative paths).
    /// Throws narrative::NarrativeDocumentError; the document stays modified then.
    void save(const QString& path);

    // Edits: each pushes one undoable command. Out-of-range indices do nothing.
    void addNarrative(const QString& title);
    void renameNarrative(int index, const QString& title);
    void duplicateNarrative(int index);
    void removeNarrative(int index);
    /// Replaces the current narrative's title, author and description.
    void setNarrativeInfo(const QString& title, const QString& author, const QString& description);
    void insertNode(int at, const narrative::Node& node);
    void removeNode(int at);
    void moveNode(int from, int to);
    /// Replaces node `at` of the current narrative; `what` names the edit ("Dwell", ...).
    void setNode(int at, const narrative::Node& node, const QString& what);
    void setTransition(int at, const narrative::Transition& transition);

    /// Used by the undo commands: puts a narrative or the whole document in place.
    void restoreNarrative(int index, const narrative::Narrative& narrative);
    void restoreDocument(const narrative::NarrativeDocument& document, int current);

Q_SIGNALS:
    /// Anything in the document changed (edit, undo, redo, open, new).
    void documentChanged();
    void currentChanged(int index);
    /// The file or its modified state changed (window title, Save enabled).
    void fileStateChanged();

private:
    void editCurrent(const QString& what, const std::function<bool(narrative::Narrative&)>& change);
    void editDocument(const QString& what, const std::function<bool(narrative::NarrativeDocument&, int&)>& change);

    narrative::NarrativeDocument document_;
    int current_ = -1;
    QString path_;
    std::shared_ptr<NarrativeHome> home_;
    QUndoStack* undo_;
};

} // namespace atrium::widgets
