#include "widgets/lecture/PackageDownload.h"

#include "session/ContentIdentity.h"

#include <QDir>
#include <QFile>
#include <QNetworkAccessManager>
#include <QNetworkReply>
#include <QNetworkRequest>
#include <QSaveFile>
#include <QStandardPaths>
#include <QUrl>

namespace atrium::widgets {

PackageDownload::PackageDownload(QObject* parent) : QObject(parent), network_(new QNetworkAccessManager(this)) {}

PackageDownload::~PackageDownload() { cancel(); }

QString PackageDownload::cachedPath(const session::ContentId& content) {
    const QString cache = qEnvironmentVariableIsEmpty("XDG_CACHE_HOME") ? QDir::homePath() + "/.cache"
                                                                         : qEnvironmentVariable("XDG_CACHE_HOME");
    return cache + "/atrium/lectures/" + QString::fromStdString(content.hash) + ".atrium";
}

void PackageDownload::start(const QString& sessionUrl, const session::ContentId& content, bool allowSelfSigned) {
    cancel();
    content_ = content;
    path_ = cachedPath(content);
    received_ = 0;
    QUrl url(sessionUrl);
    url.setScheme(url.scheme() == "wss" ? "https" : "http");
    url.setPath("/package/" + QString::fromStdString(content.hash));
    url.setQuery(QString());
    if (!QDir().mkpath(QFileInfo(path_).absolutePath())) return fail("cannot create " + QFileInfo(path_).absolutePath());
    file_ = std::make_unique<QSaveFile>(path_);
    if (!file_->open(QIODevice::WriteOnly)) return fail("cannot write " + path_ + ": " + file_->errorString());
    QNetworkRequest request(url);
    request.setMaximumRedirectsAllowed(0);
    reply_ = network_->get(request);
    if (allowSelfSigned) reply_->ignoreSslErrors();
    connect(reply_, &QNetworkReply::readyRead, this, [this] {
        const QByteArray bytes = reply_->readAll();
        received_ += bytes.size();
        if (quint64(received_) > content_.bytes) return fail("the server sent more than the " + QString::number(content_.bytes) +
                                                           " bytes the lecture has");
        if (file_->write(bytes) != bytes.size()) return fail("cannot write " + path_ + ": " + file_->errorString());
        Q_EMIT progress(received_, qint64(content_.bytes));
    });
    connect(reply_, &QNetworkReply::finished, this, [this] {
        if (!reply_) return;
        QNetworkReply* reply = reply_;
        reply_ = nullptr;
        reply->deleteLater();
        if (reply->error() != QNetworkReply::NoError) return fail(reply->errorString());
        if (quint64(received_) != content_.bytes)
            return fail(QString("got %1 of the lecture's %2 bytes").arg(received_).arg(content_.bytes));
        if (!file_->commit()) return fail("cannot write " + path_ + ": " + file_->errorString());
        file_.reset();
        std::optional<session::ContentId> got;
        try {
            got = session::contentIdOf(path_.toStdString());
        } catch (const std::exception& e) {
            return fail(e.what());
        }
        if (!got || got->hash != content_.hash) {
            QFile::remove(path_);
            return fail("the downloaded lecture is not the one the session names (its hash differs)");
        }
        Q_EMIT finished(path_, {});
    });
}

void PackageDownload::cancel() {
    if (reply_) {
        QNetworkReply* reply = reply_;
        reply_ = nullptr;
        reply->abort();
        reply->deleteLater();
    }
    if (file_) file_->cancelWriting();
    file_.reset();
}

void PackageDownload::fail(const QString& error) {
    cancel();
    Q_EMIT finished({}, "Downloading the lecture failed: " + error);
}

} // namespace atrium::widgets
