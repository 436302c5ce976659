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

class QUndoStack;

namespace atrium::widgets {

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
    /// The file the document came from or was last saved to; empty for a new one.
    const QString& filePath() const { return path_; }
    /// The folder media paths are relative to (the file's; empty for a new document).
    QString mediaFolder() const;
    /// Unsaved edits.
    bool isModified() const;

    /// An empty document (no undo history).
    void newDocument();
    /// Replaces the document with a file's (no undo history). Throws
    /// narrative::NarrativeDocumentError; the current document is then kept untouched.
    void open(const QString& path);
    /// Writes the document atomically to `path`, which becomes its file; saved into
    /// another folder, its media files are copied along (under the same relative paths).
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
    QUndoStack* undo_;
};

} // namespace atrium::widgets
