#include "sim/heart/HeartSimulation.h"

#include "sim/sph/WallDistanceField.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
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

    solver_ = std::make_unique<sph::Solver>(std::move(scene), settings_.backend, wallM_, &velocityM_);
    // A lattice cut by curved walls starts a few per cent off its rest density; let
    // it settle (about ten sound crossings of the heart) before anything moves.
    if (settings_.fill == HeartSimulationSettings::Fill::Seeded) solver_->relax(settings_.relaxationSteps);
    filling_ = fillEnd > 0.0;
    beatStart_ = fillEnd;
    currentFrame_ = 0;
}

double HeartSimulation::heartTime() const { return filling_ ? 0.0 : solver_->time() - beatStart_; }

double HeartSimulation::beats() const { return heartTime() / cycleSeconds_; }

void HeartSimulation::updateWall(double cycleFraction) {
    const auto t0 = std::chrono::steady_clock::now();
    heart_.sample(cycleFraction, cycleSeconds_, wallMm_, velocityMm_);
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
        // The wall moves once per sub-frame of the cycle, to the sub-frame's pose.
        const double cycles = (solver_->time() - beatStart_) / cycleSeconds_;
        const int frames = heart_.frameCount();
        const int frame = int(std::floor(cycles * frames)) % frames;
        if (frame != currentFrame_) {
            currentFrame_ = frame;
            updateWall(double(frame) / frames);
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
