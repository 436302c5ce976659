#pragma once
// Valve leaflets to show (issue 23): display-only geometry, like the right heart's
// shell, that opens and closes with the valve timing the blood already uses (the
// valves' open intervals over the cycle). The blood's valves stay planes; the leaflets
// are what a lecturer points at. Each leaflet is a sector of the annulus hinged on its
// arc: closed, the sectors meet at the centre in the annulus's plane; open by an angle
// theta, each swings downstream about its hinge, so that the tips leave an orifice of
// radius R (1 - cos theta). A stenotic valve's stiff leaflets open only as far as its
// orifice. Units: mm.

#include "sim/heart/HeartPhantom.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace atrium::heart {

struct LeafletValve {
    sph::Vec3 center;        ///< of the annulus
    sph::Vec3 forward;       ///< the way blood goes through it when open (unit)
    sph::Vec3 commissure;    ///< in the annulus's plane: where the first leaflet ends (unit)
    double annulusRadiusMm = 0.0;
    double openOrificeRadiusMm = 0.0; ///< the tips' radius when fully open (<= annulus)
    int leaflets = 3;                 ///< 2 (mitral) or 3 (aortic)
    /// Open intervals over the cycle as [from, to) phase pairs (to < from wraps).
    std::vector<std::pair<double, double>> open;
};

/// The phantom's mitral (two leaflets, the commissures across the line to the aortic
/// valve, so that one leaflet faces it) and aortic (three cusps) valves, with these
/// open intervals. The aortic cusps of a stenotic preset open to its orifice only.
std::vector<LeafletValve> phantomLeaflets(const HeartPhantom& phantom,
                                          const std::vector<std::pair<double, double>>& mitralOpen,
                                          const std::vector<std::pair<double, double>>& aorticOpen);

/// How open a valve is at `phase` (0..1, wraps): 0 shut, 1 open, easing over
/// `rampFraction` of the cycle (at most a third of the interval) at each end of an
/// open interval, so that the leaflets swing rather than jump.
double valveOpening(const std::vector<std::pair<double, double>>& open, double phase, double rampFraction = 0.03);

/// The opening angle (radians from the annulus's plane) at `opening` (0..1).
double leafletAngle(const LeafletValve& valve, double opening);

/// Appends `valve`'s leaflets at `opening` (0..1) as a surface: xyz per vertex (mm) to
/// `vertexMm`, three indices per triangle to `triangles`. The triangles depend only on
/// the valve, not on the opening.
void appendLeaflets(const LeafletValve& valve, double opening, std::vector<float>& vertexMm,
                    std::vector<std::uint32_t>& triangles);

} // namespace atrium::heart
