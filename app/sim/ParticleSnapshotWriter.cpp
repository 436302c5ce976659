#include "app/sim/ParticleSnapshotWriter.h"

#include <vtkCellArray.h>
#include <vtkFloatArray.h>
#include <vtkNew.h>
#include <vtkPointData.h>
#include <vtkPoints.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataWriter.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace atrium::app {

ParticleSnapshotWriter::ParticleSnapshotWriter(std::filesystem::path directory) : directory_(std::move(directory)) {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec) throw std::runtime_error(directory_.string() + ": cannot create output directory: " + ec.message());
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

    char name[64];
    std::snprintf(name, sizeof name, "particles_%08llu.vtp", static_cast<unsigned long long>(step));
    const std::filesystem::path file = directory_ / name;
    vtkNew<vtkXMLPolyDataWriter> writer;
    writer->SetFileName(file.string().c_str());
    writer->SetInputData(poly);
    writer->SetDataModeToAppended();
    writer->SetCompressorTypeToZLib();
    if (writer->Write() != 1) throw std::runtime_error(file.string() + ": failed to write particle snapshot");
    written_.emplace_back(time, name);
    writeCollection();
    return file;
}

void ParticleSnapshotWriter::writeCollection() const {
    const std::filesystem::path file = directory_ / "particles.pvd";
    std::ofstream out(file);
    out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"Collection\" version=\"0.1\">\n  <Collection>\n";
    for (const auto& [time, name] : written_)
        out << "    <DataSet timestep=\"" << time << "\" part=\"0\" file=\"" << name << "\"/>\n";
    out << "  </Collection>\n</VTKFile>\n";
    if (!out) throw std::runtime_error(file.string() + ": failed to write the ParaView collection");
}

} // namespace atrium::app
