#pragma once
// Downloading the lecture a live session names, by its hash, from the lecturer's server
// (HTTP GET /package/<hash> on the session's port; https for a wss:// lecture). The
// bytes stream into a temporary file beside the target, bounded by the size the session
// declared, and the file is renamed into place only when its BLAKE2b-256 hash is the one
// named; the caller then opens it as any lecture, which checks its author's signature.

#include "session/Protocol.h"

#include <QNetworkReply>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QNetworkAccessManager;

class QSaveFile;

namespace atrium::widgets {

class PackageDownload : public QObject {
    Q_OBJECT
public:
    explicit PackageDownload(QObject* parent = nullptr);
    ~PackageDownload() override;

    /// Where lectures downloaded by hash are kept: $XDG_CACHE_HOME/atrium/lectures/HASH.atrium.
    static QString cachedPath(const session::ContentId& content);

    /// Starts downloading `content` from the session at `sessionUrl` (ws:// or wss://)
    /// into cachedPath(content). A certificate that is not trusted is accepted when
    /// `allowSelfSigned` (a classroom's). Ends with finished().
    void start(const QString& sessionUrl, const session::ContentId& content, bool allowSelfSigned = false);
    void cancel();
    bool running() const { return reply_ != nullptr; }

Q_SIGNALS:
    void progress(qint64 done, qint64 total);
    /// `error` is empty on success (`path` then holds the verified package).
    void finished(const QString& path, const QString& error);

private:
    void fail(const QString& error);

    QNetworkAccessManager* network_;
    QPointer<QNetworkReply> reply_;
    std::unique_ptr<QSaveFile> file_;
    session::ContentId content_;
    QString path_;
    qint64 received_ = 0;
};

} // namespace atrium::widgets
