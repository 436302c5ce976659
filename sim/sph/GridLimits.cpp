#include "sim/sph/GridLimits.h"

#include <algorithm>
#include <cmath>

namespace atrium::sph {

double gridCellCount(const Aabb& b, double cell) {
    double n = 1.0;
    for (int a = 0; a < 3; ++a) n *= std::max(1.0, std::ceil((double(b.hi[a]) - double(b.lo[a])) / cell));
    return n;
}

Aabb sceneGridBounds(const Scene& scene, const TriangleMesh* wall) {
    if (scene.parameters.domain) return *scene.parameters.domain;
    Aabb b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    const auto add = [&](Vec3 lo, Vec3 hi) {
        b.lo = componentMin(b.lo, lo);
        b.hi = componentMax(b.hi, hi);
    };
    if (scene.container) add(scene.container->bounds.lo, scene.container->bounds.hi);
    if (scene.wall.kind == WallMeshSpec::Kind::Sphere) {
        const float r = scene.wall.radius * (1.f + std::fabs(scene.wall.pulseAmplitude));
        add(scene.wall.center - Vec3{r, r, r}, scene.wall.center + Vec3{r, r, r});
    }
    if (wall) add(wall->bounds().lo, wall->bounds().hi);
    for (const FluidBlock& f : scene.fluidBlocks) add(f.bounds.lo, f.bounds.hi);
    for (const Emitter& e : scene.emitters)
        add(e.position - Vec3{e.radius, e.radius, e.radius}, e.position + Vec3{e.radius, e.radius, e.radius});
    const float pad = scene.parameters.kernelRadius;
    return {b.lo - Vec3{pad, pad, pad}, b.hi + Vec3{pad, pad, pad}};
}

} // namespace atrium::sph
