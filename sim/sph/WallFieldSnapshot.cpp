// A wall field's pose kept compactly and restored bit for bit: the heart repeats its
// cycle, so every beat after the first restores its wall poses instead of rebuilding
// them (HeartSimulation, docs/PERFORMANCE.md "Wall distance field").

#include "sim/sph/WallDistanceField.h"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>

namespace atrium::sph {

WallDistanceField::Snapshot WallDistanceField::snapshot() const {
    if (empty()) throw std::logic_error("WallDistanceField::snapshot: the field was not built");
    Snapshot s;
    const std::size_t T = triangles_.size() / 3;
    s.mesh.vertices = vertices_;
    s.mesh.triangles.resize(T);
    std::memcpy(s.mesh.triangles.data(), triangles_.data(), 3 * T * sizeof(std::uint32_t));
    s.vertexVelocities = vertexVelocities_;
    s.vertexNormals = vertexNormals_;
    s.settings = settings_;
    s.origin = origin_;
    s.band = band_;
    s.nx = nx_;
    s.ny = ny_;
    s.nz = nz_;
    s.thinCellCount = thinCells_;
    s.inside.assign((nodeCount_ + 63) / 64, 0);
    s.inBand.assign((nodeCount_ + 63) / 64, 0);
    const std::size_t bandCount = std::size_t(std::count(nodeBand_.begin(), nodeBand_.begin() + std::ptrdiff_t(nodeCount_), 1));
    s.bandPhi.reserve(bandCount);
    s.bandVelocity.reserve(bandCount);
    for (std::size_t n = 0; n < nodeCount_; ++n) {
        if (std::signbit(phi_[n])) s.inside[n / 64] |= std::uint64_t(1) << (n % 64);
        if (nodeBand_[n]) {
            s.inBand[n / 64] |= std::uint64_t(1) << (n % 64);
            s.bandPhi.push_back(phi_[n]);
            s.bandVelocity.push_back(nodeVelocity_[n]);
        }
    }
    s.thinStart.push_back(0);
    for (std::size_t c = 0; c < cellCount_; ++c)
        if (cellTriangleStart_[c + 1] > cellTriangleStart_[c]) {
            s.thinCells.push_back(std::uint32_t(c));
            s.thinStart.push_back(cellTriangleStart_[c + 1]);
        }
    if (T <= 0xffff)
        s.cellTriangles16.assign(cellTriangles_.begin(), cellTriangles_.end());
    else
        s.cellTriangles32 = cellTriangles_;
    return s;
}

void WallDistanceField::restore(const Snapshot& s) {
    updateTopology(s.mesh);
    vertices_ = s.mesh.vertices;
    vertexVelocities_ = s.vertexVelocities;
    vertexNormals_ = s.vertexNormals;
    computeNormals(false);
    settings_ = s.settings;
    origin_ = s.origin;
    cellSize_ = s.settings.cellSize;
    band_ = s.band;
    nx_ = s.nx;
    ny_ = s.ny;
    nz_ = s.nz;
    meshBounds_ = s.mesh.bounds();
    thinCells_ = s.thinCellCount;
    sizeGrid();
    const std::size_t nodeCount = nodeCount_;
    const float band = band_;
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, s.inside.size(), 256), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t w = r.begin(); w != r.end(); ++w) {
            const std::size_t end = std::min(nodeCount, 64 * w + 64);
            for (std::size_t n = 64 * w; n < end; ++n) {
                phi_[n] = (s.inside[w] >> (n % 64)) & 1u ? -band : band;
                if (nodeBand_[n]) {
                    nodeVelocity_[n] = Vec3{};
                    nodeBand_[n] = 0;
                }
            }
        }
    });
    std::size_t b = 0;
    for (std::size_t w = 0; w < s.inBand.size(); ++w)
        for (std::uint64_t word = s.inBand[w]; word != 0; word &= word - 1) {
            const std::size_t n = 64 * w + std::size_t(std::countr_zero(word));
            phi_[n] = s.bandPhi[b];
            nodeVelocity_[n] = s.bandVelocity[b];
            nodeBand_[n] = 1;
            ++b;
        }
    if (s.cellTriangles32.empty())
        cellTriangles_.assign(s.cellTriangles16.begin(), s.cellTriangles16.end());
    else
        cellTriangles_ = s.cellTriangles32;
    writeCellStarts(s.thinCells, s.thinStart.data());
}

std::size_t WallDistanceField::Snapshot::bytes() const {
    const auto b = [](const auto& vec) { return vec.capacity() * sizeof(vec[0]); };
    return sizeof(Snapshot) + b(mesh.vertices) + b(mesh.triangles) + b(vertexVelocities) + b(vertexNormals) + b(inside) + b(inBand) +
           b(bandPhi) + b(bandVelocity) + b(thinCells) + b(thinStart) + b(cellTriangles16) + b(cellTriangles32);
}

} // namespace atrium::sph
