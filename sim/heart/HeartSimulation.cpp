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
                                 HeartSimulationSettings settings, const std::function<bool(double)>& preparing)
    : heart_(heart), cycleSeconds_(cycleSeconds), anatomy_(std::move(anatomy)), settings_(settings) {
    if (!(cycleSeconds_ > 0.0)) throw std::invalid_argument("heart: cycleSeconds must be > 0");
    if (!(settings_.particleSpacingMm > 0.0)) throw std::invalid_argument("heart: particleSpacingMm must be > 0");
    if (!(settings_.wallTravelPerUpdate > 0.0))
        throw std::invalid_argument("heart: wallTravelPerUpdate must be > 0");
    if (!(settings_.wallPoseCacheMiB >= 0.0))
        throw std::invalid_argument("heart: wallPoseCacheMiB must be >= 0");
    if (!(settings_.inflowSpeed >= 0.0) || !std::isfinite(settings_.inflowSpeed))
        throw std::invalid_argument("heart: inflowSpeed must be finite and >= 0");
    if (!(settings_.diastolicSuctionPa >= 0.0) || !std::isfinite(settings_.diastolicSuctionPa))
        throw std::invalid_argument("heart: diastolicSuctionPa must be finite and >= 0");
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
    // No tension while the blood is relaxed or filled (it would pull the seeded lattice
    // together); from the beat on, see startBeat().
    p.clampNegativePressure = true;
    p.wallRestitution = 0.f;
    const sph::Aabb b = cycleBounds(heart_);
    const float pad = 4.f * p.kernelRadius;
    p.domain = sph::Aabb{toMetres(b.lo) - sph::Vec3{pad, pad, pad}, toMetres(b.hi) + sph::Vec3{pad, pad, pad}};
    scene.wall.kind = sph::WallMeshSpec::Kind::External;
    scene.wall.fieldCellSize = s;

    // Valves start open (one-way): the fill and the still heart before the beat need
    // both; updateValves() opens and closes them with the beat.
    const auto addValve = [&](const std::optional<ValveDisc>& valve, std::optional<std::size_t>& index) {
        if (!valve) return;
        index = scene.planes.size();
        scene.planes.push_back({toMetres(valve->center), normalized(valve->normal), float(valve->radius) * kMm,
                                sph::PlaneKind::OneWay, 0.f});
    };
    addValve(anatomy_.mitral, mitralPlane_);
    addValve(anatomy_.aortic, aorticPlane_);
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
        e.start = float(fillEnd);
        e.speed = float(settings_.inflowSpeed); // the venous reservoir, see the settings
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
    // The velocity of mesh k at phase k, shared by its backward and forward halves (see
    // wallAt()): the central difference (F - B) / 2 of its two half displacements,
    // limited like a monotone cubic (Fritsch & Carlson 1980) so that the wall does not
    // overshoot a phase: zero where the vertex turns back or stops (end systole, end
    // diastole), at most 3x the slower half's mean velocity elsewhere.
    phaseTangent_.resize(std::size_t(phases));
    const double rate = 2.0 * phases / cycleSeconds_; // d sigma / dt, see wallAt()
    for (int k = 0; k < phases; ++k) {
        const std::span<const sph::Vec3> F = heart_.forwardDisplacement(k);
        const std::vector<sph::Vec3>& B = backwardToSurface_[std::size_t(k)];
        std::vector<sph::Vec3>& m = phaseTangent_[std::size_t(k)];
        m.resize(F.size());
        for (std::size_t i = 0; i < F.size(); ++i) {
            const float fLen = length(F[i]), bLen = length(B[i]);
            if (dot(F[i], -B[i]) <= 0.f || fLen == 0.f || bLen == 0.f) {
                m[i] = {};
            } else {
                m[i] = (F[i] - B[i]) * 0.5f;
                const float limit = 3.f * std::min(fLen, bLen), len = length(m[i]);
                if (len > limit) m[i] *= limit / len;
            }
            // The wall's top speed: the half displacements' mean speed here, the
            // Hermite peaks from the poses sampled in sampleVolumeRates().
            maxWallSpeedMmPerS_ = std::max(maxWallSpeedMmPerS_, rate * std::max(fLen, bLen));
        }
    }
    sampleVolumeRates();
    // Poses evenly spaced in the cycle, so that the fastest point of the wall travels
    // at most wallTravelPerUpdate spacings from one to the next; at least one per phase.
    const double travel = settings_.wallTravelPerUpdate * settings_.particleSpacingMm;
    posesPerCycle_ = int(std::clamp(std::ceil(cycleSeconds_ * maxWallSpeedMmPerS_ / travel), double(phases), 1e6));
    keptPoses_.resize(std::size_t(posesPerCycle_));

    solver_ = std::make_unique<sph::Solver>(std::move(scene), settings_.backend, wallM_, &velocityM_);
    // A lattice cut by curved walls starts a few per cent off its rest density; let
    // it settle (about ten sound crossings of the heart) before anything moves.
    if (settings_.fill == HeartSimulationSettings::Fill::Seeded && !solver_->relax(settings_.relaxationSteps, preparing))
        throw PreparationCancelled();
    filling_ = fillEnd > 0.0;
    beatStart_ = fillEnd;
    if (!filling_) startBeat();
}

void HeartSimulation::startBeat() {
    filling_ = false;
    if (settings_.diastolicSuctionPa > 0.0) solver_->setMaxTension(float(settings_.diastolicSuctionPa));
    suction_ = settings_.diastolicSuctionPa > 0.0;
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
    //
    // In time, each half is a cubic Hermite segment instead of a straight line: with
    // sigma in [-1, 1] half intervals around phase m and D the half displacement on
    // that side (F ahead, B behind), the vertex sits at x_m + D * h(|sigma|) + T * g,
    // where T is the vertex's velocity at the phase (phaseTangent_), shared by both
    // sides. The wall's velocity is then continuous through every phase, where the
    // straight lines jumped - by 10x at phase 0.1 of the phantom, the onset of
    // ejection (50 -> 540 ml/s of LV volume), which blew c0 = 20-25 m/s runs up - and
    // at the half-way switch it is, as before, the half displacement's mean velocity.
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
    const std::vector<sph::Vec3>& tangent = phaseTangent_[std::size_t(m)];
    // a: distance from phase m in half intervals (0 at the phase, 1 half way).
    const double a = forward ? s / 0.5 : (1.0 - s) / 0.5;
    const double rate = 2.0 * P / cycleSeconds_; // d sigma / dt
    // Hermite basis on a in [0, 1]: p(0) = 0, p'(0) = +-T, p(1) = D, p'(1) = D.
    const float hD = float(a * a * (2.0 - a));             // h01 + h11
    const float hT = float(a * (1.0 - a) * (1.0 - a));     // h10
    const float dD = float(a * (4.0 - 3.0 * a));           // d(h01 + h11)/da
    const float dT = float((1.0 - a) * (1.0 - 3.0 * a));   // d h10 / da
    // Forward: sigma = a, tangent +T. Backward: sigma = -a, the vertex leaves along -T
    // as a grows, and a = -sigma runs against time.
    const float sign = forward ? 1.f : -1.f;
    const float vr = float(rate) * sign;
    meshMm.triangles = src.triangles;
    meshMm.vertices.resize(src.vertices.size());
    velocityMmPerS.resize(src.vertices.size());
    for (std::size_t i = 0; i < src.vertices.size(); ++i) {
        const sph::Vec3 T = tangent[i] * sign;
        meshMm.vertices[i] = src.vertices[i] + d[i] * hD + T * hT;
        velocityMmPerS[i] = (d[i] * dD + T * dT) * vr;
    }
}

void HeartSimulation::sampleVolumeRates() {
    // dV/dt of a region bounded by the moving wall and fixed planes is the flux of the
    // wall's velocity through its part of the wall: sum over triangles of v_mean . n A.
    // The LV part is the triangles with their centroid on the ventricle's side of both
    // valve planes (ventricleVolumeMl's region). Samples every 1/(8 x sub-frames) of
    // the cycle - a few hundred poses, O(triangles) each - then a +-1 % moving average,
    // so that slivers and the half-way switch do not flicker the valves.
    const int n = std::max(200, 8 * heart_.frameCount());
    std::vector<double> lv(static_cast<std::size_t>(n));
    const float orientation = heart_.phaseMesh(0).enclosedVolume() >= 0.0 ? 1.f : -1.f;
    sph::TriangleMesh mesh;
    std::vector<sph::Vec3> velocity;
    const auto ventricleSide = [&](sph::Vec3 p) {
        if (anatomy_.mitral && dot(p - anatomy_.mitral->center, anatomy_.mitral->normal) < 0.f) return false;
        if (anatomy_.aortic && dot(p - anatomy_.aortic->center, anatomy_.aortic->normal) > 0.f) return false;
        return true;
    };
    for (int j = 0; j < n; ++j) {
        wallAt(double(j) / n, mesh, velocity);
        double ventricle = 0.0;
        for (const auto& tri : mesh.triangles) {
            const sph::Vec3 a = mesh.vertices[tri[0]], b = mesh.vertices[tri[1]], c = mesh.vertices[tri[2]];
            if (!ventricleSide((a + b + c) * (1.f / 3.f))) continue;
            const sph::Vec3 v = (velocity[tri[0]] + velocity[tri[1]] + velocity[tri[2]]) * (1.f / 3.f);
            ventricle += 0.5 * double(dot(v, cross(b - a, c - a))) * orientation; // mm^3/s
        }
        for (const sph::Vec3& v : velocity) maxWallSpeedMmPerS_ = std::max(maxWallSpeedMmPerS_, double(length(v)));
        lv[std::size_t(j)] = ventricle * 1e-3; // ml/s
    }
    const int w = std::max(1, n / 100);
    const auto smooth = [&](const std::vector<double>& x) {
        std::vector<double> y(x.size(), 0.0);
        for (int j = 0; j < n; ++j) {
            for (int o = -w; o <= w; ++o) y[std::size_t(j)] += x[std::size_t(((j + o) % n + n) % n)];
            y[std::size_t(j)] /= double(2 * w + 1);
        }
        return y;
    };
    // The flux misses the small volume drops at the half-way switches, where mesh
    // k+1's vertices land on mesh k's surface and its flat triangles cut inside it
    // (~1-1.5 ml per switch on the adult phantom). A periodic volume changes by nothing
    // over a cycle: remove the mean rate, spreading that loss over the cycle.
    double mean = 0.0;
    for (double r : lv) mean += r;
    mean /= double(n);
    for (double& r : lv) r -= mean;
    lvRateMlPerS_ = smooth(lv);
    peakLvRateMlPerS_ = 0.0;
    for (double r : lvRateMlPerS_) peakLvRateMlPerS_ = std::max(peakLvRateMlPerS_, std::fabs(r));
}

double HeartSimulation::sampledRate(const std::vector<double>& table, double cycleFraction) const {
    if (table.empty()) return 0.0;
    const double x = (cycleFraction - std::floor(cycleFraction)) * double(table.size());
    const std::size_t j = std::size_t(x) % table.size();
    const double f = x - std::floor(x);
    return table[j] * (1.0 - f) + table[(j + 1) % table.size()] * f;
}

double HeartSimulation::ventricleVolumeRateMlPerS(double cycleFraction) const {
    return sampledRate(lvRateMlPerS_, cycleFraction);
}

HeartSimulation::Valves HeartSimulation::valvesAt(double cycleFraction) const {
    if (!settings_.valveTiming || !anatomy_.mitral || !anatomy_.aortic) return {};
    // In a real heart the valves follow the pressure difference across them; the
    // ventricle's volume change is its outcome and the one thing the moving wall
    // prescribes: a filling ventricle has its mitral valve open and its aortic valve
    // shut, an emptying one the reverse (Poyart 2016, 3.5.6 keeps both one-way
    // throughout, which let diastolic inflow run straight out through the aorta).
    const double r = ventricleVolumeRateMlPerS(cycleFraction);
    const double threshold = settings_.isovolumicFraction * peakLvRateMlPerS_;
    return {r > threshold, r < -threshold};
}

void HeartSimulation::updateValves(double cycleFraction) {
    const Valves v = valvesAt(cycleFraction);
    if (mitralPlane_ && v.mitralOpen != valves_.mitralOpen)
        solver_->setPlaneKind(*mitralPlane_, v.mitralOpen ? sph::PlaneKind::OneWay : sph::PlaneKind::Closed);
    if (aorticPlane_ && v.aorticOpen != valves_.aorticOpen)
        solver_->setPlaneKind(*aorticPlane_, v.aorticOpen ? sph::PlaneKind::OneWay : sph::PlaneKind::Closed);
    valves_ = v;
    // Suction while the ventricle fills, none while it contracts: tension left in the
    // blood as systole squeezed it threw the heart-failure preset's apex blood at 20 m/s.
    const bool suction = settings_.diastolicSuctionPa > 0.0 && v.mitralOpen;
    if (suction != suction_) {
        solver_->setMaxTension(suction ? std::optional<float>(float(settings_.diastolicSuctionPa)) : std::nullopt);
        suction_ = suction;
    }
}

void HeartSimulation::wallAtPose(std::size_t index) {
    wallAt(double(index) / posesPerCycle_, wallMm_, velocityMm_);
    wallM_.triangles = wallMm_.triangles; // reuses capacity
    wallM_.vertices.resize(wallMm_.vertices.size());
    velocityM_.resize(velocityMm_.size());
    for (std::size_t i = 0; i < wallMm_.vertices.size(); ++i) {
        wallM_.vertices[i] = wallMm_.vertices[i] * kMm;
        velocityM_[i] = velocityMm_[i] * kMm; // mm/s -> m/s
    }
}

void HeartSimulation::keepPose(std::size_t index, const sph::WallDistanceField& field) {
    if (keptPoses_[index] || !roomForPoses()) return;
    keptPoses_[index] = std::make_unique<const sph::WallDistanceField::Snapshot>(field.snapshot());
    keptBytes_ += keptPoses_[index]->bytes();
}

void HeartSimulation::poseWall(std::int64_t pose) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::size_t index = std::size_t(((pose % posesPerCycle_) + posesPerCycle_) % posesPerCycle_);
    const double poseTime = beatStart_ + double(pose) / posesPerCycle_ * cycleSeconds_;
    if (const auto& kept = keptPoses_[index]) {
        solver_->restoreWall(*kept, poseTime);
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        restoreMs_ += ms;
        restoreMaxMs_ = std::max(restoreMaxMs_, ms);
        ++restores_;
    } else {
        wallAtPose(index);
        solver_->setWallMesh(wallM_, &velocityM_, poseTime);
        keepPose(index, *solver_->wallField());
        buildMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        ++builds_;
    }
}

HeartSimulation::WallPoseStats HeartSimulation::wallPoseStats() const {
    WallPoseStats s{restores_, builds_, restoreMs_, buildMs_, restoreMaxMs_, 0, keptBytes_};
    for (const auto& p : keptPoses_) s.keptPoses += p ? 1 : 0;
    return s;
}

void HeartSimulation::prepareWallPoses(const std::function<void(double)>& progress) {
    sph::WallDistanceField field;
    for (std::size_t i = 0; i < keptPoses_.size(); ++i) {
        if (!keptPoses_[i] && roomForPoses()) {
            wallAtPose(i);
            field.build(wallM_, &velocityM_, solver_->wallFieldSettings());
            keepPose(i, field);
        }
        if (progress) progress(double(i + 1) / double(keptPoses_.size()));
    }
}

void HeartSimulation::step() { step(solver_->scene().parameters.maxTimeStep); }

void HeartSimulation::step(float dtMax) {
    if (filling_ && solver_->time() >= beatStart_) startBeat();
    if (!filling_) {
        // The wall follows the blood's clock: posed at the last of the cycle's
        // wallPosesPerCycle() poses, and moved on from there by its velocity by the
        // field itself, so it never jumps by its whole travel.
        const double cycles = (solver_->time() - beatStart_) / cycleSeconds_;
        const auto pose = std::int64_t(std::floor(cycles * posesPerCycle_));
        if (pose != currentPose_) {
            currentPose_ = pose;
            poseWall(pose);
        }
        updateValves(cycles - std::floor(cycles));
    }
    solver_->step(dtMax);
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
