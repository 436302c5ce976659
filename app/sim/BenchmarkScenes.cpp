#include "app/sim/BenchmarkScenes.h"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace atrium::app {

sph::Scene damBreakScene(std::size_t particles) {
    const float s = 0.01f;
    const int k = std::max(2, int(std::lround(std::cbrt(double(particles) / 2.0))));
    const float a = float(k) * s;
    const float H = 2.f * a;
    sph::Scene scene;
    scene.name = "dam-break";
    scene.parameters.particleSpacing = s;
    scene.parameters.kernelRadius = 2.f * s;
    scene.parameters.soundSpeed = 10.f * std::sqrt(2.f * 9.81f * H);
    scene.parameters.viscosity = 0.05f;
    scene.container = sph::BoxContainer{{{0.f, 0.f, 0.f}, {4.f * a, a, 2.5f * a}}, 0.3f};
    scene.fluidBlocks.push_back({{{0.f, 0.f, 0.f}, {a, a, H}}, {}});
    return scene;
}

sph::Scene pulsingSphereScene(std::size_t particles) {
    const float s = 0.002f;
    const float margin = 0.5f * s;
    // The chamber shrinks to 0.9^3 = 73 % of its volume at systole and has no outlet,
    // so blood fills 60 % of it: N s^3 = 0.6 * 4/3 pi R^3.
    constexpr double fill = 0.6;
    const float R = s * float(std::cbrt(3.0 * double(particles) / (4.0 * std::numbers::pi * fill))) + margin;
    // Height of the fluid surface: the cap below z holds `fill` of the ball,
    // cap(z) = pi (R + z)^2 (2R - z) / 3; bisect.
    double lo = -R, hi = R;
    for (int i = 0; i < 60; ++i) {
        const double z = 0.5 * (lo + hi);
        const double cap = std::numbers::pi * (R + z) * (R + z) * (2.0 * R - z) / 3.0;
        (cap < fill * 4.0 / 3.0 * std::numbers::pi * R * R * R ? lo : hi) = z;
    }
    sph::Scene scene;
    scene.name = "pulsing-sphere";
    scene.parameters.particleSpacing = s;
    scene.parameters.kernelRadius = 2.f * s;
    scene.parameters.soundSpeed = 10.f;
    scene.parameters.viscosity = 0.0035f * 10.f; // blood, thickened for stability at this resolution
    scene.wall.kind = sph::WallMeshSpec::Kind::Sphere;
    scene.wall.center = {0.f, 0.f, 0.f};
    scene.wall.radius = R;
    scene.wall.subdivisions = 5; // 20480 triangles, the size of a decimated heart mesh
    scene.wall.pulseAmplitude = 0.1f;
    scene.wall.pulsePeriod = 0.8f;
    // Seeding drops the lattice points that lie in or beyond the wall.
    scene.fluidBlocks.push_back({{{-R, -R, -R}, {R, R, float(lo)}}, {}});
    return scene;
}

sph::Scene benchmarkScene(const std::string& name, std::size_t particles) {
    if (name == "dam-break") return damBreakScene(particles);
    if (name == "pulsing-sphere") return pulsingSphereScene(particles);
    throw std::invalid_argument("unknown benchmark scene '" + name + "' (expected dam-break or pulsing-sphere)");
}

} // namespace atrium::app
