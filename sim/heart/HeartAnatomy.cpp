#include "sim/heart/HeartAnatomy.h"

#include "io/JsonInput.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace atrium::heart {

const char* valveRoleName(ValveRole role) {
    switch (role) {
    case ValveRole::Inflow: return "inflow";
    case ValveRole::Outflow: return "outflow";
    case ValveRole::TwoWay: return "two-way";
    }
    return "?";
}

std::optional<ValveRole> valveRoleFromName(const std::string& name) {
    for (ValveRole r : {ValveRole::Inflow, ValveRole::Outflow, ValveRole::TwoWay})
        if (name == valveRoleName(r)) return r;
    return std::nullopt;
}

bool Valve::beyond(sph::Vec3 p) const {
    const sph::Vec3 d = p - disc.center;
    const float along = dot(d, disc.normal);
    if (along <= 0.f) return false;
    if (beyondRadiusMm <= 0.0) return true;
    const sph::Vec3 across = d - disc.normal * along;
    return double(lengthSquared(across)) <= beyondRadiusMm * beyondRadiusMm;
}

bool HeartAnatomy::insideValves(const Chamber& chamber, sph::Vec3 p) {
    return std::none_of(chamber.valves.begin(), chamber.valves.end(), [p](const Valve& v) { return v.beyond(p); });
}

bool Chamber::isLeftVentricle() const {
    std::string n = name;
    std::transform(n.begin(), n.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (n == "lv" || n.rfind("left", 0) == 0) return true;
    return n.size() > 2 && n.rfind("lv", 0) == 0 && std::isalpha(static_cast<unsigned char>(n[2])) == 0;
}

std::size_t HeartAnatomy::valveCount() const {
    std::size_t n = 0;
    for (const Chamber& c : chambers) n += c.valves.size();
    return n;
}

bool HeartAnatomy::hasOutlet() const {
    for (const Chamber& c : chambers)
        for (const Valve& v : c.valves)
            if (v.outlet && v.role != ValveRole::Inflow) return true;
    return false;
}

HeartAnatomy HeartAnatomy::fromPhantom(const HeartPhantom& phantom) {
    Chamber lv;
    lv.name = "LV";
    // The phantom's discs point along the forward flow; a valve's normal points out of
    // the chamber.
    Valve mitral;
    mitral.name = "mitral";
    mitral.role = ValveRole::Inflow;
    mitral.disc = phantom.mitralValve(0.0);
    mitral.disc.normal = -mitral.disc.normal;
    if (const auto eroa = phantom.parameters().mitralRegurgitantOrificeCm2) mitral.regurgitantOrificeMm2 = *eroa * 100.0;
    // The reservoir: a disc across the atrium, behind its centre as seen from the valve
    // (where the pulmonary veins open), aimed at the valve. Its area, 0.64 of the
    // atrium's narrowest section (4.5 cm2 in the adult), lets the venous return in at
    // under 1 m/s (HeartSimulationSettings::venousReturn); half its radius, 25 % of the
    // way to the valve, needed jets of 1.5 m/s that reached the mitral valve.
    const EllipsoidShape la = phantom.leftAtrium(0.0);
    const sph::Vec3 toValve = mitral.disc.center - la.center;
    ValveDisc inflow;
    inflow.center = la.center - toValve * 0.2f;
    inflow.normal = normalized(toValve);
    inflow.radius = 0.8 * std::min({double(la.semiAxes.x), double(la.semiAxes.y), double(la.semiAxes.z)});
    mitral.reservoir = inflow;

    Valve aortic;
    aortic.name = "aortic";
    aortic.role = ValveRole::Outflow;
    aortic.disc = phantom.aorticValve(0.0);
    // The outlet: around the aorta's last centreline point (its closed, rounded end).
    const VesselTube aorta = phantom.aorta();
    if (aorta.centerline.size() >= 2) {
        aortic.outlet = aorta.centerline.back();
        aortic.outletRadiusMm = 1.5 * aorta.radius;
    }
    lv.valves = {mitral, aortic};
    lv.anchor = phantom.lvCavityCenter(0.0) - sph::Vec3{0.f, 0.f, float(0.5 * phantom.lvLengthMm(0.0))};
    HeartAnatomy a;
    a.chambers.push_back(std::move(lv));
    return a;
}

namespace {

nlohmann::json vec(sph::Vec3 v) { return nlohmann::json::array({v.x, v.y, v.z}); }

sph::Vec3 vecFrom(const nlohmann::json& j, const char* what) {
    if (!j.is_array() || j.size() != 3) throw std::runtime_error(std::string(what) + ": expected [x, y, z]");
    sph::Vec3 v;
    float* c = &v.x;
    for (int i = 0; i < 3; ++i) {
        if (!j[std::size_t(i)].is_number()) throw std::runtime_error(std::string(what) + ": not a number");
        c[i] = j[std::size_t(i)].get<float>();
        if (!std::isfinite(c[i])) throw std::runtime_error(std::string(what) + ": not finite");
    }
    return v;
}

nlohmann::json discJson(const ValveDisc& d) {
    return {{"center", vec(d.center)}, {"normal", vec(d.normal)}, {"radius", d.radius}};
}

ValveDisc discFrom(const nlohmann::json& j, const char* what) {
    if (!j.is_object()) throw std::runtime_error(std::string(what) + ": not an object");
    ValveDisc d;
    d.center = vecFrom(j.at("center"), what);
    d.normal = vecFrom(j.at("normal"), what);
    d.radius = j.at("radius").get<double>();
    return d;
}

} // namespace

std::string anatomyToJson(const HeartAnatomy& anatomy) {
    nlohmann::json chambers = nlohmann::json::array();
    for (const Chamber& c : anatomy.chambers) {
        nlohmann::json valves = nlohmann::json::array();
        for (const Valve& v : c.valves) {
            nlohmann::json j = {{"name", v.name},
                                {"role", valveRoleName(v.role)},
                                {"disc", discJson(v.disc)},
                                {"beyond_radius_mm", v.beyondRadiusMm}};
            if (v.reservoir) j["reservoir"] = discJson(*v.reservoir);
            if (v.outlet) j["outlet"] = {{"center", vec(*v.outlet)}, {"radius", v.outletRadiusMm}};
            valves.push_back(std::move(j));
        }
        nlohmann::json openings = nlohmann::json::array();
        for (const OpeningReport& o : c.openings)
            openings.push_back({{"number", o.number},
                                {"name", o.name},
                                {"role", o.role ? valveRoleName(*o.role) : "wall"},
                                {"center", vec(o.center)},
                                {"normal", vec(o.normal)},
                                {"area_mm2", o.areaMm2},
                                {"edges", o.edges},
                                {"why", o.why}});
        chambers.push_back({{"name", c.name},
                            {"anchor", vec(c.anchor)},
                            {"phase_volume_ml", c.phaseVolumeMl},
                            {"valves", valves},
                            {"openings", openings}});
    }
    return nlohmann::json{{"chambers", chambers}}.dump();
}

HeartAnatomy anatomyFromJson(const std::string& text) {
    try {
        // From the heart cache, whose checksum held: bounded all the same.
        const nlohmann::json j = io::parseJson(text, "anatomy", {.maxBytes = std::size_t(64) << 20, .maxDepth = 16});
        HeartAnatomy a;
        for (const nlohmann::json& c : j.at("chambers")) {
            Chamber chamber;
            chamber.name = c.at("name").get<std::string>();
            chamber.anchor = vecFrom(c.at("anchor"), "anchor");
            chamber.phaseVolumeMl = c.at("phase_volume_ml").get<std::vector<double>>();
            for (const nlohmann::json& v : c.at("valves")) {
                Valve valve;
                valve.name = v.at("name").get<std::string>();
                const auto role = valveRoleFromName(v.at("role").get<std::string>());
                if (!role) throw std::runtime_error("unknown valve role");
                valve.role = *role;
                valve.disc = discFrom(v.at("disc"), "disc");
                valve.beyondRadiusMm = v.at("beyond_radius_mm").get<double>();
                if (v.contains("reservoir")) valve.reservoir = discFrom(v.at("reservoir"), "reservoir");
                if (v.contains("outlet")) {
                    valve.outlet = vecFrom(v.at("outlet").at("center"), "outlet");
                    valve.outletRadiusMm = v.at("outlet").at("radius").get<double>();
                }
                chamber.valves.push_back(std::move(valve));
            }
            for (const nlohmann::json& o : c.at("openings")) {
                OpeningReport r;
                r.number = o.at("number").get<std::size_t>();
                r.name = o.at("name").get<std::string>();
                r.role = valveRoleFromName(o.at("role").get<std::string>());
                r.center = vecFrom(o.at("center"), "opening center");
                r.normal = vecFrom(o.at("normal"), "opening normal");
                r.areaMm2 = o.at("area_mm2").get<double>();
                r.edges = o.at("edges").get<std::size_t>();
                r.why = o.at("why").get<std::string>();
                chamber.openings.push_back(std::move(r));
            }
            a.chambers.push_back(std::move(chamber));
        }
        return a;
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error(std::string("anatomy: ") + e.what());
    }
}

} // namespace atrium::heart
