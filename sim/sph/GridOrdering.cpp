#include "sim/sph/Backend.h"

#include <algorithm>
#include <utility>

namespace atrium::sph {
namespace {

/// Interleaves the low 10 bits of x, y, z (Morton code).
std::uint32_t morton3(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    const auto spread = [](std::uint32_t v) {
        v &= 0x3ffu;
        v = (v | (v << 16)) & 0x30000ffu;
        v = (v | (v << 8)) & 0x300f00fu;
        v = (v | (v << 4)) & 0x30c30c3u;
        v = (v | (v << 2)) & 0x9249249u;
        return v;
    };
    return spread(x) | (spread(y) << 1) | (spread(z) << 2);
}

} // namespace

std::vector<std::uint32_t> zOrderRanks(const GridGeometry& g) {
    // Ties beyond 1024 cells per axis keep the linear order (stable pairs).
    std::vector<std::pair<std::uint32_t, std::uint32_t>> codes(g.cellCount());
    for (int z = 0; z < g.nz; ++z)
        for (int y = 0; y < g.ny; ++y)
            for (int x = 0; x < g.nx; ++x) {
                const auto lin = std::uint32_t((std::size_t(z) * g.ny + y) * g.nx + x);
                codes[lin] = {morton3(std::uint32_t(x), std::uint32_t(y), std::uint32_t(z)), lin};
            }
    std::sort(codes.begin(), codes.end());
    std::vector<std::uint32_t> rank(g.cellCount());
    for (std::uint32_t r = 0; r < codes.size(); ++r) rank[codes[r].second] = r;
    return rank;
}

} // namespace atrium::sph
