#include "app/BuildInfo.h"

#include "BuildVersion.h" // generated: ATRIUM_GIT_DESCRIBE
#include "narrative/package/Manifest.h"
#include "session/Protocol.h"

#include <system_error>

namespace atrium::app {

std::string_view projectVersion() { return ATRIUM_VERSION; }

std::string_view gitDescribe() { return ATRIUM_GIT_DESCRIBE; }

std::string versionText(std::string_view program) {
    std::string text = std::string(program) + " " + std::string(projectVersion());
    if (!gitDescribe().empty()) text += " (git " + std::string(gitDescribe()) + ")";
    text += "\nlive-lecture protocol " + std::to_string(session::kProtocolVersion) + ", content package format " +
            std::to_string(package::Manifest::kVersion) + "\n";
    return text;
}

std::optional<std::filesystem::path> installedDataDir() {
    std::error_code ec;
    const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec || exe.parent_path().filename() != "bin") return std::nullopt;
    const std::filesystem::path data = exe.parent_path().parent_path() / "share" / "atrium";
    if (!std::filesystem::is_directory(data, ec)) return std::nullopt;
    return data;
}

std::optional<std::filesystem::path> installedSampleLecture() {
    const auto data = installedDataDir();
    if (!data) return std::nullopt;
    std::error_code ec;
    const auto lecture = *data / "left-heart.atrium";
    if (!std::filesystem::is_regular_file(lecture, ec)) return std::nullopt;
    return lecture;
}

} // namespace atrium::app
