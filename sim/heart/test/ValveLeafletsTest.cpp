// The valve leaflets shown over the blood (issue 23): shut, they close the annulus;
// open, they leave the orifice the phantom's valve has, so that a stenotic preset's
// stiff cusps leave its published area and a normal valve's do not read as stenosis.
// Sources (docs/heart-phantom.md): Baumgartner H et al. 2017 (JASE 30:372), severe aortic
// stenosis below 1.0 cm2 and mild above 1.5 cm2; Baumgartner H et al. 2009 (JASE 22:1),
// mitral stenosis mild above 1.5 cm2.
#include "sim/heart/ValveLeaflets.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

using namespace atrium;
using namespace atrium::heart;

namespace {

std::vector<sph::Vec3> surface(const LeafletValve& valve, double opening, std::vector<std::uint32_t>* triangles = nullptr) {
    std::vector<float> xyz;
    std::vector<std::uint32_t> t;
    appendLeaflets(valve, opening, xyz, t);
    if (triangles) *triangles = t;
    std::vector<sph::Vec3> points;
    for (std::size_t i = 0; i + 2 < xyz.size(); i += 3) points.push_back({xyz[i], xyz[i + 1], xyz[i + 2]});
    return points;
}

double axisDistance(const LeafletValve& v, sph::Vec3 p) {
    const sph::Vec3 d = p - v.center;
    return length(d - v.forward * dot(d, v.forward));
}

/// The open orifice's area (cm2): the circle inside every leaflet point's distance from
/// the valve's axis.
double orificeCm2(const LeafletValve& v, double opening) {
    double r = 1e30;
    for (const sph::Vec3& p : surface(v, opening)) r = std::min(r, axisDistance(v, p));
    return std::numbers::pi * r * r / 100.0;
}

const LeafletValve& named(const std::vector<LeafletValve>& valves, int leaflets) {
    return *std::find_if(valves.begin(), valves.end(), [&](const LeafletValve& v) { return v.leaflets == leaflets; });
}

} // namespace

TEST(ValveLeaflets, ShutTheyCloseTheAnnulusAndOpenTheyLeaveTheValvesOrifice) {
    const HeartPhantom adult(HeartPhantom::preset("adult"));
    const std::vector<LeafletValve> valves = phantomLeaflets(adult, {{0.5, 0.9}}, {{0.1, 0.4}});
    ASSERT_EQ(valves.size(), 2u);
    for (const LeafletValve& v : valves) {
        std::vector<std::uint32_t> shutTriangles, openTriangles;
        const std::vector<sph::Vec3> shut = surface(v, 0.0, &shutTriangles);
        ASSERT_FALSE(shut.empty());
        surface(v, 1.0, &openTriangles);
        EXPECT_EQ(shutTriangles, openTriangles) << "the triangles do not change as the valve moves";
        // Shut: within the annulus, at most a small belly off its plane, and the tips
        // meet at the centre (no orifice).
        for (const sph::Vec3& p : shut) {
            EXPECT_LE(axisDistance(v, p), v.annulusRadiusMm + 1e-3);
            EXPECT_LE(std::fabs(dot(p - v.center, v.forward)), 0.12 * v.annulusRadiusMm + 1e-3);
        }
        EXPECT_LT(orificeCm2(v, 0.0), 1e-4);
        // Opening, the orifice grows; open, the leaflets stand downstream.
        EXPECT_LT(orificeCm2(v, 0.3), orificeCm2(v, 0.7));
        for (const sph::Vec3& p : surface(v, 1.0)) EXPECT_GE(dot(p - v.center, v.forward), -1e-3);
    }
    // A normal valve does not read as stenosis: mild stenosis begins below 1.5 cm2 for
    // the aortic (Baumgartner 2017) and the mitral valve (Baumgartner 2009).
    EXPECT_GT(orificeCm2(named(valves, 3), 1.0), 1.5);
    EXPECT_GT(orificeCm2(named(valves, 2), 1.0), 1.5);
    // The stenotic preset's stiff cusps leave its 0.8 cm2, a severe stenosis (< 1.0).
    const HeartPhantom stenosis(HeartPhantom::preset("aortic-stenosis"));
    const LeafletValve stiff = named(phantomLeaflets(stenosis, {}, {{0.1, 0.4}}), 3);
    EXPECT_NEAR(orificeCm2(stiff, 1.0), 0.8, 0.04);
    EXPECT_LT(leafletAngle(stiff, 1.0), leafletAngle(named(valves, 3), 1.0));
}

TEST(ValveLeaflets, TheyOpenAndCloseWithTheValvesIntervals) {
    const std::vector<std::pair<double, double>> open = {{0.1, 0.4}, {0.9, 0.05}}; // the second wraps
    EXPECT_EQ(valveOpening(open, 0.5), 0.0);
    EXPECT_EQ(valveOpening(open, 0.25), 1.0);
    EXPECT_EQ(valveOpening(open, 0.97), 1.0);
    EXPECT_EQ(valveOpening(open, 1.97), 1.0) << "phases wrap";
    const double opening = valveOpening(open, 0.11), closing = valveOpening(open, 0.39);
    EXPECT_GT(opening, 0.0);
    EXPECT_LT(opening, 1.0);
    EXPECT_GT(closing, 0.0);
    EXPECT_LT(closing, 1.0);
    EXPECT_LT(valveOpening(open, 0.105), opening) << "it swings open, not jumps";
    EXPECT_EQ(valveOpening({}, 0.3), 0.0);
}
