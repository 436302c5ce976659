#include "sim/heart/HeartCache.h"

#include "io/AtomicFile.h"
#include "io/BinaryIo.h"
#include "sim/heart/Fnv1a.h"
#include "sim/heart/VolumeSeries.h"

#include <algorithm>
#include <fstream>
#include <iomanip>
#include <locale>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace detail {
namespace {

/// Bump whenever the pipeline's output for the same inputs changes (extraction,
/// cleaning, interpolation algorithms) or the file layout changes. 3: the phantom's base,
/// valves, aorta and volume curves redesigned (issue 22), which its key's parameters
/// alone would not tell.
constexpr std::uint32_t kCacheFormatVersion = 3;
constexpr char kCacheMagic[8] = {'A', 'T', 'R', 'H', 'E', 'A', 'R', 'T'};
constexpr const char* kCacheExtension = ".atriumheart";
/// Largest cache file read back (a moving heart is tens of MB).
constexpr std::uintmax_t kMaxCacheBytes = std::uintmax_t(4) << 30;


// ---------------------------------------------------------------------------------------
// The key: a text naming everything the moving heart depends on.

/// Exact, locale-independent text of a double.
std::string exact(double v) {
    std::ostringstream s;
    s.imbue(std::locale::classic());
    s << std::hexfloat << v;
    return s.str();
}


/// FNV-1a 64 of a file's bytes (0 when it cannot be read: the load then fails anyway).
std::uint64_t fileHash(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::uint64_t h = kFnvOffset;
    std::vector<char> buffer(std::size_t(1) << 20);
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        h = fnv1a(h, buffer.data(), std::size_t(in.gcount()));
    }
    return in.eof() ? h : 0;
}

void describeFile(std::ostringstream& key, const fs::path& file, Naming naming) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    const auto size64 = ec ? std::uintmax_t(0) : size;
    if (naming == Naming::Content) {
        key << "file size " << size64 << " fnv1a " << hex64(fileHash(file)) << "\n";
        return;
    }
    std::error_code ecTime;
    const auto time = fs::last_write_time(file, ecTime);
    key << "file " << fs::absolute(file).lexically_normal().string() << " size " << size64 << " mtime "
        << (ecTime ? 0 : static_cast<long long>(time.time_since_epoch().count())) << "\n";
}

bool isCacheFile(const fs::path& file) {
    const std::string name = file.filename().string();
    return name.find(kCacheExtension) != std::string::npos;
}

/// Every regular file under `directory` (recursively, sorted), but cache files.
void describeDirectory(std::ostringstream& key, const fs::path& directory, Naming naming) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator it(directory, ec), end; !ec && it != end; it.increment(ec)) {
        std::error_code ecType;
        if (it->is_regular_file(ecType) && !isCacheFile(it->path())) files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    key << "directory " << (naming == Naming::Content ? std::string() : fs::absolute(directory).lexically_normal().string())
        << " files " << files.size() << "\n";
    for (const fs::path& f : files) describeFile(key, f, naming);
}

/// A frame of a series: a file (for MetaImage headers also the data files beside it
/// that share its stem) or a DICOM directory.
void describeFrame(std::ostringstream& key, const fs::path& frame, Naming naming) {
    std::error_code ec;
    if (fs::is_directory(frame, ec)) {
        describeDirectory(key, frame, naming);
        return;
    }
    describeFile(key, frame, naming);
    std::string ext = frame.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (ext == ".mhd") {
        const fs::path parent = frame.has_parent_path() ? frame.parent_path() : fs::path(".");
        std::vector<fs::path> companions;
        for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec))
            if (it->path() != frame && it->path().stem() == frame.stem()) companions.push_back(it->path());
        std::sort(companions.begin(), companions.end());
        for (const fs::path& c : companions) describeFile(key, c, naming);
    }
}

void describeInputs(std::ostringstream& key, const HeartSource& source, Naming naming) {
    const std::string& pattern = source.pattern;
    if (source.kind == HeartSource::Kind::Meshes) {
        for (const ChamberSeries& c : source.chambers) {
            key << "chamber " << (naming == Naming::Content ? std::string() : c.pattern) << " name " << c.name << "\n";
            for (const OpeningRule& r : c.rules) {
                key << "rule " << (r.number ? std::to_string(*r.number) : std::string("-"));
                if (r.near) key << " near " << exact(r.near->x) << " " << exact(r.near->y) << " " << exact(r.near->z);
                key << " " << (r.wall ? "wall" : (r.role ? valveRoleName(*r.role) : "-")) << " " << r.name << "\n";
            }
            if (const auto sidecar = openingRulesFile(c.pattern)) describeFile(key, *sidecar, naming);
            for (const fs::path& f : resolveMeshFrames(c.pattern)) describeFrame(key, f, naming);
        }
        return;
    }
    // Volumes: a pattern names files or DICOM directories; a directory is read as a whole.
    std::error_code ec;
    if (pattern.find('%') == std::string::npos || fs::is_directory(pattern, ec)) {
        if (pattern.empty()) throw VolumeError(pattern, "no series given (empty pattern or directory)");
        if (!fs::exists(pattern, ec)) throw VolumeError(pattern, "does not exist");
        if (!fs::is_directory(pattern, ec))
            throw VolumeError(pattern, "is neither a directory nor a pattern with an integer field (such as "
                                       "heart_%02d.vti)");
        describeDirectory(key, pattern, naming);
        return;
    }
    for (const fs::path& f : resolveSeriesFrames(pattern, {})) describeFrame(key, f, naming);
}

} // namespace

std::string cacheKeyText(const HeartSource& source, const PhantomParameters& phantom, const PipelineSettings& s,
                         Naming naming) {
    std::ostringstream key;
    key.imbue(std::locale::classic());
    key << "atrium moving heart cache, format " << kCacheFormatVersion << "\n";
    switch (source.kind) {
    case HeartSource::Kind::Phantom:
        key << "source phantom\n"
            << "heartRateBpm " << exact(phantom.heartRateBpm) << "\n"
            << "endDiastolicVolumeMl " << exact(phantom.endDiastolicVolumeMl) << "\n"
            << "ejectionFraction " << exact(phantom.ejectionFraction) << "\n"
            << "phases " << phantom.phases << "\n"
            << "voxelSizeMm " << exact(phantom.voxelSizeMm) << "\n"
            << "noise " << exact(phantom.noise) << "\n"
            << "seed " << phantom.seed << "\n"
            << "wallThicknessMm " << exact(phantom.wallThicknessMm) << "\n"
            << "rightHeart " << phantom.rightHeart << "\n"
            << "bloodIntensity " << exact(phantom.bloodIntensity) << "\n"
            << "myocardiumIntensity " << exact(phantom.myocardiumIntensity) << "\n"
            << "backgroundIntensity " << exact(phantom.backgroundIntensity) << "\n"
            << "aorticAnnulusMm " << exact(phantom.aorticAnnulusMm) << "\n"
            << "mitralValveAreaCm2 " << exact(phantom.mitralValveAreaCm2) << "\n"
            << "ascendingAortaMm " << exact(phantom.ascendingAortaMm) << "\n";
        if (phantom.aorticValveAreaCm2) key << "aorticValveAreaCm2 " << exact(*phantom.aorticValveAreaCm2) << "\n";
        // Only when set, so that the hearts cached before these options keep their keys.
        if (phantom.aorticArch) key << "aorticArch 1\n";
        if (phantom.rightHeartShell) key << "rightHeartShell 1\n";
        if (source.phantomRightHeart) key << "surface right heart shell\n";
        break;
    case HeartSource::Kind::Volumes:
        key << "source volumes " << (naming == Naming::Content ? std::string() : source.pattern) << "\n";
        describeInputs(key, source, naming);
        break;
    case HeartSource::Kind::Meshes:
        key << "source meshes " << (naming == Naming::Content ? std::string() : source.pattern) << "\n";
        describeInputs(key, source, naming);
        break;
    }
    if (source.kind != HeartSource::Kind::Phantom && source.scale != 1.0) key << "scale " << exact(source.scale) << "\n";
    if (source.kind == HeartSource::Kind::Meshes) {
        key << "mergeToleranceMm " << exact(s.meshCleaning.mergeToleranceMm) << "\n"
            << "capHoles " << s.meshCleaning.capHoles << "\n"
            << "openingsBecomeValves " << s.openingsBecomeValves << "\n"
            << "maxHoleDiameterMm " << exact(s.meshCleaning.maxHoleDiameterMm) << "\n";
    } else {
        key << "isovalue " << (source.isovalue ? exact(double(*source.isovalue)) : std::string("suggested")) << "\n"
            << "smoothingIterations " << s.extraction.smoothingIterations << "\n"
            << "smoothingPassBand " << exact(s.extraction.smoothingPassBand) << "\n"
            << "decimation " << exact(s.extraction.decimation) << "\n"
            << "featureAngleDeg " << exact(s.extraction.featureAngleDeg) << "\n"
            << "noiseBoxMm " << exact(s.noiseBoxMm) << "\n"
            << "extractionCapHoles " << s.extraction.capHoles << "\n";
    }
    const InterpolationSettings& i = s.interpolation;
    key << "iterations " << i.iterations << "\n"
        << "closestPointFactor " << exact(i.closestPointFactor) << "\n"
        << "relaxFactor " << exact(i.relaxFactor) << "\n"
        << "refine " << i.refine << "\n"
        << "subframes " << i.subframes << "\n";
    return key.str();
}

std::string cacheFileName(std::uint64_t key) { return "heart-" + hex64(key) + kCacheExtension; }

MovingHeartMesh readCache(const fs::path& file, std::uint64_t key, const std::string& keyText, CacheMeta& meta,
                          const PipelineProgress& progress) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) throw std::runtime_error("cannot read its size: " + ec.message());
    if (size > kMaxCacheBytes) throw std::runtime_error("implausibly large (" + std::to_string(size) + " bytes)");
    std::string data(std::size_t(size), '\0');
    {
        std::ifstream in(file, std::ios::binary);
        if (!in) throw std::runtime_error("cannot open it");
        in.read(data.data(), std::streamsize(data.size()));
        if (std::size_t(in.gcount()) != data.size()) throw std::runtime_error("short read");
    }
    if (progress) progress(stage::loadingCache, 0.3);
    // Magic and version first (a file from another version says so), then the checksum
    // (the last 8 bytes) over everything else, then the contents.
    constexpr std::size_t headerBytes = sizeof kCacheMagic + 4;
    if (data.size() < headerBytes + 8) throw std::runtime_error("truncated (" + std::to_string(size) + " bytes)");
    if (std::memcmp(data.data(), kCacheMagic, sizeof kCacheMagic) != 0) throw std::runtime_error("bad magic");
    {
        io::ByteReader header(std::string_view(data).substr(0, headerBytes));
        header.bytes(sizeof kCacheMagic, "magic");
        const auto version = header.value<std::uint32_t>("version");
        if (version != kCacheFormatVersion)
            throw std::runtime_error("format version " + std::to_string(version) + ", expected " +
                                     std::to_string(kCacheFormatVersion));
    }
    const std::size_t body = data.size() - 8;
    if (io::ByteReader(std::string_view(data).substr(body)).value<std::uint64_t>("checksum") !=
        io::fnv1a(io::kFnvOffset, data.data(), body))
        throw std::runtime_error("checksum mismatch (truncated or corrupt)");
    io::ByteReader r(std::string_view(data).substr(0, body));
    r.bytes(sizeof kCacheMagic, "magic");
    r.value<std::uint32_t>("version");
    r.value<std::uint32_t>("reserved");
    if (r.value<std::uint64_t>("key") != key) throw std::runtime_error("written for other inputs (key mismatch)");
    if (r.text("key text") != keyText) throw std::runtime_error("written for other inputs (key text differs)");
    meta.isovalue = r.value<double>("isovalue");
    meta.holesCapped = r.value<std::uint64_t>("holes capped");
    meta.buildSeconds = r.value<double>("build seconds");
    meta.anatomy = anatomyFromJson(r.text("anatomy"));
    const auto meshLength = r.value<std::uint64_t>("mesh length");
    if (meshLength != r.remaining())
        throw std::runtime_error("mesh section of " + std::to_string(meshLength) + " bytes where " +
                                 std::to_string(r.remaining()) + " remain");
    std::istringstream mesh(data.substr(r.position(), std::size_t(meshLength)));
    data.clear();
    data.shrink_to_fit();
    if (progress) progress(stage::loadingCache, 0.6);
    MovingHeartMesh moving = MovingHeartMesh::load(mesh);
    if (progress) progress(stage::loadingCache, 1.0);
    return moving;
}

std::string writeCache(const fs::path& file, std::uint64_t key, const std::string& keyText, const CacheMeta& meta,
                       const MovingHeartMesh& moving) {
    try {
        std::string data;
        io::ByteWriter w(data);
        w.bytes(kCacheMagic, sizeof kCacheMagic);
        w.value(kCacheFormatVersion);
        w.value(std::uint32_t(0));
        w.value(key);
        w.text(keyText);
        w.value(meta.isovalue);
        w.value(meta.holesCapped);
        w.value(meta.buildSeconds);
        w.text(anatomyToJson(meta.anatomy));
        std::ostringstream blob(std::ios::binary);
        moving.save(blob);
        w.text(std::move(blob).str());
        w.checksum();

        // Temporaries of builds that were killed at the rename (megabytes each) go first.
        io::removeStaleTemporaries(file.parent_path());
        io::writeFileAtomically(file, data);
        return {};
    } catch (const std::exception& e) {
        return e.what();
    }
}

} // namespace detail

fs::path heartCacheFile(const HeartSource& source, const PipelineSettings& settings) {
    if (settings.cacheDirectory.empty()) return {};
    const PhantomParameters phantom =
        source.kind == HeartSource::Kind::Phantom ? source.phantomParameters() : PhantomParameters{};
    const std::string keyText = detail::cacheKeyText(source, phantom, settings);
    const std::uint64_t key = fnv1a(kFnvOffset, keyText.data(), keyText.size());
    return settings.cacheDirectory / detail::cacheFileName(key);
}

std::string heartIdentity(const HeartSource& source, const PipelineSettings& settings) {
    const PhantomParameters phantom =
        source.kind == HeartSource::Kind::Phantom ? source.phantomParameters() : PhantomParameters{};
    const std::string keyText = detail::cacheKeyText(source, phantom, settings, detail::Naming::Content);
    return "heart-" + hex64(fnv1a(kFnvOffset, keyText.data(), keyText.size()));
}

} // namespace atrium::heart
