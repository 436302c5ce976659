// Atrium's reader of VTK legacy files (.vtk), POLYDATA and UNSTRUCTURED_GRID, ASCII and
// BINARY, versions 2.0 to 5.1. See MeshFileReaders.h. The layout follows VTK's "File
// Formats" (VTK User's Guide, ch. 19) and vtkDataReader/vtkDataWriter for 5.x.

#include "sim/heart/MeshFileReaders.h"

#include "sim/heart/MeshFileText.h"
#include "sim/heart/HeartFileError.h"
#include "io/MemoryBudget.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace atrium::heart {

namespace fs = std::filesystem;
using meshtext::Type;

namespace {

std::string upper(std::string_view s) {
    std::string out(s);
    std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return out;
}

Type legacyType(std::string_view name) {
    const std::string t = upper(name);
    if (t == "UNSIGNED_CHAR" || t == "VTKTYPEUINT8") return Type::U8;
    if (t == "CHAR" || t == "VTKTYPEINT8" || t == "SIGNED_CHAR") return Type::I8;
    if (t == "UNSIGNED_SHORT" || t == "VTKTYPEUINT16") return Type::U16;
    if (t == "SHORT" || t == "VTKTYPEINT16") return Type::I16;
    if (t == "UNSIGNED_INT" || t == "VTKTYPEUINT32") return Type::U32;
    if (t == "INT" || t == "VTKTYPEINT32") return Type::I32;
    if (t == "UNSIGNED_LONG" || t == "VTKTYPEUINT64" || t == "UNSIGNED_LONG_LONG") return Type::U64;
    if (t == "LONG" || t == "VTKTYPEINT64" || t == "VTKIDTYPE" || t == "LONG_LONG") return Type::I64;
    if (t == "FLOAT" || t == "VTKTYPEFLOAT32") return Type::F32;
    if (t == "DOUBLE" || t == "VTKTYPEFLOAT64") return Type::F64;
    return Type::None;
}

class LegacyReader {
public:
    LegacyReader(std::string_view bytes, const fs::path& file) : c_(bytes), file_(file), read_(c_, encoding_) {}

    MeshFileData read() {
        header();
        bool havePoints = false, haveCellTypes = false;
        std::uint64_t attributeCount = 0;
        std::string attributeOwner;
        for (;;) {
            const std::string_view word = c_.token();
            if (word.empty()) break;
            const std::string key = upper(word);
            if (key == "POINTS") {
                if (havePoints) fail("a second POINTS section");
                points();
                havePoints = true;
            } else if (key == "VERTICES" || key == "LINES" || key == "POLYGONS" || key == "TRIANGLE_STRIPS" ||
                       key == "CELLS") {
                if ((key == "CELLS") != data_.unstructuredGrid)
                    fail(key + " does not belong in a " + (data_.unstructuredGrid ? "UNSTRUCTURED_GRID" : "POLYDATA") + " file");
                CellList cells = cellSection(key);
                if (key == "POLYGONS") append(data_.polygons, cells, 3, key);
                else if (key == "TRIANGLE_STRIPS") append(data_.strips, cells, 3, key);
                else if (key == "CELLS") data_.volumeCells = std::move(cells);
                else data_.droppedCells += cells.size();
            } else if (key == "CELL_TYPES") {
                if (!data_.unstructuredGrid) fail("CELL_TYPES does not belong in a POLYDATA file");
                cellTypes();
                haveCellTypes = true;
            } else if (key == "POINT_DATA" || key == "CELL_DATA") {
                attributeCount = count(key);
                attributeOwner = key;
                c_.endLine();
            } else if (key == "FIELD") {
                field();
            } else if (key == "METADATA") {
                metadata();
            } else if (key == "SCALARS" || key == "LOOKUP_TABLE" || key == "COLOR_SCALARS" || key == "VECTORS" ||
                       key == "NORMALS" || key == "TEXTURE_COORDINATES" || key == "TENSORS" || key == "TENSORS6" ||
                       key == "GLOBAL_IDS" || key == "PEDIGREE_IDS") {
                if (attributeOwner.empty()) fail(key + " before POINT_DATA or CELL_DATA");
                attribute(key, attributeCount);
            } else {
                fail("unknown section '" + std::string(word.substr(0, 40)) + "'" + where());
            }
        }
        if (!havePoints) fail("no POINTS section: the file holds no points");
        if (data_.unstructuredGrid && data_.volumeCells.size() > 0 && !haveCellTypes) fail("CELLS without CELL_TYPES");
        validateMeshFileData(data_, file_);
        return std::move(data_);
    }

private:
    [[noreturn]] void fail(const std::string& why) const { throw MeshError(file_, why); }

    std::string where() const { return " at byte " + std::to_string(c_.position()); }

    void header() {
        const std::string_view first = c_.line();
        constexpr std::string_view magic = "# vtk DataFile Version";
        if (first.substr(0, magic.size()) != magic) fail("not a VTK legacy file: no \"# vtk DataFile Version\" line");
        const std::vector<std::string_view> words = meshtext::split(first.substr(magic.size()));
        double version = 0.0;
        if (words.empty() || !meshtext::parseNumber(words[0], version))
            fail("the first line names no version: '" + std::string(first.substr(0, 60)) + "'");
        newCells_ = version >= 5.0;
        c_.line(); // the title
        const std::string mode = upper(c_.token());
        if (mode == "BINARY") encoding_ = meshtext::Encoding::BigEndian;
        else if (mode != "ASCII") fail("the third line must say ASCII or BINARY, found '" + mode.substr(0, 40) + "'");
        read_.setEncoding(encoding_);
        if (upper(c_.token()) != "DATASET") fail("no DATASET line: not a dataset file");
        const std::string type = upper(c_.token());
        if (type == "UNSTRUCTURED_GRID") data_.unstructuredGrid = true;
        else if (type != "POLYDATA")
            fail("a DATASET " + type.substr(0, 40) + " holds no surface mesh (POLYDATA or UNSTRUCTURED_GRID expected)");
        c_.endLine();
    }

    std::uint64_t count(const std::string& what) {
        const std::string_view t = c_.token();
        std::uint64_t n = 0;
        if (!meshtext::parseCount(t, n)) fail(what + ": '" + std::string(t.substr(0, 40)) + "' is not a count");
        return n;
    }

    Type type(const std::string& what) {
        const std::string_view t = c_.token();
        const Type ty = legacyType(t);
        if (ty == Type::None) fail(what + ": unsupported data type '" + std::string(t.substr(0, 40)) + "'");
        return ty;
    }

    /// Before reading `n` values: they must fit the bytes left (ASCII: 2 bytes at least each).
    void requireRoom(long double n, Type ty, const std::string& what) {
        const long double each = encoding_ == meshtext::Encoding::Ascii ? 2.0L : static_cast<long double>(meshtext::typeSize(ty));
        if (n * each > static_cast<long double>(c_.remaining()) + 1.0L)
            fail("truncated or corrupt: " + what + " declares " + meshtext::numberText(double(n)) + " values, which need at least " +
                 io::formatBytes(double(n * each)) + ", but only " + io::formatBytes(double(c_.remaining())) + " follow");
    }

    double value(Type ty, const std::string& what, std::uint64_t index) {
        double v = 0.0;
        if (!read_.value(ty, v))
            fail((c_.atEnd() ? "truncated: the data end in " : "not a number in ") + what + " (value " + std::to_string(index) + ")");
        return v;
    }

    void skipValues(std::uint64_t n, Type ty, const std::string& what) {
        requireRoom(static_cast<long double>(n), ty, what);
        if (encoding_ != meshtext::Encoding::Ascii) {
            c_.take(std::size_t(n) * meshtext::typeSize(ty));
            return;
        }
        for (std::uint64_t i = 0; i < n; ++i) value(meshtext::isFloat(ty) ? Type::F64 : ty, what, i);
    }

    void points() {
        const std::uint64_t n = count("POINTS");
        const Type ty = type("POINTS");
        c_.endLine();
        if (n >= std::numeric_limits<std::uint32_t>::max()) fail("POINTS declares " + std::to_string(n) + " points, more than 32-bit indices hold");
        requireRoom(3.0L * static_cast<long double>(n), ty, "POINTS");
        if (!io::fitsMemoryBudget(64.0 * double(n)))
            fail("POINTS declares " + std::to_string(n) + " points and " + io::overBudgetText(64.0 * double(n)));
        data_.points.reserve(std::size_t(n));
        for (std::uint64_t i = 0; i < n; ++i) {
            double p[3];
            for (double& x : p) x = value(ty, "POINTS", i);
            if (!std::isfinite(p[0]) || !std::isfinite(p[1]) || !std::isfinite(p[2]) ||
                std::max({std::fabs(p[0]), std::fabs(p[1]), std::fabs(p[2])}) > double(std::numeric_limits<float>::max()))
                fail("point " + std::to_string(i) + " is not finite: (" + meshtext::numberText(p[0]) + ", " +
                     meshtext::numberText(p[1]) + ", " + meshtext::numberText(p[2]) + ")");
            data_.points.push_back({float(p[0]), float(p[1]), float(p[2])});
        }
        metadataIfPresent();
    }

    std::uint32_t index(double v, const std::string& what, std::uint64_t k) {
        if (!(v >= 0.0) || v >= double(std::numeric_limits<std::uint32_t>::max()))
            fail(what + " value " + std::to_string(k) + " is the point index " + meshtext::numberText(v) + " (indices count from 0)");
        return std::uint32_t(v);
    }

    /// VERTICES/LINES/POLYGONS/TRIANGLE_STRIPS/CELLS, in the layout of the file's version.
    CellList cellSection(const std::string& key) {
        const std::uint64_t a = count(key), b = count(key);
        c_.endLine();
        CellList cells;
        if (!newCells_) {
            // n cells, then `size` integers: each cell's point count and its points.
            requireRoom(static_cast<long double>(b), Type::I32, key);
            if (a > b) fail(key + " declares " + std::to_string(a) + " cells in " + std::to_string(b) + " values");
            cells.indices.reserve(std::size_t(b - a));
            cells.offsets.reserve(std::size_t(a + 1));
            std::uint64_t used = 0;
            for (std::uint64_t k = 0; k < a; ++k) {
                const double n = value(Type::I32, key, used++);
                if (!(n >= 0.0) || double(used) + n > double(b))
                    fail(key + " cell " + std::to_string(k) + " declares " + meshtext::numberText(n) + " points, more than the " +
                         std::to_string(b) + " values of the section hold");
                for (double i = 0; i < n; ++i, ++used) cells.indices.push_back(index(value(Type::I32, key, used), key, used));
                cells.offsets.push_back(std::uint32_t(cells.indices.size()));
            }
            if (used != b) fail(key + " declares " + std::to_string(b) + " values, its " + std::to_string(a) + " cells hold " + std::to_string(used));
            return cells;
        }
        // 5.x: OFFSETS (a values) and CONNECTIVITY (b values).
        if (upper(c_.token()) != "OFFSETS") fail(key + ": expected OFFSETS" + where());
        const Type offsetType = type(key + " OFFSETS");
        c_.endLine();
        requireRoom(static_cast<long double>(a), offsetType, key + " OFFSETS");
        if (b >= std::numeric_limits<std::uint32_t>::max()) fail(key + " declares " + std::to_string(b) + " indices, more than 32-bit offsets hold");
        std::vector<std::uint32_t> offsets;
        offsets.reserve(std::size_t(a));
        for (std::uint64_t k = 0; k < a; ++k) {
            const double o = value(offsetType, key + " OFFSETS", k);
            if (!(o >= 0.0) || o > double(b) || (!offsets.empty() && o < double(offsets.back())) || (k == 0 && o != 0.0))
                fail(key + " OFFSETS value " + std::to_string(k) + " is " + meshtext::numberText(o) +
                     " (offsets start at 0, never decrease and end at the CONNECTIVITY size " + std::to_string(b) + ")");
            offsets.push_back(std::uint32_t(o));
        }
        if (a > 0 && offsets.back() != b)
            fail(key + " OFFSETS end at " + std::to_string(offsets.back()) + ", CONNECTIVITY holds " + std::to_string(b));
        metadataIfPresent();
        if (upper(c_.token()) != "CONNECTIVITY") fail(key + ": expected CONNECTIVITY" + where());
        const Type idType = type(key + " CONNECTIVITY");
        c_.endLine();
        requireRoom(static_cast<long double>(b), idType, key + " CONNECTIVITY");
        cells.indices.reserve(std::size_t(b));
        for (std::uint64_t k = 0; k < b; ++k) cells.indices.push_back(index(value(idType, key + " CONNECTIVITY", k), key + " CONNECTIVITY", k));
        if (a > 0) cells.offsets = std::move(offsets);
        metadataIfPresent();
        return cells;
    }

    void append(CellList& to, const CellList& from, std::size_t minimum, const std::string& key) {
        (void)key;
        for (std::size_t k = 0; k < from.size(); ++k) {
            const std::size_t n = from.offsets[k + 1] - from.offsets[k];
            if (n >= minimum) to.add(from.indices.data() + from.offsets[k], n);
            else ++data_.droppedCells;
        }
    }

    void cellTypes() {
        const std::uint64_t n = count("CELL_TYPES");
        c_.endLine();
        requireRoom(static_cast<long double>(n), Type::I32, "CELL_TYPES");
        data_.cellTypes.reserve(std::size_t(n));
        for (std::uint64_t k = 0; k < n; ++k) {
            const double t = value(Type::I32, "CELL_TYPES", k);
            data_.cellTypes.push_back(std::uint8_t(t >= 0 && t <= 255 ? t : 255));
        }
        metadataIfPresent();
    }

    /// One attribute section of `n` tuples; the values are skipped.
    void attribute(const std::string& key, std::uint64_t n) {
        const std::vector<std::string_view> words = meshtext::split(c_.line());
        const auto word = [&](std::size_t i) { return i < words.size() ? words[i] : std::string_view{}; };
        const auto typeOf = [&](std::size_t i) {
            const Type ty = legacyType(word(i));
            if (ty == Type::None) fail(key + ": unsupported data type '" + std::string(word(i).substr(0, 40)) + "'");
            return ty;
        };
        const auto number = [&](std::size_t i, std::uint64_t fallback) {
            std::uint64_t v = fallback;
            if (!word(i).empty() && !meshtext::parseCount(word(i), v)) fail(key + ": '" + std::string(word(i).substr(0, 40)) + "' is not a count");
            return v;
        };
        const Type colourType = encoding_ == meshtext::Encoding::Ascii ? Type::F32 : Type::U8;
        if (key == "SCALARS") {
            const Type ty = typeOf(1);
            const std::uint64_t components = number(2, 1);
            if (components < 1 || components > 4) fail("SCALARS " + std::string(word(0)) + " has " + std::to_string(components) + " components (1 to 4)");
            if (upper(c_.peekToken()) == "LOOKUP_TABLE") {
                c_.token();
                c_.line();
            }
            skipValues(n * components, ty, "SCALARS " + std::string(word(0)));
        } else if (key == "LOOKUP_TABLE") {
            skipValues(4 * number(1, 0), colourType, "LOOKUP_TABLE");
        } else if (key == "COLOR_SCALARS") {
            skipValues(n * number(1, 1), colourType, "COLOR_SCALARS");
        } else if (key == "VECTORS" || key == "NORMALS") {
            skipValues(3 * n, typeOf(1), key);
        } else if (key == "TEXTURE_COORDINATES") {
            const std::uint64_t dim = number(1, 2);
            if (dim < 1 || dim > 3) fail("TEXTURE_COORDINATES of dimension " + std::to_string(dim) + " (1 to 3)");
            skipValues(dim * n, typeOf(2), key);
        } else if (key == "TENSORS" || key == "TENSORS6") {
            skipValues((key == "TENSORS" ? 9 : 6) * n, typeOf(1), key);
        } else {
            skipValues(n, typeOf(1), key);
        }
        metadataIfPresent();
    }

    void field() {
        c_.token(); // its name
        const std::uint64_t arrays = count("FIELD");
        c_.endLine();
        for (std::uint64_t a = 0; a < arrays; ++a) {
            const std::vector<std::string_view> words = meshtext::split(c_.line());
            if (words.empty() && c_.atEnd()) fail("truncated: FIELD declares " + std::to_string(arrays) + " arrays, the file ends after " + std::to_string(a));
            if (words.empty()) {
                --a; // a blank line between arrays
                continue;
            }
            if (words.size() == 1 && upper(words[0]) == "NULL_ARRAY") continue;
            std::uint64_t components = 0, tuples = 0;
            if (words.size() != 4 || !meshtext::parseCount(words[1], components) || !meshtext::parseCount(words[2], tuples))
                fail("FIELD array " + std::to_string(a) + ": expected \"NAME COMPONENTS TUPLES TYPE\"" + where());
            const Type ty = legacyType(words[3]);
            if (ty == Type::None) fail("FIELD array " + std::string(words[0].substr(0, 40)) + ": unsupported data type '" + std::string(words[3].substr(0, 40)) + "'");
            skipValues(components * tuples, ty, "FIELD array " + std::string(words[0].substr(0, 40)));
            metadataIfPresent();
        }
    }

    /// METADATA: text lines up to a blank one.
    void metadata() {
        c_.endLine();
        for (;;) {
            if (c_.atEnd()) return;
            const std::string_view l = c_.line();
            if (meshtext::split(l).empty()) return;
        }
    }
    void metadataIfPresent() {
        if (upper(c_.peekToken()) == "METADATA") {
            c_.token();
            metadata();
        }
    }

    meshtext::Cursor c_;
    fs::path file_;
    meshtext::Encoding encoding_ = meshtext::Encoding::Ascii;
    meshtext::ValueReader read_;
    bool newCells_ = false;
    MeshFileData data_;
};

} // namespace

MeshFileData parseLegacyVtk(std::string_view bytes, const fs::path& file) {
    return LegacyReader(bytes, file).read();
}

} // namespace atrium::heart
