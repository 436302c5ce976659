#pragma once
// Where blood comes into a heart's chambers and where it leaves: the valves the blood
// scene (HeartSimulation) opens and closes with the beat, the reservoirs behind the
// inflow valves and the outlets beyond the outflow ones. The phantom knows its valves
// (fromPhantom); a mesh series open at the base gets one valve per opening
// (ChamberOpenings.h). Units: millimetres.

#include "sim/heart/HeartPhantom.h"
#include "sim/sph/Vec3.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace atrium::heart {

/// What a valve lets through while it is open.
enum class ValveRole {
    Inflow,  ///< into the chamber, while it fills (mitral, tricuspid)
    Outflow, ///< out of the chamber, while it empties (aortic, pulmonary)
    TwoWay,  ///< in while the chamber fills, out while it empties (a chamber's only opening)
};

/// "inflow", "outflow", "two-way".
const char* valveRoleName(ValveRole role);
/// The role named by `name` ("inflow", "outflow", "two-way"), or nothing.
std::optional<ValveRole> valveRoleFromName(const std::string& name);

struct Valve {
    std::string name; ///< "mitral", "aortic", or the opening's name
    ValveRole role = ValveRole::Inflow;
    /// The valve plane: a disc around `disc.center`, `disc.normal` pointing out of the
    /// chamber, of `disc.radius`.
    ValveDisc disc;
    /// Which points lie beyond the valve (outside the chamber): those on the far side of
    /// its plane, within this distance of the disc's axis (mm; 0: the whole half-space,
    /// as for the phantom, whose atrium is wider than its mitral valve).
    double beyondRadiusMm = 0.0;
    /// Inflow and two-way: where the reservoir behind the valve lets blood in, an
    /// emitter disc whose normal is the direction the blood comes (towards the valve).
    std::optional<ValveDisc> reservoir;
    /// Outflow and two-way: a sink (sphere) beyond the valve that removes the blood
    /// the chamber ejects.
    std::optional<sph::Vec3> outlet;
    double outletRadiusMm = 0.0;
    /// Inflow: a leaking valve's effective regurgitant orifice area (mm²; 0: it shuts
    /// tight). While the valve is shut and its chamber ejects, blood is driven back
    /// through a hole of this area at the speed the lumped pressures give
    /// (HeartSimulation::regurgitantFlowMlPerS).
    double regurgitantOrificeMm2 = 0.0;

    /// Whether `p` (mm) lies beyond the valve (see beyondRadiusMm).
    bool beyond(sph::Vec3 p) const;
};

/// What became of one opening of a chamber's mesh series (ChamberOpenings.h).
struct OpeningReport {
    std::size_t number = 0;           ///< 1 = the largest
    std::string name;
    std::optional<ValveRole> role;    ///< nothing: capped with a wall
    sph::Vec3 center, normal;         ///< at phase 0; normal out of the chamber
    double areaMm2 = 0.0;             ///< at phase 0 (flat cap)
    std::size_t edges = 0;
    std::string why;                  ///< the rule that decided its role
};

/// A chamber (ventricle) and its valves.
struct Chamber {
    std::string name; ///< "LV", "RV" or a series' file stem
    std::vector<Valve> valves;
    /// A point of the chamber's wall at phase 0 (mm): tells which closed piece of a
    /// heart with several chambers is this one.
    sph::Vec3 anchor;
    /// The enclosed volume of each phase of the chamber's own (capped) mesh, ml:
    /// without the vestibules behind its valves. Empty when not known (the phantom,
    /// whose ventricle ventricleVolumeMl measures).
    std::vector<double> phaseVolumeMl;
    /// A mesh series' openings and what became of them (empty for the phantom).
    std::vector<OpeningReport> openings;

    /// Whether this is a left ventricle: named "LV" or "left ...", or a name starting
    /// with "lv" and a separator ("lv_endo"), case-insensitively.
    bool isLeftVentricle() const;
};

struct HeartAnatomy {
    std::vector<Chamber> chambers;

    /// The phantom's LV: the mitral valve with the left atrium behind it (an inflow
    /// disc between the atrium's centre and the valve, aimed at the valve: the
    /// pulmonary veins as a reservoir), the aortic valve with an outlet at the far end
    /// of the aorta.
    static HeartAnatomy fromPhantom(const HeartPhantom& phantom);

    bool empty() const { return chambers.empty(); }
    std::size_t valveCount() const;
    /// Whether blood can leave anywhere (an outflow or two-way valve with an outlet).
    bool hasOutlet() const;
    /// Whether `p` (mm) lies on the chamber's side of every one of its valves.
    static bool insideValves(const Chamber& chamber, sph::Vec3 p);
};

/// The anatomy as JSON text (for the heart cache), and back. fromJson throws
/// std::runtime_error saying what is wrong.
std::string anatomyToJson(const HeartAnatomy& anatomy);
HeartAnatomy anatomyFromJson(const std::string& text);

} // namespace atrium::heart
