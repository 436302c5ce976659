#include "sim/heart/SeriesFiles.h"

#include "sim/heart/HeartFileError.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <system_error>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace {

std::string lowerExtension(const fs::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

struct ParsedPattern {
    std::string directory;   // part before the last '/', may be empty
    std::string prefix;      // literal file-name text before the field (%% unescaped)
    std::string suffix;      // literal text after the field
    std::string field;       // the conversion, e.g. "%02d"
};

ParsedPattern parsePattern(const std::string& pattern) {
    ParsedPattern parsed;
    const auto slash = pattern.find_last_of('/');
    if (slash != std::string::npos) parsed.directory = pattern.substr(0, slash);
    const std::string name = slash == std::string::npos ? pattern : pattern.substr(slash + 1);
    if (parsed.directory.find('%') != std::string::npos && parsed.directory.find("%%") == std::string::npos)
        throw std::invalid_argument("series pattern '" + pattern +
                                    "': the integer field must be in the last path component");
    bool haveField = false;
    for (std::size_t n = 0; n < name.size(); ++n) {
        if (name[n] != '%') {
            (haveField ? parsed.suffix : parsed.prefix) += name[n];
            continue;
        }
        if (n + 1 < name.size() && name[n + 1] == '%') {
            (haveField ? parsed.suffix : parsed.prefix) += '%';
            ++n;
            continue;
        }
        std::size_t end = n + 1;
        while (end < name.size() && std::strchr("-+ #0", name[end])) ++end;
        while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
        if (end < name.size() && name[end] == '.') {
            ++end;
            while (end < name.size() && std::isdigit(static_cast<unsigned char>(name[end]))) ++end;
        }
        if (end >= name.size() || !std::strchr("diu", name[end]) || haveField)
            throw std::invalid_argument("series pattern '" + pattern +
                                        "' must hold exactly one integer field such as %d or %02d");
        parsed.field = name.substr(n, end - n + 1);
        haveField = true;
        n = end;
    }
    if (!haveField)
        throw std::invalid_argument("series pattern '" + pattern +
                                    "' must hold exactly one integer field such as %d or %02d");
    return parsed;
}

} // namespace

bool isSeriesPattern(const std::string& source) {
    for (std::size_t n = 0; n < source.size(); ++n) {
        if (source[n] != '%') continue;
        if (n + 1 < source.size() && source[n + 1] == '%') {
            ++n;
            continue;
        }
        return true;
    }
    return false;
}

namespace {

/// Natural order: digit runs compare by value, so "heart_2" < "heart_10".
bool naturalLess(const std::string& a, const std::string& b) {
    std::size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        const bool da = std::isdigit(static_cast<unsigned char>(a[i])) != 0;
        const bool db = std::isdigit(static_cast<unsigned char>(b[j])) != 0;
        if (da && db) {
            std::size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
            std::size_t is = i, js = j;
            while (is + 1 < ie && a[is] == '0') ++is;
            while (js + 1 < je && b[js] == '0') ++js;
            if (ie - is != je - js) return ie - is < je - js;
            const int c = a.compare(is, ie - is, b, js, je - js);
            if (c != 0) return c < 0;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
    return a < b;
}

std::vector<fs::path> resolvePattern(const std::string& pattern, const std::vector<std::string>& extensions,
                                     int expectedCount) {
    ParsedPattern parsed;
    try {
        parsed = parsePattern(pattern);
    } catch (const std::invalid_argument& e) {
        throw VolumeError(pattern, e.what());
    }
    const fs::path directory = parsed.directory.empty() ? fs::path(".") : fs::path(parsed.directory);
    std::error_code ec;
    if (!fs::is_directory(directory, ec)) throw VolumeError(directory, "directory of the series does not exist");

    std::map<long, fs::path> frames;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.size() <= parsed.prefix.size() + parsed.suffix.size()) continue;
        if (name.compare(0, parsed.prefix.size(), parsed.prefix) != 0) continue;
        if (name.compare(name.size() - parsed.suffix.size(), parsed.suffix.size(), parsed.suffix) != 0) continue;
        const std::string digits =
            name.substr(parsed.prefix.size(), name.size() - parsed.prefix.size() - parsed.suffix.size());
        if (digits.empty() || digits.size() > 9 ||
            !std::all_of(digits.begin(), digits.end(), [](unsigned char c) { return std::isdigit(c) != 0; }))
            continue;
        const int index = std::stoi(digits);
        if (fs::path(formatSeriesPattern(pattern, index)).filename().string() != name) continue;
        frames.emplace(index, entry.path());
    }
    if (ec) throw VolumeError(directory, "cannot list the directory: " + ec.message());
    if (frames.empty()) throw VolumeError(pattern, "no file matches the series pattern");

    const long first = frames.begin()->first;
    const long last = frames.rbegin()->first;
    const long total = std::max<long>(last - first + 1, expectedCount);
    std::vector<fs::path> out;
    for (long index = first; index <= last; ++index) {
        const auto it = frames.find(index);
        if (it == frames.end())
            throw VolumeError(formatSeriesPattern(pattern, static_cast<int>(index)),
                              "missing frame: phase " + std::to_string(index - first) + " of " +
                                  std::to_string(total) + " (frames " + std::to_string(first) + ".." +
                                  std::to_string(last) + " of the pattern " + pattern + ")");
        out.push_back(it->second);
    }
    if (expectedCount > 0 && static_cast<long>(out.size()) < expectedCount)
        throw VolumeError(formatSeriesPattern(pattern, static_cast<int>(first + static_cast<long>(out.size()))),
                          "missing frame: phase " + std::to_string(out.size()) + " of " +
                              std::to_string(expectedCount) + " (only " + std::to_string(out.size()) +
                              " frames match " + pattern + ")");
    if (expectedCount > 0 && static_cast<long>(out.size()) > expectedCount)
        throw VolumeError(pattern, std::to_string(out.size()) + " frames match, expected " +
                                       std::to_string(expectedCount));
    if (!extensions.empty()) {
        for (const auto& frame : out) {
            if (std::find(extensions.begin(), extensions.end(), lowerExtension(frame)) == extensions.end())
                throw VolumeError(frame, "unknown extension '" + frame.extension().string() +
                                             "' (expected one of " + joined(extensions) + ")");
        }
    }
    return out;
}

} // namespace

std::vector<fs::path> filesInNaturalOrder(const fs::path& directory, const std::vector<std::string>& extensions) {
    std::error_code ec;
    std::map<std::string, std::vector<fs::path>> byExtension;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (name.empty() || name[0] == '.' || !entry.is_regular_file(ec)) continue;
        const std::string ext = lowerExtension(entry.path());
        if (std::find(extensions.begin(), extensions.end(), ext) != extensions.end())
            byExtension[ext].push_back(entry.path());
    }
    if (ec) throw VolumeError(directory, "cannot list the directory: " + ec.message());
    if (byExtension.size() > 1) {
        std::vector<std::string> kinds;
        for (const auto& [ext, files] : byExtension) kinds.push_back(ext + " (" + std::to_string(files.size()) + ")");
        throw VolumeError(directory, "holds frames of several kinds: " + joined(kinds) +
                                         "; keep one kind per series or use a pattern");
    }
    if (byExtension.empty()) return {};
    auto files = std::move(byExtension.begin()->second);
    std::sort(files.begin(), files.end(),
              [](const fs::path& a, const fs::path& b) { return naturalLess(a.filename().string(), b.filename().string()); });
    return files;
}

std::vector<fs::path> subdirectoriesInNaturalOrder(const fs::path& directory) {
    std::error_code ec;
    std::vector<fs::path> dirs;
    for (const auto& entry : fs::directory_iterator(directory, ec)) {
        const std::string name = entry.path().filename().string();
        if (!name.empty() && name[0] != '.' && entry.is_directory(ec)) dirs.push_back(entry.path());
    }
    std::sort(dirs.begin(), dirs.end(),
              [](const fs::path& a, const fs::path& b) { return naturalLess(a.filename().string(), b.filename().string()); });
    return dirs;
}

std::string unreadableFileReason(const fs::path& file, const std::string& kind) {
    std::error_code ec;
    const auto status = fs::status(file, ec);
    if (ec || !fs::exists(status)) return "file does not exist";
    if (fs::is_directory(status)) return "is a directory, expected a " + kind + " file";
    const auto size = fs::file_size(file, ec);
    if (ec) return "cannot read the file size: " + ec.message();
    if (size == 0) return "empty file (0 bytes)";
    std::ifstream probe(file, std::ios::binary);
    if (!probe) return "cannot open the file for reading";
    return {};
}

std::vector<fs::path> resolveSeriesFrames(const std::string& source, const std::vector<std::string>& extensions,
                                          int expectedCount) {
    if (source.empty()) throw VolumeError(source, "no series given (empty pattern or directory)");
    if (isSeriesPattern(source)) return resolvePattern(source, extensions, expectedCount);
    const fs::path directory(source);
    std::error_code ec;
    if (!fs::is_directory(directory, ec))
        throw VolumeError(directory, fs::exists(directory, ec)
                                         ? "is neither a directory nor a pattern with an integer field"
                                         : "does not exist");
    auto frames = filesInNaturalOrder(directory, extensions);
    if (frames.empty()) throw VolumeError(directory, "holds no files with extension " + joined(extensions));
    if (expectedCount > 0 && static_cast<int>(frames.size()) != expectedCount)
        throw VolumeError(directory, std::to_string(frames.size()) + " frames found, expected " +
                                         std::to_string(expectedCount));
    return frames;
}

std::string formatSeriesPattern(const std::string& pattern, int index) {
    const ParsedPattern parsed = parsePattern(pattern);
    char number[64];
    std::snprintf(number, sizeof number, parsed.field.c_str(), index);
    std::string name = parsed.prefix + number + parsed.suffix;
    return parsed.directory.empty() ? name : parsed.directory + "/" + name;
}

} // namespace atrium::heart
