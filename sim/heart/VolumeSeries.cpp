#include "sim/heart/VolumeSeries.h"

#include "sim/heart/VolumeCodecs.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <system_error>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace {

using detail::dimensionsText;
using detail::joined;
using detail::vecText;
using detail::volumeExtensions;

void checkSameGrid(const Volume& reference, const fs::path& referenceFile, const Volume& v, const fs::path& file) {
    if (v.nx != reference.nx || v.ny != reference.ny || v.nz != reference.nz)
        throw VolumeError(file, dimensionsText(v) + " voxels, but " + referenceFile.filename().string() + " has " +
                                    dimensionsText(reference));
    const auto differs = [](float a, float b) { return std::fabs(a - b) > 1e-4f * std::max(std::fabs(a), std::fabs(b)); };
    if (differs(v.spacing.x, reference.spacing.x) || differs(v.spacing.y, reference.spacing.y) ||
        differs(v.spacing.z, reference.spacing.z))
        throw VolumeError(file, "voxel spacing " + vecText(v.spacing) + " mm, but " +
                                    referenceFile.filename().string() + " has " + vecText(reference.spacing) + " mm");
}

/// Reads frames (files or DICOM directories), checking they share one grid.
VolumeSeries readFrames(const std::vector<fs::path>& frames, const SeriesReadOptions& options) {
    if (options.expectedPhases > 0 && static_cast<int>(frames.size()) != options.expectedPhases)
        throw VolumeError(frames.empty() ? fs::path{} : frames.front().parent_path(),
                          std::to_string(frames.size()) + " phases found, expected " +
                              std::to_string(options.expectedPhases));
    if (!(options.cycleSeconds > 0.0) || !std::isfinite(options.cycleSeconds))
        throw std::invalid_argument("SeriesReadOptions::cycleSeconds must be positive");
    VolumeSeries series;
    series.cycleSeconds = options.cycleSeconds;
    series.phases.reserve(frames.size());
    for (std::size_t n = 0; n < frames.size(); ++n) {
        std::error_code ec;
        Volume v = fs::is_directory(frames[n], ec) ? readDicomVolume(frames[n]) : readVolume(frames[n]);
        if (n > 0) checkSameGrid(series.phases.front(), frames.front(), v, frames[n]);
        series.phases.push_back(std::move(v));
        if (options.progress) options.progress(static_cast<double>(n + 1) / static_cast<double>(frames.size()));
    }
    return series;
}

} // namespace

std::vector<fs::path> writeVolumeSeries(const VolumeSeries& series, const std::string& pattern,
                                        const ProgressCallback& progress) {
    std::string firstName;
    try {
        firstName = formatSeriesPattern(pattern, 0);
    } catch (const std::invalid_argument& e) {
        throw VolumeError(pattern, e.what());
    }
    volumeFormatFor(firstName);
    if (series.phases.empty()) throw VolumeError(pattern, "the series holds no phase to write");
    std::vector<fs::path> written;
    written.reserve(series.phases.size());
    for (std::size_t n = 0; n < series.phases.size(); ++n) {
        const fs::path file = formatSeriesPattern(pattern, static_cast<int>(n));
        writeVolume(series.phases[n], file);
        written.push_back(file);
        if (progress) progress(static_cast<double>(n + 1) / static_cast<double>(series.phases.size()));
    }
    return written;
}

VolumeSeries readVolumeSeries(const std::string& source, const SeriesReadOptions& options) {
    if (source.empty()) throw VolumeError(source, "no series given (empty pattern or directory)");
    std::vector<fs::path> frames;
    if (isSeriesPattern(source)) {
        // Frames may be volume files or DICOM directories; extensions are checked per frame.
        frames = resolveSeriesFrames(source, {}, options.expectedPhases);
        for (const auto& frame : frames) {
            std::error_code ec;
            if (!fs::is_directory(frame, ec)) volumeFormatFor(frame);
        }
    } else {
        const fs::path directory(source);
        std::error_code ec;
        if (!fs::exists(directory, ec)) throw VolumeError(directory, "does not exist");
        if (!fs::is_directory(directory, ec))
            throw VolumeError(directory, "is neither a directory nor a pattern with an integer field (such as "
                                         "heart_%02d.vti)");
        frames = filesInNaturalOrder(directory, volumeExtensions());
        if (frames.empty()) frames = subdirectoriesInNaturalOrder(directory);
        if (frames.empty())
            throw VolumeError(directory, "holds no volume files (" + joined(volumeExtensions()) +
                                             ") and no DICOM phase directories");
    }
    return readFrames(frames, options);
}

VolumeSeries readDicomSeries(const std::vector<fs::path>& phaseDirectories, const SeriesReadOptions& options) {
    if (phaseDirectories.empty()) throw VolumeError(fs::path{}, "no DICOM phase directory given");
    for (const auto& dir : phaseDirectories) {
        std::error_code ec;
        if (!fs::is_directory(dir, ec)) throw VolumeError(dir, "DICOM phase directory does not exist");
    }
    return readFrames(phaseDirectories, options);
}

float suggestIsovalue(const Volume& volume) {
    if (volume.values.empty()) throw std::invalid_argument("suggestIsovalue: the volume is empty");
    float lo = std::numeric_limits<float>::infinity(), hi = -lo;
    for (const float value : volume.values) {
        if (!std::isfinite(value)) continue;
        lo = std::min(lo, value);
        hi = std::max(hi, value);
    }
    if (!(lo <= hi)) throw std::invalid_argument("suggestIsovalue: the volume holds no finite value");
    if (hi - lo <= 1e-6f * std::max(1.f, std::fabs(hi))) return lo;

    constexpr int bins = 1024;
    const double width = (static_cast<double>(hi) - lo) / bins;
    std::vector<double> count(bins, 0.0);
    for (const float value : volume.values) {
        if (!std::isfinite(value)) continue;
        const int b = std::min(bins - 1, static_cast<int>((value - lo) / width));
        count[static_cast<std::size_t>(b)] += 1.0;
    }
    // Prefix sums of weight and first moment (bin centres).
    std::vector<double> w(bins + 1, 0.0), m(bins + 1, 0.0);
    for (int b = 0; b < bins; ++b) {
        const double centre = lo + (b + 0.5) * width;
        w[static_cast<std::size_t>(b) + 1] = w[static_cast<std::size_t>(b)] + count[static_cast<std::size_t>(b)];
        m[static_cast<std::size_t>(b) + 1] = m[static_cast<std::size_t>(b)] + count[static_cast<std::size_t>(b)] * centre;
    }
    const auto term = [&](int from, int to) { // sum^2 / weight of bins [from, to)
        const double wk = w[static_cast<std::size_t>(to)] - w[static_cast<std::size_t>(from)];
        const double mk = m[static_cast<std::size_t>(to)] - m[static_cast<std::size_t>(from)];
        return wk > 0.0 ? mk * mk / wk : 0.0;
    };
    // Three classes [0,t1), [t1,t2), [t2,bins): maximise the between-class variance,
    // i.e. sum over classes of (class sum)^2 / (class weight).
    double best = -1.0;
    int bestT1 = 1, bestT2 = bins / 2;
    for (int t1 = 1; t1 < bins - 1; ++t1) {
        const double first = term(0, t1);
        for (int t2 = t1 + 1; t2 < bins; ++t2) {
            const double score = first + term(t1, t2) + term(t2, bins);
            if (score > best) {
                best = score;
                bestT1 = t1;
                bestT2 = t2;
            }
        }
    }
    // Otsu's criterion is flat across an empty gap between two classes; the isovalue is
    // the midpoint of the two upper class means (where Otsu's split of two Gaussians of
    // equal spread lies), which sits in the middle of such a gap.
    const auto mean = [&](int from, int to) {
        const double wk = w[static_cast<std::size_t>(to)] - w[static_cast<std::size_t>(from)];
        return wk > 0.0 ? (m[static_cast<std::size_t>(to)] - m[static_cast<std::size_t>(from)]) / wk
                        : lo + 0.5 * (from + to) * width;
    };
    return static_cast<float>(0.5 * (mean(bestT1, bestT2) + mean(bestT2, bins)));
}

} // namespace atrium::heart
