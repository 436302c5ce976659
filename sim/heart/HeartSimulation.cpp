#include "sim/heart/HeartSimulation.h"

#include "sim/sph/WallDistanceField.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <span>
#include <stdexcept>

namespace atrium::heart {
namespace {

constexpr float kMm = 1e-3f; // mm -> m

sph::Vec3 toMetres(sph::Vec3 v) { return v * kMm; }

/// Bounds (mm) of the heart over every sub-frame of the cycle.
sph::Aabb cycleBounds(const MovingHeartMesh& heart) {
    sph::Aabb b{{1e30f, 1e30f, 1e30f}, {-1e30f, -1e30f, -1e30f}};
    std::vector<sph::Vec3> v;
    for (int f = 0; f < heart.frameCount(); ++f) {
        heart.verticesAt(f, v);
        for (const sph::Vec3& p : v) {
            b.lo = componentMin(b.lo, p);
            b.hi = componentMax(b.hi, p);
        }
    }
    return b;
}

} // namespace

HeartAnatomy HeartAnatomy::fromPhantom(const HeartPhantom& phantom) {
    HeartAnatomy a;
    a.mitral = phantom.mitralValve(0.0);
    a.aortic = phantom.aorticValve(0.0);
    // Inflow: a disc in the atrium, between its centre and the mitral valve, aimed at
    // the valve (the pulmonary veins' blood arriving towards the ventricle).
    const EllipsoidShape la = phantom.leftAtrium(0.0);
    const sph::Vec3 toValve = a.mitral->center - la.center;
    ValveDisc inflow;
    inflow.center = la.center + toValve * 0.25f;
    inflow.normal = normalized(toValve);
    inflow.radius = 0.5 * std::min({double(la.semiAxes.x), double(la.semiAxes.y), double(la.semiAxes.z)});
    a.inflow = inflow;
    // Outlet: around the aorta's last centreline point (its closed, rounded end).
    const VesselTube aorta = phantom.aorta();
    if (aorta.centerline.size() >= 2) {
        a.outlet = aorta.centerline.back();
        a.outletRadiusMm = 1.5 * aorta.radius;
    }
    return a;
}

HeartSimulation::HeartSimulation(const MovingHeartMesh& heart, double cycleSeconds, HeartAnatomy anatomy,
                                 HeartSimulationSettings settings)
    : heart_(heart), cycleSeconds_(cycleSeconds), anatomy_(std::move(anatomy)), settings_(settings) {
    if (!(cycleSeconds_ > 0.0)) throw std::invalid_argument("heart: cycleSeconds must be > 0");
    if (!(settings_.particleSpacingMm > 0.0)) throw std::invalid_argument("heart: particleSpacingMm must be > 0");
    if (!(settings_.wallTravelPerUpdate >= 0.0))
        throw std::invalid_argument("heart: wallTravelPerUpdate must be >= 0");
    if (settings_.fill == HeartSimulationSettings::Fill::Emitter && !anatomy_.inflow)
        throw std::invalid_argument("heart: filling through an emitter needs an inflow disc in the anatomy");

    const float s = float(settings_.particleSpacingMm) * kMm;
    sph::Scene scene;
    scene.name = "heart";
    sph::SolverParameters& p = scene.parameters;
    p.particleSpacing = s;
    p.kernelRadius = 2.f * s;
    p.referenceDensity = 1060.f; // blood
    p.soundSpeed = float(settings_.soundSpeed);
    p.viscosity = float(settings_.viscosity);
    p.gravity = {}; // the heart's own motion dominates; patients lie in any orientation
    p.maxParticles = settings_.maxParticles;
    p.maxSpeed = 20.f;
    p.wallRestitution = 0.f;
    const sph::Aabb b = cycleBounds(heart_);
    const float pad = 4.f * p.kernelRadius;
    p.domain = sph::Aabb{toMetres(b.lo) - sph::Vec3{pad, pad, pad}, toMetres(b.hi) + sph::Vec3{pad, pad, pad}};
    scene.wall.kind = sph::WallMeshSpec::Kind::External;
    scene.wall.fieldCellSize = s;

    for (const std::optional<ValveDisc>& valve : {anatomy_.mitral, anatomy_.aortic})
        if (valve)
            scene.planes.push_back({toMetres(valve->center), normalized(valve->normal), float(valve->radius) * kMm,
                                    sph::PlaneKind::OneWay, 0.f});
    if (anatomy_.outlet) {
        sph::Outlet o;
        o.shape = sph::OutletShape::Sphere;
        o.center = toMetres(*anatomy_.outlet);
        o.radius = float(anatomy_.outletRadiusMm) * kMm;
        scene.outlets.push_back(o);
    }

    // Heart at its first pose; still (no wall velocity) while filling.
    heart_.sample(0.0, cycleSeconds_, wallMm_, velocityMm_);
    wallM_ = wallMm_;
    for (sph::Vec3& v : wallM_.vertices) v *= kMm;
    velocityM_.assign(wallM_.vertices.size(), sph::Vec3{});

    double fillEnd = 0.0;
    if (anatomy_.inflow) {
        const float radius = float(anatomy_.inflow->radius) * kMm;
        const float area = float(std::numbers::pi) * radius * radius;
        sph::Emitter e;
        e.position = toMetres(anatomy_.inflow->center);
        e.direction = normalized(anatomy_.inflow->normal);
        e.radius = radius;
        if (settings_.fill == HeartSimulationSettings::Fill::Emitter) {
            // Fill at 0.5 m/s for the time the blood pool needs, heart still.
            sph::Emitter fill = e;
            fill.speed = 0.5f;
            const double poolM3 = std::fabs(wallM_.enclosedVolume());
            fillEnd = std::min(settings_.fillSecondsMax, 0.9 * poolM3 / (double(area) * fill.speed));
            fill.end = float(fillEnd);
            scene.emitters.push_back(fill);
        }
        e.speed = float(settings_.inflowMlPerSecond * 1e-6 / area);
        e.start = float(fillEnd);
        if (e.speed > 0.f) scene.emitters.push_back(e);
    }
    if (settings_.fill == HeartSimulationSettings::Fill::Seeded)
        scene.fluidBlocks.push_back({{toMetres(b.lo), toMetres(b.hi)}, {}}); // seeding drops what lies outside
    if (scene.fluidBlocks.empty() && scene.emitters.empty())
        throw std::invalid_argument("heart: no blood: seeded filling or an inflow disc is needed");

    // Continuous switch at half way (see wallAt()): mesh k+1's half-way vertices are
    // snapped onto mesh k's half-way surface.
    const int phases = heart_.phaseCount();
    backwardToSurface_.resize(std::size_t(phases));
    for (int k = 0; k < phases; ++k) {
        const sph::TriangleMesh& a = heart_.phaseMesh(k);
        const std::span<const sph::Vec3> forward = heart_.forwardDisplacement(k);
        std::vector<sph::Vec3> halfA(a.vertices.size());
        for (std::size_t i = 0; i < halfA.size(); ++i) halfA[i] = a.vertices[i] + forward[i];
        const TriangleLocator locator(halfA, a.triangles);
        const sph::TriangleMesh& next = heart_.phaseMesh(k + 1);
        const std::span<const sph::Vec3> backward = heart_.backwardDisplacement(k + 1);
        std::vector<sph::Vec3>& d = backwardToSurface_[std::size_t((k + 1) % phases)];
        d.resize(next.vertices.size());
        for (std::size_t i = 0; i < d.size(); ++i)
            d[i] = locator.closestPoint(next.vertices[i] + backward[i]) - next.vertices[i];
        // The snap turns some triangles over at sharp rims (the valve annuli): slivers
        // of the decimated mesh flip under almost any sideways motion. That is harmless:
        // the wall field takes its inside from crossing parity, not from the normals of
        // the nearest triangles, so it stays a signed distance through such folds. (The
        // snap used to be withdrawn from the corners of turned triangles; that left
        // mesh k+1 up to 1.2 mm off mesh k's surface at the valve rims, a jump of the
        // wall in one step that in early diastole - the switch at phase 0.45, when the
        // ventricle fills fastest - threw rim particles at 13-17 m/s.)
    }
    const double rate = 2.0 * phases / cycleSeconds_; // d factor / dt, see wallAt()
    for (int k = 0; k < phases; ++k) {
        for (const sph::Vec3& d : heart_.forwardDisplacement(k)) maxWallSpeedMmPerS_ = std::max(maxWallSpeedMmPerS_, rate * length(d));
        for (const sph::Vec3& d : backwardToSurface_[std::size_t(k)]) maxWallSpeedMmPerS_ = std::max(maxWallSpeedMmPerS_, rate * length(d));
    }

    solver_ = std::make_unique<sph::Solver>(std::move(scene), settings_.backend, wallM_, &velocityM_);
    // A lattice cut by curved walls starts a few per cent off its rest density; let
    // it settle (about ten sound crossings of the heart) before anything moves.
    if (settings_.fill == HeartSimulationSettings::Fill::Seeded) solver_->relax(settings_.relaxationSteps);
    filling_ = fillEnd > 0.0;
    beatStart_ = fillEnd;
}

double HeartSimulation::heartTime() const { return filling_ ? 0.0 : solver_->time() - beatStart_; }

double HeartSimulation::beats() const { return heartTime() / cycleSeconds_; }

void HeartSimulation::wallAt(double cycleFraction, sph::TriangleMesh& meshMm,
                             std::vector<sph::Vec3>& velocityMmPerS) const {
    // MovingHeartMesh::sample's rule (MeshInterpolation.h, step 5) - mesh k moves to its
    // half-way position in the first half of interval k, mesh k+1 comes from its own
    // half-way position in the second - except that mesh k+1 starts on mesh k's
    // half-way surface: its backward displacement includes the snap onto that surface,
    // which it then undoes over the half interval. The half-way mismatch (up to ~2 mm
    // at the aortic rim of the phantom) would otherwise be crossed in a single solver
    // step, a wall speed of tens of m/s that throws the blood it sweeps onto its
    // neighbours; spread over half a phase interval it is a few cm/s. Both phase meshes
    // are still reached exactly.
    double t = cycleFraction - std::floor(cycleFraction);
    if (t >= 1.0) t = 0.0;
    const int P = heart_.phaseCount();
    const double u = t * P;
    const int k = std::min(int(u), P - 1);
    const double s = std::clamp(u - k, 0.0, 1.0);
    const bool forward = s < 0.5;
    const int m = forward ? k : (k + 1) % P;
    const sph::TriangleMesh& src = heart_.phaseMesh(m);
    const std::span<const sph::Vec3> d =
        forward ? heart_.forwardDisplacement(m) : std::span<const sph::Vec3>(backwardToSurface_[std::size_t(m)]);
    const float factor = float(forward ? s / 0.5 : (1.0 - s) / 0.5);
    const float rate = float((forward ? 2.0 : -2.0) * P / cycleSeconds_); // d factor / dt
    meshMm.triangles = src.triangles;
    meshMm.vertices.resize(src.vertices.size());
    velocityMmPerS.resize(src.vertices.size());
    for (std::size_t i = 0; i < src.vertices.size(); ++i) {
        meshMm.vertices[i] = src.vertices[i] + d[i] * factor;
        velocityMmPerS[i] = d[i] * rate;
    }
}

void HeartSimulation::updateWall(double cycleFraction) {
    const auto t0 = std::chrono::steady_clock::now();
    wallAt(cycleFraction, wallMm_, velocityMm_);
    wallM_.triangles = wallMm_.triangles; // reuses capacity
    wallM_.vertices.resize(wallMm_.vertices.size());
    velocityM_.resize(velocityMm_.size());
    for (std::size_t i = 0; i < wallMm_.vertices.size(); ++i) {
        wallM_.vertices[i] = wallMm_.vertices[i] * kMm;
        velocityM_[i] = filling_ ? sph::Vec3{} : velocityMm_[i] * kMm; // mm/s -> m/s
    }
    solver_->setWallMesh(wallM_, &velocityM_);
    meshUpdateMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ++meshUpdates_;
}

void HeartSimulation::step() {
    if (filling_ && solver_->time() >= beatStart_) filling_ = false;
    if (!filling_) {
        // The wall follows the blood's clock, re-posed whenever it may have moved
        // wallTravelPerUpdate spacings (a few solver steps). Re-posing it once per
        // sub-frame instead (~0.5 mm, a quarter spacing, every ~50 steps) shoves the
        // layer of blood against it by that much in one step: a pressure pulse of tens
        // of kPa at every sub-frame, which at the start of ejection shook the ventricle
        // up to several m/s and blew the simulation up.
        const double interval = std::min(
            cycleSeconds_ / heart_.frameCount(),
            settings_.wallTravelPerUpdate * settings_.particleSpacingMm / std::max(maxWallSpeedMmPerS_, 1e-9));
        const double now = solver_->time();
        if (lastWallUpdate_ < 0.0 || now - lastWallUpdate_ >= interval) {
            lastWallUpdate_ = now;
            const double cycles = (now - beatStart_) / cycleSeconds_;
            updateWall(cycles - std::floor(cycles));
        }
    }
    solver_->step();
}

void HeartSimulation::runBeats(double beatCount, const std::function<void(double)>& progress) {
    while (filling_) {
        step();
        if (progress) progress(0.0);
    }
    const double target = beats() + beatCount;
    const double start = beats();
    while (beats() < target) {
        step();
        if (progress) progress((beats() - start) / beatCount);
    }
}

double ventricleVolumeMl(const sph::TriangleMesh& meshMm, const HeartAnatomy& anatomy) {
    // Sample the mesh's signed distance on a fine grid and count the inside points on
    // the ventricle's side of both valve planes: exact to a fraction of the grid step.
    const sph::Aabb b = meshMm.bounds();
    const float step = 0.5f;
    sph::WallDistanceField field;
    sph::WallDistanceField::Settings settings;
    settings.cellSize = 1.f;
    field.build(meshMm, nullptr, settings);
    const auto ventricleSide = [&](sph::Vec3 p) {
        if (anatomy.mitral && dot(p - anatomy.mitral->center, anatomy.mitral->normal) < 0.f) return false;
        if (anatomy.aortic && dot(p - anatomy.aortic->center, anatomy.aortic->normal) > 0.f) return false;
        return true;
    };
    std::size_t inside = 0;
    for (float z = b.lo.z + 0.5f * step; z < b.hi.z; z += step)
        for (float y = b.lo.y + 0.5f * step; y < b.hi.y; y += step)
            for (float x = b.lo.x + 0.5f * step; x < b.hi.x; x += step) {
                const sph::Vec3 p{x, y, z};
                if (ventricleSide(p) && field.signedDistance(p) < 0.f) ++inside;
            }
    return double(inside) * step * step * step * 1e-3; // mm^3 -> ml
}

} // namespace atrium::heart
