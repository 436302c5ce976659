#pragma once
// What an executable says of itself and where an installed Atrium keeps its data.
// `--version` prints the project's version (CMake's project()), `git describe` when
// built from a checkout, and the versions of the formats it speaks, so that a bug
// report names exactly what ran and whether two machines can share a lecture.
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace atrium::app {

/// The project's version, e.g. "0.1.0".
std::string_view projectVersion();
/// `git describe --always --dirty --tags` of the checkout it was built from; empty
/// when built outside a checkout.
std::string_view gitDescribe();

/// The text of `PROGRAM --version`: a first line "PROGRAM VERSION (git DESCRIBE)", then
/// the live-lecture protocol's and the content package format's versions. Ends in '\n'.
std::string versionText(std::string_view program);

/// The data folder of an installed Atrium, `<prefix>/share/atrium` for an executable
/// installed as `<prefix>/bin/NAME` (found through /proc/self/exe, so that an unpacked
/// or relocated package works too); nullopt where there is none (the build tree).
std::optional<std::filesystem::path> installedDataDir();

/// The installed sample lecture (`<data>/left-heart.atrium`), or nullopt.
std::optional<std::filesystem::path> installedSampleLecture();

} // namespace atrium::app
