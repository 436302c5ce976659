#pragma once
// Where a narratives document lives when it is not a file of its own: a lecture's
// package (the lecture UI gives one with the lecture's narratives). The narrative
// editor reads the document's media through it, and Save stores the document back
// into it - for a lecture, the lecture itself is written again, signed by its author.

#include "narrative/NarrativeDocument.h"

#include <QString>

#include <string>

namespace atrium::widgets {

class NarrativeHome {
public:
    virtual ~NarrativeHome() = default;
    /// What the author knows it by ("left-heart.atrium"), for titles and messages.
    virtual QString name() const = 0;
    /// Where to list it among recent files (the lecture's .atrium).
    virtual QString path() const = 0;
    /// A media path of the document as a file on disk (extracted on demand); empty when
    /// it cannot be had.
    virtual QString mediaFile(const std::string& media) = 0;
    /// Adds `file`, chosen by the author, to the home's media and returns its media path;
    /// empty with `error` set when it cannot.
    virtual std::string addMedia(const QString& file, QString* error) = 0;
    /// Stores `document` in the home and writes the home to disk. False when not saved:
    /// `error` says why, or is empty when the author cancelled.
    virtual bool save(const narrative::NarrativeDocument& document, QString* error) = 0;
};

} // namespace atrium::widgets
