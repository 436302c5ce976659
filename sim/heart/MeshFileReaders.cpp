#include "sim/heart/MeshFileReaders.h"

#include "sim/heart/MeshSeries.h"
#include "sim/heart/MeshFileText.h"
#include "io/MemoryBudget.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <unordered_map>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace {

using meshtext::Cursor;
using meshtext::equalsNoCase;
using meshtext::integerText;
using meshtext::parseNumber;

[[noreturn]] void fail(const fs::path& file, const std::string& why) { throw MeshError(file, why); }

std::string count(std::uint64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

std::string pointText(double x, double y, double z) {
    std::string text(1, '(');
    text.append(meshtext::numberText(x)).append(", ").append(meshtext::numberText(y)).append(", ");
    return text.append(meshtext::numberText(z)).append(1, ')');
}

/// Refuses `n` items of at least `minBytes` each when fewer bytes remain.
void requireRoom(const fs::path& file, const Cursor& c, long double n, long double minBytes, const std::string& what) {
    if (n * minBytes > static_cast<long double>(c.remaining()) + 1.0L)
        fail(file, "truncated or corrupt: the header declares " + what + ", which need at least " +
                       io::formatBytes(double(n * minBytes)) + ", but only " + io::formatBytes(double(c.remaining())) +
                       " of data follow");
}

/// Every index of `cells` below the point count; `what` names the cells ("face").
void checkIndices(const fs::path& file, const CellList& cells, std::size_t points, const std::string& what) {
    for (std::size_t k = 0; k < cells.size(); ++k)
        for (std::uint32_t i = cells.offsets[k]; i < cells.offsets[k + 1]; ++i)
            if (cells.indices[i] >= points)
                fail(file, what + " " + std::to_string(k) + " uses point " + std::to_string(cells.indices[i]) +
                               ", but the file has " + count(points, "point", "points"));
}

sph::Vec3 finitePoint(const fs::path& file, double x, double y, double z, const std::string& what) {
    const auto fits = [](double v) { return std::isfinite(v) && std::fabs(v) <= double(std::numeric_limits<float>::max()); };
    if (!fits(x) || !fits(y) || !fits(z)) fail(file, what + " is not finite: " + pointText(x, y, z));
    return {float(x), float(y), float(z)};
}

/// A point index from a parsed number: integral, in [0, 2^32 - 1).
std::uint32_t pointIndex(const fs::path& file, double v, const std::string& what) {
    if (!(v >= 0.0) || v != std::floor(v) || v >= double(std::numeric_limits<std::uint32_t>::max()))
        fail(file, what + " has the point index " + meshtext::numberText(v) + " (indices count from 0)");
    return std::uint32_t(v);
}

// ---------------------------------------------------------------------------------------
// PLY

struct PlyProperty {
    std::string name;
    meshtext::Type type = meshtext::Type::None;
    meshtext::Type countType = meshtext::Type::None; ///< a list when not None
};

struct PlyElement {
    std::string name;
    std::uint64_t count = 0;
    std::vector<PlyProperty> properties;
};

meshtext::Type plyType(std::string_view name) {
    using meshtext::Type;
    if (name == "char" || name == "int8") return Type::I8;
    if (name == "uchar" || name == "uint8") return Type::U8;
    if (name == "short" || name == "int16") return Type::I16;
    if (name == "ushort" || name == "uint16") return Type::U16;
    if (name == "int" || name == "int32") return Type::I32;
    if (name == "uint" || name == "uint32") return Type::U32;
    if (name == "float" || name == "float32") return Type::F32;
    if (name == "double" || name == "float64") return Type::F64;
    return Type::None;
}

MeshFileData parsePly(std::string_view bytes, const fs::path& file) {
    Cursor c(bytes);
    if (c.line() != "ply") fail(file, "not a PLY file: it does not start with the line \"ply\"");
    meshtext::Encoding encoding = meshtext::Encoding::Ascii;
    bool haveFormat = false, ended = false;
    std::vector<PlyElement> elements;
    for (int lineNo = 2; !c.atEnd(); ++lineNo) {
        const std::string_view line = c.line();
        const std::vector<std::string_view> words = meshtext::split(line);
        const std::string where = "PLY header line " + std::to_string(lineNo);
        if (words.empty() || words[0] == "comment" || words[0] == "obj_info") continue;
        if (words[0] == "end_header") {
            ended = true;
            break;
        }
        if (words[0] == "format") {
            if (words.size() < 2) fail(file, where + ": format without a name");
            if (words[1] == "ascii") encoding = meshtext::Encoding::Ascii;
            else if (words[1] == "binary_little_endian") encoding = meshtext::Encoding::LittleEndian;
            else if (words[1] == "binary_big_endian") encoding = meshtext::Encoding::BigEndian;
            else fail(file, where + ": unknown format '" + std::string(words[1]) + "'");
            haveFormat = true;
        } else if (words[0] == "element") {
            if (words.size() != 3) fail(file, where + ": expected \"element NAME COUNT\"");
            PlyElement e;
            e.name = std::string(words[1]);
            if (!meshtext::parseCount(words[2], e.count))
                fail(file, where + ": the count of element " + e.name + " is not a count: '" + std::string(words[2]) + "'");
            elements.push_back(std::move(e));
        } else if (words[0] == "property") {
            if (elements.empty()) fail(file, where + ": a property before any element");
            PlyProperty p;
            if (words.size() == 5 && words[1] == "list") {
                p.countType = plyType(words[2]);
                p.type = plyType(words[3]);
                p.name = std::string(words[4]);
                if (p.countType == meshtext::Type::None || p.type == meshtext::Type::None ||
                    meshtext::isFloat(p.countType))
                    fail(file, where + ": unsupported list types '" + std::string(words[2]) + " " +
                                   std::string(words[3]) + "'");
            } else if (words.size() == 3) {
                p.type = plyType(words[1]);
                p.name = std::string(words[2]);
                if (p.type == meshtext::Type::None) fail(file, where + ": unknown type '" + std::string(words[1]) + "'");
            } else {
                fail(file, where + ": expected \"property TYPE NAME\" or \"property list COUNT_TYPE TYPE NAME\"");
            }
            elements.back().properties.push_back(std::move(p));
        } else {
            fail(file, where + ": unknown keyword '" + std::string(words[0]) + "'");
        }
    }
    if (!haveFormat) fail(file, "not a PLY file: no \"format\" line in the header");
    if (!ended) fail(file, "truncated PLY header: no \"end_header\"");

    // Declared sizes against the bytes that follow, before anything is allocated.
    long double minimum = 0.0L;
    std::string declared;
    for (const PlyElement& e : elements) {
        long double row = 0.0L;
        for (const PlyProperty& p : e.properties)
            row += encoding == meshtext::Encoding::Ascii ? 2.0L
                                                         : static_cast<long double>(meshtext::typeSize(
                                                               p.countType != meshtext::Type::None ? p.countType : p.type));
        minimum += row * static_cast<long double>(e.count);
        declared += (declared.empty() ? "" : ", ") + std::to_string(e.count) + " '" + e.name + "'";
    }
    requireRoom(file, c, minimum, 1.0L, declared);

    MeshFileData data;
    const PlyElement* vertexElement = nullptr;
    for (const PlyElement& e : elements)
        if (e.name == "vertex") vertexElement = &e;
    if (vertexElement == nullptr) fail(file, "the PLY header declares no \"vertex\" element");
    if (vertexElement->count >= std::numeric_limits<std::uint32_t>::max())
        fail(file, "declares " + std::to_string(vertexElement->count) + " vertices, more than 32-bit indices hold");
    const double points = double(vertexElement->count);
    if (!io::fitsMemoryBudget(points * 64.0))
        fail(file, "declares " + std::to_string(vertexElement->count) + " vertices and " +
                       io::overBudgetText(points * 64.0));

    meshtext::ValueReader read(c, encoding);
    std::vector<std::uint32_t> face;
    for (const PlyElement& e : elements) {
        const bool isVertex = &e == vertexElement;
        const bool isFace = e.name == "face";
        int x = -1, y = -1, z = -1, indices = -1;
        for (std::size_t k = 0; k < e.properties.size(); ++k) {
            const PlyProperty& p = e.properties[k];
            const bool list = p.countType != meshtext::Type::None;
            if (isVertex && !list && p.name == "x") x = int(k);
            if (isVertex && !list && p.name == "y") y = int(k);
            if (isVertex && !list && p.name == "z") z = int(k);
            if (isFace && list && (p.name == "vertex_indices" || p.name == "vertex_index")) indices = int(k);
        }
        if (isVertex && (x < 0 || y < 0 || z < 0)) fail(file, "the PLY vertex element lacks an x, y or z property");
        if (isFace && indices < 0 && e.count > 0) fail(file, "the PLY face element has no vertex_indices list");
        if (isVertex) data.points.reserve(std::size_t(e.count));
        for (std::uint64_t row = 0; row < e.count; ++row) {
            const auto where = [&] { return e.name + " " + std::to_string(row) + " of " + std::to_string(e.count); };
            double xyz[3] = {0.0, 0.0, 0.0};
            face.clear();
            for (std::size_t k = 0; k < e.properties.size(); ++k) {
                const PlyProperty& p = e.properties[k];
                double v = 0.0;
                if (p.countType == meshtext::Type::None) {
                    if (!read.value(p.type, v)) fail(file, "truncated or corrupt: the data end in " + where() + " (" + declared + " declared)");
                    if (int(k) == x) xyz[0] = v;
                    if (int(k) == y) xyz[1] = v;
                    if (int(k) == z) xyz[2] = v;
                    continue;
                }
                double n = 0.0;
                if (!read.value(p.countType, n) || !(n >= 0.0) || n != std::floor(n))
                    fail(file, "truncated or corrupt: no valid list length in " + where() + " (" + declared + " declared)");
                requireRoom(file, c, n, encoding == meshtext::Encoding::Ascii ? 2.0L : static_cast<long double>(meshtext::typeSize(p.type)),
                            "a list of " + meshtext::numberText(n) + " values in " + where());
                for (double i = 0; i < n; ++i) {
                    if (!read.value(p.type, v)) fail(file, "truncated or corrupt: the data end in " + where());
                    if (int(k) == indices) face.push_back(pointIndex(file, v, where()));
                }
            }
            if (isVertex) data.points.push_back(finitePoint(file, xyz[0], xyz[1], xyz[2], "vertex " + std::to_string(row)));
            if (isFace) {
                if (face.size() >= 3) data.polygons.add(face.data(), face.size());
                else ++data.droppedCells;
            }
        }
    }
    checkIndices(file, data.polygons, data.points.size(), "face");
    return data;
}

// ---------------------------------------------------------------------------------------
// OBJ

MeshFileData parseObj(std::string_view bytes, const fs::path& file) {
    Cursor c(bytes);
    MeshFileData data;
    std::vector<std::uint32_t> face;
    std::vector<std::uint32_t> faceLines; // for the message when an index points past the end
    for (std::size_t lineNo = 1; !c.atEnd(); ++lineNo) {
        const std::vector<std::string_view> words = meshtext::split(c.line());
        if (words.empty()) continue;
        const std::string where = "line " + std::to_string(lineNo);
        if (words[0] == "v") {
            if (words.size() < 4) fail(file, where + ": a vertex needs x, y and z");
            double v[3];
            for (int a = 0; a < 3; ++a)
                if (!parseNumber(words[std::size_t(a) + 1], v[a]))
                    fail(file, where + ": '" + std::string(words[std::size_t(a) + 1]) + "' is not a number");
            data.points.push_back(finitePoint(file, v[0], v[1], v[2], where + ": vertex " + std::to_string(data.points.size() + 1)));
        } else if (words[0] == "f") {
            face.clear();
            for (std::size_t k = 1; k < words.size(); ++k) {
                const std::string_view ref = words[k].substr(0, words[k].find('/'));
                long long index = 0;
                if (!integerText(ref, index))
                    fail(file, where + ": '" + std::string(words[k]) + "' is not a vertex reference");
                if (index == 0) fail(file, where + ": vertex reference 0 (OBJ counts vertices from 1)");
                const long long resolved = index < 0 ? (long long)data.points.size() + index : index - 1;
                if (resolved < 0 || resolved >= (long long)std::numeric_limits<std::uint32_t>::max())
                    fail(file, where + ": vertex reference " + std::to_string(index) + " lies before the first vertex");
                face.push_back(std::uint32_t(resolved));
            }
            if (face.size() >= 3) {
                data.polygons.add(face.data(), face.size());
                faceLines.push_back(std::uint32_t(std::min<std::size_t>(lineNo, std::numeric_limits<std::uint32_t>::max())));
            } else {
                ++data.droppedCells;
            }
        } else if (words[0] == "l" || words[0] == "p") {
            ++data.droppedCells;
        }
    }
    for (std::size_t k = 0; k < data.polygons.size(); ++k)
        for (std::uint32_t i = data.polygons.offsets[k]; i < data.polygons.offsets[k + 1]; ++i)
            if (data.polygons.indices[i] >= data.points.size())
                fail(file, "line " + std::to_string(faceLines[k]) + ": face " + std::to_string(k + 1) + " uses vertex " +
                               std::to_string(data.polygons.indices[i] + 1) + ", but the file has " +
                               count(data.points.size(), "vertex", "vertices"));
    return data;
}

// ---------------------------------------------------------------------------------------
// STL

/// Identical corners become one point, in the order first seen (-0 and 0 are the same).
class PointMerger {
public:
    explicit PointMerger(MeshFileData& data) : data_(data) {}
    std::uint32_t add(sph::Vec3 p) {
        std::array<std::uint32_t, 3> key{};
        for (int a = 0; a < 3; ++a) {
            const float v = p[a] == 0.f ? 0.f : p[a];
            std::memcpy(&key[std::size_t(a)], &v, sizeof v);
        }
        const auto [it, inserted] = index_.try_emplace(key, std::uint32_t(data_.points.size()));
        if (inserted) data_.points.push_back(p);
        return it->second;
    }

private:
    struct Hash {
        std::size_t operator()(const std::array<std::uint32_t, 3>& k) const {
            return std::size_t(k[0]) * 73856093u ^ std::size_t(k[1]) * 19349663u ^ std::size_t(k[2]) * 83492791u;
        }
    };
    MeshFileData& data_;
    std::unordered_map<std::array<std::uint32_t, 3>, std::uint32_t, Hash> index_;
};

MeshFileData parseBinaryStl(std::string_view bytes, const fs::path& file, std::uint64_t triangles) {
    if (!io::fitsMemoryBudget(double(triangles) * 96.0))
        fail(file, "declares " + std::to_string(triangles) + " triangles and " + io::overBudgetText(double(triangles) * 96.0));
    MeshFileData data;
    PointMerger merge(data);
    data.polygons.indices.reserve(std::size_t(3 * triangles));
    data.polygons.offsets.reserve(std::size_t(triangles + 1));
    for (std::uint64_t t = 0; t < triangles; ++t) {
        const char* record = bytes.data() + 84 + 50 * t;
        std::uint32_t ids[3];
        for (int k = 0; k < 3; ++k) {
            float v[3];
            std::memcpy(v, record + 12 + 12 * k, sizeof v); // little-endian floats
            if constexpr (std::endian::native == std::endian::big)
                for (float& f : v) f = meshtext::byteSwapped(f);
            ids[k] = merge.add(finitePoint(file, v[0], v[1], v[2], "triangle " + std::to_string(t) + ", corner " + std::to_string(k)));
        }
        data.polygons.add(ids, 3);
    }
    return data;
}

MeshFileData parseAsciiStl(std::string_view bytes, const fs::path& file) {
    Cursor c(bytes);
    MeshFileData data;
    PointMerger merge(data);
    const auto expect = [&](const char* word, const std::string& where) {
        const std::string_view t = c.token();
        if (!equalsNoCase(t, word))
            fail(file, t.empty() ? "truncated: the data end in " + where
                                 : where + ": expected '" + word + "', found '" + std::string(t.substr(0, 40)) + "'");
    };
    if (!equalsNoCase(c.token(), "solid")) fail(file, "not an STL file: neither ASCII (\"solid\") nor binary");
    c.line(); // the solid's name
    std::vector<std::uint32_t> loop;
    for (std::size_t facet = 0;;) {
        const std::string_view t = c.token();
        if (t.empty()) break;
        if (equalsNoCase(t, "endsolid") || equalsNoCase(t, "solid")) {
            c.line();
            continue;
        }
        const std::string where = "facet " + std::to_string(facet);
        if (!equalsNoCase(t, "facet")) fail(file, where + ": expected 'facet', found '" + std::string(t.substr(0, 40)) + "'");
        expect("normal", where);
        for (int a = 0; a < 3; ++a) {
            double n = 0.0;
            if (!parseNumber(c.token(), n)) fail(file, where + ": the normal is not three numbers");
        }
        expect("outer", where);
        expect("loop", where);
        loop.clear();
        for (;;) {
            const std::string_view w = c.token();
            if (equalsNoCase(w, "endloop")) break;
            if (!equalsNoCase(w, "vertex"))
                fail(file, w.empty() ? "truncated: the data end in " + where
                                     : where + ": expected 'vertex' or 'endloop', found '" + std::string(w.substr(0, 40)) + "'");
            double v[3];
            for (double& x : v)
                if (!parseNumber(c.token(), x)) fail(file, where + ": a vertex is not three numbers");
            loop.push_back(merge.add(finitePoint(file, v[0], v[1], v[2], where + ", vertex " + std::to_string(loop.size()))));
        }
        expect("endfacet", where);
        if (loop.size() >= 3) data.polygons.add(loop.data(), loop.size());
        else ++data.droppedCells;
        ++facet;
    }
    return data;
}

MeshFileData parseStl(std::string_view bytes, const fs::path& file) {
    if (bytes.size() >= 84) {
        std::uint32_t n = 0;
        std::memcpy(&n, bytes.data() + 80, sizeof n);
        if constexpr (std::endian::native == std::endian::big) n = meshtext::byteSwapped(n);
        if (84 + 50 * std::uint64_t(n) == bytes.size()) return parseBinaryStl(bytes, file, n);
    }
    std::size_t start = 0;
    while (start < bytes.size() && std::isspace(static_cast<unsigned char>(bytes[start]))) ++start;
    if (bytes.size() - start >= 5 && equalsNoCase(bytes.substr(start, 5), "solid")) return parseAsciiStl(bytes, file);
    std::string why = "not an STL file: it does not start with \"solid\" (ASCII STL) and is not 84 + 50 x N bytes long "
                      "(binary STL)";
    if (bytes.size() >= 84) {
        std::uint32_t n = 0;
        std::memcpy(&n, bytes.data() + 80, sizeof n);
        why += ": its header declares " + std::to_string(n) + " triangles, " + std::to_string(84 + 50 * std::uint64_t(n)) +
               " bytes, and the file has " + std::to_string(bytes.size()) + " (truncated?)";
    }
    fail(file, why);
}

/// Points per cell of VTK's linear cell types 1..14; 0: any number (at least `minimum`).
struct CellShape {
    int points;
    int minimum;
    int dimension;
};
bool cellShape(int type, CellShape& shape) {
    static constexpr CellShape shapes[15] = {
        {0, 0, -1}, {1, 1, 0}, {0, 1, 0}, {2, 2, 1}, {0, 2, 1}, {3, 3, 2}, {0, 3, 2}, {0, 3, 2},
        {4, 4, 2},  {4, 4, 2}, {4, 4, 3}, {8, 8, 3}, {8, 8, 3}, {6, 6, 3}, {5, 5, 3}};
    if (type < 1 || type > 14) return false;
    shape = shapes[type];
    return true;
}

} // namespace

void validateMeshFileData(MeshFileData& data, const fs::path& file) {
    for (std::size_t i = 0; i < data.points.size(); ++i) {
        const sph::Vec3 p = data.points[i];
        finitePoint(file, p.x, p.y, p.z, "point " + std::to_string(i));
    }
    checkIndices(file, data.polygons, data.points.size(), "polygon");
    checkIndices(file, data.strips, data.points.size(), "triangle strip");
    checkIndices(file, data.volumeCells, data.points.size(), "cell");
    if (!data.unstructuredGrid) return;
    if (data.cellTypes.size() != data.volumeCells.size())
        fail(file, std::to_string(data.cellTypes.size()) + " cell types for " + std::to_string(data.volumeCells.size()) + " cells");
    for (std::size_t k = 0; k < data.cellTypes.size(); ++k) {
        CellShape shape{};
        const int type = data.cellTypes[k];
        const auto n = int(data.volumeCells.offsets[k + 1] - data.volumeCells.offsets[k]);
        if (!cellShape(type, shape))
            fail(file, "cell " + std::to_string(k) + " has the cell type " + std::to_string(type) +
                           " (only VTK's linear cells, types 1 to 14, are read)");
        if ((shape.points > 0 && n != shape.points) || n < shape.minimum)
            fail(file, "cell " + std::to_string(k) + " of type " + std::to_string(type) + " has " + std::to_string(n) +
                           " points, expected " + std::to_string(shape.points > 0 ? shape.points : shape.minimum) +
                           (shape.points > 0 ? "" : " or more"));
        if (shape.dimension < 2) ++data.droppedCells;
    }
}

MeshFileData parseLegacyVtk(std::string_view bytes, const fs::path& file); // LegacyVtkReader.cpp

MeshFileData parseMeshFileData(std::string_view bytes, const fs::path& file) {
    switch (meshFormatFor(file)) {
    case MeshFormat::Ply: return parsePly(bytes, file);
    case MeshFormat::Obj: return parseObj(bytes, file);
    case MeshFormat::Stl: return parseStl(bytes, file);
    case MeshFormat::VtkLegacy: return parseLegacyVtk(bytes, file);
    case MeshFormat::Vtp:
    case MeshFormat::Vtu: break;
    }
    fail(file, "VTK XML files are read by VTK (checkVtkXmlFile first)");
}

MeshFileData readMeshFileData(const fs::path& file) {
    std::error_code ec;
    const std::uintmax_t size = fs::file_size(file, ec);
    if (ec) fail(file, "cannot read the file size: " + ec.message());
    // The bytes, and what is built from them (points and cells: at most a few times more).
    if (!io::fitsMemoryBudget(4.0 * double(size)))
        fail(file, "is " + io::formatBytes(double(size)) + " long and reading it " + io::overBudgetText(4.0 * double(size)));
    std::string bytes(std::size_t(size), '\0');
    std::ifstream in(file, std::ios::binary);
    if (!in) fail(file, "cannot open the file for reading");
    in.read(bytes.data(), std::streamsize(size));
    if (std::size_t(in.gcount()) != size) fail(file, "cannot read the whole file (it changed while being read?)");
    return parseMeshFileData(bytes, file);
}

} // namespace atrium::heart
