#pragma once
// Writes particle snapshots as VTK XML PolyData (.vtp, one vertex per particle with
// velocity, speed, density and pressure arrays) and a ParaView collection (.pvd) that
// lists them with their simulated times; likewise the moving wall's mesh, if any, and a
// display-only shell. Every file is written through a temporary file renamed into place
// and checked (VTK's error code, the file's closing tag): a full disk or a kill leaves the
// earlier files and the index of every earlier snapshot intact, and throws io::WriteError
// naming the file.

#include "sim/sph/Solver.h" // HostParticles
#include "sim/sph/TriangleMesh.h"

#include <filesystem>
#include <string>
#include <vector>

class vtkPolyData;

namespace atrium::app {

class ParticleSnapshotWriter {
public:
    /// Creates `directory` if needed and removes temporaries a killed run left there.
    /// Throws io::WriteError naming it on failure.
    explicit ParticleSnapshotWriter(std::filesystem::path directory);
    /// Writes particles_<step>.vtp and rewrites particles.pvd; returns the .vtp path.
    std::filesystem::path write(const sph::HostParticles& particles, std::uint64_t step, double time);
    /// Writes wall_<step>.vtp (the triangles, metres) and rewrites wall.pvd.
    std::filesystem::path writeWall(const sph::TriangleMesh& wall, std::uint64_t step, double time);
    /// Writes shell_<step>.vtp (a display-only surface such as the epicardium, metres)
    /// and rewrites shell.pvd.
    std::filesystem::path writeShell(const sph::TriangleMesh& shell, std::uint64_t step, double time);

private:
    using Collection = std::vector<std::pair<double, std::string>>;
    std::filesystem::path writePolyData(vtkPolyData* polyData, const char* prefix, std::uint64_t step, double time,
                                        Collection& collection, const char* collectionName);

    std::filesystem::path directory_;
    std::filesystem::path writeSurface(const sph::TriangleMesh& surface, const char* prefix, std::uint64_t step,
                                       double time, Collection& collection, const char* collectionName);

    Collection written_, wallsWritten_, shellsWritten_;
};

} // namespace atrium::app
