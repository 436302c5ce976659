#pragma once
// An open content package in the viewer: the package (the document every edit goes
// through, package::ContentPackage), a private folder its media are extracted to on
// demand (Qt Multimedia and the image readers want files), and the embedded resources'
// activation against the camera (narrative::ResourceActivation, Poyart 2016 5.5).
// The viewer joins the package's heart to sim/heart here.

#include "narrative/ResourceActivation.h"
#include "narrative/package/ContentPackage.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"

#include <QString>
#include <QTemporaryDir>

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
    QString title() const { return QString::fromStdString(manifest().title); }

    /// The package's file `entry` on disk, extracted once into the lecture's private
    /// folder (never outside it). Throws package::PackageError.
    QString mediaPath(const std::string& entry);
    /// The folder the files are extracted to (the narratives' media resolve against it).
    QString folder() const { return media_.path(); }
    /// Extracts every file (e.g. before handing the narratives document to its reader).
    void extractAll();

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
    QTemporaryDir media_;
    narrative::ResourceActivation activation_;
    std::shared_ptr<const heart::BakedBeat> flow_;
    QString flowError_;
};

} // namespace atrium::widgets
