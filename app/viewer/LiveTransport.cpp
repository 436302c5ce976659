#include "app/viewer/LiveTransport.h"

#include "app/session/StudentNarratives.h"
#include "app/session/StudentWallSource.h"
#include "narrative/package/ContentPackage.h"

#include "app/transport/SelfSignedCertificate.h"
#include "app/transport/SessionClient.h"
#include "app/transport/SessionServer.h"

#include <iostream>

namespace atrium::app {

namespace {

using namespace atrium::session;

void logLine(const std::string& line) { std::cerr << "atrium: live session: " << line << "\n"; }

class Host : public widgets::LiveHost {
public:
    Host(transport::ServerOptions o, QString fingerprint) : fingerprint_(std::move(fingerprint)), server_(std::move(o)) {}
    QString code() const override { return QString::fromStdString(server_.code()); }
    QString secret() const override { return QString::fromStdString(server_.lecturerSecret()); }
    QString fingerprint() const override { return fingerprint_; }
    QStringList urls() const override {
        QStringList out;
        for (const auto& h : transport::localAddresses()) out << QString::fromStdString(server_.url(h));
        return out;
    }
    double now() const override { return server_.now(); }
    bool drive(const Message& m) override { return server_.drive(m); }
    SessionState state() const override { return server_.state(); }
    std::vector<Member> roster() const override { return server_.roster(); }
    bool remoteDriving() const override { return server_.remoteDriving(); }
    std::filesystem::path startRecording(const std::filesystem::path& file) override {
        return server_.startRecording(file);
    }
    std::uint64_t stopRecording() override { return server_.stopRecording(); }
    bool recording() const override { return server_.recording(); }
    void setNotify(std::function<void()> notify) override { server_.setNotify(std::move(notify)); }

private:
    QString fingerprint_;
    transport::SessionServer server_;
};

class Guest : public widgets::LiveGuest {
public:
    explicit Guest(transport::ClientOptions o)
        : url_(QString::fromStdString(o.url)), selfSigned_(o.allowSelfSigned), client_(std::move(o)) {}
    QString url() const override { return url_; }
    bool allowsSelfSigned() const override { return selfSigned_; }
    bool joined() const override { return client_.link() == transport::LinkState::Joined; }
    bool synced() const override { return client_.synced(); }
    SessionState state() const override { return client_.state(); }
    double lecturerNow() const override { return client_.lecturerNow(); }
    std::optional<narrative::CameraPose> pose() override { return client_.pose(); }
    bool following() const override { return client_.following(); }
    bool setFollowing(bool following) override { return client_.setFollowing(following); }
    bool maySteer() const override { return client_.maySteer(); }
    bool drive(const Message& m) override { return client_.drive(m); }
    int memberId() const override { return client_.memberId(); }
    std::vector<widgets::LiveEvent> takeEvents() override {
        std::vector<widgets::LiveEvent> out;
        for (transport::ClientEvent& e : client_.takeEvents()) {
            using K = transport::ClientEvent::Kind;
            using W = widgets::LiveEvent::Kind;
            const W kind = e.kind == K::Joined ? W::Joined
                           : e.kind == K::Applied ? W::Applied
                           : e.kind == K::Disconnected ? W::Disconnected
                                                       : W::Refused;
            out.push_back({kind, std::move(e.message), QString::fromStdString(e.reason)});
        }
        return out;
    }
    void setNotify(std::function<void()> notify) override { client_.setNotify(std::move(notify)); }

private:
    QString url_;
    bool selfSigned_;
    transport::SessionClient client_;
};

} // namespace

std::unique_ptr<widgets::LiveHost> LiveTransport::host(const widgets::LiveHostOptions& options) {
    transport::ServerOptions o;
    o.port = options.port;
    o.code = options.code.toStdString();
    o.package = options.package;
    o.log = logLine;
    if (options.package) {
        // The student page's heart: from the cache the window's own loading filled (a
        // heart never processed here is left out rather than processed on this thread).
        try {
            const package::ContentPackage lecture = package::ContentPackage::open(*options.package);
            const auto wall = studentWallOfLecture(lecture.manifest(), true);
            o.studentWall = wall.encoding;
            o.studentWallMissing = wall.missing;
            if (const std::string text = lecture.narrativesDocument(); !text.empty())
                o.studentNarratives = std::make_shared<const std::string>(
                    studentNarrativesJson(narrative::parseNarrativeDocument(text, options.package->string())));
        } catch (const std::exception& e) {
            o.studentWallMissing = std::string("the lecture could not be read: ") + e.what();
        }
        if (!o.studentWall) logLine("the student page shows no heart wall: " + o.studentWallMissing);
    }
    QString fingerprint;
    if (options.selfSigned) {
        const transport::SelfSigned cert = transport::makeClassroomCertificate();
        o.tls = cert.files;
        fingerprint = QString::fromStdString(cert.fingerprint);
    }
    return std::make_unique<Host>(std::move(o), fingerprint);
}

std::unique_ptr<widgets::LiveGuest> LiveTransport::join(const widgets::LiveJoinOptions& options) {
    transport::ClientOptions o;
    o.url = options.url.toStdString();
    o.code = options.code.trimmed().toUpper().toStdString();
    o.name = options.name.toStdString();
    if (options.secret) o.secret = options.secret->toStdString();
    o.allowSelfSigned = options.allowSelfSigned;
    o.log = logLine;
    return std::make_unique<Guest>(std::move(o));
}

} // namespace atrium::app
