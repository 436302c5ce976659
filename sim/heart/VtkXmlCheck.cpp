// checkVtkXmlFile (MeshFileReaders.h): what a VTK XML file declares, checked against its
// size and the memory budget before VTK allocates for it.

#include "sim/heart/MeshFileReaders.h"

#include "sim/heart/MeshFileText.h"
#include "io/MemoryBudget.h"

#include <algorithm>
#include <fstream>
#include <optional>
#include <stdexcept>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace {

/// The value of attribute `name` in the tag text, or nullopt.
std::optional<std::string> attributeOf(std::string_view tag, std::string_view name) {
    for (std::size_t at = tag.find(name); at != std::string_view::npos; at = tag.find(name, at + 1)) {
        if (at > 0 && !meshtext::isSpace(tag[at - 1])) continue;
        std::size_t i = at + name.size();
        while (i < tag.size() && meshtext::isSpace(tag[i])) ++i;
        if (i >= tag.size() || tag[i] != '=') continue;
        ++i;
        while (i < tag.size() && meshtext::isSpace(tag[i])) ++i;
        if (i >= tag.size() || (tag[i] != '"' && tag[i] != '\'')) continue;
        const char quote = tag[i];
        const std::size_t end = tag.find(quote, i + 1);
        if (end == std::string_view::npos) return std::nullopt;
        return std::string(tag.substr(i + 1, end - i - 1));
    }
    return std::nullopt;
}

std::uint64_t countAttribute(std::string_view tag, std::string_view name) {
    const auto text = attributeOf(tag, name);
    if (!text) return 0;
    std::uint64_t n = 0;
    if (!meshtext::parseCount(*text, n))
        throw std::runtime_error("Piece " + std::string(name) + "=\"" + text->substr(0, 40) + "\" is not a count");
    return n;
}

/// Voxels of an extent "x0 x1 y0 y1 z0 z1".
long double extentVoxels(const std::string& text, const char* what) {
    const std::vector<std::string_view> words = meshtext::split(text);
    long long v[6];
    bool ok = words.size() == 6;
    for (std::size_t i = 0; ok && i < 6; ++i) ok = meshtext::integerText(words[i], v[i]);
    if (!ok) throw std::runtime_error(std::string(what) + "=\"" + text.substr(0, 60) + "\" is not six integers");
    long double voxels = 1.0L;
    for (int a = 0; a < 3; ++a) {
        if (v[2 * a + 1] < v[2 * a])
            throw std::runtime_error(std::string(what) + "=\"" + text + "\" is empty along " + "xyz"[a]);
        voxels *= static_cast<long double>(v[2 * a + 1]) - static_cast<long double>(v[2 * a]) + 1.0L;
    }
    return voxels;
}

/// The best ratio of a compressor: a file cannot hold more than this many bytes per stored byte.
long double compressionRatio(const std::string& compressor) {
    if (compressor.empty()) return 1.0L;
    if (compressor.find("LZ4") != std::string::npos) return 256.0L;
    if (compressor.find("ZLib") != std::string::npos) return 1100.0L;
    return 8000.0L; // LZMA and anything else
}

} // namespace

VtkXmlDeclaration checkVtkXmlFile(const fs::path& file, const std::string& expectedType) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec) throw std::runtime_error("cannot read the file size: " + ec.message());
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open the file for reading");

    // The markup before <AppendedData> (or the whole file), read in blocks; tags are
    // found across block boundaries by keeping an unfinished tag for the next block.
    VtkXmlDeclaration d;
    bool sawRoot = false;
    long double voxels = -1.0L;
    std::string text;
    std::vector<char> block(1 << 20);
    bool done = false;
    while (!done) {
        in.read(block.data(), std::streamsize(block.size()));
        const std::size_t got = std::size_t(in.gcount());
        if (got == 0) break;
        text.append(block.data(), got);
        std::size_t pos = 0;
        for (;;) {
            const std::size_t open = text.find('<', pos);
            if (open == std::string::npos) {
                pos = text.size();
                break;
            }
            const std::size_t close = text.find('>', open);
            if (close == std::string::npos) {
                pos = open;
                if (text.size() - open > (1 << 16)) throw std::runtime_error("a tag longer than 64 KiB: not VTK XML");
                break;
            }
            const std::string_view tag(text.data() + open + 1, close - open - 1);
            pos = close + 1;
            const auto named = [&](std::string_view name) {
                return tag.substr(0, name.size()) == name &&
                       (tag.size() == name.size() || meshtext::isSpace(tag[name.size()]) || tag[name.size()] == '/');
            };
            if (named("VTKFile")) {
                sawRoot = true;
                d.type = attributeOf(tag, "type").value_or("");
                d.compressor = attributeOf(tag, "compressor").value_or("");
                if (d.type != expectedType)
                    throw std::runtime_error("a VTK XML " + (d.type.empty() ? std::string("file of no type") : d.type + " file") +
                                             ", expected " + expectedType);
            } else if (!sawRoot && tag.size() > 0 && tag[0] != '?' && tag[0] != '!') {
                throw std::runtime_error("not a VTK XML file: the first element is not <VTKFile>");
            } else if (named("ImageData")) {
                if (const auto whole = attributeOf(tag, "WholeExtent")) voxels = extentVoxels(*whole, "WholeExtent");
            } else if (named("Piece")) {
                if (expectedType == "ImageData") {
                    if (const auto extent = attributeOf(tag, "Extent"); extent && voxels < 0.0L) voxels = extentVoxels(*extent, "Extent");
                } else {
                    d.points += countAttribute(tag, "NumberOfPoints");
                    for (const char* cells : {"NumberOfCells", "NumberOfVerts", "NumberOfLines", "NumberOfStrips", "NumberOfPolys"})
                        d.cells += countAttribute(tag, cells);
                    if (d.points > (std::uint64_t(1) << 40) || d.cells > (std::uint64_t(1) << 40))
                        throw std::runtime_error("declares " + std::to_string(d.points) + " points and " +
                                                 std::to_string(d.cells) + " cells");
                }
            } else if (named("AppendedData")) {
                done = true;
                break;
            }
        }
        text.erase(0, pos);
    }
    if (!sawRoot) throw std::runtime_error("not a VTK XML file: no <VTKFile> element");
    if (voxels > 0.0L) d.points = voxels > 1e18L ? std::uint64_t(1e18) : std::uint64_t(voxels);

    // What VTK would allocate, and the least the file must hold for it.
    const long double values = expectedType == "ImageData" ? static_cast<long double>(d.points)
                                                           : 3.0L * d.points + static_cast<long double>(d.cells);
    const long double bytes = expectedType == "ImageData" ? 12.0L * static_cast<long double>(d.points)
                                                          : 60.0L * d.points + 64.0L * static_cast<long double>(d.cells);
    const std::string declared = expectedType == "ImageData"
                                     ? std::to_string(d.points) + " voxels"
                                     : std::to_string(d.points) + " points and " + std::to_string(d.cells) + " cells";
    const long double ratio = compressionRatio(d.compressor);
    if (values > static_cast<long double>(size) * ratio)
        throw std::runtime_error("truncated or corrupt: it declares " + declared + ", more than its " +
                                 io::formatBytes(double(size)) + " can hold" +
                                 (d.compressor.empty() ? std::string() : " even compressed (" + d.compressor + ")"));
    if (!io::fitsMemoryBudget(double(bytes))) throw std::runtime_error("declares " + declared + " and " + io::overBudgetText(double(bytes)));
    return d;
}

} // namespace atrium::heart
