#pragma once
// The cells of the neighbour grid that can hold a particle's neighbours: one rule for
// both backends (CpuBackend.cpp and CudaBackend.cuh), as WallKernelIntegrals.h is one
// formula for the walls. Cells have the size of the kernel radius h, so a particle's
// neighbours lie in the 27 cells around its own; those are enumerated as 9 rows along x,
// and cells that lie h or more away are left out.

#include "sim/sph/Vec3.h"

#include <cmath>
#include <cstdint>

namespace atrium::sph {

/// The neighbour grid as the loops see it: GridGeometry (Backend.h) with the reciprocal
/// of its cell size. Positions outside are clamped into the border cells.
struct CellGrid {
    Vec3 origin;
    float cellSize = 1.f;
    float invCell = 1.f;
    int nx = 1, ny = 1, nz = 1;
    int zOrder = 0; ///< cells sorted along a Z curve (GridGeometry::zOrder)
};

/// The cell coordinate of p along one axis, clamped into [0, n). Clamped as a float
/// before the conversion to int, which would be undefined for a position far outside
/// (or NaN, which goes to cell 0).
ATRIUM_HD int cellCoord(float p, float origin, float invCell, int n) {
    const float c = floorf((p - origin) * invCell);
    return c >= 0.f ? (c < float(n - 1) ? int(c) : n - 1) : 0;
}

/// The linear index of cell (x, y, z): x fastest.
ATRIUM_HD std::uint32_t linearCell(const CellGrid& g, int x, int y, int z) {
    return (std::uint32_t(z) * std::uint32_t(g.ny) + std::uint32_t(y)) * std::uint32_t(g.nx) + std::uint32_t(x);
}

/// One row of candidate cells along x: its particles as up to 3 ranges of cell order
/// (one in linear order, where a row of cells is contiguous; one per cell in Z order).
struct CandidateRow {
    std::uint32_t begin[3] = {0u, 0u, 0u};
    std::uint32_t end[3] = {0u, 0u, 0u};

    /// Calls f(j) for the row's particles in order.
    template <class F>
    ATRIUM_HD void forEach(F&& f) const {
        for (int c = 0; c < 3; ++c)
            for (std::uint32_t j = begin[c]; j < end[c]; ++j) f(j);
    }
    /// The k-th particle of the row (k < the row's size).
    ATRIUM_HD std::uint32_t at(std::uint32_t k) const {
        const std::uint32_t n0 = end[0] - begin[0];
        if (k < n0) return begin[0] + k;
        k -= n0;
        const std::uint32_t n1 = end[1] - begin[1];
        return k < n1 ? begin[1] + k : begin[2] + (k - n1);
    }
};

/// The rows of candidates around a particle: dy, dz in -1..1, row = 3 (dz + 1) + dy + 1.
constexpr int kCandidateRows = 9;

/// The 9 rows of cells around a point p that can hold its neighbours, in order of z,
/// then y: a row whose y-z gap to p is h or more (a corner row), or that lies outside
/// the grid, is empty, and a row's end cell whose gap in x, y and z together is h or
/// more is trimmed: neither holds a particle within h.
class CandidateRows {
public:
    ATRIUM_HD CandidateRows(const CellGrid& g, Vec3 p) : g_(g) {
        cx_ = cellCoord(p.x, g.origin.x, g.invCell, g.nx);
        cy_ = cellCoord(p.y, g.origin.y, g.invCell, g.ny);
        cz_ = cellCoord(p.z, g.origin.z, g.invCell, g.nz);
        const float h = g.cellSize;
        fx_ = p.x - (g.origin.x + float(cx_) * h);
        fy_ = p.y - (g.origin.y + float(cy_) * h);
        fz_ = p.z - (g.origin.z + float(cz_) * h);
    }

    /// Row `row` (0..kCandidateRows-1): dz = row / 3 - 1, dy = row % 3 - 1.
    ATRIUM_HD CandidateRow at(int row, const std::uint32_t* __restrict__ cellStart,
                              const std::uint32_t* __restrict__ zRank) const {
        const int dz = row / 3 - 1, dy = row % 3 - 1;
        const int z = cz_ + dz, y = cy_ + dy;
        CandidateRow r;
        if (z < 0 || z >= g_.nz || y < 0 || y >= g_.ny) return r;
        const float h = g_.cellSize, h2 = h * h;
        const float gz = dz < 0 ? fz_ : (dz > 0 ? h - fz_ : 0.f);
        const float gy = dy < 0 ? fy_ : (dy > 0 ? h - fy_ : 0.f);
        const float g2 = gy * gy + gz * gz;
        if (g2 >= h2) return r;
        const int first = cx_ > 0 && fx_ * fx_ + g2 < h2 ? cx_ - 1 : cx_;
        const int last = cx_ + 1 < g_.nx && (h - fx_) * (h - fx_) + g2 < h2 ? cx_ + 1 : cx_;
        if (!g_.zOrder) {
            r.begin[0] = cellStart[linearCell(g_, first, y, z)];
            r.end[0] = cellStart[linearCell(g_, last, y, z) + 1];
        } else {
            for (int x = first; x <= last; ++x) {
                const std::uint32_t key = zRank[linearCell(g_, x, y, z)];
                r.begin[x - first] = cellStart[key];
                r.end[x - first] = cellStart[key + 1];
            }
        }
        return r;
    }

private:
    const CellGrid& g_;
    int cx_, cy_, cz_;
    float fx_, fy_, fz_;
};

} // namespace atrium::sph
