// Value checks of a scene in memory (validateScene, SceneFile.h): physical ranges, the
// grid and memory limits, and where things may be; messages name the field by its
// path in the file format (docs/scene-format.md).

#include "sim/sph/SceneFile.h"

#include "io/MemoryBudget.h"
#include "sim/sph/GridLimits.h"
#include "sim/sph/SceneFileText.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <string>

namespace atrium::sph {

namespace {

using namespace scene_file;

class Validator {
public:
    explicit Validator(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw SceneError(source_, path.empty() ? "/" : path, problem);
    }

    void finite(const std::string& path, float v) const {
        if (!std::isfinite(v)) fail(path, "must be a finite number (got " + formatNumber(v) + ")");
    }
    void finite(const std::string& path, Vec3 v) const {
        for (int a = 0; a < 3; ++a) finite(child(path, std::size_t(a)), v[a]);
    }
    void positive(const std::string& path, float v) const {
        finite(path, v);
        if (!(v > 0.f)) fail(path, "must be > 0 (got " + formatNumber(v) + ")");
    }
    void nonNegative(const std::string& path, float v) const {
        finite(path, v);
        if (!(v >= 0.f)) fail(path, "must be >= 0 (got " + formatNumber(v) + ")");
    }
    /// v <= limit; `unit` follows the limit in the message.
    void atMost(const std::string& path, double v, double limit, const std::string& unit) const {
        if (!(v <= limit))
            fail(path, "must be at most " + formatNumber(limit) + " " + unit + " (got " + formatNumber(v) + ")");
    }
    void within(const std::string& path, double v, double lo, double hi, const std::string& unit) const {
        if (!(v >= lo && v <= hi))
            fail(path, "must be within " + formatNumber(lo) + " to " + formatNumber(hi) + " " + unit + " (got " +
                           formatNumber(v) + ")");
    }
    void unitInterval(const std::string& path, float v) const {
        finite(path, v);
        if (!(v >= 0.f && v <= 1.f)) fail(path, "must be in [0, 1] (got " + formatNumber(v) + ")");
    }
    void box(const std::string& path, const Aabb& b) const {
        finite(child(path, "min"), b.lo);
        finite(child(path, "max"), b.hi);
        static constexpr const char* axis[3] = {"x", "y", "z"};
        for (int a = 0; a < 3; ++a) {
            if (!(b.lo[a] < b.hi[a]))
                fail(child(path, "max"), std::string("must be greater than min on every axis (") + axis[a] + ": max " +
                                             formatNumber(b.hi[a]) + " <= min " + formatNumber(b.lo[a]) + ")");
        }
    }
    /// Checks a direction is not zero and makes it unit length. Vectors already unit
    /// length (to float precision) are left untouched so that normalising is idempotent.
    void direction(const std::string& path, Vec3& v) const {
        finite(path, v);
        const double x = v.x, y = v.y, z = v.z;
        const double len = std::sqrt(x * x + y * y + z * z);
        if (!(len > 0.0)) fail(path, "must not be the zero vector");
        if (std::fabs(len - 1.0) > 1e-6) {
            const Vec3 n{float(x / len), float(y / len), float(z / len)};
            if (lengthSquared(n) == 0.f) fail(path, "must not be the zero vector");
            v = n;
        }
    }

private:
    const std::string& source_;
};

/// Bounds of the analytic wall at its largest.
Aabb wallBounds(const WallMeshSpec& w) {
    const float r = w.radius * (1.f + std::fabs(w.pulseAmplitude));
    return {w.center - Vec3{r, r, r}, w.center + Vec3{r, r, r}};
}

/// An emitter's disc must lie where particles can be: inside the container, else the
/// wall sphere, else the domain. (A disc larger than its box emitted nothing, silently.)
void emitterFits(const Validator& v, const std::string& path, const Emitter& e, const Scene& scene) {
    const SolverParameters& p = scene.parameters;
    const Vec3 d = normalized(e.direction);
    std::optional<Aabb> box = scene.container ? std::optional<Aabb>(scene.container->bounds) : p.domain;
    if (scene.container || p.domain || scene.wall.kind != WallMeshSpec::Kind::Sphere) {
        if (!box) return;
        static constexpr const char* axis[3] = {"x", "y", "z"};
        for (int a = 0; a < 3; ++a) {
            // Half the disc's extent along axis a.
            const double half = double(e.radius) * std::sqrt(std::max(0.0, 1.0 - double(d[a]) * d[a]));
            const double lo = double(e.position[a]) - half, hi = double(e.position[a]) + half;
            if (lo < double(box->lo[a]) - 1e-6 * half || hi > double(box->hi[a]) + 1e-6 * half)
                v.fail(path + "/radius", "the emitter's disc (radius " + formatNumber(e.radius) + " m) reaches outside the " +
                                             (scene.container ? "container" : "domain") + " along " + axis[a] + " (" +
                                             formatNumber(float(lo)) + " to " + formatNumber(float(hi)) + " m, the " +
                                             (scene.container ? "container" : "domain") + " spans " +
                                             formatNumber(box->lo[a]) + " to " + formatNumber(box->hi[a]) + " m)");
        }
        return;
    }
    const WallMeshSpec& w = scene.wall;
    const double reach = double(length(e.position - w.center)) + double(e.radius);
    if (!(reach <= double(w.radius)))
        v.fail(path + "/radius", "the emitter's disc (radius " + formatNumber(e.radius) + " m at " +
                                     formatNumber(length(e.position - w.center)) + " m from the centre) reaches outside the wall sphere (radius " +
                                     formatNumber(w.radius) + " m)");
}

} // namespace

void validateScene(Scene& scene, const std::string& sourceName) {
    const Validator v(sourceName);
    SolverParameters& p = scene.parameters;
    const std::string pp = "/parameters";
    v.positive(pp + "/particleSpacing", p.particleSpacing);
    v.positive(pp + "/kernelRadius", p.kernelRadius);
    if (p.kernelRadius < p.particleSpacing)
        v.fail(pp + "/kernelRadius", "must be >= particleSpacing " + formatNumber(p.particleSpacing) + " (got " +
                                         formatNumber(p.kernelRadius) + ")");
    v.positive(pp + "/referenceDensity", p.referenceDensity);
    if (p.restDensity) v.positive(pp + "/restDensity", *p.restDensity);
    if (p.restDensitySource != SolverParameters::RestDensitySource::Bulk &&
        p.restDensitySource != SolverParameters::RestDensitySource::All)
        v.fail(pp + "/restDensitySource", "unknown rest density source " + std::to_string(int(p.restDensitySource)));
    if (p.restDensity && p.restDensitySource != SolverParameters::RestDensitySource::Bulk)
        v.fail(pp + "/restDensitySource", "only used when \"restDensity\" is not given");
    v.positive(pp + "/soundSpeed", p.soundSpeed);
    if (p.wallPressure != WallPressure::DensityMap && p.wallPressure != WallPressure::Mirrored)
        v.fail(pp + "/wallPressure", "unknown wall pressure model " + std::to_string(int(p.wallPressure)));
    if (p.linearStiffness) {
        v.positive(pp + "/linearStiffness", *p.linearStiffness);
        if (p.equationOfState != EquationOfState::Linear)
            v.fail(pp + "/linearStiffness", "only used with \"equationOfState\": \"linear\"");
    }
    v.positive(pp + "/maxPressure", p.maxPressure);
    if (p.maxTension) {
        v.positive(pp + "/maxTension", *p.maxTension);
        if (p.clampNegativePressure)
            v.fail(pp + "/maxTension", "only used with \"clampNegativePressure\": false");
    }
    v.nonNegative(pp + "/viscosity", p.viscosity);
    v.nonNegative(pp + "/artificialViscosity", p.artificialViscosity);
    v.finite(pp + "/gravity", p.gravity);
    // Physical ranges: outside them the time step collapses (the clock stops) or the
    // work per step grows without bound.
    if (!(double(p.kernelRadius) <= kMaxKernelSpacings * double(p.particleSpacing) * (1.0 + 1e-6)))
        v.fail(pp + "/kernelRadius", "must be at most " + formatNumber(kMaxKernelSpacings) + " x particleSpacing " +
                                         formatNumber(p.particleSpacing) + " m (got " + formatNumber(p.kernelRadius) +
                                         " m; every particle would have thousands of neighbours)");
    v.within(pp + "/referenceDensity", p.referenceDensity, kMinDensity, kMaxDensity, "kg/m^3");
    if (p.restDensity) v.within(pp + "/restDensity", *p.restDensity, kMinDensity, kMaxDensity, "kg/m^3");
    v.atMost(pp + "/soundSpeed", p.soundSpeed, kMaxSoundSpeed, "m/s");
    v.atMost(pp + "/viscosity", p.viscosity, kMaxViscosity, "Pa s");
    v.atMost(pp + "/gravity", length(p.gravity), kMaxGravity, "m/s^2 (100 g) in magnitude");
    v.finite(pp + "/cflNumber", p.cflNumber);
    if (!(p.cflNumber > 0.f && p.cflNumber <= 1.f))
        v.fail(pp + "/cflNumber", "must be in (0, 1] (got " + formatNumber(p.cflNumber) + ")");
    v.positive(pp + "/maxTimeStep", p.maxTimeStep);
    v.positive(pp + "/frameRate", p.frameRate);
    if (p.substepsPerFrame < 1 || p.substepsPerFrame > kMaxSubsteps)
        v.fail(pp + "/substepsPerFrame", "must be in [1, " + std::to_string(kMaxSubsteps) + "] (got " +
                                             std::to_string(p.substepsPerFrame) + ")");
    v.positive(pp + "/maxSpeed", p.maxSpeed);
    v.nonNegative(pp + "/wallMargin", p.wallMargin);
    v.unitInterval(pp + "/wallRestitution", p.wallRestitution);
    if (p.maxParticles < 1 || std::uint64_t(p.maxParticles) > std::uint64_t(kMaxParticleLimit))
        v.fail(pp + "/maxParticles", "must be in [1, " + std::to_string(kMaxParticleLimit) + "] (got " +
                                         std::to_string(p.maxParticles) + ")");
    if (p.domain) v.box(pp + "/domain", *p.domain);
    if (p.pressureSolver != PressureSolver::WeaklyCompressible && p.pressureSolver != PressureSolver::DivergenceFree)
        v.fail(pp + "/pressureSolver", "unknown pressure solver " + std::to_string(int(p.pressureSolver)));
    if (!(p.maxDensityError > 0.f && p.maxDensityError <= 0.1f))
        v.fail(pp + "/maxDensityError", "must be in (0, 0.1] (got " + formatNumber(p.maxDensityError) + ")");
    if (!(p.maxDivergenceError > 0.f && p.maxDivergenceError <= 0.1f))
        v.fail(pp + "/maxDivergenceError", "must be in (0, 0.1] (got " + formatNumber(p.maxDivergenceError) + ")");
    if (p.maxSolverIterations < 1 || p.maxSolverIterations > 10000)
        v.fail(pp + "/maxSolverIterations", "must be in [1, 10000] (got " + std::to_string(p.maxSolverIterations) + ")");
    if (p.pressureSolver == PressureSolver::DivergenceFree && p.wallPressure == WallPressure::Mirrored)
        v.fail(pp + "/pressureSolver", "\"divergenceFree\" solves the walls' pressure on density-map walls; "
                                       "\"wallPressure\": \"mirrored\" belongs to the weakly compressible solver");
    if (p.pressureSolver == PressureSolver::DivergenceFree && !scene.openBoundaries.empty())
        v.fail(pp + "/pressureSolver", "\"divergenceFree\" does not take open boundaries yet (their buffers carry "
                                       "the equation of state's pressure); use \"weaklyCompressible\"");

    if (scene.container) {
        v.box("/container", scene.container->bounds);
        v.unitInterval("/container/restitution", scene.container->restitution);
    }

    WallMeshSpec& w = scene.wall;
    if (w.kind == WallMeshSpec::Kind::Sphere) {
        v.finite("/wall/center", w.center);
        v.positive("/wall/radius", w.radius);
        if (w.subdivisions < 0 || w.subdivisions > kMaxSubdivisions)
            v.fail("/wall/subdivisions", "must be in [0, " + std::to_string(kMaxSubdivisions) + "] (got " +
                                             std::to_string(w.subdivisions) + ")");
        v.finite("/wall/pulseAmplitude", w.pulseAmplitude);
        if (!(w.pulseAmplitude >= 0.f && w.pulseAmplitude < 1.f))
            v.fail("/wall/pulseAmplitude", "must be in [0, 1) (got " + formatNumber(w.pulseAmplitude) + ")");
        v.positive("/wall/pulsePeriod", w.pulsePeriod);
        v.nonNegative("/wall/fieldCellSize", w.fieldCellSize);
        const double cell = w.fieldCellSize > 0.f ? w.fieldCellSize : p.particleSpacing;
        const double cells = gridCellCount(wallBounds(w), cell);
        if (cells > kMaxFieldCells)
            v.fail(w.fieldCellSize > 0.f ? "/wall/fieldCellSize" : "/parameters/particleSpacing",
                   "too small for the wall: its distance field would need about " + formatNumber(std::round(cells)) +
                       " cells (limit " + formatNumber(kMaxFieldCells) + ")");
    }

    for (std::size_t i = 0; i < scene.emitters.size(); ++i) {
        const std::string path = child("/emitters", i);
        Emitter& e = scene.emitters[i];
        v.finite(path + "/position", e.position);
        v.direction(path + "/direction", e.direction);
        v.positive(path + "/radius", e.radius);
        v.positive(path + "/speed", e.speed);
        v.nonNegative(path + "/rate", e.rate);
        v.nonNegative(path + "/start", e.start);
        v.finite(path + "/end", e.end);
        if (e.end < e.start)
            v.fail(path + "/end", "must be >= start " + formatNumber(e.start) + " (got " + formatNumber(e.end) + ")");
        if (scene.container && !scene.container->bounds.contains(e.position))
            v.fail(path + "/position", "the emitter is outside the container");
        // Layers leave every particleSpacing / speed seconds; faster than sound is no
        // weakly compressible flow (and would add thousands of layers a step).
        if (!(e.speed < p.soundSpeed))
            v.fail(path + "/speed", "must be below parameters.soundSpeed " + formatNumber(p.soundSpeed) +
                                        " m/s (got " + formatNumber(e.speed) +
                                        " m/s; weakly compressible SPH wants about a tenth of it)");
        emitterFits(v, path, e, scene);
    }

    // The neighbour grid over everything the solver covers (GridLimits.h: the same box and
    // limit the solver uses).
    {
        const Aabb bounds = sceneGridBounds(scene);
        const double cells = gridCellCount(bounds, p.kernelRadius);
        // (Non-finite positions are reported below, naming their field.)
        if (std::isfinite(cells) && cells > kMaxGridCells) {
            const Vec3 size = bounds.size();
            v.fail(pp + "/kernelRadius", "too small for the scene's extent (" + formatNumber(size.x) + " x " +
                                             formatNumber(size.y) + " x " + formatNumber(size.z) +
                                             " m): the neighbour grid would need about " + formatNumber(std::round(cells)) +
                                             " cells (limit " + formatNumber(kMaxGridCells) +
                                             "); raise kernelRadius (with particleSpacing) or set a smaller " +
                                             (p.domain ? "parameters.domain" : "container"));
        }
    }
    double seeded = 0.0;
    for (std::size_t i = 0; i < scene.fluidBlocks.size(); ++i) {
        const std::string path = child("/fluidBlocks", i);
        FluidBlock& b = scene.fluidBlocks[i];
        v.box(path, b.bounds);
        v.finite(path + "/velocity", b.velocity);
        if (scene.container) {
            const Aabb& c = scene.container->bounds;
            const double tol = 1e-6 * std::max({double(c.hi.x) - c.lo.x, double(c.hi.y) - c.lo.y, double(c.hi.z) - c.lo.z});
            static constexpr const char* axis[3] = {"x", "y", "z"};
            for (int a = 0; a < 3; ++a) {
                if (double(b.bounds.lo[a]) < double(c.lo[a]) - tol)
                    v.fail(path + "/min", std::string("the fluid block is not inside the container (") + axis[a] + ": min " +
                                              formatNumber(b.bounds.lo[a]) + " < container min " + formatNumber(c.lo[a]) + ")");
                if (double(b.bounds.hi[a]) > double(c.hi[a]) + tol)
                    v.fail(path + "/max", std::string("the fluid block is not inside the container (") + axis[a] + ": max " +
                                              formatNumber(b.bounds.hi[a]) + " > container max " + formatNumber(c.hi[a]) + ")");
            }
        } else if (w.kind == WallMeshSpec::Kind::Sphere) {
            // Seeding keeps only the particles inside the wall: the block must reach in.
            double d2 = 0.0;
            for (int a = 0; a < 3; ++a) {
                const double c = w.center[a];
                const double q = std::clamp(c, double(b.bounds.lo[a]), double(b.bounds.hi[a]));
                d2 += (q - c) * (q - c);
            }
            if (std::sqrt(d2) >= double(w.radius))
                v.fail(path, "the fluid block lies entirely outside the wall sphere");
        }
        // Lattice points per axis as Seeding.cpp counts them (floor with a round-off margin).
        double n = 1.0;
        for (int a = 0; a < 3; ++a) {
            static constexpr const char* axis[3] = {"x", "y", "z"};
            const double extent = double(b.bounds.hi[a]) - double(b.bounds.lo[a]);
            const double perAxis = std::floor(extent / double(p.particleSpacing) + 1e-4);
            if (perAxis < 1.0)
                v.fail(path + "/max", std::string("the fluid block is thinner than particleSpacing ") +
                                          formatNumber(p.particleSpacing) + " along " + axis[a] + " (" +
                                          formatNumber(extent) + "): it would hold no particle");
            n *= perAxis;
        }
        seeded += n;
        if (seeded > double(p.maxParticles))
            v.fail(path, "the fluid blocks would seed about " + formatNumber(std::round(seeded)) +
                             " particles at particleSpacing " + formatNumber(p.particleSpacing) +
                             ", more than maxParticles (" + std::to_string(p.maxParticles) + ")");
    }

    // Memory: the seeded particles, and as many as emitters may add.
    if (!io::fitsMemoryBudget(seeded * kBytesPerParticle))
        v.fail("/fluidBlocks", "the fluid blocks would seed about " + formatNumber(std::round(seeded)) +
                                   " particles, which " + io::overBudgetText(seeded * kBytesPerParticle) +
                                   "; raise particleSpacing");
    if (!scene.emitters.empty() && !io::fitsMemoryBudget(double(p.maxParticles) * kBytesPerParticle))
        v.fail(pp + "/maxParticles", "emitters may add particles up to maxParticles " + std::to_string(p.maxParticles) +
                                         ", which " + io::overBudgetText(double(p.maxParticles) * kBytesPerParticle));

    for (std::size_t i = 0; i < scene.outlets.size(); ++i) {
        const std::string path = child("/outlets", i);
        const Outlet& o = scene.outlets[i];
        if (o.shape == OutletShape::Sphere) {
            v.finite(path + "/center", o.center);
            v.positive(path + "/radius", o.radius);
        } else if (o.shape == OutletShape::Box) {
            v.box(path, o.bounds);
        } else {
            v.fail(path + "/type", "unknown outlet shape " + std::to_string(int(o.shape)));
        }
    }

    if (scene.openBoundaries.size() > std::size_t(kMaxOpenBoundaries))
        v.fail("/openBoundaries", "at most " + std::to_string(kMaxOpenBoundaries) + " open boundaries (got " +
                                      std::to_string(scene.openBoundaries.size()) + ")");
    for (std::size_t i = 0; i < scene.openBoundaries.size(); ++i) {
        const std::string path = child("/openBoundaries", i);
        OpenBoundary& b = scene.openBoundaries[i];
        v.finite(path + "/center", b.center);
        v.direction(path + "/normal", b.normal);
        if (b.shape == OpenBoundaryShape::Disc) {
            v.positive(path + "/radius", b.radius);
        } else if (b.shape == OpenBoundaryShape::Rectangle) {
            v.direction(path + "/axis", b.axis);
            if (std::fabs(dot(b.axis, b.normal)) > 0.999f)
                v.fail(path + "/axis", "must not be parallel to the normal (it spans the rectangle with it)");
            v.positive(path + "/halfWidth", b.halfWidth);
            v.positive(path + "/halfHeight", b.halfHeight);
        } else {
            v.fail(path + "/shape", "unknown open boundary shape " + std::to_string(int(b.shape)));
        }
        v.nonNegative(path + "/depth", b.depth);
        if (b.depth != 0.f && b.depth < p.kernelRadius)
            v.fail(path + "/depth", "must be 0 (one kernel radius) or at least kernelRadius " +
                                        formatNumber(p.kernelRadius) + " (got " + formatNumber(b.depth) +
                                        "): a fluid particle beside the plane needs a full neighbourhood");
        v.atMost(path + "/depth", b.depth, 100.0 * double(p.kernelRadius), "m (100 kernel radii)");
        v.finite(path + "/pressure", b.pressure);
        v.within(path + "/pressure", b.pressure, -double(p.maxPressure), double(p.maxPressure),
                 "Pa (parameters.maxPressure)");
        if (b.velocity == OpenBoundaryVelocity::Prescribed) {
            v.finite(path + "/velocity", b.inflowSpeed);
            v.within(path + "/velocity", b.inflowSpeed, -0.5 * double(p.soundSpeed), 0.5 * double(p.soundSpeed),
                     "m/s (half the soundSpeed)");
        }
        if (scene.container && !scene.container->bounds.contains(b.center))
            v.fail(path + "/center", "the open boundary's centre is not inside the container");
    }

    for (std::size_t i = 0; i < scene.planes.size(); ++i) {
        const std::string path = child("/planes", i);
        BoundaryPlane& pl = scene.planes[i];
        v.finite(path + "/point", pl.point);
        v.direction(path + "/normal", pl.normal);
        v.nonNegative(path + "/radius", pl.radius);
        if (pl.kind != PlaneKind::TwoSided && pl.kind != PlaneKind::OneWay && pl.kind != PlaneKind::Closed)
            v.fail(path + "/type", "unknown plane type " + std::to_string(int(pl.kind)));
        v.unitInterval(path + "/restitution", pl.restitution);
        v.nonNegative(path + "/hole/radius", pl.holeRadius);
        v.finite(path + "/hole/speed", pl.holeSpeed);
        v.nonNegative(path + "/hole/depth", pl.holeDepth);
        v.nonNegative(path + "/hole/convergence", pl.holeConvergence);
    }

    if (scene.fluidBlocks.empty() && scene.emitters.empty())
        v.fail("/fluidBlocks", "the scene has no fluid: add a fluid block (\"fluidBlocks\") or an emitter (\"emitters\")");
    if (!scene.container && w.kind == WallMeshSpec::Kind::None)
        v.fail("/container", "the scene has neither a container nor a wall, so the particles would fall forever: "
                             "add \"container\" or \"wall\"");
}

} // namespace atrium::sph
