#pragma once
// The errors of the heart's file readers and writers, in one place, so that a reader
// (mesh formats, image codecs, isolated readers, series discovery) reports them without
// including the series built on top of it (MeshSeries.h, VolumeSeries.h).

#include <filesystem>
#include <stdexcept>
#include <string>

namespace atrium::heart {

/// A mesh file or series that cannot be read as asked. what() starts with the offending
/// path; file() returns it.
class MeshError : public std::runtime_error {
public:
    MeshError(const std::filesystem::path& file, const std::string& message);
    const std::filesystem::path& file() const noexcept { return file_; }

private:
    std::filesystem::path file_;
};

/// A volume file, directory or pattern that cannot be read or written as asked. what()
/// starts with the offending path; file() returns it.
class VolumeError : public std::runtime_error {
public:
    VolumeError(const std::filesystem::path& file, const std::string& message);
    const std::filesystem::path& file() const noexcept { return file_; }

private:
    std::filesystem::path file_;
};

} // namespace atrium::heart
