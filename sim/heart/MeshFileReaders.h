#pragma once
// Atrium's own readers of the simple mesh formats (PLY, OBJ, STL, VTK legacy), and the
// checks every VTK XML file (.vtp, .vtu, .vti) passes before VTK reads it.
//
// VTK's readers of these formats trust the file: a PLY whose body stops early crashes
// vtkPLYReader, a legacy header declaring 10^9 polygons makes vtkPolyDataReader allocate
// 16 GB, an OBJ vertex "nan nan nan" passes. These readers check every declared count
// against the bytes the file still holds and against the memory budget
// (io/MemoryBudget.h) before they allocate, and refuse, with MeshError naming the file
// and the element, truncated data, indices out of range, non-finite coordinates and
// unsupported variants. They are fuzzed (tests/fuzz/MeshFileFuzz.cpp).
//
// Formats:
//  - PLY: ascii, binary_little_endian, binary_big_endian; element "vertex" with x, y, z
//    (any numeric type), element "face" with a list "vertex_indices" (or
//    "vertex_index"); other elements and properties are skipped.
//  - OBJ: "v x y z", "f" with v, v/t, v//n, v/t/n references (negative = relative);
//    "l" and "p" count as dropped cells; every other statement is ignored.
//  - STL: binary (84 + 50 n bytes) or ASCII ("solid" ... "endsolid"); identical
//    corners become one point (first-seen order), as VTK's reader merges them.
//  - VTK legacy 2.0 - 5.1, ASCII or BINARY (big-endian), DATASET POLYDATA or
//    UNSTRUCTURED_GRID: POINTS, VERTICES, LINES, POLYGONS, TRIANGLE_STRIPS, CELLS,
//    CELL_TYPES (with OFFSETS/CONNECTIVITY in 5.x), FIELD, METADATA, and the point and cell
//    attributes (SCALARS, LOOKUP_TABLE, COLOR_SCALARS, VECTORS, NORMALS,
//    TEXTURE_COORDINATES, TENSORS, GLOBAL_IDS, PEDIGREE_IDS), which are skipped.

#include "sim/sph/Vec3.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::heart {

/// Cells as offsets into a flat index list: cell k is indices[offsets[k] .. offsets[k+1]).
struct CellList {
    std::vector<std::uint32_t> offsets{0};
    std::vector<std::uint32_t> indices;
    std::size_t size() const { return offsets.size() - 1; }
    void add(const std::uint32_t* ids, std::size_t n) {
        indices.insert(indices.end(), ids, ids + n);
        offsets.push_back(std::uint32_t(indices.size()));
    }
};

/// A mesh as a file holds it: finite points and cells whose indices are all valid.
struct MeshFileData {
    std::vector<sph::Vec3> points;
    CellList polygons; ///< faces of 3 or more points
    CellList strips;   ///< triangle strips (VTK legacy)
    /// VTK legacy UNSTRUCTURED_GRID only: the cells and their VTK cell types (checked:
    /// known linear types with the right number of points); the caller takes the surface.
    CellList volumeCells;
    std::vector<std::uint8_t> cellTypes;
    bool unstructuredGrid = false;
    std::size_t droppedCells = 0; ///< vertices, lines, faces of fewer than 3 points
};

/// Checks data from any reader: finite points, every index below the point count,
/// cell types (VTK's linear cells 1..14) with the right number of points, one type per
/// volume cell; counts vertex and line cells of a grid as dropped. Throws MeshError
/// naming the file and the cell.
void validateMeshFileData(MeshFileData& data, const std::filesystem::path& file);

/// Reads one file of the format its extension names (.ply, .obj, .stl, .vtk). Throws
/// MeshError naming the file and, where there is one, the element at fault.
MeshFileData readMeshFileData(const std::filesystem::path& file);

/// The same for bytes already in memory; `file` names them in errors and gives the
/// format by its extension.
MeshFileData parseMeshFileData(std::string_view bytes, const std::filesystem::path& file);

/// What a VTK XML file (.vtp, .vtu, .vti) declares in its header.
struct VtkXmlDeclaration {
    std::string type;                 ///< "PolyData", "UnstructuredGrid", "ImageData"
    std::uint64_t points = 0;         ///< summed over the pieces (images: voxels)
    std::uint64_t cells = 0;          ///< summed over the pieces
    std::string compressor;           ///< empty when the data are not compressed
};

/// Checks a VTK XML file before VTK reads it: the XML header, the type expected
/// ("PolyData", "UnstructuredGrid" or "ImageData"), the pieces' sizes (or the image's
/// extent) against the file's size (allowing for the compressor's best ratio) and the
/// memory budget. Returns what it declares; throws std::runtime_error with the reason
/// (the caller names the file).
VtkXmlDeclaration checkVtkXmlFile(const std::filesystem::path& file, const std::string& expectedType);

} // namespace atrium::heart
