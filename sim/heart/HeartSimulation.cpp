#include "sim/heart/HeartSimulation.h"

#include "sim/heart/MeshConversion.h"
#include "sim/sph/WallDistanceField.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numbers>
#include <sstream>
#include <span>
#include <stdexcept>

namespace atrium::heart {
namespace {

constexpr float kMm = 1e-3f; // mm -> m

sph::Vec3 toMetres(sph::Vec3 v) { return v * kMm; }

} // namespace

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
    if (!(settings_.venousReturnMaxSpeed >= 0.0) || !std::isfinite(settings_.venousReturnMaxSpeed))
        throw std::invalid_argument("heart: venousReturnMaxSpeed must be finite and >= 0");
    if (!(settings_.venousReturnRefill >= 0.0 && settings_.venousReturnRefill <= 1.0))
        throw std::invalid_argument("heart: venousReturnRefill must be in [0, 1] (0: off)");
    if (!(settings_.diastolicSuctionPa >= 0.0) || !std::isfinite(settings_.diastolicSuctionPa))
        throw std::invalid_argument("heart: diastolicSuctionPa must be finite and >= 0");
    if (!(settings_.topUpSeconds >= 0.0) || !std::isfinite(settings_.topUpSeconds))
        throw std::invalid_argument("heart: topUpSeconds must be finite and >= 0");
    if (!(settings_.closedVolumeChangeLimit > 0.0))
        throw std::invalid_argument("heart: closedVolumeChangeLimit must be > 0");
    for (std::size_t c = 0; c < anatomy_.chambers.size(); ++c)
        for (const Valve& v : anatomy_.chambers[c].valves) valveSlots_.push_back({c, &v, 0, std::nullopt});
    const bool anyReservoir =
        std::any_of(valveSlots_.begin(), valveSlots_.end(), [](const ValveSlot& v) { return v.valve->reservoir.has_value(); });
    if (settings_.fill == HeartSimulationSettings::Fill::Emitter && !anyReservoir) {
        const bool noValves = anatomy_.valveCount() == 0;
        throw std::invalid_argument(
            noValves ? "heart: filling through an emitter (--fill emitter) needs an inflow opening, and this heart has "
                       "no opening (a closed mesh series or a volume series); fill it seeded instead"
                     : "heart: filling through an emitter (--fill emitter) needs an inflow valve with a reservoir, and "
                       "no valve of this heart has one");
    }

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

    // Valves start open, inflow valves inwards and the others outwards: the fill and
    // the still heart before the beat need them; updateValves() opens and closes them
    // with the beat.
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        const Valve& v = *valveSlots_[i].valve;
        valveSlots_[i].plane = scene.planes.size();
        scene.planes.push_back(valvePlane(i, v.role == ValveRole::Inflow ? ValveFlow::Into : ValveFlow::OutOf));
        if (v.outlet && v.role != ValveRole::Inflow) {
            sph::Outlet o;
            o.shape = sph::OutletShape::Sphere;
            o.center = toMetres(*v.outlet);
            o.radius = float(v.outletRadiusMm) * kMm;
            scene.outlets.push_back(o);
        }
    }
    valves_.assign(valveSlots_.size(), ValveFlow::Shut);
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        valves_[i] = valveSlots_[i].valve->role == ValveRole::Inflow ? ValveFlow::Into : ValveFlow::OutOf;

    // Heart at its first pose; still (no wall velocity) while filling.
    heart_.sample(0.0, cycleSeconds_, wallMm_, velocityMm_);
    wallM_ = wallMm_;
    for (sph::Vec3& v : wallM_.vertices) v *= kMm;
    velocityM_.assign(wallM_.vertices.size(), sph::Vec3{});

    // Reservoirs: behind each inflow (or two-way) valve an emitter that lets in what
    // the chamber draws (emitters place no particle where another is near). --fill
    // emitter fills each chamber through its first reservoir first, heart still.
    double fillEnd = 0.0;
    std::vector<bool> chamberFilled(std::max<std::size_t>(anatomy_.chambers.size(), 1), false);
    const double poolM3 = std::fabs(wallM_.enclosedVolume());
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        const Valve& v = *valveSlots_[i].valve;
        if (!v.reservoir) continue;
        const float radius = float(v.reservoir->radius) * kMm;
        const float area = float(std::numbers::pi) * radius * radius;
        sph::Emitter e;
        e.position = toMetres(v.reservoir->center);
        e.direction = normalized(v.reservoir->normal);
        e.radius = radius;
        const std::size_t c = valveSlots_[i].chamber;
        if (settings_.fill == HeartSimulationSettings::Fill::Emitter && !chamberFilled[c]) {
            // Fill at 0.5 m/s for the time the chamber's blood pool needs, heart still.
            chamberFilled[c] = true;
            const Chamber& chamber = anatomy_.chambers[c];
            const double chamberM3 = anatomy_.chambers.size() > 1 && !chamber.phaseVolumeMl.empty()
                                         ? chamber.phaseVolumeMl.front() * 1e-6
                                         : poolM3;
            sph::Emitter fill = e;
            fill.speed = 0.5f;
            const double seconds = std::min(settings_.fillSecondsMax, 0.9 * chamberM3 / (double(area) * fill.speed));
            fill.end = float(seconds);
            fillEnd = std::max(fillEnd, seconds);
            scene.emitters.push_back(fill);
        }
        e.speed = float(settings_.inflowSpeed); // the venous reservoir, see the settings
        if (e.speed > 0.f) {
            valveSlots_[i].emitter = scene.emitters.size();
            scene.emitters.push_back(e);
        }
    }
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        if (valveSlots_[i].emitter) scene.emitters[*valveSlots_[i].emitter].start = float(fillEnd);
    // Seeded blood keeps a collision margin from the wall, so a seeded chamber holds
    // ~10 % less than its volume: top it up through its inflow valves from their
    // reservoirs, heart still, outflow valves shut, before the beat starts.
    const bool topUp = settings_.fill == HeartSimulationSettings::Fill::Seeded && anyReservoir &&
                       settings_.topUpSeconds > 0.0;
    if (topUp) {
        fillEnd = settings_.topUpSeconds;
        for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
            const ValveFlow flow = valveSlots_[i].valve->role == ValveRole::Outflow ? ValveFlow::Shut : ValveFlow::Into;
            scene.planes[valveSlots_[i].plane] = valvePlane(i, flow);
            valves_[i] = flow;
        }
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
    assignChambers();
    sampleVolumeRates();
    computePressureCurves();
    refuseSqueezedChambers();
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
    if (topUp && settings_.diastolicSuctionPa > 0.0) {
        solver_->setMaxTension(float(settings_.diastolicSuctionPa));
        suction_ = true;
    }
    valveVolumes_.assign(valveSlots_.size(), {});
    endDiastoles_.assign(anatomy_.chambers.size(), {});
    chamberCount_.assign(anatomy_.chambers.size(), 0);
    if (!filling_) startBeat();
}

void HeartSimulation::startBeat() {
    filling_ = false;
    if (settings_.diastolicSuctionPa > 0.0) solver_->setMaxTension(float(settings_.diastolicSuctionPa));
    suction_ = settings_.diastolicSuctionPa > 0.0;
    // The blood each chamber starts the beat with, from which the valves' flows count.
    if (anatomy_.chambers.empty()) return;
    sph::HostParticles h;
    solver_->read(sph::FieldPosition, h);
    for (std::size_t c = 0; c < anatomy_.chambers.size(); ++c) chamberCount_[c] = countChamber(c, h, nullptr);
    beyondCount_.assign(valveSlots_.size(), 0);
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        if (!regurgitantMlPerS_[i].empty()) beyondCount_[i] = countBeyond(i, h);
    emittedAtCount_ = solver_->accounting().emitted;
    beatParticles_ = solver_->particleCount();
    if (settings_.venousReturn && settings_.venousReturnRefill > 0.0)
        for (std::size_t i = 0; i < valveSlots_.size(); ++i)
            if (valveSlots_[i].emitter && reservoirInAtrium_[i])
                solver_->setEmitterRefill(*valveSlots_[i].emitter, float(settings_.venousReturnRefill));
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

void HeartSimulation::assignChambers() {
    // With several chambers, each is a closed piece of the wall (with its vestibules):
    // a piece belongs to the chamber whose anchor lies nearest to one of its vertices.
    if (anatomy_.chambers.size() < 2) return;
    triangleChamber_.resize(std::size_t(heart_.phaseCount()));
    for (int k = 0; k < heart_.phaseCount(); ++k) {
        const sph::TriangleMesh& mesh = heart_.phaseMesh(k);
        const Components pieces = connectedComponents(mesh);
        std::vector<float> best(pieces.count * anatomy_.chambers.size(), 1e30f);
        for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
            for (std::uint32_t v : mesh.triangles[t])
                for (std::size_t c = 0; c < anatomy_.chambers.size(); ++c) {
                    float& d = best[pieces.triangleComponent[t] * anatomy_.chambers.size() + c];
                    d = std::min(d, lengthSquared(mesh.vertices[v] - anatomy_.chambers[c].anchor));
                }
        std::vector<std::uint16_t>& owner = triangleChamber_[std::size_t(k)];
        owner.resize(mesh.triangles.size());
        for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
            const float* d = &best[pieces.triangleComponent[t] * anatomy_.chambers.size()];
            owner[t] = std::uint16_t(std::min_element(d, d + anatomy_.chambers.size()) - d);
        }
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
        const auto valves0 = std::chrono::steady_clock::now();
        updateValves(cycles - std::floor(cycles));
        // End of a diastole: the blood each chamber holds.
        if (!anatomy_.chambers.empty() && std::int64_t(std::floor(cycles)) > beatsCounted_) {
            beatsCounted_ = std::int64_t(std::floor(cycles));
            sph::HostParticles h;
            solver_->read(sph::FieldPosition | sph::FieldDensity, h);
            for (std::size_t c = 0; c < anatomy_.chambers.size(); ++c) {
                // A valve still open as the beat ends (the phantom's mitral valve, its
                // atrial contraction ending with the beat) has its blood counted in it.
                countValveFlow(c, valves_);
                EndDiastole e;
                e.particles = countChamber(c, h, &e.meanDensity);
                endDiastoles_[c].push_back(e);
            }
        }
        valveMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - valves0).count();
    }
    try {
        solver_->step(dtMax);
    } catch (const sph::SimulationBlowUp& e) {
        explainBlowUp(e);
    }
}

void HeartSimulation::explainBlowUp(const sph::SimulationBlowUp& e) const {
    // The solver names the time step's parameters. When the wall was squeezing blood
    // that had no way out - a chamber shrinking with its outflow shut, the blood well
    // above rest density - those cannot help: say so.
    const double cycles = filling_ ? 0.0 : beats();
    const double fraction = cycles - std::floor(cycles);
    double meanError = 0.0;
    try {
        meanError = solver_->stats().meanDensityError;
    } catch (...) {
    }
    std::ostringstream m;
    m.precision(3);
    m << "heart: the blood blew up " << heartTime() << " s into the beat (" << fraction
      << " of the cycle)";
    std::string squeezed;
    const std::size_t chambers = std::max<std::size_t>(anatomy_.chambers.size(), 1);
    for (std::size_t c = 0; c < chambers && c < rateMlPerS_.size(); ++c) {
        const double r = chamberVolumeRateMlPerS(fraction, c);
        if (r >= 0.0) continue;
        bool open = false;
        for (std::size_t i = 0; i < valveSlots_.size(); ++i)
            if (valveSlots_[i].chamber == c && valves_[i] == ValveFlow::OutOf) open = true;
        if (open) continue;
        std::ostringstream w;
        w.precision(3);
        w << (anatomy_.chambers.empty() ? std::string("the heart") : "chamber " + anatomy_.chambers[c].name)
          << " shrinking at " << -r << " ml/s with no valve open to let blood out";
        squeezed = w.str();
        break;
    }
    if (!squeezed.empty() || (std::isfinite(meanError) && meanError > 0.05)) {
        m << " while the wall compressed it";
        if (!squeezed.empty()) m << " (" << squeezed << ")";
        if (std::isfinite(meanError)) m << ", mean density error " << 100.0 * meanError << " %";
        m << ": this is compression by the wall, which a smaller CFL number, more viscosity or another "
             "sound speed cannot relieve; the blood needs a way out (an outflow valve that opens while the "
             "chamber empties, docs/heart-pipeline.md). The solver said: ";
    } else {
        m << ": ";
    }
    m << e.what();
    throw sph::SimulationBlowUp(m.str());
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


double ventricleVolumeMl(const sph::TriangleMesh& meshMm, const HeartAnatomy& anatomy) {
    // Count the points of a 0.5 mm lattice inside the mesh and on the chamber's side of
    // its valves: exact to a fraction of the lattice step.
    constexpr float kStep = 0.5f;
    const std::size_t inside = meshMm.countLatticePointsInside(kStep, [&](sph::Vec3 p) {
        return anatomy.chambers.empty() || HeartAnatomy::insideValves(anatomy.chambers.front(), p);
    });
    return double(inside) * kStep * kStep * kStep * 1e-3; // mm^3 -> ml
}

} // namespace atrium::heart
