#include "app/sim/ParticleSnapshotWriter.h"

#include "sim/heart/VtkMessageRouting.h"
#include "io/AtomicFile.h"

#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkErrorCode.h>
#include <vtkXMLPolyDataWriter.h>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace atrium::app {

ParticleSnapshotWriter::ParticleSnapshotWriter(std::filesystem::path directory) : directory_(std::move(directory)) {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) throw io::WriteError(directory_, "cannot create the output directory: " + ec.message());
    io::removeStaleTemporaries(directory_); // left by a run that was killed mid-write
}

std::filesystem::path ParticleSnapshotWriter::write(const sph::HostParticles& particles, std::uint64_t step, double time) {
    const vtkIdType n = vtkIdType(particles.position.size());
    vtkNew<vtkPoints> points;
    points->SetDataTypeToFloat();
    points->SetNumberOfPoints(n);
    vtkNew<vtkCellArray> vertices;
    vertices->AllocateExact(n, n);
    for (vtkIdType i = 0; i < n; ++i) {
        const sph::Vec3& p = particles.position[std::size_t(i)];
        points->SetPoint(i, p.x, p.y, p.z);
        vertices->InsertNextCell(1, &i);
    }
    vtkNew<vtkPolyData> poly;
    poly->SetPoints(points);
    poly->SetVerts(vertices);

    const auto scalarArray = [&](const char* name, const std::vector<float>& values) {
        if (values.size() != std::size_t(n)) return;
        vtkNew<vtkFloatArray> a;
        a->SetName(name);
        a->SetNumberOfValues(n);
        for (vtkIdType i = 0; i < n; ++i) a->SetValue(i, values[std::size_t(i)]);
        poly->GetPointData()->AddArray(a);
    };
    if (particles.velocity.size() == std::size_t(n)) {
        vtkNew<vtkFloatArray> v;
        v->SetName("velocity");
        v->SetNumberOfComponents(3);
        v->SetNumberOfTuples(n);
        std::vector<float> speed(static_cast<std::size_t>(n));
        for (vtkIdType i = 0; i < n; ++i) {
            const sph::Vec3& u = particles.velocity[std::size_t(i)];
            const float t[3] = {u.x, u.y, u.z};
            v->SetTypedTuple(i, t);
            speed[std::size_t(i)] = sph::length(u);
        }
        poly->GetPointData()->AddArray(v);
        scalarArray("speed", speed);
    }
    scalarArray("density", particles.density);
    scalarArray("pressure", particles.pressure);
    return writePolyData(poly.GetPointer(), "particles", step, time, written_, "particles.pvd");
}

std::filesystem::path ParticleSnapshotWriter::writeWall(const sph::TriangleMesh& wall, std::uint64_t step, double time) {
    return writeSurface(wall, "wall", step, time, wallsWritten_, "wall.pvd");
}

std::filesystem::path ParticleSnapshotWriter::writeShell(const sph::TriangleMesh& shell, std::uint64_t step, double time) {
    return writeSurface(shell, "shell", step, time, shellsWritten_, "shell.pvd");
}

std::filesystem::path ParticleSnapshotWriter::writeSurface(const sph::TriangleMesh& wall, const char* prefix,
                                                           std::uint64_t step, double time, Collection& collection,
                                                           const char* collectionName) {
    vtkNew<vtkPoints> points;
    points->SetDataTypeToFloat();
    points->SetNumberOfPoints(vtkIdType(wall.vertices.size()));
    for (std::size_t i = 0; i < wall.vertices.size(); ++i)
        points->SetPoint(vtkIdType(i), wall.vertices[i].x, wall.vertices[i].y, wall.vertices[i].z);
    vtkNew<vtkCellArray> triangles;
    triangles->AllocateExact(vtkIdType(wall.triangles.size()), vtkIdType(3 * wall.triangles.size()));
    for (const auto& t : wall.triangles) {
        const vtkIdType ids[3] = {vtkIdType(t[0]), vtkIdType(t[1]), vtkIdType(t[2])};
        triangles->InsertNextCell(3, ids);
    }
    vtkNew<vtkPolyData> poly;
    poly->SetPoints(points);
    poly->SetPolys(triangles);
    return writePolyData(poly.GetPointer(), prefix, step, time, collection, collectionName);
}

std::filesystem::path ParticleSnapshotWriter::writePolyData(vtkPolyData* polyData, const char* prefix, std::uint64_t step,
                                                            double time, Collection& collection,
                                                            const char* collectionName) {
    char name[64];
    std::snprintf(name, sizeof name, "%s_%08llu.vtp", prefix, static_cast<unsigned long long>(step));
    const std::filesystem::path file = directory_ / name;
    {
        // VTK's return value misses a full disk; its error code and the file's end do not.
        const heart::VtkFileContext context(file);
        io::AtomicFile atomic(file);
        vtkNew<vtkXMLPolyDataWriter> writer;
        writer->SetFileName(atomic.temporary().c_str());
        writer->SetInputData(polyData);
        writer->SetDataModeToAppended();
        writer->SetCompressorTypeToZLib();
        const int ok = writer->Write();
        if (ok != 1 || writer->GetErrorCode() != vtkErrorCode::NoError)
            throw io::WriteError(file, std::string("cannot write the ") + prefix + " snapshot: " +
                                           vtkErrorCode::GetStringFromErrorCode(writer->GetErrorCode()) +
                                           " (disk full or not writable?)");
        atomic.commit(64, "</VTKFile>\n");
    }
    collection.emplace_back(time, name);

    // The index is replaced whole, so a kill never loses the snapshots listed before.
    std::ostringstream list;
    list << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
    for (const auto& [t, n] : collection)
        list << "    <DataSet timestep=\"" << t << "\" part=\"0\" file=\"" << n << "\"/>\n";
    list << "  </Collection>\n</VTKFile>\n";
    io::writeFileAtomically(directory_ / collectionName, list.str());
    return file;
}

} // namespace atrium::app
