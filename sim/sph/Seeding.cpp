#include "sim/sph/Seeding.h"

#include "sim/sph/Kernels.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace atrium::sph {

namespace {

/// floor(x) as an int, for lattice sizes; throws std::invalid_argument for a value that
/// is not finite or beyond kMaxLatticeSide (int conversion would be undefined).
int checkedCount(double x, const char* where) {
    if (!std::isfinite(x) || x < 0.0 || x > double(kMaxLatticeSide))
        throw std::invalid_argument(std::string(where) + ": " + std::to_string(x) + " spacings along an axis (limit " +
                                    std::to_string(kMaxLatticeSide) + ")");
    return int(std::floor(x));
}

} // namespace

std::vector<Vec3> latticeInBox(const Aabb& box, float spacing) {
    std::vector<Vec3> points;
    if (spacing <= 0.f) return points;
    const Vec3 size = box.size();
    // Tolerate round-off: a 0.1 m block with 0.01 m spacing holds 10 particles per axis.
    const auto count = [&](float extent) { return extent <= 0.f ? 0 : checkedCount(double(extent) / spacing + 1e-4, "latticeInBox"); };
    const int nx = count(size.x), ny = count(size.y), nz = count(size.z);
    if (double(nx) * ny * nz > double(kMaxLatticePoints))
        throw std::invalid_argument("latticeInBox: " + std::to_string(double(nx) * ny * nz) + " points (limit " +
                                    std::to_string(kMaxLatticePoints) + ")");
    points.reserve(std::size_t(nx) * ny * nz);
    for (int k = 0; k < nz; ++k)
        for (int j = 0; j < ny; ++j)
            for (int i = 0; i < nx; ++i)
                points.push_back(box.lo + Vec3{(i + 0.5f) * spacing, (j + 0.5f) * spacing, (k + 0.5f) * spacing});
    return points;
}

std::vector<Vec3> emitterLayer(Vec3 center, Vec3 direction, float radius, float spacing) {
    std::vector<Vec3> points;
    const Vec3 n = normalized(direction);
    if (spacing <= 0.f || lengthSquared(n) == 0.f) return points;
    // Orthonormal basis (u, v) of the emitter plane.
    const Vec3 helper = std::fabs(n.x) < 0.9f ? Vec3{1.f, 0.f, 0.f} : Vec3{0.f, 1.f, 0.f};
    const Vec3 u = normalized(cross(n, helper));
    const Vec3 v = cross(n, u);
    const int m = checkedCount(double(radius) / spacing, "emitterLayer");
    for (int j = -m; j <= m; ++j)
        for (int i = -m; i <= m; ++i) {
            const float a = i * spacing, b = j * spacing;
            if (a * a + b * b <= radius * radius) points.push_back(center + u * a + v * b);
        }
    return points;
}

float latticeDensity(float spacing, float kernelRadius, float mass) {
    const SphKernels k = SphKernels::forRadius(kernelRadius);
    const int m = checkedCount(std::ceil(double(kernelRadius) / spacing), "latticeDensity");
    double sum = 0.0;
    for (int z = -m; z <= m; ++z)
        for (int y = -m; y <= m; ++y)
            for (int x = -m; x <= m; ++x) {
                const float r2 = (float(x * x + y * y + z * z)) * spacing * spacing;
                sum += k.poly6W(r2);
            }
    return float(sum * mass);
}

} // namespace atrium::sph
