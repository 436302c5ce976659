#pragma once
// The openings of a chamber's mesh series become valves.
//
// A ventricle fitted to cine MRI is open at the base: one boundary loop per valve
// annulus (mitral and aortic, tricuspid and pulmonary). Capping the loops with walls
// shuts the blood in a chamber that shrinks by half, which blows the simulation up.
// Instead, each opening gets a vestibule - a short straight tube continuing the
// chamber beyond the opening, closed at its far end - and a valve plane across it:
//
//   chamber wall ... opening (moves with the wall)
//                    connector: stitched from the opening to the tube's first ring
//                    tube start: a circle on the opening's plane, fixed in space, just
//                                beyond the farthest the opening reaches in the cycle
//                    valve plane: a disc a quarter of the radius into the tube
//                    tube: 3 radii long, its far end closed by a fan
//
// so the parts beyond the valves stay still while the wall moves. The valve's role
// decides what lies in its tube (HeartAnatomy.h, HeartSimulation.h): an inflow valve's
// tube holds a reservoir (an emitter aimed at the valve) that lets in whatever the
// chamber draws, an outflow valve's an outlet near its far end that removes what the
// chamber ejects; a two-way valve's both.
//
// Roles, by rule (the larger opening has the larger annulus: mitral > aortic,
// tricuspid > pulmonary):
//   - openings smaller than 10 % of the largest are defects of the mesh and are capped;
//   - one opening: a two-way valve;
//   - two: the larger (area at phase 0) is the inflow, the other the outflow;
//   - more: refused, naming them, unless rules say which is which.
// Rules (OpeningRule) override this per opening: from a sidecar JSON beside the series
// (readOpeningRules) or options (openingRulesFromRoles). Openings are numbered from 1
// in order of decreasing area at phase 0.
// Units: millimetres.

#include "sim/heart/HeartAnatomy.h"
#include "sim/sph/TriangleMesh.h"

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace atrium::heart {

/// One override: which opening (by number or the one nearest a point), and what it is.
struct OpeningRule {
    std::optional<std::size_t> number; ///< 1 = the largest opening
    std::optional<sph::Vec3> near;     ///< or the opening whose centre is nearest (mm)
    std::optional<ValveRole> role;     ///< the valve it becomes; nothing with `wall`
    bool wall = false;                 ///< capped with a wall instead of a valve
    std::string name;                  ///< the valve's name ("mitral"); empty: by role
    std::string origin;                ///< where the rule came from, for messages
};

struct OpeningOptions {
    std::string chamberName;          ///< the chamber's name (e.g. "LV", a file stem)
    std::vector<OpeningRule> rules;
    double vestibuleRadii = 3.0;      ///< tube length in radii of the opening
    double defectFraction = 0.10;     ///< openings below this fraction of the largest area are capped
};

/// Reads the rules of a sidecar file (format in docs/heart-pipeline.md):
///   {"chamber": "LV", "openings": [{"number": 1, "role": "inflow", "name": "mitral"},
///                                  {"near": [x, y, z], "role": "outflow"},
///                                  {"number": 3, "role": "wall"}]}
/// `chamberName`, if given, receives "chamber". Throws std::runtime_error naming the
/// file and the field at fault.
std::vector<OpeningRule> readOpeningRules(const std::filesystem::path& file, std::string* chamberName = nullptr);
/// Rules from a list of roles, one per opening in order of number ("inflow,outflow",
/// "two-way", "outflow,inflow,wall"). Throws std::invalid_argument naming a bad role.
std::vector<OpeningRule> openingRulesFromRoles(const std::string& roles, const std::string& origin);
/// The sidecar file of a series, if it exists: `<stem>.valves.json` beside the files of
/// a pattern or a single file (the stem without the frame number, e.g. lv_%03d.vtk ->
/// lv.valves.json), `valves.json` inside a directory.
std::optional<std::filesystem::path> openingRulesFile(const std::string& patternOrDirectory);
/// The name stem of a series: "lv" for lv_%03d.vtk or lv_000.vtk, a directory's name.
std::string seriesStem(const std::string& patternOrDirectory);

/// For the phases of one chamber (cleaned, open: MeshCleaning::capHoles off; each
/// phase's winding consistent), with `fixedTopology` when they share their triangles:
/// turns each opening into a valve with its vestibule (see the header comment), or a
/// wall. The phases come back closed, wound outward, vestibules included (still sharing
/// their triangles when they did). Returns the chamber with its valves and its own
/// volume per phase (openings capped flat, no vestibules). Throws std::runtime_error
/// saying what is wrong: a series whose phases have different openings, three or more
/// openings and no rules, a rule that matches no opening, a vestibule that would cut
/// through the wall.
Chamber valveOpenings(std::vector<sph::TriangleMesh>& phases, bool fixedTopology, const OpeningOptions& options,
                      std::vector<OpeningReport>* report = nullptr);

} // namespace atrium::heart
