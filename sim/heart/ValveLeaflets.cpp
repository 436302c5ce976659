#include "sim/heart/ValveLeaflets.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace atrium::heart {
namespace {

/// A normal valve's leaflets open to this fraction of the annulus's radius (81 degrees):
/// they line the flow, short of the wall.
constexpr double kOpenTipFraction = 0.85;
constexpr int kRadialSteps = 6;        // hinge to tip
constexpr int kArcStepsPerLeaflet = 8; // along the hinge

sph::Vec3 unitInPlane(sph::Vec3 v, sph::Vec3 normal, sph::Vec3 fallback) {
    v = v - normal * dot(v, normal);
    if (length(v) < 1e-6f) v = fallback - normal * dot(fallback, normal);
    return normalized(v);
}

/// How far into an interval of `length` the phase `into` is, eased at both ends.
double eased(double into, double length, double ramp) {
    ramp = std::min(ramp, length / 3.0);
    const auto smooth = [](double x) { return x * x * (3.0 - 2.0 * x); };
    if (ramp <= 0.0) return 1.0;
    if (into < ramp) return smooth(into / ramp);
    if (into > length - ramp) return smooth(std::max(0.0, length - into) / ramp);
    return 1.0;
}

} // namespace

std::vector<LeafletValve> phantomLeaflets(const HeartPhantom& phantom, const std::vector<std::pair<double, double>>& mitralOpen,
                                          const std::vector<std::pair<double, double>>& aorticOpen) {
    const PhantomParameters& p = phantom.parameters();
    const ValveDisc mitral = phantom.mitralValve(0.0), aortic = phantom.aorticValve(0.0);
    // The phantom's discs point along the forward flow (HeartPhantom.h).
    LeafletValve m;
    m.center = mitral.center;
    m.forward = normalized(mitral.normal);
    // The anterior leaflet faces the aortic valve (aorto-mitral continuity): the
    // commissures lie across the line between the two valves.
    const sph::Vec3 toAortic = unitInPlane(aortic.center - mitral.center, m.forward, {1.f, 0.f, 0.f});
    m.commissure = normalized(cross(m.forward, toAortic));
    m.annulusRadiusMm = mitral.radius;
    m.openOrificeRadiusMm = kOpenTipFraction * mitral.radius;
    m.leaflets = 2;
    m.open = mitralOpen;

    LeafletValve a;
    a.center = aortic.center;
    a.forward = normalized(aortic.normal);
    a.commissure = unitInPlane(mitral.center - aortic.center, a.forward, {1.f, 0.f, 0.f});
    a.annulusRadiusMm = 0.5 * p.aorticAnnulusMm;
    // A stenotic valve's cusps open only to its orifice (its published area).
    a.openOrificeRadiusMm = p.aorticValveAreaCm2 ? aortic.radius : kOpenTipFraction * a.annulusRadiusMm;
    a.leaflets = 3;
    a.open = aorticOpen;
    return {m, a};
}

double valveOpening(const std::vector<std::pair<double, double>>& open, double phase, double rampFraction) {
    phase -= std::floor(phase);
    for (const auto& [from, to] : open) {
        const double length = to >= from ? to - from : to + 1.0 - from;
        double into = phase - from;
        if (into < 0.0) into += 1.0;
        if (into < length) return eased(into, length, rampFraction);
    }
    return 0.0;
}

double leafletAngle(const LeafletValve& valve, double opening) {
    // The tips' radius R (1 - cos theta) reaches the open orifice at opening 1.
    const double r = valve.annulusRadiusMm > 0.0 ? std::clamp(valve.openOrificeRadiusMm / valve.annulusRadiusMm, 0.0, 1.0) : 0.0;
    return std::clamp(opening, 0.0, 1.0) * std::acos(1.0 - r);
}

void appendLeaflets(const LeafletValve& valve, double opening, std::vector<float>& vertexMm,
                    std::vector<std::uint32_t>& triangles) {
    if (valve.leaflets < 1 || !(valve.annulusRadiusMm > 0.0)) return;
    const sph::Vec3 f = normalized(valve.forward);
    const sph::Vec3 e1 = unitInPlane(valve.commissure, f, {1.f, 0.f, 0.f}), e2 = cross(f, e1);
    const double theta = leafletAngle(valve, opening), R = valve.annulusRadiusMm;
    const double sector = 2.0 * std::numbers::pi / valve.leaflets;
    // A closed leaflet bellies a little upstream, as the pressure behind it pushes it
    // (its coaptation), so that shut valves read as cusps rather than a flat plate.
    const double belly = 0.12 * R * std::cos(theta);
    for (int k = 0; k < valve.leaflets; ++k) {
        const auto first = std::uint32_t(vertexMm.size() / 3);
        for (int i = 0; i <= kArcStepsPerLeaflet; ++i) {
            const double phi = sector * (k + double(i) / kArcStepsPerLeaflet);
            const sph::Vec3 u = e1 * float(std::cos(phi)) + e2 * float(std::sin(phi));
            const sph::Vec3 hinge = valve.center + u * float(R);
            const sph::Vec3 along = u * float(-std::cos(theta)) + f * float(std::sin(theta));
            for (int j = 0; j <= kRadialSteps; ++j) {
                const double s = double(j) / kRadialSteps; // hinge 0 .. tip 1
                // Away from the commissures the belly is deepest.
                const double edge = std::sin(std::numbers::pi * double(i) / kArcStepsPerLeaflet);
                const sph::Vec3 q = hinge + along * float(s * R) - f * float(belly * 4.0 * s * (1.0 - s) * edge);
                vertexMm.insert(vertexMm.end(), {q.x, q.y, q.z});
            }
        }
        const auto at = [&](int i, int j) { return first + std::uint32_t(i * (kRadialSteps + 1) + j); };
        for (int i = 0; i < kArcStepsPerLeaflet; ++i)
            for (int j = 0; j < kRadialSteps; ++j)
                triangles.insert(triangles.end(), {at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j), at(i + 1, j + 1), at(i, j + 1)});
    }
}

} // namespace atrium::heart
