#include "sim/heart/HeartFileError.h"

namespace atrium::heart {

MeshError::MeshError(const std::filesystem::path& file, const std::string& message)
    : std::runtime_error(file.string() + ": " + message), file_(file) {}

VolumeError::VolumeError(const std::filesystem::path& file, const std::string& message)
    : std::runtime_error(file.string() + ": " + message), file_(file) {}

} // namespace atrium::heart
