#include "app/session/StudentWallSource.h"

#include "sim/heart/HeartPipeline.h"

#include <exception>
#include <filesystem>

namespace atrium::app {

namespace {
std::array<float, 3> toArray(const sph::Vec3& v) { return {float(v.x), float(v.y), float(v.z)}; }
} // namespace

session::StudentWall studentWallOf(const heart::MovingHeartMesh& heart) {
    session::StudentWall wall;
    wall.phases.resize(std::size_t(heart.phaseCount()));
    for (int k = 0; k < heart.phaseCount(); ++k) {
        session::StudentWallPhase& p = wall.phases[std::size_t(k)];
        const sph::TriangleMesh& mesh = heart.phaseMesh(k);
        for (const auto& v : mesh.vertices) p.positions.push_back(toArray(v));
        for (const auto& d : heart.forwardDisplacement(k)) p.forward.push_back(toArray(d));
        for (const auto& d : heart.backwardDisplacement(k)) p.backward.push_back(toArray(d));
        p.triangles = mesh.triangles;
    }
    return wall;
}

StudentWallOfLecture studentWallOfLecture(const package::Manifest& manifest, bool cachedOnly) {
    StudentWallOfLecture out;
    if (manifest.heart.source != package::HeartSpec::Source::Phantom) {
        out.missing = "the page draws phantom hearts so far, and this lecture's heart is a series of files";
        return out;
    }
    try {
        const auto source = heart::HeartSource::fromPreset(manifest.heart.preset);
        const auto settings = heart::PipelineSettings::forBlood();
        if (cachedOnly) {
            const std::filesystem::path cached = heart::heartCacheFile(source, settings);
            bool found = !cached.empty() && std::filesystem::exists(cached);
            for (const auto& shipped : settings.shippedCacheDirectories)
                found = found || (!cached.empty() && std::filesystem::exists(shipped / cached.filename()));
            if (!found) {
                out.missing = "the heart has not been processed on this machine yet (open the lecture in atrium once, "
                              "or run atrium-sim heart --phantom " + manifest.heart.preset + ")";
                return out;
            }
        }
        heart::PipelineReport report;
        const auto moving = heart::loadHeart(source, settings, &report);
        out.cacheStatus = report.cacheStatus;
        out.encoding = std::make_shared<const std::string>(session::encodeStudentWall(studentWallOf(moving)));
    } catch (const std::exception& e) {
        out.missing = std::string("the heart could not be loaded: ") + e.what();
    }
    return out;
}

} // namespace atrium::app
