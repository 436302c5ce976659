#include "sim/sph/Solver.h"

#include "sim/sph/GridLimits.h"
#include "sim/sph/Seeding.h"
#include "sim/sph/WallDistanceField.h"
#include "sim/sph/WallKernelIntegrals.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <sstream>

namespace atrium::sph {
namespace {

/// Layers one emitter may add in one step (see emit()).
constexpr double kMaxLayersPerStep = 16.0;

void require(bool ok, const std::string& message) {
    if (!ok) throw std::invalid_argument("scene: " + message);
}

void validate(const Scene& scene) {
    const SolverParameters& p = scene.parameters;
    require(p.particleSpacing > 0.f, "parameters.particleSpacing must be > 0");
    require(p.kernelRadius >= p.particleSpacing, "parameters.kernelRadius must be >= particleSpacing");
    require(p.referenceDensity > 0.f, "parameters.referenceDensity must be > 0");
    require(!p.restDensity || *p.restDensity > 0.f, "parameters.restDensity must be > 0");
    require(p.soundSpeed > 0.f, "parameters.soundSpeed must be > 0");
    require(p.cflNumber > 0.f && p.cflNumber <= 1.f, "parameters.cflNumber must be in (0, 1]");
    require(p.maxTimeStep > 0.f, "parameters.maxTimeStep must be > 0");
    require(p.frameRate > 0.f && p.substepsPerFrame >= 1, "parameters.frameRate and substepsPerFrame must be positive");
    require(p.viscosity >= 0.f, "parameters.viscosity must be >= 0");
    require(p.artificialViscosity >= 0.f, "parameters.artificialViscosity must be >= 0");
    require(p.maxParticles > 0, "parameters.maxParticles must be > 0");
    require(scene.container || scene.wall.kind != WallMeshSpec::Kind::None,
            "a container or a wall mesh is needed, or particles fall forever");
    require(!scene.fluidBlocks.empty() || !scene.emitters.empty(), "no fluid: add a fluid block or an emitter");
    require(scene.openBoundaries.size() <= std::size_t(kMaxOpenBoundaries),
            "at most " + std::to_string(kMaxOpenBoundaries) + " open boundaries");
    for (std::size_t i = 0; i < scene.openBoundaries.size(); ++i) {
        const OpenBoundary& b = scene.openBoundaries[i];
        const std::string at = "openBoundaries[" + std::to_string(i) + "]";
        require(lengthSquared(b.normal) > 0.f && isFinite(b.normal) && isFinite(b.center), at + ": a finite centre and a non-zero normal are needed");
        require(b.shape == OpenBoundaryShape::Disc ? b.radius > 0.f : (b.halfWidth > 0.f && b.halfHeight > 0.f),
                at + ": the section must have a positive size");
        require(b.depth == 0.f || b.depth >= p.kernelRadius, at + ".depth must be 0 (the kernel radius) or >= kernelRadius");
        require(std::isfinite(b.pressure) && std::isfinite(b.inflowSpeed), at + ": pressure and inflowSpeed must be finite");
    }
}

/// Poyart 2016, 3.5.1: rho0 is the mean density of the initial distribution (eq. 3.1).
/// Particles at free surfaces (and, without the walls' kernel integrals, at walls)
/// miss neighbours, so that mean lies below the bulk density by up to 10-40 % for
/// blocks of a few thousand particles, and the Tait equation (gamma = 7) turns the
/// difference into a pressure that blows the fluid apart. Bulk mode therefore averages
/// only the particles with a full neighbourhood: those within 3 % of the 90th
/// percentile of density.
float initialRestDensity(std::vector<float> density, SolverParameters::RestDensitySource source) {
    if (source == SolverParameters::RestDensitySource::Bulk) {
        std::vector<float> sorted = density;
        const auto q = sorted.begin() + std::ptrdiff_t(0.9 * double(sorted.size() - 1));
        std::nth_element(sorted.begin(), q, sorted.end());
        const float threshold = 0.97f * *q;
        std::erase_if(density, [&](float d) { return d < threshold; });
    }
    double sum = 0.0;
    for (float d : density) sum += d;
    return float(sum / double(density.size()));
}

} // namespace

Solver::Solver(Scene scene, BackendKind backend) : scene_(std::move(scene)) {
    require(scene_.wall.kind != WallMeshSpec::Kind::External, "an external wall needs its first mesh");
    backend_ = backend == BackendKind::Cuda ? makeCudaBackend() : makeCpuBackend();
    initialise(nullptr, nullptr);
}

Solver::Solver(Scene scene, BackendKind backend, const TriangleMesh& wall, const std::vector<Vec3>* wallVelocity)
    : scene_(std::move(scene)) {
    require(scene_.wall.kind == WallMeshSpec::Kind::External, "a wall mesh was given but wall.kind is not External");
    backend_ = backend == BackendKind::Cuda ? makeCudaBackend() : makeCpuBackend();
    initialise(&wall, wallVelocity);
}

void Solver::initialise(const TriangleMesh* wall, const std::vector<Vec3>* wallVelocity) {
    validate(scene_);
    SolverParameters& p = scene_.parameters;
    if (p.wallMargin <= 0.f) p.wallMargin = 0.5f * p.particleSpacing;
    for (Emitter& e : scene_.emitters) e.direction = normalized(e.direction);
    for (BoundaryPlane& pl : scene_.planes) pl.normal = normalized(pl.normal);
    for (OpenBoundary& b : scene_.openBoundaries) {
        b.normal = normalized(b.normal);
        if (b.depth <= 0.f) b.depth = p.kernelRadius;
        if (b.shape == OpenBoundaryShape::Rectangle) { // the axis, in the plane
            const Vec3 along = b.axis - b.normal * dot(b.axis, b.normal);
            require(lengthSquared(along) > 0.f, "an open boundary's axis must not be parallel to its normal");
            b.axis = normalized(along);
        }
        // Room for the buffer particles one step may create: about three layers of the
        // section (a CFL step moves a particle less than one spacing).
        const float s = p.particleSpacing;
        const float perimeter = b.shape == OpenBoundaryShape::Disc ? 6.2832f * b.radius : 4.f * (b.halfWidth + b.halfHeight);
        openSpawnReserve_ += std::uint32_t(std::min(3.0 * (double(b.sectionArea()) / (s * s) + perimeter / s + 16.0), 1e8));
    }
    openFlow_.assign(scene_.openBoundaries.size(), OpenBoundaryFlow{});
    openFlowRate_.assign(scene_.openBoundaries.size(), 0.0);

    if (!backend_) throw std::runtime_error("CUDA backend unavailable: " + cudaBackendStatus());
    if (p.pressureSolver == PressureSolver::DivergenceFree && !backend_->supportsDivergenceFree())
        throw std::invalid_argument("scene: parameters.pressureSolver \"divergenceFree\" runs on the CPU backend only; the " +
                                    backend_->name() + " backend solves the weakly compressible pressure");

    kernels_ = SphKernels::forRadius(p.kernelRadius);
    wallOffset_ = wallDistanceOffset(p.particleSpacing, p.kernelRadius);
    pressureGradientScale_ = 1.f / spikyGradientLatticeSum(p.particleSpacing, p.kernelRadius);
    mass_ = p.referenceDensity * p.particleSpacing * p.particleSpacing * p.particleSpacing;

    const Aabb domain = sceneGridBounds(scene_, wall);
    const Vec3 extent = domain.size();
    // Scene files are refused earlier with the file and field (validateScene); the heart
    // applications check their blood's grid before building it.
    const double cellCount = gridCellCount(domain, p.kernelRadius);
    if (!(cellCount <= kMaxGridCells)) {
        std::ostringstream m;
        m << "the neighbour grid would need " << cellCount << " cells (limit " << std::uint64_t(kMaxGridCells) << "): the domain is "
          << extent.x << " x " << extent.y << " x " << extent.z << " m for a kernel radius of " << p.kernelRadius
          << " m; use a larger kernelRadius (and particleSpacing) or a smaller domain";
        throw std::invalid_argument("scene: " + m.str());
    }
    grid_.origin = domain.lo;
    grid_.cellSize = p.kernelRadius;
    const auto cells = [&](float e) { return std::max(1, int(std::ceil(e / p.kernelRadius))); };
    grid_.nx = cells(extent.x);
    grid_.ny = cells(extent.y);
    grid_.nz = cells(extent.z);
    grid_.zOrder = p.zOrder;
    if (scene_.wall.kind == WallMeshSpec::Kind::Sphere) {
        wallRestMesh_ = TriangleMesh::icosphere(scene_.wall.center, scene_.wall.radius, scene_.wall.subdivisions);
        updateAnalyticWall();
    } else if (wall) {
        setWallMesh(*wall, wallVelocity);
    }
    seed();

    if (p.restDensity) {
        restDensity_ = *p.restDensity;
    } else if (backend_->size() > 0) {
        StepInput in = makeStepInput(0.f, time_);
        in.restDensity = 1.f;
        in.openBoundaries = {}; // the buffers' densities are the boundaries', not measured
        backend_->computeDensities(in);
        HostParticles h;
        backend_->download(FieldDensity, h);
        restDensity_ = initialRestDensity(h.density, p.restDensitySource);
    } else {
        restDensity_ = latticeDensity(p.particleSpacing, p.kernelRadius, mass_);
    }
    eosStiffness_ = p.equationOfState == EquationOfState::Tait
                        ? restDensity_ * p.soundSpeed * p.soundSpeed / 7.f
                        : p.linearStiffness.value_or(p.soundSpeed * p.soundSpeed);
    emitterTravel_.assign(scene_.emitters.size(), 0.0);
    emitterEmitted_.assign(scene_.emitters.size(), 0);
    emitterRefill_.assign(scene_.emitters.size(), std::nullopt);
    for (OpenBoundaryFlow& f : openFlow_) f.particleVolume = double(mass_) / restDensity_;
    fillOpenBoundaryBuffers();
    backend_->resetStageTimes();
}

void Solver::fillOpenBoundaryBuffers() {
    // Where the fluid blocks left a buffer empty (or half empty), fill it with lattice
    // layers parallel to the plane, as far as the walls allow and where there is room.
    const SolverParameters& p = scene_.parameters;
    const float s = p.particleSpacing;
    std::vector<Vec3> positions, velocities;
    std::vector<std::size_t> source;
    for (const OpenBoundary& b : scene_.openBoundaries) {
        const Vec3 initialVelocity = b.velocity == OpenBoundaryVelocity::Prescribed ? b.normal * b.inflowSpeed : Vec3{};
        const float reach = b.shape == OpenBoundaryShape::Disc ? b.radius : std::hypot(b.halfWidth, b.halfHeight);
        for (float d = 0.5f * s; d <= b.depth; d += s) {
            for (const Vec3& x : emitterLayer(b.center - b.normal * d, b.normal, reach, s)) {
                if (!b.inBuffer(x)) continue;
                if (scene_.container && !scene_.container->bounds.contains(x)) continue;
                if (wall_ && !wall_->empty() && wall_->signedDistance(x) > -p.wallMargin) continue;
                positions.push_back(x);
                velocities.push_back(initialVelocity);
                source.push_back(kNotAnEmitter);
            }
        }
    }
    if (positions.empty()) return;
    dropOccupied(positions, velocities, source);
    const std::size_t room = p.maxParticles > backend_->size() ? p.maxParticles - backend_->size() : 0;
    if (positions.size() > room) { // as emitters: never beyond maxParticles
        positions.resize(room);
        velocities.resize(room);
    }
    if (positions.empty()) return;
    accounting_.openCreated += positions.size();
    backend_->appendParticles(positions, velocities);
}

Solver::~Solver() = default;

void Solver::seed() {
    const SolverParameters& p = scene_.parameters;
    std::vector<Vec3> positions;
    std::vector<Vec3> velocities;
    for (const FluidBlock& block : scene_.fluidBlocks) {
        for (const Vec3& x : latticeInBox(block.bounds, p.particleSpacing)) {
            const bool outsideBox = scene_.container && !scene_.container->bounds.contains(x);
            const bool inWall = wall_ && !wall_->empty() && wall_->signedDistance(x) > -p.wallMargin;
            const bool behindOpenBoundary =
                openBoundaryBeyond(scene_.openBoundaries.data(), int(scene_.openBoundaries.size()), x) >= 0;
            if (outsideBox || inWall || behindOpenBoundary) {
                ++accounting_.removedInWalls;
                continue;
            }
            if (positions.size() >= p.maxParticles) break;
            positions.push_back(x);
            velocities.push_back(block.velocity);
        }
    }
    accounting_.seeded = positions.size();
    backend_->setParticles(positions, velocities);
}

StepInput Solver::makeStepInput(float dt, double stepStart) const {
    const SolverParameters& p = scene_.parameters;
    StepInput in;
    in.dt = dt;
    in.mass = mass_;
    in.restDensity = restDensity_;
    in.equationOfState = p.equationOfState;
    in.eosStiffness = eosStiffness_;
    in.maxPressure = p.maxPressure;
    in.minPressure = p.clampNegativePressure ? 0.f
                     : (p.maxTension ? -*p.maxTension : -std::numeric_limits<float>::max());
    in.backgroundPressure = backgroundPressure();
    in.viscosity = p.viscosity;
    in.artificialViscosity = p.artificialViscosity;
    in.soundSpeed = p.soundSpeed;
    in.gravity = p.gravity;
    in.kernels = kernels_;
    in.grid = grid_;
    in.container = scene_.container ? &*scene_.container : nullptr;
    in.planes = scene_.planes;
    in.outlets = scene_.outlets;
    in.openBoundaries = scene_.openBoundaries;
    in.openFluxSlab = p.kernelRadius;
    in.openSpawnReserve = openSpawnReserve_;
    in.openSpawnRoom = 0.75f * p.particleSpacing; // as emitters (dropOccupied)
    in.wallMargin = p.wallMargin;
    in.wallDistanceOffset = wallOffset_;
    in.pressureGradientScale = pressureGradientScale_;
    in.mirroredWalls = p.wallPressure == WallPressure::Mirrored;
    in.wallRestitution = p.wallRestitution;
    in.wallPoseAge = wallAdvances_ ? float(stepStart - wallPoseTime_) : 0.f;
    in.profileStages = profile_;
    in.pressureSolver = p.pressureSolver;
    in.maxDensityError = p.maxDensityError;
    in.maxDivergenceError = p.maxDivergenceError;
    in.maxSolverIterations = p.maxSolverIterations;
    return in;
}

float Solver::cflTimeStep() const {
    const SolverParameters& p = scene_.parameters;
    const float h = p.kernelRadius;
    // Weakly compressible: sound must not cross more than cfl h a step. Divergence-free:
    // no particle moves more than cfl spacings (Bender & Koschier 2017's CFL condition).
    float dt = p.pressureSolver == PressureSolver::DivergenceFree
                   ? p.cflNumber * p.particleSpacing / std::max(lastMaxSpeed_, 1e-6f)
                   : p.cflNumber * h / (p.soundSpeed + lastMaxSpeed_);
    // Viscous diffusion limit (Monaghan 1992): dt <= 0.125 h^2 / nu.
    if (p.viscosity > 0.f) dt = std::min(dt, 0.125f * h * h * restDensity_ / p.viscosity);
    // Body-force limit: dt <= 0.25 sqrt(h / |g|).
    const float g = length(p.gravity);
    if (g > 0.f) dt = std::min(dt, 0.25f * std::sqrt(h / g));
    return std::min(dt, p.maxTimeStep);
}

void Solver::step() { step(scene_.parameters.maxTimeStep); }

void Solver::step(float dtMax) {
    const float dt = std::min(dtMax, cflTimeStep());
    if (!scene_.emitters.empty()) {
        const auto start = std::chrono::steady_clock::now();
        emit(dt);
        emitMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    }
    time_ += dt;
    // A moving analytic wall is re-sampled once per rendered sub-step (frameRate x
    // substepsPerFrame per second), like the heart's sub-frames, not every solver step.
    if (scene_.wall.kind == WallMeshSpec::Kind::Sphere && scene_.wall.pulseAmplitude != 0.f &&
        time_ - wallTime_ >= 1.0 / (double(scene_.parameters.frameRate) * scene_.parameters.substepsPerFrame))
        updateAnalyticWall();
    const StepOutput out = backend_->step(makeStepInput(dt, time_ - dt));
    ++steps_;
    lastSolves_ = {out.divergenceIterations, out.densityIterations, out.divergenceError, out.densityError};
    lastDt_ = dt;
    lastMaxSpeed_ = out.maxSpeed;
    lastPairs_ = out.neighbourPairs;
    accounting_.removedByOutlets += out.removedOutlets;
    accounting_.leaked += out.removedLeaked;
    if (!scene_.openBoundaries.empty()) {
        accounting_.openCreated += out.openCreated;
        accounting_.openRemoved += out.openRemoved;
        accounting_.openDropped += out.openDropped;
        const double unit = double(kOpenFluxVelocityUnit) * mass_ / restDensity_ / scene_.parameters.kernelRadius;
        for (std::size_t b = 0; b < scene_.openBoundaries.size(); ++b) {
            openFlow_[b].entered += out.open[b].entered;
            openFlow_[b].left += out.open[b].left;
            openFlowRate_[b] = double(out.open[b].fluxUnits) * unit;
        }
    }
    checkHealth(out, dt);
}

void Solver::advanceFrame() {
    const SolverParameters& p = scene_.parameters;
    const float dtFrame = 1.f / (p.frameRate * float(p.substepsPerFrame));
    for (int s = 0; s < p.substepsPerFrame; ++s) step(dtFrame);
}

bool Solver::relax(int steps, const std::function<bool(double)>& progress) {
    const double time = time_;
    const std::uint64_t count = steps_;
    HostParticles h;
    bool finished = true;
    for (int i = 0; i < steps; ++i) {
        step();
        backend_->download(FieldPosition, h);
        backend_->setParticles(h.position, std::vector<Vec3>(h.position.size()));
        time_ = time;
        lastMaxSpeed_ = 0.f;
        if (progress && !progress(double(i + 1) / double(steps))) {
            finished = false;
            break;
        }
    }
    steps_ = count;
    return finished;
}

void Solver::checkHealth(const StepOutput& out, float dt) const {
    const SolverParameters& p = scene_.parameters;
    const bool nonFinite = out.nonFinite > 0 || !std::isfinite(out.maxSpeed);
    if (!nonFinite && out.maxSpeed <= p.maxSpeed) return;
    std::ostringstream m;
    m << "simulation blew up at step " << steps_ << " (t = " << time_ << " s, dt = " << dt << " s): ";
    if (nonFinite)
        m << out.nonFinite << " particle(s) have a non-finite position or velocity";
    else
        m << "max speed " << out.maxSpeed << " m/s exceeds parameters.maxSpeed = " << p.maxSpeed << " m/s";
    m << ". Try a smaller parameters.cflNumber (now " << p.cflNumber << ") or maxTimeStep (now " << p.maxTimeStep
      << "), a larger viscosity (now " << p.viscosity << " Pa s), a soundSpeed about 10x the fastest flow (now "
      << p.soundSpeed << " m/s), a lower maxPressure (now " << p.maxPressure
      << " Pa), or raise maxSpeed if the flow really is that fast.";
    throw SimulationBlowUp(m.str());
}

void Solver::emit(float dt) {
    const SolverParameters& p = scene_.parameters;
    std::vector<Vec3> positions, velocities;
    std::vector<std::size_t> source; // emitter of each candidate
    for (std::size_t k = 0; k < scene_.emitters.size(); ++k) {
        const Emitter& e = scene_.emitters[k];
        if (time_ < e.start || time_ >= e.end) continue;
        emitterTravel_[k] += double(e.speed) * dt;
        // Validation keeps speed below the speed of sound, so a CFL step moves an emitter
        // less than a kernel radius; the cap keeps a speed set later (setEmitterSpeed)
        // from adding layers without bound: what is beyond it is not emitted.
        const double maxTravel = kMaxLayersPerStep * double(p.particleSpacing);
        if (emitterTravel_[k] > maxTravel) emitterTravel_[k] = maxTravel;
        while (emitterTravel_[k] >= p.particleSpacing) {
            emitterTravel_[k] -= p.particleSpacing;
            // The layer has moved on by the leftover travel since it was due.
            const Vec3 center = e.position + e.direction * float(emitterTravel_[k]);
            std::vector<Vec3> layer = emitterLayer(center, e.direction, e.radius, p.particleSpacing);
            const std::size_t total = backend_->size() + positions.size() + layer.size();
            const double allowed = e.rate > 0.f ? double(e.rate) * (time_ + dt - e.start) : 1e300;
            if (total > p.maxParticles || double(emitterEmitted_[k] + layer.size()) > allowed) continue;
            positions.insert(positions.end(), layer.begin(), layer.end());
            velocities.insert(velocities.end(), layer.size(), e.direction * e.speed);
            source.insert(source.end(), layer.size(), k);
        }
    }
    if (positions.empty()) return;
    dropOccupied(positions, velocities, source);
    if (positions.empty()) return;
    for (std::size_t k : source) ++emitterEmitted_[k];
    accounting_.emitted += positions.size();
    backend_->appendParticles(positions, velocities);
}

void Solver::dropOccupied(std::vector<Vec3>& positions, std::vector<Vec3>& velocities,
                          std::vector<std::size_t>& source) const {
    // An emitter adds blood only where there is room: a new particle closer than 3/4
    // of a spacing to an existing one would be compressed to ~2.4x rho0 (Tait: p_max)
    // and blow the fluid apart.
    const float spacing = scene_.parameters.particleSpacing;
    std::vector<std::uint8_t> blocked(positions.size(), 0), part;
    // Each emitter's candidates are contiguous (emit()).
    for (std::size_t begin = 0, end = 0; begin < positions.size(); begin = end) {
        while (end < positions.size() && source[end] == source[begin]) ++end;
        const std::span<const Vec3> spots = std::span<const Vec3>(positions).subspan(begin, end - begin);
        // 0: no refill (nor for an open boundary's fill, which is no emitter's).
        const float refill =
            source[begin] == kNotAnEmitter ? 0.f : emitterRefill_[source[begin]].value_or(0.f);
        part.assign(spots.size(), 0);
        backend_->markOccupied(spots, 0.75f * spacing, part);
        if (refill > 0.f) refillThinnedSpots(spots, refill, part, std::span<Vec3>(velocities).subspan(begin, end - begin));
        std::copy(part.begin(), part.end(), blocked.begin() + std::ptrdiff_t(begin));
    }
    std::size_t kept = 0;
    for (std::size_t c = 0; c < positions.size(); ++c) {
        if (blocked[c]) continue;
        positions[kept] = positions[c];
        velocities[kept] = velocities[c];
        source[kept] = source[c];
        ++kept;
    }
    positions.resize(kept);
    velocities.resize(kept);
    source.resize(kept);
}

void Solver::refillThinnedSpots(std::span<const Vec3> spots, float densityFraction, std::vector<std::uint8_t>& blocked,
                                std::span<Vec3> velocities) const {
    std::vector<std::uint8_t> crowded(spots.size(), 0);
    backend_->markOccupied(spots, 0.5f * scene_.parameters.particleSpacing, crowded);
    std::vector<float> sums(5 * spots.size(), 0.f);
    backend_->sampleBloodAround(spots, kernels_, sums);
    const float bound = densityFraction * restDensity_;
    const float spacing = scene_.parameters.particleSpacing, apart2 = 2.25f * spacing * spacing;
    std::vector<Vec3> refilled;
    for (std::size_t c = 0; c < spots.size(); ++c) {
        const float* s = &sums[5 * c];
        if (!blocked[c] || crowded[c] || !(s[0] > 0.f) || s[1] >= bound * s[0]) continue;
        // The blood around a spot refilled before it has that particle too, which the
        // sample does not know: no two within 1.5 spacings in one layer.
        bool near = false;
        for (const Vec3& r : refilled) near = near || lengthSquared(spots[c] - r) < apart2;
        if (near) continue;
        blocked[c] = 0;
        // It joins the blood there as it moves, not at the emitter's speed.
        velocities[c] = Vec3{s[2], s[3], s[4]} / s[0];
        refilled.push_back(spots[c]);
    }
}

void Solver::updateAnalyticWall() {
    const WallMeshSpec& w = scene_.wall;
    const double omega = 2.0 * std::numbers::pi / w.pulsePeriod;
    const float scale = float(1.0 + w.pulseAmplitude * std::sin(omega * time_));
    const float scaleRate = float(w.pulseAmplitude * omega * std::cos(omega * time_)); // d scale / dt
    TriangleMesh mesh = wallRestMesh_;
    std::vector<Vec3> velocity(mesh.vertices.size());
    for (std::size_t i = 0; i < mesh.vertices.size(); ++i) {
        const Vec3 offset = wallRestMesh_.vertices[i] - w.center;
        mesh.vertices[i] = w.center + offset * scale;
        velocity[i] = offset * scaleRate;
    }
    setWallMesh(mesh, &velocity, time_);
    wallTime_ = time_;
}

void Solver::setWallMesh(const TriangleMesh& mesh, const std::vector<Vec3>* vertexVelocities,
                         std::optional<double> poseTime) {
    if (!wall_) wall_ = std::make_unique<WallDistanceField>();
    if (!wallMesh_) wallMesh_ = std::make_unique<TriangleMesh>();
    *wallMesh_ = mesh;
    const auto t0 = std::chrono::steady_clock::now();
    wall_->build(*wallMesh_, vertexVelocities, wallFieldSettings());
    wallChanged(poseTime, vertexVelocities != nullptr, t0);
}

void Solver::restoreWall(const WallDistanceField::Snapshot& pose, std::optional<double> poseTime) {
    const WallDistanceField::Settings want = wallFieldSettings();
    if (pose.settings.cellSize != want.cellSize || pose.settings.margin != want.margin || pose.settings.band != want.band)
        throw std::invalid_argument("restoreWall: the pose was built with other wall field settings (cell " +
                                    std::to_string(pose.settings.cellSize) + " m, this solver's " +
                                    std::to_string(want.cellSize) + " m)");
    if (!wall_) wall_ = std::make_unique<WallDistanceField>();
    if (!wallMesh_) wallMesh_ = std::make_unique<TriangleMesh>();
    const auto t0 = std::chrono::steady_clock::now();
    wall_->restore(pose);
    *wallMesh_ = pose.mesh;
    wallChanged(poseTime, true, t0);
}

WallDistanceField::Settings Solver::wallFieldSettings() const {
    WallDistanceField::Settings settings;
    settings.cellSize = scene_.wall.fieldCellSize > 0.f ? scene_.wall.fieldCellSize : scene_.parameters.particleSpacing;
    settings.margin = scene_.parameters.wallMargin;
    return settings;
}

void Solver::wallChanged(std::optional<double> poseTime, bool moving, std::chrono::steady_clock::time_point start) {
    wallPoseTime_ = poseTime.value_or(time_);
    wallAdvances_ = poseTime && moving;
    backend_->setWall(wall_.get());
    wallUpdateMs_ += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

const TriangleMesh* Solver::wallMesh() const { return wallMesh_.get(); }

void Solver::setPlaneKind(std::size_t index, PlaneKind kind) {
    if (index >= scene_.planes.size())
        throw std::out_of_range("setPlaneKind: plane " + std::to_string(index) + " of " +
                                std::to_string(scene_.planes.size()));
    scene_.planes[index].kind = kind;
}

void Solver::setPlane(std::size_t index, const BoundaryPlane& plane) {
    if (index >= scene_.planes.size())
        throw std::out_of_range("setPlane: plane " + std::to_string(index) + " of " +
                                std::to_string(scene_.planes.size()));
    if (!(lengthSquared(plane.normal) > 0.f)) throw std::invalid_argument("setPlane: the normal is zero");
    scene_.planes[index] = plane;
    scene_.planes[index].normal = normalized(plane.normal);
}

void Solver::setMaxTension(std::optional<float> maxTension) {
    if (maxTension && !(*maxTension > 0.f && std::isfinite(*maxTension)))
        throw std::invalid_argument("setMaxTension: the tension must be positive and finite");
    scene_.parameters.clampNegativePressure = !maxTension;
    scene_.parameters.maxTension = maxTension;
}

const OpenBoundary& Solver::openBoundaryAt(std::size_t index, const char* caller) const {
    if (index >= scene_.openBoundaries.size())
        throw std::out_of_range(std::string(caller) + ": open boundary " + std::to_string(index) + " of " +
                                std::to_string(scene_.openBoundaries.size()));
    return scene_.openBoundaries[index];
}

void Solver::setOpenBoundaryPressure(std::size_t index, float pascal) {
    openBoundaryAt(index, "setOpenBoundaryPressure");
    if (!std::isfinite(pascal)) throw std::invalid_argument("setOpenBoundaryPressure: the pressure must be finite");
    scene_.openBoundaries[index].pressure = pascal;
}

float Solver::openBoundaryPressure(std::size_t index) const {
    return openBoundaryAt(index, "openBoundaryPressure").pressure;
}

double Solver::openBoundaryFlowRate(std::size_t index) const {
    openBoundaryAt(index, "openBoundaryFlowRate");
    return openFlowRate_[index];
}

OpenBoundaryFlow Solver::openBoundaryFlow(std::size_t index) const {
    openBoundaryAt(index, "openBoundaryFlow");
    return openFlow_[index];
}

bool Solver::inOpenBoundaryBuffer(Vec3 p) const {
    return openBoundaryZone(scene_.openBoundaries.data(), int(scene_.openBoundaries.size()), p) != 0;
}

void Solver::setEmitterSpeed(std::size_t index, float speed) {
    if (index >= scene_.emitters.size())
        throw std::out_of_range("setEmitterSpeed: emitter " + std::to_string(index) + " of " +
                                std::to_string(scene_.emitters.size()));
    if (!(speed >= 0.f) || !std::isfinite(speed)) throw std::invalid_argument("setEmitterSpeed: speed must be finite and >= 0");
    scene_.emitters[index].speed = speed;
}

void Solver::setEmitterRefill(std::size_t index, std::optional<float> densityFraction) {
    if (index >= scene_.emitters.size())
        throw std::out_of_range("setEmitterRefill: emitter " + std::to_string(index) + " of " +
                                std::to_string(scene_.emitters.size()));
    if (densityFraction && !(*densityFraction > 0.f && *densityFraction <= 1.f))
        throw std::invalid_argument("setEmitterRefill: the density fraction must be in (0, 1]");
    emitterRefill_[index] = densityFraction;
}

void Solver::setParticles(const std::vector<Vec3>& positions, const std::vector<Vec3>& velocities) {
    if (positions.size() != velocities.size())
        throw std::invalid_argument("setParticles: " + std::to_string(positions.size()) + " positions but " +
                                    std::to_string(velocities.size()) + " velocities");
    backend_->setParticles(positions, velocities);
}

std::size_t Solver::particleCount() const { return backend_->size(); }

float Solver::backgroundPressure() const {
    const SolverParameters& p = scene_.parameters;
    return !p.clampNegativePressure && p.maxTension ? *p.maxTension : 0.f;
}

void Solver::read(unsigned fields, HostParticles& out) const {
    backend_->download(fields, out);
    if (const float b = backgroundPressure(); b != 0.f && (fields & FieldPressure))
        for (float& p : out.pressure) p -= b;
}

SimulationStats Solver::stats() const {
    HostParticles h;
    backend_->download(FieldVelocity | FieldDensity, h);
    SimulationStats s;
    s.step = steps_;
    s.time = time_;
    s.particles = h.velocity.size();
    double sumErr = 0.0, ke = 0.0;
    for (std::size_t i = 0; i < h.velocity.size(); ++i) {
        const double err = std::fabs(double(h.density[i]) / restDensity_ - 1.0);
        sumErr += err;
        s.maxDensityError = std::max(s.maxDensityError, err);
        const double v2 = lengthSquared(h.velocity[i]);
        s.maxSpeed = std::max(s.maxSpeed, std::sqrt(v2));
        ke += 0.5 * mass_ * v2;
    }
    s.meanDensityError = s.particles ? sumErr / double(s.particles) : 0.0;
    s.kineticEnergy = ke;
    return s;
}

std::string Solver::backendName() const { return backend_->name(); }
std::string Solver::deviceName() const { return backend_->deviceName(); }
std::size_t Solver::bytesPerParticle() const { return backend_->bytesPerParticle(); }
StageTimes Solver::stageTimes() const {
    StageTimes t = backend_->stageTimes();
    t.wallUpdate = wallUpdateMs_;
    t.emit = emitMs_;
    return t;
}

void Solver::resetStageTimes() {
    backend_->resetStageTimes();
    wallUpdateMs_ = 0.0;
    emitMs_ = 0.0;
}

} // namespace atrium::sph
