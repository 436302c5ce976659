#pragma once
// Initial and emitted particle positions.

#include "sim/sph/Scene.h"
#include "sim/sph/Vec3.h"

#include <cstddef>
#include <vector>

namespace atrium::sph {

/// Largest lattice side (points along one axis) and lattice a seeding function builds;
/// beyond them they throw std::invalid_argument instead of overflowing an int.
inline constexpr int kMaxLatticeSide = 1 << 20;
inline constexpr std::size_t kMaxLatticePoints = std::size_t(1) << 31;

/// Cubic lattice of `spacing` filling `box`: points at lo + (i + 1/2) spacing, so a
/// block of extent L holds floor(L / spacing) particles per axis and its particles
/// represent exactly the block's volume.
std::vector<Vec3> latticeInBox(const Aabb& box, float spacing);

/// One layer of an emitter: points on a square lattice of `spacing` inside the disc of
/// the emitter's radius, in the plane through `center` perpendicular to `direction`.
std::vector<Vec3> emitterLayer(Vec3 center, Vec3 direction, float radius, float spacing);

/// Mean poly6 density of a particle deep inside an infinite cubic lattice of `spacing`
/// with particle mass `mass`: the rest density a scene without initial fluid gets.
float latticeDensity(float spacing, float kernelRadius, float mass);

} // namespace atrium::sph
