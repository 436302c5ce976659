#pragma once
// What WallDistanceField's build (WallDistanceField.cpp) shares with its thin-cell lists
// (WallThinCells.cpp): a few constants and a triangle's bounding box. Internal.

#include "sim/sph/WallDistanceField.h"

#include <cstdint>

namespace atrium::sph::wallfield {

inline constexpr std::uint64_t kNoTriangle = ~std::uint64_t(0);
inline constexpr std::uint32_t kNoNeighbour = ~std::uint32_t(0);
inline constexpr double kMaxNodes = double(std::uint64_t(1) << 26); // ~64M nodes
inline constexpr float kSqrt3 = 1.7320508f;
inline constexpr int kBlock = 2; // cells per side of a triangle bucket (thin-cell lists)

struct TriangleBox {
    Vec3 lo, hi;
};

inline TriangleBox triangleBox(const WallFieldView& v, std::uint32_t t) {
    const Vec3 a = v.vertices[v.triangles[3 * t]], b = v.vertices[v.triangles[3 * t + 1]],
               c = v.vertices[v.triangles[3 * t + 2]];
    return {componentMin(a, componentMin(b, c)), componentMax(a, componentMax(b, c))};
}

} // namespace atrium::sph::wallfield
