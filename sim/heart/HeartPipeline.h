#pragma once
// From a heart source to a moving heart mesh, with a cache: the one call the simulator
// and the viewer make (loadHeart).
//
//   Phantom: HeartPhantom -> volumes in memory -> extractSurface per phase
//   Volumes: readVolumeSeries (files or DICOM directories) -> extractSurface per phase
//   Meshes:  readMeshSeries per chamber (cleaned; no extraction); an open series of
//            several phases gets a valve in each opening (ChamberOpenings.h), a single
//            mesh has its holes capped (a still heart); the chambers' phases are joined
//   then MovingHeartMesh::build, and the result is written to one cache file.
//
// Cache: one binary file per input, named heart-<key>.atriumheart in the cache directory,
// where <key> is the FNV-1a 64 hash (hex) of a text describing everything the result
// depends on (the cache format version, the source kind, the phantom parameters or
// every input file's absolute path, size and modification time, the isovalue (or
// "suggested"), and all extraction, interpolation and mesh-cleaning settings). The file
// also holds that text, which must match on load (a hash collision cannot return the
// wrong heart). Layout (little-endian):
//   "ATRHEART" magic (8 bytes), u32 cache format version, u32 0,
//   u64 key, u64 n + n bytes of the key text,
//   f64 isovalue, u64 holes capped, f64 seconds the build took,
//   u64 a + a bytes of the anatomy (chambers, valves, openings) as JSON,
//   u64 m + m bytes of MovingHeartMesh::save() (which has its own magic and checksum),
//   u64 FNV-1a 64 of every preceding byte.
// A file that is truncated, has another magic or version, another key, bad sizes or a
// checksum mismatch is ignored and rebuilt (report.cacheStatus says why); writing goes
// through a temporary file renamed into place, so a reader never sees half a file.
// Units: millimetres, seconds, millilitres.

#include "sim/heart/ChamberOpenings.h"
#include "sim/heart/HeartAnatomy.h"
#include "sim/heart/HeartPhantom.h"
#include "sim/heart/MeshInterpolation.h"
#include "sim/heart/MeshSeries.h"
#include "sim/heart/SurfaceExtraction.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace atrium::heart {

/// One chamber of a mesh source: its series and how its openings become valves.
struct ChamberSeries {
    std::string pattern; ///< printf-style pattern, directory or single file
    /// The chamber's name; empty: the sidecar's "chamber", else the series' stem.
    std::string name;
    /// Rules for its openings; when given they replace the sidecar's
    /// (openingRulesFile), which otherwise apply.
    std::vector<OpeningRule> rules;
};

struct HeartSource {
    enum class Kind { Phantom, Volumes, Meshes } kind = Kind::Phantom;
    /// Phantom: a preset name (HeartPhantom::preset); when it is empty, `phantom` is used
    /// as it is (e.g. a preset with another voxel size or phase count). Naming a preset
    /// while `phantom` holds parameters other than the defaults or that preset's throws
    /// std::invalid_argument (they would be ignored).
    std::string phantomPreset = "adult";
    PhantomParameters phantom; ///< used when kind == Phantom and phantomPreset is empty
    std::string pattern;       ///< volumes: printf-style pattern or directory; meshes: the first chamber's
    std::vector<ChamberSeries> chambers; ///< meshes: one series per chamber (LV, RV)
    /// Volumes: the blood/wall isovalue; default: suggestIsovalue of phase 0. Phantom:
    /// the same (the suggestion lands on the blood/myocardium midpoint). Meshes: unused.
    std::optional<float> isovalue;
    double cycleSeconds = 0.8; ///< volumes and meshes, which carry no heart rate

    static HeartSource fromPreset(const std::string& name);
    static HeartSource fromPhantom(const PhantomParameters& parameters);
    static HeartSource fromVolumes(const std::string& pattern, std::optional<float> isovalue = {},
                                   double cycleSeconds = 0.8);
    static HeartSource fromMeshes(const std::string& pattern, double cycleSeconds = 0.8);
    /// Several chambers, each its own series with the same number of phases.
    static HeartSource fromChambers(std::vector<ChamberSeries> chambers, double cycleSeconds = 0.8);
    /// The phantom parameters this source stands for (preset resolved). Throws
    /// std::invalid_argument for an unknown preset or when kind != Phantom.
    PhantomParameters phantomParameters() const;
};

/// $XDG_CACHE_HOME/atrium when XDG_CACHE_HOME is an absolute path, else
/// $HOME/.cache/atrium, else empty (no cache).
std::filesystem::path defaultCacheDirectory();

struct PipelineSettings {
    /// Decimation, feature angle and hole capping of the extraction; its isovalue is
    /// ignored (it comes from the source) and so is its noiseBoxMm (noiseBoxMm below).
    ExtractionSettings extraction;
    InterpolationSettings interpolation;
    double noiseBoxMm = 2.0; ///< box of the noise removal (0: none)
    /// Mesh sources: point merging and hole capping.
    MeshCleaning meshCleaning;
    /// Mesh sources of several phases: the openings of an open series become valves
    /// (ChamberOpenings.h) instead of being capped (as a single mesh's are).
    bool openingsBecomeValves = true;
    /// Where the processed heart is cached; empty disables the cache.
    std::filesystem::path cacheDirectory = defaultCacheDirectory();

    /// The settings for a heart that blood will be pumped through (atrium-sim heart and
    /// bench, the viewer; they share one cache entry): 24 sub-frames instead of 8, so
    /// the adult phantom's wall travels < 1 mm per sub-frame (0.68 mm), under half a
    /// 2 mm particle spacing.
    static PipelineSettings forBlood() {
        PipelineSettings s;
        s.interpolation.subframes = 24;
        return s;
    }
};

struct PipelineReport {
    int phases = 0;
    std::size_t trianglesPerPhaseMin = 0, trianglesPerPhaseMax = 0;
    double isovalue = 0.0;       ///< used for extraction; NaN for a mesh source
    std::size_t holesCapped = 0; ///< total over the phases (extraction or mesh cleaning)
    double cycleSeconds = 0.0;   ///< the phantom's (60 / heart rate) or the source's
    bool fromCache = false;
    std::filesystem::path cacheFile; ///< the file read or written; empty without cache
    /// What happened with the cache: "disabled", "hit", "miss", "rebuilt: <why the file
    /// was rejected>", and ", not written: <why>" when writing failed.
    std::string cacheStatus;
    bool fixedTopology = false;    ///< mesh source with vertex correspondence
    double secondsSource = 0.0;    ///< generating the phantom or reading the files
    double secondsExtraction = 0.0;
    double secondsInterpolation = 0.0;
    double secondsCache = 0.0;     ///< reading or writing the cache file
    double secondsTotal = 0.0;
    /// Enclosed volume of each phase mesh, ml: the whole blood pool the mesh bounds
    /// (for the phantom LV + LA + aortic root, not the LV alone).
    std::vector<double> bloodPoolVolumeMl;
    double maxSubframeDisplacementMm = 0.0;
    double maxHalfwayMismatchMm = 0.0;
    /// VTK messages on mesh files that still gave a mesh (empty when loaded from the cache).
    std::vector<std::string> messages;
    /// The chambers and their valves: the phantom's LV; a mesh source's chambers (one
    /// per series, with a valve per opening of an open series); empty for volumes.
    HeartAnatomy anatomy;
};

/// Stage names passed to the progress callback, with a fraction in [0, 1] of that stage.
namespace stage {
inline constexpr const char* generatingPhantom = "generating phantom";
inline constexpr const char* readingVolumes = "reading volumes";
inline constexpr const char* readingMeshes = "reading meshes";
inline constexpr const char* extractingSurfaces = "extracting surfaces";
inline constexpr const char* interpolating = "interpolating";
inline constexpr const char* loadingCache = "loading cache";
inline constexpr const char* writingCache = "writing cache";
} // namespace stage

using PipelineProgress = std::function<void(const std::string& stage, double fraction)>;

/// Builds (or loads from the cache) the moving heart of a source. A mesh series of a
/// single file gives a still heart (that mesh as two identical phases). A directory
/// holding several series (files of different name stems) is refused (MeshError
/// listing them): give each chamber its own pattern. `progress` is
/// called on the calling thread. Throws VolumeError / MeshError naming the file at
/// fault, std::invalid_argument for bad parameters or settings, std::runtime_error when
/// extraction finds no surface. Cache problems never throw: the heart is rebuilt.
MovingHeartMesh loadHeart(const HeartSource& source, const PipelineSettings& settings,
                          PipelineReport* report = nullptr, PipelineProgress progress = {});

/// A display-only surface (an epicardium around the chambers) from a mesh series: read
/// and interpolated as loadHeart does, but its openings stay open (no caps, no valves)
/// and it holds no blood. Throws like loadHeart.
MovingHeartMesh loadShell(const std::string& pattern, double cycleSeconds, PipelineProgress progress = {});

/// The cache file loadHeart would use for these inputs (empty when the cache is off).
/// Resolves the source's files (throws like loadHeart when they are missing).
std::filesystem::path heartCacheFile(const HeartSource& source, const PipelineSettings& settings);

/// The heart's identity, whatever folder its files lie in: "heart-" and 16 hex digits
/// hashing the same inputs as the cache key (phantom parameters, pipeline settings) but
/// a series' files by their bytes and order, not their paths and times. A baked flow
/// names the heart it was baked in by it, so that a lecture's flow still fits its heart
/// when the package's series is extracted elsewhere. Reads every file of a series
/// (call it off the UI thread for large ones); throws like heartCacheFile.
std::string heartIdentity(const HeartSource& source, const PipelineSettings& settings);

/// The series in a directory of mesh files, one chamber per name stem ("lv_00.vtk ...
/// rv_00.vtk ..." -> the chambers lv and rv with the patterns DIR/lv_%02d.vtk and
/// DIR/rv_%02d.vtk), for a directory that holds several (which loadHeart refuses as one
/// series). A directory of one series gives one chamber with the directory as pattern.
/// Throws MeshError naming the directory when a stem's files do not number as a
/// printf pattern can name them.
std::vector<ChamberSeries> chambersInDirectory(const std::string& directory);

/// The phantom's blood-pool surface per phase, extracted as loadHeart extracts it
/// (isovalue suggested by phase 0's histogram). With `ventricleOnly`, atrium and aorta
/// are cut away just above the valve plane (z = 2 mm): the left ventricle open at its
/// mitral (larger) and aortic openings - the shape of a ventricle fitted to cine MRI,
/// for trying an open mesh series (atrium-sim phantom-meshes).
std::vector<sph::TriangleMesh> phantomSurfaces(const PhantomParameters& parameters, bool ventricleOnly,
                                               const PipelineSettings& settings = {});

/// Signed enclosed volume of a closed mesh in mm, as millilitres.
double enclosedVolumeMl(const sph::TriangleMesh& mesh);

} // namespace atrium::heart
