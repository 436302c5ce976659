#include "widgets/narrative/NarrativeEditor.h"

#include "widgets/narrative/NarrativeHome.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

#include <algorithm>
#include <functional>

namespace atrium::widgets {

using narrative::Narrative;
using narrative::NarrativeDocument;

namespace {

/// One edit of one narrative: the narrative before and after.
class NarrativeEdit : public QUndoCommand {
public:
    NarrativeEdit(NarrativeEditor* editor, int index, Narrative before, Narrative after, const QString& text)
        : QUndoCommand(text), editor_(editor), index_(index), before_(std::move(before)), after_(std::move(after)) {}
    void undo() override { editor_->restoreNarrative(index_, before_); }
    void redo() override { editor_->restoreNarrative(index_, after_); }

private:
    NarrativeEditor* editor_;
    int index_;
    Narrative before_, after_;
};

/// An edit of the list of narratives: the document and current index before and after.
class DocumentEdit : public QUndoCommand {
public:
    DocumentEdit(NarrativeEditor* editor, NarrativeDocument before, int currentBefore, NarrativeDocument after,
                 int currentAfter, const QString& text)
        : QUndoCommand(text), editor_(editor), before_(std::move(before)), after_(std::move(after)),
          currentBefore_(currentBefore), currentAfter_(currentAfter) {}
    void undo() override { editor_->restoreDocument(before_, currentBefore_); }
    void redo() override { editor_->restoreDocument(after_, currentAfter_); }

private:
    NarrativeEditor* editor_;
    NarrativeDocument before_, after_;
    int currentBefore_, currentAfter_;
};

} // namespace

NarrativeEditor::NarrativeEditor(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {
    undo_->setUndoLimit(500);
    connect(undo_, &QUndoStack::cleanChanged, this, &NarrativeEditor::fileStateChanged);
}

void NarrativeEditor::setCurrentIndex(int index) {
    if (index < -1 || index >= int(document_.narratives.size()) || index == current_) return;
    current_ = index;
    Q_EMIT currentChanged(current_);
    Q_EMIT documentChanged();
}

const Narrative* NarrativeEditor::current() const {
    return current_ >= 0 && current_ < int(document_.narratives.size()) ? &document_.narratives[std::size_t(current_)] : nullptr;
}

QString NarrativeEditor::mediaFolder() const { return path_.isEmpty() ? QString() : QFileInfo(path_).absolutePath(); }

QString NarrativeEditor::mediaFile(const std::string& media) const {
    if (home_) return home_->mediaFile(media);
    return path_.isEmpty() ? QString() : QDir(mediaFolder()).filePath(QString::fromStdString(media));
}

bool NarrativeEditor::isModified() const { return !undo_->isClean(); }

void NarrativeEditor::newDocument() {
    path_.clear();
    home_.reset();
    undo_->clear();
    restoreDocument({}, -1);
    Q_EMIT fileStateChanged();
}

void NarrativeEditor::open(const QString& path) {
    NarrativeDocument loaded = narrative::loadNarrativeDocument(path.toStdString()); // throws: nothing changes
    path_ = QFileInfo(path).absoluteFilePath();
    home_.reset();
    undo_->clear();
    restoreDocument(std::move(loaded), 0);
    Q_EMIT fileStateChanged();
}

void NarrativeEditor::openInHome(NarrativeDocument document, std::shared_ptr<NarrativeHome> home) {
    path_.clear();
    home_ = std::move(home);
    undo_->clear();
    restoreDocument(std::move(document), 0);
    Q_EMIT fileStateChanged();
}

bool NarrativeEditor::saveToHome(QString* error) {
    if (!home_) {
        if (error) *error = "These narratives belong to no lecture";
        return false;
    }
    QString why;
    if (!home_->save(document_, &why)) {
        if (error) *error = why;
        return false;
    }
    markSaved();
    return true;
}

void NarrativeEditor::markSaved() {
    undo_->setClean();
    Q_EMIT fileStateChanged();
}

void NarrativeEditor::save(const QString& path) {
    // Saved into another folder: the media go along, so that the file opens there.
    // From a home (a lecture), they come out of it.
    const QString from = mediaFolder(), to = QFileInfo(path).absolutePath();
    if (home_ || (!from.isEmpty() && QDir(from) != QDir(to)))
        for (const narrative::Narrative& n : document_.narratives)
            for (const narrative::Node& node : n.nodes)
                for (const narrative::OverlayItem& item : node.overlays) {
                    if (item.media.empty()) continue;
                    const QString target = QDir(to).filePath(QString::fromStdString(item.media));
                    if (QFileInfo::exists(target)) continue;
                    const QString source = mediaFile(item.media);
                    if (source.isEmpty() || !QFileInfo::exists(source)) continue;
                    if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(source, target))
                        throw narrative::NarrativeDocumentError(path.toStdString() + ": not saved, could not copy its media file " +
                                                                source.toStdString() + " to " + target.toStdString());
                }
    narrative::saveNarrativeDocument(document_, path.toStdString());
    path_ = QFileInfo(path).absoluteFilePath();
    home_.reset();
    undo_->setClean();
    Q_EMIT fileStateChanged();
}

void NarrativeEditor::restoreNarrative(int index, const Narrative& narrative) {
    if (index < 0 || index >= int(document_.narratives.size())) return;
    document_.narratives[std::size_t(index)] = narrative;
    if (index != current_) {
        current_ = index;
        Q_EMIT currentChanged(current_);
    }
    Q_EMIT documentChanged();
}

void NarrativeEditor::restoreDocument(const NarrativeDocument& document, int current) {
    document_ = document;
    const int count = int(document_.narratives.size());
    current_ = count == 0 ? -1 : std::clamp(current, 0, count - 1);
    Q_EMIT currentChanged(current_);
    Q_EMIT documentChanged();
}

void NarrativeEditor::editCurrent(const QString& what, const std::function<bool(Narrative&)>& change) {
    const Narrative* n = current();
    if (!n) return;
    Narrative after = *n;
    if (!change(after) || after == *n) return;
    undo_->push(new NarrativeEdit(this, current_, *n, std::move(after), what));
}

void NarrativeEditor::editDocument(const QString& what, const std::function<bool(NarrativeDocument&, int&)>& change) {
    NarrativeDocument after = document_;
    int current = current_;
    if (!change(after, current)) return;
    undo_->push(new DocumentEdit(this, document_, current_, std::move(after), current, what));
}

void NarrativeEditor::addNarrative(const QString& title) {
    editDocument("New narrative", [&](NarrativeDocument& d, int& current) {
        Narrative n;
        n.title = title.toStdString();
        d.narratives.push_back(n);
        current = int(d.narratives.size()) - 1;
        return true;
    });
}

void NarrativeEditor::renameNarrative(int index, const QString& title) {
    editDocument("Rename narrative", [&](NarrativeDocument& d, int& current) {
        if (index < 0 || index >= int(d.narratives.size())) return false;
        d.narratives[std::size_t(index)].title = title.toStdString();
        current = index;
        return true;
    });
}

void NarrativeEditor::duplicateNarrative(int index) {
    editDocument("Duplicate narrative", [&](NarrativeDocument& d, int& current) {
        if (index < 0 || index >= int(d.narratives.size())) return false;
        Narrative copy = d.narratives[std::size_t(index)];
        copy.title += " (copy)";
        d.narratives.insert(d.narratives.begin() + index + 1, copy);
        current = index + 1;
        return true;
    });
}

void NarrativeEditor::removeNarrative(int index) {
    editDocument("Delete narrative", [&](NarrativeDocument& d, int& current) {
        if (index < 0 || index >= int(d.narratives.size())) return false;
        d.narratives.erase(d.narratives.begin() + index);
        current = std::min(index, int(d.narratives.size()) - 1);
        return true;
    });
}

void NarrativeEditor::setNarrativeInfo(const QString& title, const QString& author, const QString& description) {
    editCurrent("Narrative details", [&](Narrative& n) {
        n.title = title.toStdString();
        n.author = author.toStdString();
        n.description = description.toStdString();
        return true;
    });
}

void NarrativeEditor::insertNode(int at, const narrative::Node& node) {
    editCurrent("Add node", [&](Narrative& n) {
        if (at < 0 || at > int(n.nodes.size())) return false;
        narrative::insertNode(n, std::size_t(at), node);
        return true;
    });
}

void NarrativeEditor::removeNode(int at) {
    editCurrent("Remove node", [&](Narrative& n) { return at >= 0 && narrative::removeNode(n, std::size_t(at)); });
}

void NarrativeEditor::moveNode(int from, int to) {
    editCurrent("Move node", [&](Narrative& n) {
        return from >= 0 && to >= 0 && from != to && narrative::moveNode(n, std::size_t(from), std::size_t(to));
    });
}

void NarrativeEditor::setNode(int at, const narrative::Node& node, const QString& what) {
    editCurrent(what, [&](Narrative& n) {
        if (at < 0 || at >= int(n.nodes.size())) return false;
        n.nodes[std::size_t(at)] = node;
        return true;
    });
}

void NarrativeEditor::setTransition(int at, const narrative::Transition& transition) {
    editCurrent("Transition", [&](Narrative& n) {
        if (at < 0 || at >= int(n.transitions.size())) return false;
        n.transitions[std::size_t(at)] = transition;
        return true;
    });
}

} // namespace atrium::widgets
