#include "sim/heart/HeartPipeline.h"

#include "sim/heart/Fnv1a.h"
#include "sim/heart/HeartCache.h"
#include "io/BinaryIo.h"

#include "sim/heart/MeshConversion.h"
#include "sim/heart/VolumeSeries.h"
#include "io/AtomicFile.h"

#include <vtkClipPolyData.h>
#include <vtkNew.h>
#include <vtkPlane.h>
#include <vtkPolyData.h>

#include <algorithm>
#include <bit>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <limits>
#include <locale>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <type_traits>
#include <utility>


namespace atrium::heart {

namespace fs = std::filesystem;

namespace {

using detail::CacheMeta;
using detail::cacheKeyText;
using detail::readCache;
using detail::writeCache;

using Clock = std::chrono::steady_clock;
double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void fillReportFromMesh(PipelineReport& r, const MovingHeartMesh& moving) {
    r.phases = moving.phaseCount();
    r.trianglesPerPhaseMin = std::numeric_limits<std::size_t>::max();
    r.trianglesPerPhaseMax = 0;
    r.bloodPoolVolumeMl.clear();
    for (int k = 0; k < moving.phaseCount(); ++k) {
        const sph::TriangleMesh& m = moving.phaseMesh(k);
        r.trianglesPerPhaseMin = std::min(r.trianglesPerPhaseMin, m.triangles.size());
        r.trianglesPerPhaseMax = std::max(r.trianglesPerPhaseMax, m.triangles.size());
        r.bloodPoolVolumeMl.push_back(enclosedVolumeMl(m));
    }
    r.maxSubframeDisplacementMm = moving.maxSubframeDisplacement();
    r.maxHalfwayMismatchMm = moving.maxHalfwayMismatch();
    r.fixedTopology = moving.sharedTopology();
}

/// Calls `progress(stage, f)` for a sub-range [lo, hi] of a stage.
std::function<void(double)> stageProgress(const PipelineProgress& progress, const char* name, double lo = 0.0,
                                          double hi = 1.0) {
    if (!progress) return {};
    return [progress, name, lo, hi](double f) { progress(name, lo + (hi - lo) * std::clamp(f, 0.0, 1.0)); };
}

/// Refuses a directory that holds several series (files of different name stems):
/// read as one, it would be one heart of all their phases.
void refuseMixedSeries(const std::string& pattern) {
    std::error_code ec;
    if (!fs::is_directory(pattern, ec)) return;
    std::map<std::string, std::size_t> stems;
    for (const fs::path& f : resolveMeshFrames(pattern)) ++stems[seriesStem(f.string())];
    if (stems.size() < 2) return;
    std::ostringstream m;
    m << "holds " << stems.size() << " series, not one:";
    for (const auto& [stem, count] : stems) m << " " << stem << " (" << count << " files)";
    m << "; give each chamber its own pattern (--meshes " << (fs::path(pattern) / (stems.begin()->first + "_%02d.vtk")).string()
      << " ...), or move the others away";
    throw MeshError(pattern, m.str());
}

/// The phases of every chamber of a mesh source, joined phase by phase, and its anatomy.
std::vector<sph::TriangleMesh> readChambers(const HeartSource& source, const PipelineSettings& settings,
                                            PipelineReport& report, const PipelineProgress& progress) {
    std::vector<sph::TriangleMesh> joined;
    const std::size_t count = source.chambers.size();
    for (std::size_t c = 0; c < count; ++c) {
        const ChamberSeries& chamberSource = source.chambers[c];
        refuseMixedSeries(chamberSource.pattern);
        const std::size_t frames = resolveMeshFrames(chamberSource.pattern).size();
        MeshSeriesOptions options;
        options.cycleSeconds = source.cycleSeconds;
        options.cleaning = settings.meshCleaning;
        // An open series of several phases keeps its openings for its valves.
        const bool valves = settings.openingsBecomeValves && frames > 1;
        if (valves) options.cleaning.capHoles = false;
        if (progress) {
            options.progress = [&progress, c, count](double f) {
                progress(stage::readingMeshes, (double(c) + std::clamp(f, 0.0, 1.0)) / double(count));
            };
        }
        MeshSeries series = readMeshSeries(chamberSource.pattern, options);
        if (source.scale != 1.0)
            for (sph::TriangleMesh& phase : series.phases)
                for (sph::Vec3& v : phase.vertices) v *= float(source.scale);
        if (const std::string why = implausibleHeartReason(series.phases.front(), source.scale); !why.empty())
            throw MeshError(series.files.front(), why);
        report.holesCapped += series.holesCapped();
        for (std::size_t k = 0; k < series.reports.size(); ++k)
            for (const std::string& m : series.reports[k].vtkMessages)
                report.messages.push_back(series.files[k].string() + ": " + m);

        OpeningOptions openingOptions;
        std::string sidecarName;
        if (const auto sidecar = openingRulesFile(chamberSource.pattern)) {
            try {
                openingOptions.rules = readOpeningRules(*sidecar, &sidecarName);
            } catch (const std::runtime_error& e) {
                throw MeshError(*sidecar, e.what());
            }
        }
        if (!chamberSource.rules.empty()) openingOptions.rules = chamberSource.rules;
        openingOptions.chamberName = !chamberSource.name.empty() ? chamberSource.name
                                     : !sidecarName.empty()      ? sidecarName
                                                                 : seriesStem(chamberSource.pattern);
        Chamber chamber;
        const bool open = std::any_of(series.phases.begin(), series.phases.end(),
                                      [](const sph::TriangleMesh& m) { return !boundaryEdges(m).empty(); });
        if (valves && open) {
            std::vector<OpeningReport> openings;
            try {
                chamber = valveOpenings(series.phases, series.fixedTopology, openingOptions, &openings);
            } catch (const std::invalid_argument&) {
                throw;
            } catch (const std::exception& e) {
                throw MeshError(series.files.front(), e.what());
            }
            chamber.openings = std::move(openings);
        } else {
            if (valves) { // closed: capping was off but nothing needed it
                for (const sph::TriangleMesh& m : series.phases)
                    if (m.enclosedVolume() < 0.0)
                        throw MeshError(series.files.front(), "a closed mesh wound inward after cleaning");
            }
            chamber.name = openingOptions.chamberName;
            chamber.anchor = series.phases.front().vertices.at(series.phases.front().triangles.at(0)[0]);
            for (const sph::TriangleMesh& m : series.phases) chamber.phaseVolumeMl.push_back(enclosedVolumeMl(m));
        }
        if (series.phases.size() == 1) series.phases.push_back(series.phases.front()); // a still heart
        if (c == 0) {
            joined = std::move(series.phases);
        } else {
            if (series.phases.size() != joined.size())
                throw MeshError(series.files.front(),
                                "chamber " + chamber.name + " has " + std::to_string(series.phases.size()) +
                                    " phases and chamber " + report.anatomy.chambers.front().name + " has " +
                                    std::to_string(joined.size()) + ": the chambers of one heart need as many");
            for (std::size_t k = 0; k < joined.size(); ++k) {
                const auto offset = std::uint32_t(joined[k].vertices.size());
                joined[k].vertices.insert(joined[k].vertices.end(), series.phases[k].vertices.begin(),
                                          series.phases[k].vertices.end());
                for (auto t : series.phases[k].triangles)
                    joined[k].triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
            }
        }
        report.anatomy.chambers.push_back(std::move(chamber));
    }
    for (std::size_t a = 0; a < report.anatomy.chambers.size(); ++a)
        for (std::size_t b = a + 1; b < report.anatomy.chambers.size(); ++b)
            if (report.anatomy.chambers[a].name == report.anatomy.chambers[b].name)
                throw std::invalid_argument("two chambers are named " + report.anatomy.chambers[a].name +
                                            ": name them apart (--chamber NAME)");
    return joined;
}

} // namespace

// ---------------------------------------------------------------------------------------

HeartSource HeartSource::fromPreset(const std::string& name) {
    HeartSource s;
    s.kind = Kind::Phantom;
    s.phantomPreset = name;
    s.phantom = HeartPhantom::preset(name);
    return s;
}

HeartSource HeartSource::fromPhantom(const PhantomParameters& parameters) {
    HeartSource s;
    s.kind = Kind::Phantom;
    s.phantomPreset.clear();
    s.phantom = parameters;
    return s;
}

HeartSource HeartSource::fromVolumes(const std::string& pattern, std::optional<float> isovalue, double cycleSeconds) {
    HeartSource s;
    s.kind = Kind::Volumes;
    s.pattern = pattern;
    s.isovalue = isovalue;
    s.cycleSeconds = cycleSeconds;
    return s;
}

HeartSource HeartSource::fromMeshes(const std::string& pattern, double cycleSeconds) {
    return fromChambers({ChamberSeries{pattern, {}, {}}}, cycleSeconds);
}

HeartSource HeartSource::fromChambers(std::vector<ChamberSeries> chambers, double cycleSeconds) {
    HeartSource s;
    s.kind = Kind::Meshes;
    if (chambers.empty()) throw std::invalid_argument("HeartSource::fromChambers: no chamber given");
    s.pattern = chambers.front().pattern;
    s.chambers = std::move(chambers);
    s.cycleSeconds = cycleSeconds;
    return s;
}

namespace {

/// Every field (PhantomParameters' defaulted ==, so a field added later is compared too).
bool sameParameters(const PhantomParameters& a, const PhantomParameters& b) { return a == b; }

} // namespace

PhantomParameters HeartSource::phantomParameters() const {
    if (kind != Kind::Phantom) throw std::invalid_argument("HeartSource: not a phantom source");
    if (phantomPreset.empty()) return phantom;
    const PhantomParameters named = HeartPhantom::preset(phantomPreset);
    // Parameters changed while a preset is named would be silently ignored: refuse.
    if (!sameParameters(phantom, PhantomParameters{}) && !sameParameters(phantom, named))
        throw std::invalid_argument("HeartSource: phantomPreset '" + phantomPreset +
                                    "' is set and `phantom` holds other parameters; clear phantomPreset to use "
                                    "the parameters (HeartSource::fromPhantom)");
    return named;
}

std::optional<HeartSource> HeartSource::rightHeartShell() const {
    if (kind != Kind::Phantom || phantomRightHeart || !phantomParameters().rightHeartShell) return std::nullopt;
    HeartSource shell = *this;
    shell.phantomRightHeart = true;
    return shell;
}

double unitScale(const std::string& unit) {
    if (unit == "mm") return 1.0;
    if (unit == "cm") return 10.0;
    if (unit == "m") return 1000.0;
    if (unit == "um" || unit == "\u00b5m") return 0.001;
    throw std::invalid_argument("unknown unit '" + unit + "' (expected mm, cm, m or um)");
}

std::string implausibleHeartReason(const sph::TriangleMesh& phase, double scale) {
    if (phase.vertices.empty()) return "holds no points";
    sph::Aabb box{phase.vertices.front(), phase.vertices.front()};
    for (const sph::Vec3& v : phase.vertices) {
        if (!sph::isFinite(v)) return "has a point that is not finite after scaling by " + std::to_string(scale);
        box.lo = componentMin(box.lo, v);
        box.hi = componentMax(box.hi, v);
    }
    const sph::Vec3 size = box.size();
    const double across = std::max({double(size.x), double(size.y), double(size.z)});
    const auto number = [](double v) {
        char out[32];
        std::snprintf(out, sizeof out, "%.6g", v);
        return std::string(out);
    };
    if (!(across >= kMinHeartSizeMm) || !(across <= kMaxHeartSizeMm)) {
        std::string why = "is " + number(across) + " mm across, and a heart is " + number(kMinHeartSizeMm) + " to " +
                          number(kMaxHeartSizeMm) + " mm: ";
        // A unit whose factor brings it into range, else the scale that makes it 100 mm.
        static constexpr struct {
            const char* unit;
            const char* name;
            double mm;
        } units[] = {{"m", "metres", 1000.0}, {"cm", "centimetres", 10.0}, {"um", "micrometres", 0.001}};
        for (const auto& u : units) {
            const double fits = across * u.mm;
            if (fits >= kMinHeartSizeMm && fits <= kMaxHeartSizeMm)
                return why + "is it in " + u.name + "? use --units " + u.unit + " (or --scale " + number(scale * u.mm) + ")";
        }
        return why + "use --scale " + number(across > 0.0 ? scale * 100.0 / across : 1000.0) +
               " to make it 100 mm across";
    }
    if (!boundaryEdges(phase).empty()) return {}; // open (its openings become valves): no volume to check
    const double ml = std::fabs(phase.enclosedVolume()) / 1000.0;
    const double boxMl = double(size.x) * size.y * size.z / 1000.0;
    if (!(ml > 1e-4 * boxMl))
        return "encloses no volume (" + std::to_string(phase.triangles.size()) +
               " triangles, a flat or open surface): a heart mesh must be a closed surface around the blood";
    return {};
}

fs::path defaultCacheDirectory() {
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
        return fs::path(xdg) / "atrium";
    if (const char* home = std::getenv("HOME"); home != nullptr && home[0] != '\0')
        return fs::path(home) / ".cache" / "atrium";
    return {};
}

std::vector<fs::path> defaultShippedCacheDirectories() {
    std::vector<fs::path> dirs;
    std::error_code ec;
    const auto add = [&](const fs::path& dir) {
        if (!dir.empty() && fs::is_directory(dir, ec)) dirs.push_back(dir);
    };
    if (const fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec && exe.parent_path().filename() == "bin")
        add(exe.parent_path().parent_path() / "share" / "atrium" / "heart-cache");
    if (const char* xdg = std::getenv("XDG_DATA_DIRS"); xdg != nullptr) {
        const std::string list = xdg;
        for (std::size_t start = 0; start <= list.size();) {
            const std::size_t end = std::min(list.find(':', start), list.size());
            if (const std::string dir = list.substr(start, end - start); !dir.empty() && dir[0] == '/')
                add(fs::path(dir) / "atrium" / "heart-cache");
            start = end + 1;
        }
    }
    return dirs;
}

MovingHeartMesh loadShell(const std::string& pattern, double cycleSeconds, double scale, PipelineProgress progress) {
    PipelineSettings settings = PipelineSettings::forBlood();
    settings.openingsBecomeValves = false;
    settings.meshCleaning.capHoles = false; // shown, not filled: its openings may stay
    HeartSource source = HeartSource::fromMeshes(pattern, cycleSeconds);
    source.scale = scale;
    return loadHeart(source, settings, nullptr, std::move(progress));
}

std::vector<sph::TriangleMesh> phantomSurfaces(const PhantomParameters& parameters, bool ventricleOnly,
                                               const PipelineSettings& settings) {
    const HeartPhantom phantom(parameters);
    const VolumeSeries series = phantom.generate();
    ExtractionSettings extraction = settings.extraction;
    extraction.isovalue = suggestIsovalue(series.phases.front());
    extraction.noiseBoxMm = settings.noiseBoxMm;
    std::vector<sph::TriangleMesh> out;
    for (const Volume& v : series.phases) {
        sph::TriangleMesh whole = extractSurface(v, extraction);
        if (!ventricleOnly) {
            out.push_back(std::move(whole));
            continue;
        }
        vtkNew<vtkPlane> plane;
        plane->SetOrigin(0.0, 0.0, 2.0);
        plane->SetNormal(0.0, 0.0, -1.0); // keeps z < 2 mm
        vtkNew<vtkClipPolyData> clip;
        clip->SetInputData(toPolyData(whole));
        clip->SetClipFunction(plane);
        clip->Update();
        sph::TriangleMesh m = toTriangleMesh(clip->GetOutput());
        compactVertices(m);
        out.push_back(std::move(m));
    }
    return out;
}

std::vector<ChamberSeries> chambersInDirectory(const std::string& directory) {
    std::map<std::string, std::vector<fs::path>> byStem;
    for (const fs::path& f : resolveMeshFrames(directory)) byStem[seriesStem(f.string())].push_back(f);
    if (byStem.size() < 2) return {ChamberSeries{directory, {}, {}}};
    std::vector<ChamberSeries> chambers;
    for (const auto& [stem, files] : byStem) {
        // The frame number: the digits that end the first file's stem.
        const std::string first = files.front().stem().string();
        std::size_t digits = 0;
        while (digits < first.size() && std::isdigit(static_cast<unsigned char>(first[first.size() - 1 - digits])) != 0)
            ++digits;
        if (digits == 0) throw MeshError(files.front(), "holds no frame number; cannot tell the series " + stem + " apart");
        const std::string pattern = (files.front().parent_path() / (first.substr(0, first.size() - digits) + "%0" +
                                                                    std::to_string(digits) + "d" +
                                                                    files.front().extension().string()))
                                        .string();
        chambers.push_back({pattern, stem, {}});
    }
    return chambers;
}

double enclosedVolumeMl(const sph::TriangleMesh& mesh) { return mesh.enclosedVolume() / 1000.0; }

MovingHeartMesh loadHeart(const HeartSource& source, const PipelineSettings& settings, PipelineReport* reportOut,
                          PipelineProgress progress) {
    const auto t0 = Clock::now();
    PipelineReport report;

    // Parameters first, so that bad ones are reported before any work.
    PhantomParameters phantomParameters;
    if (source.kind == HeartSource::Kind::Phantom) {
        phantomParameters = source.phantomParameters();
        report.cycleSeconds = HeartPhantom(phantomParameters).cycleSeconds();
    } else {
        if (!(source.cycleSeconds > 0.0) || !std::isfinite(source.cycleSeconds))
            throw std::invalid_argument("HeartSource::cycleSeconds must be positive, got " +
                                        std::to_string(source.cycleSeconds));
        if (source.isovalue && !std::isfinite(*source.isovalue))
            throw std::invalid_argument("HeartSource::isovalue is not finite");
        if (!(source.scale > 0.0) || !std::isfinite(source.scale))
            throw std::invalid_argument("the scale must be a positive number, got " + std::to_string(source.scale));
        report.cycleSeconds = source.cycleSeconds;
    }
    if (!(settings.noiseBoxMm >= 0.0) || !std::isfinite(settings.noiseBoxMm))
        throw std::invalid_argument("PipelineSettings::noiseBoxMm must be 0 (off) or positive, got " +
                                    std::to_string(settings.noiseBoxMm));

    // The cache.
    const bool useCache = !settings.cacheDirectory.empty();
    std::string keyText;
    std::uint64_t key = 0;
    if (useCache) {
        keyText = cacheKeyText(source, phantomParameters, settings);
        key = fnv1a(kFnvOffset, keyText.data(), keyText.size());
        report.cacheFile = settings.cacheDirectory / detail::cacheFileName(key);
        std::error_code ec;
        bool shipped = false;
        if (!fs::exists(report.cacheFile, ec))
            for (const fs::path& dir : settings.shippedCacheDirectories)
                if (const fs::path file = dir / report.cacheFile.filename(); fs::exists(file, ec)) {
                    report.cacheFile = file;
                    shipped = true;
                    break;
                }
        if (fs::exists(report.cacheFile, ec)) {
            const auto tc = Clock::now();
            if (progress) progress(stage::loadingCache, 0.0);
            try {
                CacheMeta meta;
                MovingHeartMesh moving = readCache(report.cacheFile, key, keyText, meta, progress);
                report.secondsCache = secondsSince(tc);
                report.fromCache = true;
                report.cacheStatus = shipped ? "hit (shipped)" : "hit";
                report.isovalue = meta.isovalue;
                report.holesCapped = std::size_t(meta.holesCapped);
                report.anatomy = std::move(meta.anatomy);
                if (source.kind == HeartSource::Kind::Phantom && !source.phantomRightHeart)
                    report.anatomy = HeartAnatomy::fromPhantom(HeartPhantom(phantomParameters));
                fillReportFromMesh(report, moving);
                report.secondsTotal = secondsSince(t0);
                if (reportOut) *reportOut = std::move(report);
                return moving;
            } catch (const std::exception& e) {
                report.cacheStatus = "rebuilt: " + report.cacheFile.filename().string() + " " + e.what();
                // A stale shipped entry is left as it is; the rebuilt heart goes to the user's cache.
                if (shipped) report.cacheFile = settings.cacheDirectory / report.cacheFile.filename();
            }
        } else {
            report.cacheStatus = "miss";
        }
    } else {
        report.cacheStatus = "disabled";
    }

    // Phase meshes.
    std::vector<sph::TriangleMesh> phases;
    if (source.kind == HeartSource::Kind::Meshes) {
        const auto ts = Clock::now();
        report.isovalue = std::numeric_limits<double>::quiet_NaN();
        phases = readChambers(source, settings, report, progress);
        report.secondsSource = secondsSince(ts);
    } else {
        const auto ts = Clock::now();
        VolumeSeries volumes;
        if (source.kind == HeartSource::Kind::Phantom) {
            const HeartPhantom phantom(phantomParameters);
            if (source.phantomRightHeart) {
                volumes = phantom.generateRightHeart(stageProgress(progress, stage::generatingPhantom));
            } else {
                volumes = phantom.generate(stageProgress(progress, stage::generatingPhantom));
                report.anatomy = HeartAnatomy::fromPhantom(phantom);
            }
        } else {
            SeriesReadOptions options;
            options.cycleSeconds = source.cycleSeconds;
            options.progress = stageProgress(progress, stage::readingVolumes);
            volumes = readVolumeSeries(source.pattern, options);
            if (source.scale != 1.0)
                for (Volume& v : volumes.phases) {
                    v.origin *= float(source.scale);
                    v.spacing *= float(source.scale);
                }
        }
        report.secondsSource = secondsSince(ts);

        const auto te = Clock::now();
        // The right heart's clean two-level image: its surface lies at the midpoint.
        const float isovalue = source.isovalue ? *source.isovalue
                               : source.phantomRightHeart
                                   ? 0.5f * (phantomParameters.bloodIntensity + phantomParameters.backgroundIntensity)
                                   : suggestIsovalue(volumes.phases.front());
        report.isovalue = isovalue;
        ExtractionSettings extraction = settings.extraction;
        extraction.isovalue = isovalue;
        extraction.noiseBoxMm = settings.noiseBoxMm;
        const std::size_t count = volumes.phases.size();
        phases.resize(count);
        for (std::size_t k = 0; k < count; ++k) {
            ExtractionReport er;
            phases[k] = extractSurface(volumes.phases[k], extraction, &er,
                                       stageProgress(progress, stage::extractingSurfaces, double(k) / double(count),
                                                     double(k + 1) / double(count)));
            report.holesCapped += er.holesCapped;
            volumes.phases[k] = Volume{}; // free the voxels as we go
        }
        if (source.kind == HeartSource::Kind::Volumes)
            if (const std::string why = implausibleHeartReason(phases.front(), source.scale); !why.empty())
                throw VolumeError(source.pattern, "the surface at isovalue " + std::to_string(isovalue) + " " + why);
        if (count == 1) phases.push_back(phases.front());
        report.secondsExtraction = secondsSince(te);
    }

    // Interpolation.
    const auto ti = Clock::now();
    MovingHeartMesh moving =
        MovingHeartMesh::build(std::move(phases), settings.interpolation, stageProgress(progress, stage::interpolating));
    report.secondsInterpolation = secondsSince(ti);
    fillReportFromMesh(report, moving);

    if (useCache) {
        const auto tc = Clock::now();
        if (progress) progress(stage::writingCache, 0.0);
        CacheMeta meta;
        meta.isovalue = report.isovalue;
        meta.holesCapped = report.holesCapped;
        meta.anatomy = report.anatomy;
        meta.buildSeconds = secondsSince(t0);
        const std::string failure = writeCache(report.cacheFile, key, keyText, meta, moving);
        if (!failure.empty()) report.cacheStatus += ", not written: " + failure;
        if (progress) progress(stage::writingCache, 1.0);
        report.secondsCache = secondsSince(tc);
    }
    report.secondsTotal = secondsSince(t0);
    if (reportOut) *reportOut = std::move(report);
    return moving;
}

} // namespace atrium::heart
