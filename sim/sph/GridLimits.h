#pragma once
// Limits on the work and memory a scene may ask for, in one place: the scene-file
// validator (SceneFile.h), the solver and the applications check against these, so that
// they never disagree on what is allowed.

#include "sim/sph/Scene.h"
#include "sim/sph/TriangleMesh.h"

#include <cstddef>

namespace atrium::sph {

/// The neighbour grid's largest cell count: two 32-bit entries per cell (512 MiB here).
inline constexpr double kMaxGridCells = double(std::size_t(1) << 26);

/// Memory a particle takes in the solver, all arrays and its neighbour list (the CPU
/// backend's bytesPerParticle() is about 400 B), for checks against the memory budget.
inline constexpr double kBytesPerParticle = 512.0;

/// Cells of a grid of cubes of side `cell` over `bounds` (at least one per axis), as a
/// double so that no size overflows.
double gridCellCount(const Aabb& bounds, double cell);

/// The box the solver's neighbour grid covers: parameters.domain when set, else every
/// container, wall, fluid block and emitter (and `wall`, an external wall mesh) padded
/// by one kernel radius.
Aabb sceneGridBounds(const Scene& scene, const TriangleMesh* wall = nullptr);

} // namespace atrium::sph
