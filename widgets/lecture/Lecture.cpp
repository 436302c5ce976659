#include "widgets/lecture/Lecture.h"

#include "narrative/package/PackageError.h"
#include "widgets/lecture/LectureScratch.h"

#include <QDir>
#include <QFileInfo>

#include <span>

namespace atrium::widgets {

Lecture::Lecture(package::ContentPackage package, const QString& path) : package_(std::move(package)), path_(path) {
    resourcesChanged();
}

Lecture::~Lecture() {
    if (files_.empty()) return;
    std::error_code ignored;
    std::filesystem::remove_all(files_, ignored);
}

std::filesystem::path Lecture::folder() {
    if (files_.empty()) {
        try {
            files_ = scratch::newFolder("lecture-");
        } catch (const std::exception& e) {
            throw package::PackageError(package::PackageError::Kind::Io, std::string("cannot extract the lecture's files: ") + e.what());
        }
    }
    return files_;
}

std::unique_ptr<Lecture> Lecture::open(const QString& path, const package::ProgressCallback& progress) {
    auto p = package::ContentPackage::open(path.toStdString(), {}, progress);
    std::unique_ptr<Lecture> lecture(new Lecture(std::move(p), path));
    if (const std::string& entry = lecture->manifest().flow; !entry.empty()) {
        // Its bytes are the signed ones; the reader checks every size and its checksum.
        const std::string source = QFileInfo(path).fileName().toStdString() + ": " + entry;
        try {
            const std::string bytes = lecture->package_.readFile(entry, package::PackageLimits{}.maxEntrySize);
            lecture->flow_ = std::make_shared<const heart::BakedBeat>(
                heart::BakedBeat::parse(std::as_bytes(std::span(bytes.data(), bytes.size())), source));
        } catch (const std::exception& e) {
            lecture->flowError_ = QString::fromStdString(e.what());
        }
    }
    return lecture;
}

QString Lecture::mediaPath(const std::string& entry) {
    const std::filesystem::path dir = folder();
    const QString target = QDir(QString::fromStdString(dir.string())).filePath(QString::fromStdString(entry));
    // Extraction writes atomically: a file that exists is whole.
    if (!QFileInfo::exists(target)) package_.extractFile(entry, dir);
    return target;
}

QByteArray Lecture::readMedia(const std::string& entry) const {
    const std::string bytes = package_.readFile(entry, package::PackageLimits{}.maxEntrySize);
    return QByteArray(bytes.data(), qsizetype(bytes.size()));
}

void Lecture::save(const QString& path) {
    package_.save(path.toStdString());
    path_ = path;
}

heart::HeartSource Lecture::heartSource() {
    const package::HeartSpec& h = manifest().heart;
    if (h.source == package::HeartSpec::Source::Phantom) return heart::HeartSource::fromPreset(h.preset);
    // A series: its entries, extracted in order, named so that their folder sorts as the
    // manifest lists them.
    const QString folder = QDir(QString::fromStdString(this->folder().string())).filePath("heart-series");
    QDir().mkpath(folder);
    for (std::size_t i = 0; i < h.entries.size(); ++i) {
        const QString source = mediaPath(h.entries[i]);
        const QString name = QString("phase_%1.%2").arg(i, 3, 10, QChar('0')).arg(QFileInfo(source).suffix());
        const std::filesystem::path from = source.toStdString(), to = QDir(folder).filePath(name).toStdString();
        // A link, not a copy: a large series is on disk once.
        std::error_code ec;
        std::filesystem::remove(to, ec);
        std::filesystem::create_hard_link(from, to, ec);
        if (ec) {
            ec.clear();
            std::filesystem::copy_file(from, to, ec);
        }
        if (ec)
            throw package::PackageError(package::PackageError::Kind::Io,
                                        to.string() + ": cannot place the heart's phase " + h.entries[i] + ": " + ec.message());
    }
    const double cycle = h.cycleSeconds.value_or(0.8);
    if (h.source == package::HeartSpec::Source::Meshes) return heart::HeartSource::fromMeshes(folder.toStdString(), cycle);
    return heart::HeartSource::fromVolumes(folder.toStdString(),
                                           h.isovalue ? std::optional<float>(float(*h.isovalue)) : std::nullopt, cycle);
}

std::optional<QString> Lecture::refusal(narrative::Operation op) const {
    if (auto why = package_.gate().check(op)) return QString::fromStdString(*why);
    return std::nullopt;
}

std::optional<QString> Lecture::refusal(narrative::Operation op, int width, int height) const {
    if (auto why = package_.gate().checkSize(op, {width, height})) return QString::fromStdString(*why);
    return std::nullopt;
}

bool Lecture::updateActivation(const narrative::CameraPose& pose, const narrative::ViewFrustum& frustum) {
    const auto before = activation_.active();
    activation_.update(pose, frustum);
    return activation_.active() != before;
}

void Lecture::resourcesChanged() { activation_.setResources(manifest().resources); }

} // namespace atrium::widgets
