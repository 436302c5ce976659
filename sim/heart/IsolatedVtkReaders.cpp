#include "sim/heart/IsolatedVtkReaders.h"

#include "sim/heart/HeartFileError.h"
#include "sim/heart/VtkMessageLog.h"
#include "io/BinaryIo.h"
#include "io/IsolatedRun.h"

#include <vtkCellArray.h>
#include <vtkDataArray.h>
#include <vtkNew.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkUnsignedCharArray.h>
#include <vtkUnstructuredGrid.h>
#include <vtkXMLPolyDataReader.h>
#include <vtkXMLUnstructuredGridReader.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace atrium::heart {

namespace fs = std::filesystem;

void prepareVtkInChild(); // VtkSequentialSmp.cpp

namespace {

/// Seconds a child may take: a minute, and a minute more per 100 MB of file; the
/// environment variable ATRIUM_READER_TIME_LIMIT (seconds) replaces the minute (the fuzz
/// targets set 10).
double timeLimit(const fs::path& file) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    double base = 60.0;
    if (const char* env = std::getenv("ATRIUM_READER_TIME_LIMIT"); env != nullptr && std::atof(env) > 0.0) base = std::atof(env);
    return base + (ec ? 0.0 : 60.0 * double(size) / 1e8);
}

// The child's result travels as io/BinaryIo.h bytes; reading it back checks every count
// against what the child sent.
void putCells(io::ByteWriter& out, vtkCellArray* cells) {
    std::vector<std::int64_t> offsets{0}, ids;
    if (cells != nullptr) {
        vtkIdType n = 0;
        const vtkIdType* p = nullptr;
        for (cells->InitTraversal(); cells->GetNextCell(n, p);) {
            ids.insert(ids.end(), p, p + n);
            offsets.push_back(std::int64_t(ids.size()));
        }
    }
    out.counted<std::int64_t>(offsets);
    out.counted<std::int64_t>(ids);
}

/// Cells from the child: offsets that start at 0 and never decrease, indices that fit.
CellList takeCells(io::ByteReader& in, const fs::path& file, const char* what) {
    const auto offsets = in.counted<std::int64_t, std::int64_t>(what);
    const auto ids = in.counted<std::int64_t, std::int64_t>(what);
    CellList cells;
    if (offsets.empty() || offsets.front() != 0 || std::uint64_t(offsets.back()) != ids.size())
        throw MeshError(file, std::string("inconsistent ") + what + " in the file");
    cells.offsets.reserve(offsets.size());
    cells.offsets.clear();
    for (std::size_t k = 0; k < offsets.size(); ++k) {
        if (k > 0 && offsets[k] < offsets[k - 1]) throw MeshError(file, std::string("inconsistent ") + what + " in the file");
        cells.offsets.push_back(std::uint32_t(offsets[k]));
    }
    cells.indices.reserve(ids.size());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (ids[i] < 0 || ids[i] >= std::int64_t(std::numeric_limits<std::uint32_t>::max()))
            throw MeshError(file, std::string(what) + " use the point id " + std::to_string(ids[i]));
        cells.indices.push_back(std::uint32_t(ids[i]));
    }
    if (ids.size() >= std::numeric_limits<std::uint32_t>::max()) throw MeshError(file, std::string("too many ") + what);
    return cells;
}

void putPoints(io::ByteWriter& out, vtkPoints* points) {
    std::vector<float> xyz;
    const vtkIdType n = points ? points->GetNumberOfPoints() : 0;
    xyz.reserve(std::size_t(3 * n));
    for (vtkIdType i = 0; i < n; ++i) {
        double p[3];
        points->GetPoint(i, p);
        for (const double v : p)
            xyz.push_back(std::isfinite(v) && std::fabs(v) <= double(std::numeric_limits<float>::max())
                              ? float(v)
                              : std::numeric_limits<float>::quiet_NaN());
    }
    out.counted<float>(xyz);
}

/// Runs `work` in a child; on failure calls `fail` (which throws the caller's error type).
io::IsolatedOutput runChild(const fs::path& file, const std::function<void(std::string&)>& work,
                            const std::function<void(const std::string&)>& fail) {
    try {
        return io::runIsolated(
            [&](std::string& out) {
                prepareVtkInChild(); // sequential SMP, a plain output window
                work(out);
            },
            timeLimit(file));
    } catch (const io::IsolatedRunFailed& e) {
        fail(e.what());
        throw;
    }
}

} // namespace

MeshFileData readVtkXmlMeshIsolated(const fs::path& file, bool unstructured, std::vector<std::string>& messages) {
    const std::string name = file.string();
    const io::IsolatedOutput child = runChild(
        file,
        [&](std::string& bytes) {
            io::ByteWriter out(bytes);
            vtkNew<VtkMessageLog> log;
            vtkPointSet* data = nullptr;
            vtkNew<vtkXMLPolyDataReader> polyReader;
            vtkNew<vtkXMLUnstructuredGridReader> gridReader;
            vtkXMLReader* reader = unstructured ? static_cast<vtkXMLReader*>(gridReader) : polyReader;
            log->watch(reader);
            reader->SetReaderErrorObserver(log);
            reader->SetParserErrorObserver(log);
            reader->SetFileName(name.c_str());
            reader->Update();
            data = unstructured ? static_cast<vtkPointSet*>(gridReader->GetOutput()) : polyReader->GetOutput();
            const std::vector<std::string> said = log->all();
            out.value(std::uint64_t(said.size()));
            for (const std::string& m : said) out.text(m);
            out.text(log->firstError());
            putPoints(out, data ? data->GetPoints() : nullptr);
            if (unstructured) {
                vtkUnstructuredGrid* grid = gridReader->GetOutput();
                putCells(out, grid ? grid->GetCells() : nullptr);
                std::vector<std::uint8_t> types;
                if (grid && grid->GetCellTypesArray())
                    for (vtkIdType k = 0; k < grid->GetCellTypesArray()->GetNumberOfValues(); ++k)
                        types.push_back(grid->GetCellTypesArray()->GetValue(k));
                out.counted<std::uint8_t>(types);
            } else {
                vtkPolyData* poly = polyReader->GetOutput();
                putCells(out, poly ? poly->GetPolys() : nullptr);
                putCells(out, poly ? poly->GetStrips() : nullptr);
                out.value(std::uint64_t(poly ? poly->GetNumberOfVerts() + poly->GetNumberOfLines() : 0));
            }
        },
        [&](const std::string& why) { throw MeshError(file, why); });

    MeshFileData data;
    try {
        io::ByteReader in(child.result);
        const auto count = in.value<std::uint64_t>("message count");
        for (std::uint64_t k = 0; k < count; ++k) messages.push_back(in.text("message"));
        const std::string firstError = in.text("first error");
        const auto xyz = in.counted<float, float>("points");
        if (xyz.empty()) {
            if (!firstError.empty()) throw MeshError(file, "unreadable VTK XML file: " + firstError);
            throw MeshError(file, "empty mesh: the file holds no points");
        }
        data.points.resize(xyz.size() / 3);
        for (std::size_t i = 0; i < data.points.size(); ++i) data.points[i] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};
        if (unstructured) {
            data.unstructuredGrid = true;
            data.volumeCells = takeCells(in, file, "cells");
            data.cellTypes = in.counted<std::uint8_t, std::uint8_t>("cell types");
        } else {
            data.polygons = takeCells(in, file, "polygons");
            data.strips = takeCells(in, file, "triangle strips");
            data.droppedCells = std::size_t(in.value<std::uint64_t>("dropped cells"));
            // Polygons of fewer than 3 points are not surfaces.
            CellList polygons;
            for (std::size_t k = 0; k < data.polygons.size(); ++k) {
                const std::size_t n = data.polygons.offsets[k + 1] - data.polygons.offsets[k];
                if (n >= 3) polygons.add(data.polygons.indices.data() + data.polygons.offsets[k], n);
                else ++data.droppedCells;
            }
            data.polygons = std::move(polygons);
        }
    } catch (const std::runtime_error& e) {
        if (dynamic_cast<const MeshError*>(&e)) throw;
        throw MeshError(file, e.what());
    }
    if (!child.printed.empty()) messages.push_back("printed: " + child.printed);
    validateMeshFileData(data, file);
    return data;
}

Volume readVolumeIsolated(const fs::path& file, const std::function<Volume()>& read) {
    const io::IsolatedOutput child = runChild(
        file,
        [&](std::string& bytes) {
            const Volume v = read();
            io::ByteWriter out(bytes);
            out.value(std::int32_t(v.nx));
            out.value(std::int32_t(v.ny));
            out.value(std::int32_t(v.nz));
            out.words<float>(std::span(&v.origin, 1));
            out.words<float>(std::span(&v.spacing, 1));
            out.counted<float>(v.values);
        },
        [&](const std::string& why) {
            // The child's VolumeError already names the file.
            const std::string prefix = file.string() + ": ";
            throw VolumeError(file, why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why);
        });
    Volume v;
    try {
        io::ByteReader in(child.result);
        v.nx = in.value<std::int32_t>("size");
        v.ny = in.value<std::int32_t>("size");
        v.nz = in.value<std::int32_t>("size");
        v.origin = in.words<float, sph::Vec3>(1, "origin").front();
        v.spacing = in.words<float, sph::Vec3>(1, "spacing").front();
        v.values = in.counted<float, float>("values");
    } catch (const std::runtime_error& e) {
        throw VolumeError(file, e.what());
    }
    if (v.nx <= 0 || v.ny <= 0 || v.nz <= 0 || v.values.size() != v.voxelCount())
        throw VolumeError(file, "the reader returned " + std::to_string(v.values.size()) + " values for " +
                                    std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nz) + " voxels");
    return v;
}

} // namespace atrium::heart
