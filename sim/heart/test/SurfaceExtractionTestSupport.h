#pragma once
// Shared by the surface tests (SurfaceExtractionTest.cpp,
// NoiseRemovalAndHoleCappingTest.cpp): meshes put together, unused vertices, a sphere's
// volume, and the minimum angles printed.

#include "sim/heart/MeshConversion.h"
#include "sim/sph/TriangleMesh.h"

#include <algorithm>
#include <cstdint>
#include <iostream>
#include <vector>

namespace atrium::heart::test {

inline constexpr double kPi = 3.14159265358979323846;

inline void append(sph::TriangleMesh& into, const sph::TriangleMesh& part) {
    const auto offset = std::uint32_t(into.vertices.size());
    into.vertices.insert(into.vertices.end(), part.vertices.begin(), part.vertices.end());
    for (auto t : part.triangles) into.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
}

inline bool hasUnusedVertices(const sph::TriangleMesh& mesh) {
    std::vector<char> used(mesh.vertices.size(), 0);
    for (const auto& t : mesh.triangles)
        for (auto v : t) used[v] = 1;
    return std::find(used.begin(), used.end(), 0) != used.end();
}

inline double sphereVolume(double r) { return 4.0 / 3.0 * kPi * r * r * r; }

inline void printAngles(const char* what, const heart::AngleStats& a) {
    std::cout << "[ angles   ] " << what << ": min " << a.minDeg << " deg, 1st percentile " << a.p01Deg
              << " deg, mean " << a.meanDeg << " deg\n";
}

} // namespace atrium::heart::test
