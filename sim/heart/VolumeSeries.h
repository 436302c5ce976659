#pragma once
// 4D intensity volumes (one 3D image per cardiac phase) and their files.
//
// Units are millimetres. A Volume is a regular grid of float intensities with an
// axis-aligned voxel lattice: voxel (i, j, k) sits at origin + (i*sx, j*sy, k*sz).
// Files: one file per phase, .vti (VTK XML image, LZ4-compressed), .nrrd (raw
// little/big-endian float, attached header), .mha/.mhd (MetaImage); a DICOM series
// directory per phase is read (not written). See docs/heart-phantom.md.

#include "sim/heart/HeartFileError.h" // VolumeError
#include "sim/heart/SeriesFiles.h" // series patterns and folders
#include "sim/sph/Vec3.h"

#include <cstddef>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace atrium::heart {

/// One 3D image. values has nx*ny*nz entries, x fastest, then y, then z.
struct Volume {
    int nx = 0, ny = 0, nz = 0;
    sph::Vec3 origin{};                 ///< position of voxel (0,0,0), mm
    sph::Vec3 spacing{1.f, 1.f, 1.f};   ///< voxel size, mm
    std::vector<float> values;

    std::size_t index(int i, int j, int k) const {
        return static_cast<std::size_t>(i) +
               static_cast<std::size_t>(nx) * (static_cast<std::size_t>(j) +
                                               static_cast<std::size_t>(ny) * static_cast<std::size_t>(k));
    }
    float at(int i, int j, int k) const { return values[index(i, j, k)]; }
    float& at(int i, int j, int k) { return values[index(i, j, k)]; }
    std::size_t voxelCount() const {
        return static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny) * static_cast<std::size_t>(nz);
    }
    /// Centre of voxel (i, j, k), mm.
    sph::Vec3 position(int i, int j, int k) const {
        return {origin.x + static_cast<float>(i) * spacing.x, origin.y + static_cast<float>(j) * spacing.y,
                origin.z + static_cast<float>(k) * spacing.z};
    }
    /// Box spanned by the voxel centres.
    sph::Aabb bounds() const { return {origin, position(nx - 1, ny - 1, nz - 1)}; }
    bool empty() const { return values.empty(); }
};

/// The phases of one cardiac cycle; phase k is at time k/phases.size() * cycleSeconds.
struct VolumeSeries {
    std::vector<Volume> phases;
    double cycleSeconds = 1.0;
};

/// Progress in [0, 1], called on the calling thread; may be empty.
using ProgressCallback = std::function<void(double fraction)>;

enum class VolumeFormat { Vti, Nrrd, MetaImage };

/// Format from the extension (.vti, .nrrd, .mha, .mhd; case-insensitive).
/// Throws VolumeError naming the path for any other extension.
VolumeFormat volumeFormatFor(const std::filesystem::path& file);

/// Writes one volume; the format follows the extension. Creates missing parent
/// directories. Throws VolumeError naming the file on failure.
void writeVolume(const Volume& volume, const std::filesystem::path& file);

/// Reads one volume (.vti/.nrrd/.mha/.mhd) as float. Throws VolumeError naming the file
/// when it is missing, empty, not of the format its extension says, or unreadable.
Volume readVolume(const std::filesystem::path& file);

/// Reads one DICOM series directory (one 3D image, slices sorted by position) with
/// VTK's DICOM reader; rescale slope/intercept are applied (CT values come out in HU).
/// Rows are kept in DICOM order, so the volume's origin is the first slice's Image
/// Position (Patient) and +y runs down the rows; direction cosines other than the axial
/// identity are not applied (the volume stays in the scan's own frame).
/// Throws VolumeError naming the directory when it is missing, empty or holds no
/// readable DICOM image.
Volume readDicomVolume(const std::filesystem::path& directory);

/// Writes phase k to the file named by the printf-style pattern with k (from 0), e.g.
/// "out/heart_%02d.vti". Returns the files written.
std::vector<std::filesystem::path> writeVolumeSeries(const VolumeSeries& series, const std::string& pattern,
                                                     const ProgressCallback& progress = {});

struct SeriesReadOptions {
    double cycleSeconds = 1.0;   ///< files carry no heart rate; the caller supplies it
    int expectedPhases = 0;      ///< > 0: the series must have exactly this many phases
    ProgressCallback progress;   ///< fraction of phases read
};

/// Reads a 4D series from
///  - a printf-style pattern with one integer field ("dir/heart_%02d.vti"): every index
///    from the lowest present to the highest must exist; names that match the pattern
///    may be volume files or DICOM directories (one per phase);
///  - a directory: its files of one supported extension in natural order (heart_2
///    before heart_10), or, when it holds no such files, its subdirectories in natural
///    order, each a DICOM series of one phase.
/// All phases must have the same voxel counts and spacings.
/// Throws VolumeError naming the file at fault (missing frame, unreadable or empty
/// file, empty DICOM directory, size/spacing mismatch, unknown extension).
VolumeSeries readVolumeSeries(const std::string& patternOrDirectory, const SeriesReadOptions& options = {});

/// Reads one DICOM series directory per phase, in the order given.
VolumeSeries readDicomSeries(const std::vector<std::filesystem::path>& phaseDirectories,
                             const SeriesReadOptions& options = {});

/// An isovalue separating the blood pool from myocardium and background: a three-class
/// Otsu split of a 1024-bin intensity histogram (background / myocardium /
/// contrast-enhanced blood), then the midpoint between the mean intensities of the two
/// upper classes. Non-finite values are ignored.
/// Throws std::invalid_argument for an empty volume; a constant volume returns its value.
float suggestIsovalue(const Volume& volume);

} // namespace atrium::heart
