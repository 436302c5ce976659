// HeartSimulation's valves and the blood through them: the chambers' volume rates that
// time the valves, the valve planes, the reservoirs' inflow (the venous return), and the
// blood counted in each chamber and through each valve (HeartSimulation.h).
#include "sim/heart/HeartSimulation.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <optional>
#include <sstream>

namespace atrium::heart {
namespace {

constexpr float kMm = 1e-3f; // mm -> m

} // namespace

void HeartSimulation::sampleVolumeRates() {
    // dV/dt of a region bounded by the moving wall and fixed planes is the flux of the
    // wall's velocity through its part of the wall: sum over triangles of v_mean . n A.
    // A chamber's part is its triangles with their centroid on its side of all its
    // valves (ventricleVolumeMl's region). Samples every 1/(8 x sub-frames) of the
    // cycle - a few hundred poses, O(triangles) each - then a +-1 % moving average, so
    // that slivers and the half-way switch do not flicker the valves.
    const int n = std::max(200, 8 * heart_.frameCount());
    const std::size_t chambers = std::max<std::size_t>(anatomy_.chambers.size(), 1);
    std::vector<std::vector<double>> rate(chambers, std::vector<double>(std::size_t(n), 0.0));
    // The whole wall, then the reservoirs' regions (see reservoirRateMlPerS_), after the
    // chambers' rows.
    const std::size_t poolRow = rate.size();
    rate.emplace_back(std::size_t(n), 0.0);
    std::vector<std::size_t> reservoirRow(valveSlots_.size(), 0);
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        if (valveSlots_[i].valve->reservoir) {
            reservoirRow[i] = rate.size();
            rate.emplace_back(std::size_t(n), 0.0);
        }
    const float orientation = heart_.phaseMesh(0).enclosedVolume() >= 0.0 ? 1.f : -1.f;
    const int P = heart_.phaseCount();
    sph::TriangleMesh mesh;
    std::vector<sph::Vec3> velocity;
    for (int j = 0; j < n; ++j) {
        const double t = double(j) / n;
        wallAt(t, mesh, velocity);
        // The phase mesh whose triangles wallAt() used (see there).
        const double u = t * P;
        const int k = std::min(int(u), P - 1);
        const int m = u - k < 0.5 ? k : (k + 1) % P;
        for (std::size_t tri = 0; tri < mesh.triangles.size(); ++tri) {
            const auto& tr = mesh.triangles[tri];
            const std::size_t c = triangleChamber_.empty() ? 0 : triangleChamber_[std::size_t(m)][tri];
            const sph::Vec3 a = mesh.vertices[tr[0]], b = mesh.vertices[tr[1]], cc = mesh.vertices[tr[2]];
            const sph::Vec3 centroid = (a + b + cc) * (1.f / 3.f);
            const sph::Vec3 v = (velocity[tr[0]] + velocity[tr[1]] + velocity[tr[2]]) * (1.f / 3.f);
            const double flux = 0.5 * double(dot(v, cross(b - a, cc - a))) * orientation * 1e-3; // ml/s
            rate[poolRow][std::size_t(j)] += flux;
            std::size_t row = c;
            if (!anatomy_.chambers.empty() && !HeartAnatomy::insideValves(anatomy_.chambers[c], centroid)) {
                // Beyond a valve: the nearest valve of the chamber it lies beyond, if that
                // one has a reservoir.
                std::optional<std::size_t> nearest;
                float best = 1e30f;
                for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
                    const Valve& valve = *valveSlots_[i].valve;
                    if (valveSlots_[i].chamber != c || !valve.beyond(centroid)) continue;
                    if (const float d = lengthSquared(centroid - valve.disc.center); d < best) best = d, nearest = i;
                }
                if (!nearest || !valveSlots_[*nearest].valve->reservoir) continue;
                row = reservoirRow[*nearest];
            }
            rate[row][std::size_t(j)] += flux;
        }
        for (const sph::Vec3& v : velocity) maxWallSpeedMmPerS_ = std::max(maxWallSpeedMmPerS_, double(length(v)));
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
    // The flux misses the small volume drops at the half-way switches, where mesh k+1's
    // vertices land on mesh k's surface and its flat triangles cut inside it (~1-1.5 ml
    // per switch on the adult phantom). A periodic volume changes by nothing over a
    // cycle: remove the mean rate, spreading that loss over the cycle.
    for (std::vector<double>& r : rate) {
        double mean = 0.0;
        for (double x : r) mean += x;
        mean /= double(n);
        for (double& x : r) x -= mean;
        r = smooth(r);
    }
    reservoirRateMlPerS_.assign(valveSlots_.size(), {});
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        if (valveSlots_[i].valve->reservoir) reservoirRateMlPerS_[i] = std::move(rate[reservoirRow[i]]);
    poolVolumeMl_.assign(std::size_t(n), 0.0);
    for (int j = 1; j < n; ++j)
        poolVolumeMl_[std::size_t(j)] = poolVolumeMl_[std::size_t(j - 1)] +
                                        0.5 * (rate[poolRow][std::size_t(j - 1)] + rate[poolRow][std::size_t(j)]) * cycleSeconds_ / n;
    rate.resize(chambers);
    reservoirInAtrium_.assign(valveSlots_.size(), false);
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        double own = 0.0, chamber = 0.0;
        for (double x : reservoirRateMlPerS_[i]) own = std::max(own, std::fabs(x));
        for (double x : rate[valveSlots_[i].chamber]) chamber = std::max(chamber, std::fabs(x));
        reservoirInAtrium_[i] = own > 0.1 * chamber;
    }
    rateMlPerS_.clear();
    peakRateMlPerS_.clear();
    fillingTable_.clear();
    emptyingTable_.clear();
    for (std::vector<double>& r : rate) {
        rateMlPerS_.push_back(std::move(r));
        double peak = 0.0;
        for (double x : rateMlPerS_.back()) peak = std::max(peak, std::fabs(x));
        peakRateMlPerS_.push_back(peak);
        // A valve is open while the volume changes faster than isovolumicFraction of
        // its peak rate, except that an inflow valve, once open, stays open until the
        // filling all but stops (a third of that; two laps round the periodic table
        // settle the state): closed at the threshold, a ventricle whose filling slows to
        // zero at end-diastole ended 1.2 % short. Both stay shut in between (the
        // isovolumic phases).
        const std::vector<double>& x = rateMlPerS_.back();
        const double threshold = settings_.isovolumicFraction * peak, stop = threshold / 3.0;
        std::vector<std::uint8_t> fills(x.size()), empties(x.size());
        bool filling = false, emptying = false;
        for (std::size_t lap = 0; lap < 2 * x.size(); ++lap) {
            const double dv = x[lap % x.size()];
            filling = dv > threshold || (filling && dv > stop);
            emptying = dv < -threshold;
            fills[lap % x.size()] = filling;
            empties[lap % x.size()] = emptying;
        }
        fillingTable_.push_back(std::move(fills));
        emptyingTable_.push_back(std::move(empties));
    }
}

void HeartSimulation::refuseSqueezedChambers() const {
    // A chamber with no way out whose volume changes: its blood is compressed to
    // rho0 x EDV / ESV, pressure rises by c0^2 rho0 / 7 ((EDV/ESV)^7 - 1) - at 60 % EF
    // and c0 = 10 m/s about 0.36 MPa - and the run blows up in the first systole.
    // Refuse it now, saying why, rather than after a minute of stepping.
    const std::size_t chambers = std::max<std::size_t>(anatomy_.chambers.size(), 1);
    for (std::size_t c = 0; c < chambers; ++c) {
        if (!anatomy_.chambers.empty()) {
            const Chamber& chamber = anatomy_.chambers[c];
            const bool wayOut = std::any_of(chamber.valves.begin(), chamber.valves.end(), [](const Valve& v) {
                return v.role != ValveRole::Inflow && v.outlet.has_value();
            });
            if (wayOut) continue;
        }
        // Its volume over the cycle: the phase meshes' (one chamber) or the integral of
        // its rate (one of several).
        double lo = 0.0, hi = 0.0, reference = 0.0;
        if (chambers == 1) {
            lo = 1e300;
            for (int k = 0; k < heart_.phaseCount(); ++k) {
                const double v = std::fabs(heart_.phaseMesh(k).enclosedVolume()) * 1e-3;
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            reference = hi;
        } else {
            const std::vector<double>& r = rateMlPerS_[c];
            double v = 0.0;
            for (double x : r) {
                v += x * cycleSeconds_ / double(r.size());
                lo = std::min(lo, v);
                hi = std::max(hi, v);
            }
            const std::vector<double>& volumes = anatomy_.chambers[c].phaseVolumeMl;
            reference = volumes.empty() ? 0.0 : *std::max_element(volumes.begin(), volumes.end());
            lo += reference - hi;
            hi = reference;
        }
        if (!(reference > 0.0) || (hi - lo) / hi <= settings_.closedVolumeChangeLimit) continue;
        std::ostringstream m;
        m.precision(3);
        const std::string who = anatomy_.chambers.empty() ? std::string("the heart") : "chamber " + anatomy_.chambers[c].name;
        m << "heart: " << who << " is closed - no opening lets blood out - and its volume changes by "
          << 100.0 * (hi - lo) / hi << " % over the cycle (" << hi << " -> " << lo
          << " ml): the blood shut inside would be squeezed to " << hi / lo
          << " rho0 and blow up in the first systole, whatever the time step. Refused before the first step. "
             "Give a series open where its valves are (each opening becomes a valve: docs/heart-pipeline.md), "
             "or a still (single-phase) mesh.";
        throw ChamberSqueezed(m.str());
    }
}

double HeartSimulation::sampledRate(const std::vector<double>& table, double cycleFraction) const {
    if (table.empty()) return 0.0;
    const double x = (cycleFraction - std::floor(cycleFraction)) * double(table.size());
    const std::size_t j = std::size_t(x) % table.size();
    const double f = x - std::floor(x);
    return table[j] * (1.0 - f) + table[(j + 1) % table.size()] * f;
}

double HeartSimulation::chamberVolumeRateMlPerS(double cycleFraction, std::size_t chamber) const {
    if (chamber >= rateMlPerS_.size()) throw std::out_of_range("heart: no chamber " + std::to_string(chamber));
    return sampledRate(rateMlPerS_[chamber], cycleFraction);
}

std::vector<ValveFlow> HeartSimulation::valvesAt(double cycleFraction) const {
    // In a real heart the valves follow the pressure difference across them; the
    // chamber's volume change is its outcome and the one thing the moving wall
    // prescribes: a filling ventricle has its inflow valve open and its outflow valve
    // shut, an emptying one the reverse (Poyart 2016, 3.5.6 keeps both one-way
    // throughout, which let diastolic inflow run straight out through the aorta).
    std::vector<ValveFlow> flows(valveSlots_.size(), ValveFlow::Shut);
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        const std::size_t c = valveSlots_[i].chamber;
        const std::size_t n = fillingTable_[c].size();
        const double t = cycleFraction - std::floor(cycleFraction);
        const std::size_t j = std::min(n - 1, std::size_t(t * double(n)));
        const bool filling = fillingTable_[c][j] != 0, emptying = emptyingTable_[c][j] != 0;
        const ValveRole role = valveSlots_[i].valve->role;
        const Chamber& chamber = anatomy_.chambers[c];
        const bool both = std::any_of(chamber.valves.begin(), chamber.valves.end(),
                                      [](const Valve& v) { return v.role == ValveRole::Inflow; }) &&
                          std::any_of(chamber.valves.begin(), chamber.valves.end(),
                                      [](const Valve& v) { return v.role == ValveRole::Outflow; });
        if (role == ValveRole::TwoWay)
            flows[i] = filling ? ValveFlow::Into : (emptying ? ValveFlow::OutOf : ValveFlow::Shut);
        else if (!settings_.valveTiming || !both)
            flows[i] = role == ValveRole::Inflow ? ValveFlow::Into : ValveFlow::OutOf;
        else if (role == ValveRole::Inflow)
            flows[i] = filling ? ValveFlow::Into : ValveFlow::Shut;
        else
            flows[i] = emptying ? ValveFlow::OutOf : ValveFlow::Shut;
    }
    return flows;
}

int HeartSimulation::valveIndex(const std::string& name) const {
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        if (valveSlots_[i].valve->name == name) return int(i);
    return -1;
}

sph::BoundaryPlane HeartSimulation::valvePlane(std::size_t index, ValveFlow flow) const {
    const Valve& v = *valveSlots_[index].valve;
    sph::BoundaryPlane plane{v.disc.center * kMm, normalized(v.disc.normal), float(v.disc.radius) * kMm,
                             sph::PlaneKind::OneWay, 0.f};
    if (flow == ValveFlow::Shut) plane.kind = sph::PlaneKind::Closed;
    if (flow == ValveFlow::Into) plane.normal = -plane.normal; // one-way into the chamber
    return plane;
}

std::size_t HeartSimulation::countChamber(std::size_t chamber, const sph::HostParticles& particles,
                                          double* density) const {
    const Chamber& c = anatomy_.chambers[chamber];
    // With several chambers, a particle belongs to the one whose wall is nearest: it
    // lies inside one closed piece, and any point of another piece is outside that one,
    // so the straight line to it crosses its own piece's wall first.
    std::optional<TriangleLocator> locator;
    std::vector<std::uint16_t> owner;
    if (anatomy_.chambers.size() > 1) {
        sph::TriangleMesh mesh;
        std::vector<sph::Vec3> velocity;
        const double t = filling_ ? 0.0 : beats();
        wallAt(t, mesh, velocity);
        const int P = heart_.phaseCount();
        const double u = (t - std::floor(t)) * P;
        const int k = std::min(int(u), P - 1);
        owner = triangleChamber_[std::size_t(u - k < 0.5 ? k : (k + 1) % P)];
        locator.emplace(mesh);
    }
    std::size_t n = 0;
    double sum = 0.0;
    for (std::size_t i = 0; i < particles.position.size(); ++i) {
        const sph::Vec3 p = particles.position[i] * 1000.f; // mm
        if (!HeartAnatomy::insideValves(c, p)) continue;
        if (locator) {
            std::uint32_t tri = 0;
            locator->closestPoint(p, &tri);
            if (owner[tri] != chamber) continue;
        }
        ++n;
        if (density) sum += particles.density[i];
    }
    if (density) *density = n ? sum / (double(n) * solver_->restDensity()) : 0.0;
    return n;
}

HeartSimulation::EndDiastole HeartSimulation::chamberBlood(std::size_t chamber) const {
    if (chamber >= anatomy_.chambers.size()) throw std::out_of_range("heart: no chamber " + std::to_string(chamber));
    sph::HostParticles h;
    solver_->read(sph::FieldPosition | sph::FieldDensity, h);
    EndDiastole e;
    e.particles = countChamber(chamber, h, &e.meanDensity);
    return e;
}

double HeartSimulation::particleVolumeMl() const { return 1e6 * double(solver_->particleMass()) / solver_->restDensity(); }

void HeartSimulation::countValveFlow(std::size_t chamber, const std::vector<ValveFlow>& flows) {
    // The chamber's blood changes only through its open valves (and the rare leak):
    // while exactly one was open, the change went through that one.
    sph::HostParticles h;
    solver_->read(sph::FieldPosition, h);
    const std::size_t now = countChamber(chamber, h, nullptr);
    const double change = (double(now) - double(chamberCount_[chamber])) * particleVolumeMl();
    chamberCount_[chamber] = now;
    int open = -1, opened = 0;
    for (std::size_t i = 0; i < valveSlots_.size(); ++i)
        if (valveSlots_[i].chamber == chamber && flows[i] != ValveFlow::Shut) {
            open = int(i);
            ++opened;
        }
    // A leaking valve's atrium: what it gained but for the emitters came back through
    // the leak (no sink lies there).
    double regurgitant = 0.0;
    const std::uint64_t emitted = solver_->accounting().emitted;
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        if (valveSlots_[i].chamber != chamber || regurgitantMlPerS_[i].empty()) continue;
        const std::size_t beyond = countBeyond(i, h);
        if (flows[i] == ValveFlow::Shut && opened == 1) {
            const double gained = (double(beyond) - double(beyondCount_[i]) - double(emitted - emittedAtCount_)) * particleVolumeMl();
            regurgitant = std::max(0.0, std::min(gained, -change));
            valveVolumes_[i].outMl += regurgitant;
        }
        beyondCount_[i] = beyond;
    }
    emittedAtCount_ = emitted;
    if (opened != 1) return; // shut (leaks and noise) or several open at once (valveTiming off)
    ValveVolumes& v = valveVolumes_[std::size_t(open)];
    if (change >= 0.0)
        v.inMl += change;
    else
        v.outMl -= change + regurgitant;
}

std::size_t HeartSimulation::nearestValve(sph::Vec3 pMm) const {
    std::size_t nearest = 0;
    float best = std::numeric_limits<float>::max();
    for (std::size_t v = 0; v < valveSlots_.size(); ++v)
        if (const float d = lengthSquared(pMm - valveSlots_[v].valve->disc.center); d < best) best = d, nearest = v;
    return nearest;
}

std::size_t HeartSimulation::countBeyond(std::size_t valve, const sph::HostParticles& particles) const {
    std::size_t count = 0;
    for (const sph::Vec3& p : particles.position) {
        const sph::Vec3 mm = p * 1000.f;
        if (nearestValve(mm) == valve && valveSlots_[valve].valve->beyond(mm)) ++count;
    }
    return count;
}

double HeartSimulation::regurgitantFlowMlPerS(double cycleFraction, std::size_t valve) const {
    if (valve >= valveSlots_.size()) throw std::out_of_range("heart: no valve " + std::to_string(valve));
    return sampledRate(regurgitantMlPerS_[valve], cycleFraction);
}

double HeartSimulation::regurgitantVolumeMl(std::size_t valve) const {
    if (valve >= valveSlots_.size()) throw std::out_of_range("heart: no valve " + std::to_string(valve));
    const std::vector<double>& q = regurgitantMlPerS_[valve];
    double sum = 0.0;
    for (double x : q) sum += x;
    return q.empty() ? 0.0 : sum / double(q.size()) * cycleSeconds_;
}

void HeartSimulation::setRegurgitantJets(double cycleFraction) {
    jets_.resize(valveSlots_.size());
    const double now = filling_ ? 0.0 : beats();
    std::optional<sph::HostParticles> h;
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        const double area = valveSlots_[i].valve->regurgitantOrificeMm2;
        if (regurgitantMlPerS_[i].empty() || valves_[i] != ValveFlow::Shut) continue;
        RegurgitantJet& jet = jets_[i];
        const double flow = filling_ ? 0.0 : regurgitantFlowMlPerS(cycleFraction, i);
        // The controller steps every 4 ms (each step moves a particle or two only).
        const bool due = !jet.active || flow <= 0.0 || (now - jet.phase) * cycleSeconds_ >= 0.004;
        if ((flow > 0.0 || jet.active) && due) {
            if (!h) solver_->read(sph::FieldPosition, h.emplace());
            const std::size_t beyond = countBeyond(i, *h);
            const std::uint64_t emitted = solver_->accounting().emitted;
            if (jet.active) {
                // What came back since the last update, against the model's flow then.
                const double delivered =
                    (double(beyond) - double(jet.beyond) - double(emitted - jet.emitted)) * particleVolumeMl();
                const double target = regurgitantFlowMlPerS(jet.phase, i) * (now - jet.phase) * cycleSeconds_;
                const double owed = target + 0.5 * (jet.targetMl - jet.deliveredMl);
                if (target > 0.0) jet.areaScale *= std::clamp(owed / std::max(delivered, 0.1 * target), 0.8, 1.25);
                jet.areaScale = std::clamp(jet.areaScale, 1.0, 3.0);
                jet.targetMl += target;
                jet.deliveredMl += delivered;
            }
            jet.active = flow > 0.0;
            jet.phase = now;
            jet.beyond = beyond;
            jet.emitted = emitted;
            if (!jet.active) jet.targetMl = jet.deliveredMl = 0.0;
        }
        if (!(flow > 0.0) && !jet.holeOpen) continue;
        // The hole follows the controller (every 4 ms), not every step: on a GPU each
        // change of a plane is an upload.
        if (flow > 0.0 && jet.holeOpen && !due) continue;
        sph::BoundaryPlane plane = valvePlane(i, ValveFlow::Shut);
        if (flow > 0.0) {
            // The shut plane's normal points out of the chamber, the way the jet goes.
            plane.holeRadius = float(std::sqrt(area * jet.areaScale / std::numbers::pi)) * kMm;
            plane.holeSpeed = float(flow / area); // ml/s over mm^2 = m/s
            plane.holeDepth = 1.5f * float(settings_.particleSpacingMm) * kMm;
            plane.holeConvergence = 3.f * plane.holeRadius;
        }
        jet.holeOpen = flow > 0.0;
        solver_->setPlane(valveSlots_[i].plane, plane);
    }
}

void HeartSimulation::updateValves(double cycleFraction) {
    const std::vector<ValveFlow> flows = valvesAt(cycleFraction);
    std::vector<bool> counted(anatomy_.chambers.size(), false);
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        if (flows[i] == valves_[i]) continue;
        const ValveSlot& slot = valveSlots_[i];
        if (!counted[slot.chamber]) {
            countValveFlow(slot.chamber, valves_);
            counted[slot.chamber] = true;
        }
        solver_->setPlane(slot.plane, valvePlane(i, flows[i]));
    }
    valves_ = flows;
    setRegurgitantJets(cycleFraction);
    setReservoirInflow(cycleFraction);
    // Suction except while a chamber contracts: tension left in the blood as systole
    // squeezed it threw the heart-failure preset's apex blood at 20 m/s. Kept through
    // the isovolumic phases and the end of diastole, when the inflow valves are shut but
    // the chamber still grows (without it there, the cut-out phantom ventricle ended
    // diastole at 0.978 rho0 instead of within 1 % of rho0).
    bool contracting = false;
    for (std::size_t c = 0; c < rateMlPerS_.size(); ++c)
        if (chamberVolumeRateMlPerS(cycleFraction, c) < -settings_.isovolumicFraction * peakRateMlPerS_[c])
            contracting = true;
    const bool suction = settings_.diastolicSuctionPa > 0.0 && !contracting;
    if (suction != suction_) {
        solver_->setMaxTension(suction ? std::optional<float>(float(settings_.diastolicSuctionPa)) : std::nullopt);
        suction_ = suction;
    }
}

void HeartSimulation::setReservoirInflow(double cycleFraction) {
    // The blood the pool lacks against the wall's volume since the beat started (ml;
    // what left through the outlets included), made up within kMakeUpSeconds, shared
    // by the venous returns.
    constexpr double kMakeUpSeconds = 0.05;
    std::size_t reservoirs = 0;
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) reservoirs += valveSlots_[i].emitter && reservoirInAtrium_[i] ? 1 : 0;
    const double lackingMl = sampledRate(poolVolumeMl_, cycleFraction) -
                             (double(solver_->particleCount()) - double(beatParticles_)) * particleVolumeMl();
    for (std::size_t i = 0; i < valveSlots_.size(); ++i) {
        const ValveSlot& slot = valveSlots_[i];
        if (!slot.emitter) continue;
        // A two-way valve's reservoir lets blood in only while the chamber fills (it
        // would feed the outlet beside it while the chamber empties).
        if (valves_[i] == ValveFlow::OutOf) {
            solver_->setEmitterSpeed(*slot.emitter, 0.f);
            continue;
        }
        double speed = settings_.inflowSpeed;
        if (settings_.venousReturn && reservoirInAtrium_[i]) {
            // ml/s over mm^2 = m/s.
            double flow = sampledRate(reservoirRateMlPerS_[i], cycleFraction);
            if (valves_[i] == ValveFlow::Into) flow += std::max(0.0, chamberVolumeRateMlPerS(cycleFraction, slot.chamber));
            // A leak fills the atrium from the other side (mitral regurgitation blunts
            // the veins' S wave).
            flow -= regurgitantFlowMlPerS(cycleFraction, i);
            flow += lackingMl / double(reservoirs) / kMakeUpSeconds;
            const double radius = slot.valve->reservoir->radius, area = std::numbers::pi * radius * radius;
            speed = std::clamp(flow / area, 0.0, settings_.venousReturnMaxSpeed);
        }
        solver_->setEmitterSpeed(*slot.emitter, float(speed));
    }
}

} // namespace atrium::heart
