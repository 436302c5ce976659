#include "sim/heart/IsolatedVtkReaders.h"

#include "sim/heart/MeshSeries.h"
#include "sim/heart/VtkMessageLog.h"
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

// The child's result as plain bytes (same machine, same layout).
template <class T> void put(std::string& out, const T& v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
template <class T> void putVector(std::string& out, const std::vector<T>& v) {
    put(out, std::uint64_t(v.size()));
    out.append(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}
void putText(std::string& out, const std::string& s) {
    put(out, std::uint64_t(s.size()));
    out += s;
}

class Bytes {
public:
    explicit Bytes(const std::string& data) : data_(data) {}
    template <class T> T get() {
        T v;
        need(sizeof v);
        std::memcpy(&v, data_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    template <class T> std::vector<T> vector() {
        const auto n = get<std::uint64_t>();
        if (n > (data_.size() - pos_) / sizeof(T)) throw std::runtime_error("the reader's result is incomplete");
        std::vector<T> v(static_cast<std::size_t>(n));
        if (n > 0) std::memcpy(v.data(), data_.data() + pos_, std::size_t(n) * sizeof(T)); // no buffer when empty
        pos_ += std::size_t(n) * sizeof(T);
        return v;
    }
    std::string text() {
        const auto n = get<std::uint64_t>();
        need(n);
        std::string s = data_.substr(pos_, std::size_t(n));
        pos_ += std::size_t(n);
        return s;
    }

private:
    void need(std::uint64_t n) const {
        if (n > data_.size() - pos_) throw std::runtime_error("the reader's result is incomplete");
    }
    const std::string& data_;
    std::size_t pos_ = 0;
};

void putCells(std::string& out, vtkCellArray* cells) {
    std::vector<std::int64_t> offsets{0}, ids;
    if (cells != nullptr) {
        vtkIdType n = 0;
        const vtkIdType* p = nullptr;
        for (cells->InitTraversal(); cells->GetNextCell(n, p);) {
            ids.insert(ids.end(), p, p + n);
            offsets.push_back(std::int64_t(ids.size()));
        }
    }
    putVector(out, offsets);
    putVector(out, ids);
}

/// Cells from the child: offsets that start at 0 and never decrease, indices that fit.
CellList takeCells(Bytes& in, const fs::path& file, const char* what) {
    const std::vector<std::int64_t> offsets = in.vector<std::int64_t>();
    const std::vector<std::int64_t> ids = in.vector<std::int64_t>();
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

void putPoints(std::string& out, vtkPoints* points) {
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
    putVector(out, xyz);
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
        [&](std::string& out) {
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
            put(out, std::uint64_t(said.size()));
            for (const std::string& m : said) putText(out, m);
            putText(out, log->firstError());
            putPoints(out, data ? data->GetPoints() : nullptr);
            if (unstructured) {
                vtkUnstructuredGrid* grid = gridReader->GetOutput();
                putCells(out, grid ? grid->GetCells() : nullptr);
                std::vector<std::uint8_t> types;
                if (grid && grid->GetCellTypesArray())
                    for (vtkIdType k = 0; k < grid->GetCellTypesArray()->GetNumberOfValues(); ++k)
                        types.push_back(grid->GetCellTypesArray()->GetValue(k));
                putVector(out, types);
            } else {
                vtkPolyData* poly = polyReader->GetOutput();
                putCells(out, poly ? poly->GetPolys() : nullptr);
                putCells(out, poly ? poly->GetStrips() : nullptr);
                put(out, std::uint64_t(poly ? poly->GetNumberOfVerts() + poly->GetNumberOfLines() : 0));
            }
        },
        [&](const std::string& why) { throw MeshError(file, why); });

    MeshFileData data;
    try {
        Bytes in(child.result);
        const auto count = in.get<std::uint64_t>();
        for (std::uint64_t k = 0; k < count; ++k) messages.push_back(in.text());
        const std::string firstError = in.text();
        const std::vector<float> xyz = in.vector<float>();
        if (xyz.empty()) {
            if (!firstError.empty()) throw MeshError(file, "unreadable VTK XML file: " + firstError);
            throw MeshError(file, "empty mesh: the file holds no points");
        }
        data.points.resize(xyz.size() / 3);
        for (std::size_t i = 0; i < data.points.size(); ++i) data.points[i] = {xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]};
        if (unstructured) {
            data.unstructuredGrid = true;
            data.volumeCells = takeCells(in, file, "cells");
            data.cellTypes = in.vector<std::uint8_t>();
        } else {
            data.polygons = takeCells(in, file, "polygons");
            data.strips = takeCells(in, file, "triangle strips");
            data.droppedCells = std::size_t(in.get<std::uint64_t>());
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
        [&](std::string& out) {
            const Volume v = read();
            put(out, v.nx);
            put(out, v.ny);
            put(out, v.nz);
            put(out, v.origin);
            put(out, v.spacing);
            putVector(out, v.values);
        },
        [&](const std::string& why) {
            // The child's VolumeError already names the file.
            const std::string prefix = file.string() + ": ";
            throw VolumeError(file, why.rfind(prefix, 0) == 0 ? why.substr(prefix.size()) : why);
        });
    Volume v;
    try {
        Bytes in(child.result);
        v.nx = in.get<int>();
        v.ny = in.get<int>();
        v.nz = in.get<int>();
        v.origin = in.get<sph::Vec3>();
        v.spacing = in.get<sph::Vec3>();
        v.values = in.vector<float>();
    } catch (const std::runtime_error& e) {
        throw VolumeError(file, e.what());
    }
    if (v.nx <= 0 || v.ny <= 0 || v.nz <= 0 || v.values.size() != v.voxelCount())
        throw VolumeError(file, "the reader returned " + std::to_string(v.values.size()) + " values for " +
                                    std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nz) + " voxels");
    return v;
}

} // namespace atrium::heart
