#pragma once
// The heart's wall of a lecture for the student page: the package's heart loaded as the
// desktop viewer loads it (sim/heart's loadHeart with the blood's pipeline settings, from
// the cache or the shipped cache when it is there) and encoded by session/StudentWall.

#include "narrative/package/Manifest.h"
#include "session/StudentWall.h"

#include <memory>
#include <string>

namespace atrium::heart {
class MovingHeartMesh;
}

namespace atrium::app {

/// Phase by phase, the moving mesh's vertices, half-way displacements and triangles (mm).
session::StudentWall studentWallOf(const heart::MovingHeartMesh& heart);

struct StudentWallOfLecture {
    std::shared_ptr<const std::string> encoding; ///< null when there is none
    std::string missing;                         ///< why there is none
    std::string cacheStatus;                     ///< the heart pipeline's ("hit (shipped)", "miss", ...)
};

/// The wall of the package's heart, encoded. A phantom's heart is loaded (or processed, a
/// minute or two the first time, unless `cachedOnly`: then a heart not in the cache or a
/// shipped cache is `missing`, so that a window never waits minutes); a mesh or volume
/// series is not yet offered to browsers (`missing` says so). Errors of the heart pipeline
/// are returned in `missing`, never thrown.
StudentWallOfLecture studentWallOfLecture(const package::Manifest& manifest, bool cachedOnly = false);

} // namespace atrium::app
