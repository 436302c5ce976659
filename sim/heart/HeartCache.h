#pragma once
// Internal to sim/heart: the moving heart's cache (HeartPipeline.h's loadHeart reads and
// writes it). A key text names everything the heart depends on (its source and the
// pipeline's settings); its FNV-1a hash names the file, heart-<hash>.atriumheart, a
// checked binary holding the key text, the pipeline's report figures, the anatomy and
// the moving mesh. docs/heart-pipeline.md describes the format.

#include "sim/heart/HeartPipeline.h"

#include <cstdint>
#include <filesystem>
#include <string>

namespace atrium::heart::detail {

/// How the key names input files: by where they are and when they changed (the cache's
/// key: cheap, and stale when they move), or by their bytes alone (heartIdentity: the
/// same heart wherever its files lie, e.g. extracted from a package to a new folder).
enum class Naming { PathAndTime, Content };

/// The key text of `source` (with its phantom's parameters) under `settings`.
std::string cacheKeyText(const HeartSource& source, const PhantomParameters& phantom, const PipelineSettings& settings,
                         Naming naming = Naming::PathAndTime);

/// "heart-<16 hex digits of key>.atriumheart".
std::string cacheFileName(std::uint64_t key);

/// What a cache file holds besides the mesh: the pipeline's figures and the anatomy.
struct CacheMeta {
    double isovalue = 0.0;
    std::uint64_t holesCapped = 0;
    double buildSeconds = 0.0;
    HeartAnatomy anatomy;
};

/// Reads and checks a cache file against `key` and `keyText`; throws
/// std::runtime_error saying what is wrong.
MovingHeartMesh readCache(const std::filesystem::path& file, std::uint64_t key, const std::string& keyText,
                          CacheMeta& meta, const PipelineProgress& progress);

/// Writes the cache file through a temporary file in the same directory. Returns an
/// empty string on success, else why it failed.
std::string writeCache(const std::filesystem::path& file, std::uint64_t key, const std::string& keyText,
                       const CacheMeta& meta, const MovingHeartMesh& moving);

} // namespace atrium::heart::detail
