#pragma once
// The files of a series, shared by the volume and mesh readers: a printf-style pattern
// with one integer field ("dir/heart_%02d.vti"), or a folder read in natural order
// (heart_2 before heart_10). Errors are VolumeError (VolumeSeries.h), naming the file.

#include <filesystem>
#include <string>
#include <vector>

namespace atrium::heart {

/// Whether `source` holds a printf field (a % that is not %%): a pattern, not a folder.
bool isSeriesPattern(const std::string& source);

/// The frames of a series. Pattern: the existing names that the pattern produces, by
/// index, from the lowest to the highest present; a gap throws VolumeError naming the
/// first missing file. Directory: files whose extension is in `extensions` (lower case,
/// with dot), natural order; files of two different listed extensions throw.
/// expectedCount > 0 enforces the count. With an empty `extensions`, a pattern may
/// match files or directories.
std::vector<std::filesystem::path> resolveSeriesFrames(const std::string& source,
                                                       const std::vector<std::string>& extensions,
                                                       int expectedCount = 0);

/// Files in `directory` with one of `extensions`, in natural order (none: empty); files
/// of two of the extensions throw VolumeError.
std::vector<std::filesystem::path> filesInNaturalOrder(const std::filesystem::path& directory,
                                                       const std::vector<std::string>& extensions);
/// The subdirectories of `directory` (hidden ones left out), in natural order.
std::vector<std::filesystem::path> subdirectoriesInNaturalOrder(const std::filesystem::path& directory);

/// Why `file` cannot be read as an input file (missing, a directory, empty,
/// unreadable), or an empty string when it can. `kind` names what was expected
/// ("volume", "mesh") in the message.
std::string unreadableFileReason(const std::filesystem::path& file, const std::string& kind);

/// printf-style formatting of a pattern with exactly one integer field (%d, %i, %u,
/// with optional flags/width such as %02d; %% is a literal percent). Throws
/// std::invalid_argument for any other pattern.
std::string formatSeriesPattern(const std::string& pattern, int index);

} // namespace atrium::heart
