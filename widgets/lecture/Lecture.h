#pragma once
// An open content package in the viewer: the package (the document every edit goes
// through, package::ContentPackage), read in memory wherever bytes will do (manifest,
// narratives, branding, baked flow); a file goes to disk only when a reader wants a path
// (Qt Multimedia, a heart series), extracted on demand into the lecture's own part of the
// process's scratch folder (widgets/lecture/LectureScratch.h), which goes when the lecture
// closes and when the process exits. Also the embedded resources' activation against the
// camera (narrative::ResourceActivation, Poyart 2016 5.5). The viewer joins the
// package's heart to sim/heart here.

#include "narrative/ResourceActivation.h"
#include "narrative/package/ContentPackage.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"

#include <QByteArray>
#include <QString>

#include <filesystem>

#include <memory>
#include <optional>
#include <vector>

namespace atrium::widgets {

class Lecture {
public:
    /// Opens and verifies a package (slow for large ones: call it off the UI thread).
    /// Throws package::PackageError.
    static std::unique_ptr<Lecture> open(const QString& path, const package::ProgressCallback& progress = {});

    package::ContentPackage& package() { return package_; }
    const package::ContentPackage& package() const { return package_; }
    const package::Manifest& manifest() const { return package_.manifest(); }
    QString path() const { return path_; }
    ~Lecture();
    Lecture(const Lecture&) = delete;
    Lecture& operator=(const Lecture&) = delete;
    QString title() const { return QString::fromStdString(manifest().title); }

    /// The package's file `entry` on disk, extracted on first use into the lecture's
    /// private folder (never outside it). Throws package::PackageError.
    QString mediaPath(const std::string& entry);
    /// The bytes of the package's file `entry`, read in memory (bounded by the package's
    /// limits). Throws package::PackageError.
    QByteArray readMedia(const std::string& entry) const;
    /// Writes the package to `path` atomically (signed again when its author is present)
    /// and makes `path` the lecture's file. Throws package::PackageError.
    void save(const QString& path);

    /// The heart the package shows, its series extracted when it carries one.
    heart::HeartSource heartSource();

    /// The package's baked flow (its manifest's `flow`), read and checked by the baked-beat
    /// reader when the lecture was opened: null when it has none or it could not be read
    /// (flowError() then says why, naming the package and the entry).
    std::shared_ptr<const heart::BakedBeat> flow() const { return flow_; }
    QString flowError() const { return flowError_; }

    /// nullopt when allowed, else the gate's reason (narrative::ContentGate).
    std::optional<QString> refusal(narrative::Operation op) const;
    std::optional<QString> refusal(narrative::Operation op, int width, int height) const;

    /// Tests the resources against the camera; true when the listed set changed.
    /// entered() then holds the indices that became active (auto-launch candidates).
    bool updateActivation(const narrative::CameraPose& pose, const narrative::ViewFrustum& frustum);
    const std::vector<narrative::ResourceActivation::Index>& active() const { return activation_.active(); }
    const std::vector<narrative::ResourceActivation::Index>& entered() const { return activation_.entered(); }
    /// After the resources were edited.
    void resourcesChanged();

private:
    Lecture(package::ContentPackage package, const QString& path);

    package::ContentPackage package_;
    QString path_;
    std::filesystem::path files_; ///< where extracted files go; made on first use
    std::filesystem::path folder();
    narrative::ResourceActivation activation_;
    std::shared_ptr<const heart::BakedBeat> flow_;
    QString flowError_;
};

} // namespace atrium::widgets
