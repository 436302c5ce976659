#pragma once
// Writes particle snapshots as VTK XML PolyData (.vtp, one vertex per particle with
// velocity, speed, density and pressure arrays) and a ParaView collection (.pvd) that
// lists them with their simulated times.

#include "sim/sph/Backend.h"

#include <filesystem>
#include <string>
#include <vector>

namespace atrium::app {

class ParticleSnapshotWriter {
public:
    /// Creates `directory` if needed. Throws std::runtime_error naming it on failure.
    explicit ParticleSnapshotWriter(std::filesystem::path directory);
    /// Writes particles_<step>.vtp and rewrites particles.pvd; returns the .vtp path.
    std::filesystem::path write(const sph::HostParticles& particles, std::uint64_t step, double time);

private:
    void writeCollection() const;

    std::filesystem::path directory_;
    std::vector<std::pair<double, std::string>> written_;
};

} // namespace atrium::app
