#include "sim/heart/ChamberOpenings.h"

#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "io/JsonInput.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <numbers>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace {

using sph::Vec3;
using Loop = std::vector<std::uint32_t>;
constexpr double kTwoPi = 2.0 * std::numbers::pi;

std::string format(Vec3 p) {
    std::ostringstream s;
    s.precision(4);
    s << "(" << p.x << ", " << p.y << ", " << p.z << ") mm";
    return s.str();
}

/// Centre, outward normal and area of the flat cap that closes `loop` (whose vertices
/// run the way the mesh's triangles run its edges, so the cap runs them backwards).
struct LoopShape {
    Vec3 center, normal;
    double area = 0.0;
};

LoopShape loopShape(const sph::TriangleMesh& mesh, const Loop& loop) {
    Vec3 mean;
    for (std::uint32_t v : loop) mean += mesh.vertices[v];
    mean *= 1.f / float(loop.size());
    Vec3 sum; // twice the loop's vector area, in its own direction
    Vec3 weighted;
    double total = 0.0;
    for (std::size_t i = 0; i < loop.size(); ++i) {
        const Vec3 a = mesh.vertices[loop[i]], b = mesh.vertices[loop[(i + 1) % loop.size()]];
        const Vec3 c = cross(a - mean, b - mean);
        sum += c;
        const double w = double(length(c));
        weighted += (mean + a + b) * float(w / 3.0);
        total += w;
    }
    LoopShape s;
    s.normal = lengthSquared(sum) > 0.f ? normalized(sum * -1.f) : Vec3{0.f, 0.f, 1.f};
    s.area = 0.5 * double(length(sum));
    s.center = total > 0.0 ? weighted * float(1.0 / total) : mean;
    return s;
}

/// Signed volume (mm^3) of the mesh closed by a fan over each loop from its mean.
double volumeWithFans(const sph::TriangleMesh& mesh, const std::vector<Loop>& loops) {
    double v = 0.0;
    const auto add = [&v](Vec3 a, Vec3 b, Vec3 c) { v += double(dot(a, cross(b, c))) / 6.0; };
    for (const auto& t : mesh.triangles) add(mesh.vertices[t[0]], mesh.vertices[t[1]], mesh.vertices[t[2]]);
    for (const Loop& loop : loops) {
        Vec3 m;
        for (std::uint32_t i : loop) m += mesh.vertices[i];
        m *= 1.f / float(loop.size());
        for (std::size_t i = 0; i < loop.size(); ++i)
            add(m, mesh.vertices[loop[(i + 1) % loop.size()]], mesh.vertices[loop[i]]);
    }
    return v;
}

/// An orthonormal pair spanning the plane perpendicular to unit `n`, with e1 x e2 = n.
void planeBasis(Vec3 n, Vec3& e1, Vec3& e2) {
    const Vec3 helper = std::fabs(n.x) < 0.9f ? Vec3{1.f, 0.f, 0.f} : Vec3{0.f, 1.f, 0.f};
    e1 = normalized(cross(helper, n));
    e2 = cross(n, e1);
}

/// Closest distance between segments p0-p1 and q0-q1.
double segmentDistance(Vec3 p0, Vec3 p1, Vec3 q0, Vec3 q1) {
    // Sampled: the tubes are short and this runs once per pair of openings.
    double best = 1e300;
    constexpr int n = 32;
    for (int i = 0; i <= n; ++i)
        for (int j = 0; j <= n; ++j) {
            const Vec3 a = p0 + (p1 - p0) * (float(i) / n), b = q0 + (q1 - q0) * (float(j) / n);
            best = std::min(best, double(length(a - b)));
        }
    return best;
}

/// One opening across the phases: its loop in each phase.
struct Opening {
    std::vector<Loop> loop;  // per phase
    LoopShape shape;         // phase 0
    std::size_t number = 0;  // 1 = largest
    std::optional<ValveRole> role;
    std::string name, why;
};

/// Where an opening's vestibule lies (fixed in space).
struct Vestibule {
    Vec3 base;   // centre of the tube's first ring
    Vec3 axis;   // out of the chamber
    Vec3 e1, e2; // basis of the rings' plane
    double radius = 0.0, length = 0.0;
    double startAngle = 0.0; // angle of ring point 0
    int around = 24, along = 3;
};

Vec3 ringPoint(const Vestibule& v, int ring, int i) {
    const double a = v.startAngle - kTwoPi * double(i) / double(v.around); // the loop's sense
    return v.base + v.axis * float(v.length * double(ring) / v.along) + v.e1 * float(v.radius * std::cos(a)) +
           v.e2 * float(v.radius * std::sin(a));
}

/// Appends the vestibule's vertices to `mesh` (returns the first one's index).
std::uint32_t appendVestibuleVertices(sph::TriangleMesh& mesh, const Vestibule& v) {
    const auto first = std::uint32_t(mesh.vertices.size());
    for (int r = 0; r <= v.along; ++r)
        for (int i = 0; i < v.around; ++i) mesh.vertices.push_back(ringPoint(v, r, i));
    mesh.vertices.push_back(v.base + v.axis * float(v.length)); // far end's centre
    return first;
}

/// The vestibule's triangles: the connector stitched from `loop` to ring 0, the tube,
/// the fan over its far end; wound so that the loop's edges are run backwards (the
/// chamber's triangles run them forwards).
void appendVestibuleTriangles(sph::TriangleMesh& mesh, const Loop& loop, const Vestibule& v, std::uint32_t first) {
    const int M = v.around;
    const auto q = [&](int ring, int i) { return first + std::uint32_t(ring * M + ((i % M) + M) % M); };
    // Loop parameters in [0, 1]: the loop's angle around the axis from its first vertex
    // when it turns steadily (seen along the axis, as rings do), else its arc length.
    const std::size_t N = loop.size();
    std::vector<double> t(N + 1, 0.0);
    bool steady = true;
    double turned = 0.0;
    const auto angle = [&](std::uint32_t i) {
        const Vec3 d = mesh.vertices[i] - v.base;
        return std::atan2(double(dot(d, v.e2)), double(dot(d, v.e1)));
    };
    double previous = angle(loop[0]);
    const double start = previous;
    for (std::size_t i = 1; i <= N; ++i) {
        const double a = angle(loop[i % N]);
        double step = a - previous;
        while (step > std::numbers::pi) step -= kTwoPi;
        while (step < -std::numbers::pi) step += kTwoPi;
        if (step > 0.0) steady = false; // the rings turn with decreasing angle
        turned -= step;
        t[i] = turned;
        previous = a;
    }
    if (!steady || std::fabs(turned - kTwoPi) > 1e-3) {
        double arc = 0.0;
        for (std::size_t i = 1; i <= N; ++i) {
            arc += double(length(mesh.vertices[loop[i % N]] - mesh.vertices[loop[i - 1]]));
            t[i] = arc;
        }
        turned = arc;
    }
    for (double& x : t) x /= turned;
    // The ring point nearest the loop's first vertex in angle starts the ring.
    double offset = (v.startAngle - start) / kTwoPi * M;
    offset -= std::floor(offset / M) * M;
    const int j0 = int(std::lround(offset)) % M;
    std::size_t i = 0;
    int j = 0;
    while (i < N || j < M) {
        const double tNext = i < N ? t[i + 1] : 2.0;
        const double sNext = j < M ? double(j + 1) / M : 2.0;
        const std::uint32_t p = loop[i % N], qj = q(0, j0 + j);
        if (tNext <= sNext) {
            mesh.triangles.push_back({p, qj, loop[(i + 1) % N]});
            ++i;
        } else {
            mesh.triangles.push_back({p, qj, q(0, j0 + j + 1)});
            ++j;
        }
    }
    for (int r = 0; r < v.along; ++r)
        for (int k = 0; k < M; ++k) {
            const std::uint32_t a = q(r, k), b = q(r, k + 1), c = q(r + 1, k + 1), d = q(r + 1, k);
            mesh.triangles.push_back({a, c, b});
            mesh.triangles.push_back({a, d, c});
        }
    const std::uint32_t top = first + std::uint32_t((v.along + 1) * M);
    for (int k = 0; k < M; ++k) mesh.triangles.push_back({top, q(v.along, k + 1), q(v.along, k)});
}

/// Caps `loop` with a fan from its centre (a new vertex): a defect closed as wall.
void appendWallCap(sph::TriangleMesh& mesh, const Loop& loop) {
    Vec3 c;
    for (std::uint32_t i : loop) c += mesh.vertices[i];
    c *= 1.f / float(loop.size());
    const auto centre = std::uint32_t(mesh.vertices.size());
    mesh.vertices.push_back(c);
    for (std::size_t i = 0; i < loop.size(); ++i) mesh.triangles.push_back({centre, loop[(i + 1) % loop.size()], loop[i]});
}

void describeOpenings(std::ostringstream& m, const std::vector<Opening>& openings) {
    for (const Opening& o : openings)
        m << "\n  opening " << o.number << ": " << o.shape.area << " mm^2, " << o.loop[0].size()
          << " edges, centred at " << format(o.shape.center) << ", facing " << format(o.shape.normal);
}

} // namespace

// ---------------------------------------------------------------------------------------
// Rules

std::vector<OpeningRule> readOpeningRules(const fs::path& file, std::string* chamberName) {
    const auto fail = [&](const std::string& what) { throw std::runtime_error(file.string() + ": " + what); };
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) fail("cannot read it: " + ec.message());
    if (size > (1u << 20)) fail("larger than 1 MiB: not a valve sidecar");
    std::ifstream in(file, std::ios::binary);
    if (!in) fail("cannot open it");
    std::ostringstream text;
    text << in.rdbuf();
    nlohmann::json j;
    try {
        j = io::parseJson(text.str(), file.string(), {.maxBytes = 1u << 20, .maxDepth = 16});
    } catch (const io::JsonInputError& e) {
        fail("not JSON: " + e.where() + ": " + e.message());
    }
    if (!j.is_object()) fail("expected an object with \"openings\"");
    for (const auto& [key, value] : j.items())
        if (key != "chamber" && key != "openings") fail("unknown field \"" + key + "\" (expected chamber, openings)");
    if (j.contains("chamber")) {
        if (!j["chamber"].is_string() || j["chamber"].get<std::string>().empty() || j["chamber"].get<std::string>().size() > 64)
            fail("\"chamber\" must be a name of 1-64 characters");
        if (chamberName) *chamberName = j["chamber"].get<std::string>();
    }
    std::vector<OpeningRule> rules;
    if (!j.contains("openings")) return rules;
    if (!j["openings"].is_array() || j["openings"].size() > 64) fail("\"openings\" must be an array of at most 64 entries");
    for (std::size_t i = 0; i < j["openings"].size(); ++i) {
        const nlohmann::json& o = j["openings"][i];
        const std::string at = "openings[" + std::to_string(i) + "]";
        if (!o.is_object()) fail(at + ": expected an object");
        OpeningRule rule;
        rule.origin = file.filename().string() + " " + at;
        for (const auto& [key, value] : o.items())
            if (key != "number" && key != "near" && key != "role" && key != "name")
                fail(at + ": unknown field \"" + key + "\" (expected number, near, role, name)");
        if (o.contains("number")) {
            if (!o["number"].is_number_unsigned() || o["number"].get<std::uint64_t>() < 1 || o["number"].get<std::uint64_t>() > 64)
                fail(at + ".number: expected an opening number from 1 (the largest) to 64");
            rule.number = std::size_t(o["number"].get<std::uint64_t>());
        }
        if (o.contains("near")) {
            const nlohmann::json& p = o["near"];
            if (!p.is_array() || p.size() != 3 || !p[0].is_number() || !p[1].is_number() || !p[2].is_number())
                fail(at + ".near: expected [x, y, z] in mm");
            const Vec3 v{p[0].get<float>(), p[1].get<float>(), p[2].get<float>()};
            if (!std::isfinite(v.x) || !std::isfinite(v.y) || !std::isfinite(v.z)) fail(at + ".near: not finite");
            rule.near = v;
        }
        if (rule.number.has_value() == rule.near.has_value()) fail(at + ": give exactly one of \"number\" and \"near\"");
        if (!o.contains("role") || !o["role"].is_string()) fail(at + ".role: expected inflow, outflow, two-way or wall");
        const std::string role = o["role"].get<std::string>();
        rule.role = valveRoleFromName(role);
        rule.wall = role == "wall";
        if (!rule.role && !rule.wall) fail(at + ".role: '" + role + "' is not inflow, outflow, two-way or wall");
        if (o.contains("name")) {
            if (!o["name"].is_string() || o["name"].get<std::string>().empty() || o["name"].get<std::string>().size() > 64)
                fail(at + ".name: expected a name of 1-64 characters");
            rule.name = o["name"].get<std::string>();
        }
        rules.push_back(std::move(rule));
    }
    return rules;
}

std::vector<OpeningRule> openingRulesFromRoles(const std::string& roles, const std::string& origin) {
    std::vector<OpeningRule> rules;
    std::stringstream in(roles);
    std::string word;
    while (std::getline(in, word, ',')) {
        OpeningRule rule;
        rule.number = rules.size() + 1;
        rule.role = valveRoleFromName(word);
        rule.wall = word == "wall";
        rule.origin = origin;
        if (!rule.role && !rule.wall)
            throw std::invalid_argument(origin + ": '" + word + "' is not inflow, outflow, two-way or wall");
        rules.push_back(rule);
    }
    if (rules.empty()) throw std::invalid_argument(origin + ": no roles given");
    return rules;
}

std::string seriesStem(const std::string& patternOrDirectory) {
    fs::path p(patternOrDirectory);
    std::error_code ec;
    if (fs::is_directory(p, ec)) {
        const fs::path clean = p.lexically_normal();
        return (clean.filename().empty() ? clean.parent_path().filename() : clean.filename()).string();
    }
    std::string stem = p.stem().string();
    // The frame number: a printf field or trailing digits, and the separators around it.
    stem = std::regex_replace(stem, std::regex("%[-+ #0]*[0-9]*[diu]"), "");
    while (!stem.empty() && (std::isdigit(static_cast<unsigned char>(stem.back())) != 0 ||
                             stem.back() == '_' || stem.back() == '-' || stem.back() == '.' || stem.back() == ' '))
        stem.pop_back();
    return stem.empty() ? p.stem().string() : stem;
}

std::optional<fs::path> openingRulesFile(const std::string& patternOrDirectory) {
    const fs::path p(patternOrDirectory);
    std::error_code ec;
    const fs::path candidate =
        fs::is_directory(p, ec) ? p / "valves.json" : p.parent_path() / (seriesStem(patternOrDirectory) + ".valves.json");
    if (fs::is_regular_file(candidate, ec)) return candidate;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------
// Openings -> valves

Chamber valveOpenings(std::vector<sph::TriangleMesh>& phases, bool fixedTopology, const OpeningOptions& options,
                      std::vector<OpeningReport>* report) {
    if (phases.empty()) throw std::invalid_argument("valveOpenings: no phases");
    if (!(options.vestibuleRadii > 0.5)) throw std::invalid_argument("valveOpenings: vestibuleRadii must be > 0.5");
    const std::size_t P = phases.size();
    Chamber chamber;
    chamber.name = options.chamberName;
    chamber.anchor = phases[0].vertices.empty() ? Vec3{} : phases[0].vertices[phases[0].triangles.front()[0]];

    // 1. The loops of each phase, each phase wound outward (its volume closed by fans
    //    positive), and the chamber's own volume per phase.
    std::vector<std::vector<Loop>> loops(P);
    for (std::size_t k = 0; k < P; ++k) {
        loops[k] = boundaryLoops(phases[k]);
        if (loops[k].size() != loops[0].size())
            throw std::runtime_error("phase " + std::to_string(k) + " has " + std::to_string(loops[k].size()) +
                                     " openings and phase 0 has " + std::to_string(loops[0].size()) +
                                     ": the phases of one chamber must have the same openings");
        double volume = volumeWithFans(phases[k], loops[k]);
        if (volume < 0.0) {
            for (auto& t : phases[k].triangles) std::swap(t[1], t[2]);
            for (Loop& l : loops[k]) std::reverse(l.begin(), l.end());
            volume = -volume;
        }
        chamber.phaseVolumeMl.push_back(volume * 1e-3);
    }
    if (loops[0].empty()) throw std::invalid_argument("valveOpenings: the series is closed");

    // 2. Phase 0's openings, numbered by decreasing area; each phase's loops matched to
    //    them (the same loops with shared triangles, else the nearest centres).
    std::vector<Opening> openings(loops[0].size());
    for (std::size_t i = 0; i < openings.size(); ++i) {
        openings[i].loop.resize(P);
        openings[i].loop[0] = loops[0][i];
        openings[i].shape = loopShape(phases[0], loops[0][i]);
    }
    for (std::size_t k = 1; k < P; ++k) {
        std::vector<bool> taken(loops[k].size(), false);
        for (std::size_t i = 0; i < openings.size(); ++i) {
            if (fixedTopology) {
                openings[i].loop[k] = loops[k][i];
                continue;
            }
            std::size_t best = loops[k].size();
            float bestDistance = 1e30f;
            for (std::size_t l = 0; l < loops[k].size(); ++l) {
                const float d = length(loopShape(phases[k], loops[k][l]).center - openings[i].shape.center);
                if (!taken[l] && d < bestDistance) {
                    bestDistance = d;
                    best = l;
                }
            }
            taken[best] = true;
            openings[i].loop[k] = loops[k][best];
        }
    }
    std::stable_sort(openings.begin(), openings.end(),
                     [](const Opening& a, const Opening& b) { return a.shape.area > b.shape.area; });
    for (std::size_t i = 0; i < openings.size(); ++i) openings[i].number = i + 1;

    // 3. Roles: the rules first, then the documented default.
    std::vector<bool> ruled(openings.size(), false);
    for (const OpeningRule& rule : options.rules) {
        std::size_t index = openings.size();
        if (rule.number) {
            if (*rule.number > openings.size()) {
                std::ostringstream m;
                m << rule.origin << ": there is no opening " << *rule.number << "; the series has " << openings.size()
                  << ":";
                describeOpenings(m, openings);
                throw std::runtime_error(m.str());
            }
            index = *rule.number - 1;
        } else {
            float best = 1e30f;
            for (std::size_t i = 0; i < openings.size(); ++i) {
                const float d = length(openings[i].shape.center - *rule.near);
                if (d < best) {
                    best = d;
                    index = i;
                }
            }
            const double reach = 2.0 * std::sqrt(openings[index].shape.area / std::numbers::pi) + 5.0;
            if (double(best) > reach) {
                std::ostringstream m;
                m << rule.origin << ": no opening near " << format(*rule.near) << " (the nearest centre is " << best
                  << " mm away); the series has:";
                describeOpenings(m, openings);
                throw std::runtime_error(m.str());
            }
        }
        if (ruled[index])
            throw std::runtime_error(rule.origin + ": opening " + std::to_string(index + 1) +
                                     " already has a rule: each opening takes one");
        ruled[index] = true;
        Opening& o = openings[index];
        o.role = rule.wall ? std::nullopt : rule.role;
        o.name = rule.name;
        o.why = rule.origin;
    }
    const double largest = openings.front().shape.area;
    std::vector<std::size_t> free;
    for (std::size_t i = 0; i < openings.size(); ++i) {
        if (ruled[i]) continue;
        if (openings[i].shape.area < options.defectFraction * largest) {
            openings[i].role.reset();
            openings[i].why = "under " + std::to_string(int(std::lround(100 * options.defectFraction))) +
                              " % of the largest opening: a defect of the mesh, capped";
        } else {
            free.push_back(i);
        }
    }
    const auto ruledRole = [&](ValveRole role) {
        for (std::size_t i = 0; i < openings.size(); ++i)
            if (ruled[i] && openings[i].role == role) return true;
        return false;
    };
    const bool anyRuledValve = ruledRole(ValveRole::Inflow) || ruledRole(ValveRole::Outflow) || ruledRole(ValveRole::TwoWay);
    if (!free.empty()) {
        if (free.size() == 1 && !anyRuledValve) {
            openings[free[0]].role = ValveRole::TwoWay;
            openings[free[0]].why = "the only opening: a two-way valve to a reservoir";
        } else if (free.size() == 2 && !anyRuledValve) {
            openings[free[0]].role = ValveRole::Inflow;
            openings[free[0]].why = "the larger of two openings: the inflow";
            openings[free[1]].role = ValveRole::Outflow;
            openings[free[1]].why = "the smaller of two openings: the outflow";
        } else if (free.size() == 1 && ruledRole(ValveRole::Inflow) != ruledRole(ValveRole::Outflow) &&
                   !ruledRole(ValveRole::TwoWay)) {
            const bool in = ruledRole(ValveRole::Outflow);
            openings[free[0]].role = in ? ValveRole::Inflow : ValveRole::Outflow;
            openings[free[0]].why = in ? "the other opening of an outflow: the inflow" : "the other opening of an inflow: the outflow";
        } else {
            std::ostringstream m;
            m << "chamber " << options.chamberName << " has " << openings.size() << " openings ("
              << free.size() << " without a rule); say which is which with a sidecar " << options.chamberName
              << ".valves.json or --valves ROLES (docs/heart-pipeline.md):";
            describeOpenings(m, openings);
            throw std::runtime_error(m.str());
        }
    }
    // Names: the rule's, else the role's, numbered when a role repeats.
    for (Opening& o : openings) {
        if (!o.name.empty() || !o.role) continue;
        o.name = valveRoleName(*o.role);
        const auto same = std::count_if(openings.begin(), openings.end(),
                                        [&](const Opening& p) { return p.role == o.role; });
        if (same > 1) o.name += " " + std::to_string(o.number);
    }

    // 4. Vestibules: fixed in space, beyond the farthest the opening reaches.
    std::vector<Vestibule> tubes(openings.size());
    for (std::size_t i = 0; i < openings.size(); ++i) {
        const Opening& o = openings[i];
        if (!o.role) continue;
        Vestibule& v = tubes[i];
        v.axis = o.shape.normal;
        planeBasis(v.axis, v.e1, v.e2);
        double reach = -1e300;
        for (std::size_t k = 0; k < P; ++k)
            for (std::uint32_t p : o.loop[k]) reach = std::max(reach, double(dot(phases[k].vertices[p] - o.shape.center, v.axis)));
        v.radius = std::sqrt(o.shape.area / std::numbers::pi);
        const double gap = std::max(0.2 * v.radius, 1.0);
        v.base = o.shape.center + v.axis * float(reach + gap);
        v.length = options.vestibuleRadii * v.radius;
        const Vec3 d = phases[0].vertices[o.loop[0][0]] - o.shape.center;
        v.startAngle = std::atan2(double(dot(d, v.e2)), double(dot(d, v.e1)));
        v.around = int(std::clamp<std::size_t>(o.loop[0].size(), 24, 128));
        v.along = std::max(3, int(std::ceil(v.length / (kTwoPi * v.radius / v.around))));
    }
    // Neighbouring tubes must not meet: shorten both (to 1.5 radii at most), then narrow
    // them (to half at most) where they would.
    for (std::size_t a = 0; a < openings.size(); ++a)
        for (std::size_t b = a + 1; b < openings.size(); ++b) {
            if (!openings[a].role || !openings[b].role) continue;
            Vestibule &va = tubes[a], &vb = tubes[b];
            const double gap = 1.0, ra = va.radius, rb = vb.radius;
            for (;;) {
                const double d = segmentDistance(va.base, va.base + va.axis * float(va.length), vb.base,
                                                 vb.base + vb.axis * float(vb.length));
                if (d >= va.radius + vb.radius + gap) break;
                if (va.length > 1.5 * va.radius || vb.length > 1.5 * vb.radius) {
                    va.length = std::max(1.5 * va.radius, 0.85 * va.length);
                    vb.length = std::max(1.5 * vb.radius, 0.85 * vb.length);
                    continue;
                }
                const double f = (d - gap) / (va.radius + vb.radius);
                if (va.radius * f < 0.5 * ra || vb.radius * f < 0.5 * rb)
                    throw std::runtime_error("chamber " + options.chamberName + ": openings " +
                                             std::to_string(openings[a].number) + " and " +
                                             std::to_string(openings[b].number) +
                                             " face each other too closely for the tubes behind their valves (" +
                                             format(openings[a].shape.center) + ", " +
                                             format(openings[b].shape.center) + "); cap one with a rule (\"role\": \"wall\")");
                va.radius *= f;
                vb.radius *= f;
                va.length = std::max(va.length, 1.5 * va.radius);
                vb.length = std::max(vb.length, 1.5 * vb.radius);
            }
            for (Vestibule* v : {&va, &vb}) v->along = std::max(3, int(std::ceil(v->length / (kTwoPi * v->radius / v->around))));
        }
    // A tube must not cut through the chamber's own wall.
    for (std::size_t i = 0; i < openings.size(); ++i) {
        if (!openings[i].role) continue;
        const Vestibule& v = tubes[i];
        for (std::size_t k = 0; k < P; ++k)
            for (const Vec3& p : phases[k].vertices) {
                const Vec3 d = p - v.base;
                const float along = dot(d, v.axis);
                if (along < 0.f || along > float(v.length)) continue;
                if (double(length(d - v.axis * along)) < v.radius)
                    throw std::runtime_error("chamber " + options.chamberName + ": the tube behind opening " +
                                             std::to_string(openings[i].number) + " (" + format(openings[i].shape.center) +
                                             ") would cut through the wall at " + format(p) + " in phase " +
                                             std::to_string(k) + "; cap it with a rule (\"role\": \"wall\")");
            }
    }

    // 5. Close each phase: vestibules and wall caps. With shared triangles the vestibule
    //    triangles of phase 0 serve every phase (the loops are the same vertices).
    std::vector<std::array<std::uint32_t, 3>> sharedAdded;
    for (std::size_t k = 0; k < P; ++k) {
        sph::TriangleMesh& mesh = phases[k];
        const std::size_t trianglesBefore = mesh.triangles.size();
        for (std::size_t i = 0; i < openings.size(); ++i) {
            const Loop& loop = openings[i].loop[k];
            if (!openings[i].role) {
                appendWallCap(mesh, loop);
                continue;
            }
            const std::uint32_t first = appendVestibuleVertices(mesh, tubes[i]);
            if (!fixedTopology || k == 0) appendVestibuleTriangles(mesh, loop, tubes[i], first);
        }
        if (fixedTopology) {
            if (k == 0)
                sharedAdded.assign(mesh.triangles.begin() + std::ptrdiff_t(trianglesBefore), mesh.triangles.end());
            else
                mesh.triangles.insert(mesh.triangles.end(), sharedAdded.begin(), sharedAdded.end());
        }
        if (boundaryEdges(mesh).size() != 0 || inconsistentlyOrientedEdgeCount(mesh) != 0 || !(mesh.enclosedVolume() > 0.0))
            throw std::runtime_error("chamber " + options.chamberName + ": closing phase " + std::to_string(k) +
                                     " with its valves' tubes left it open or wound inconsistently");
    }

    // 6. The valves.
    for (std::size_t i = 0; i < openings.size(); ++i) {
        const Opening& o = openings[i];
        if (report) {
            OpeningReport r;
            r.number = o.number;
            r.name = o.name;
            r.role = o.role;
            r.center = o.shape.center;
            r.normal = o.shape.normal;
            r.areaMm2 = o.shape.area;
            r.edges = o.loop[0].size();
            r.why = o.why;
            report->push_back(r);
        }
        if (!o.role) continue;
        const Vestibule& v = tubes[i];
        Valve valve;
        valve.name = o.name;
        valve.role = *o.role;
        valve.disc = {v.base + v.axis * float(0.25 * v.radius), v.axis, v.radius};
        valve.beyondRadiusMm = 1.02 * v.radius;
        const bool twoWay = valve.role == ValveRole::TwoWay;
        if (valve.role != ValveRole::Outflow)
            valve.reservoir = ValveDisc{v.base + v.axis * float((twoWay ? 0.4 : 0.55) * v.length), v.axis * -1.f,
                                        0.85 * v.radius};
        if (valve.role != ValveRole::Inflow) {
            valve.outlet = v.base + v.axis * float(v.length);
            valve.outletRadiusMm = (twoWay ? 0.35 : 0.45) * v.length;
        }
        chamber.valves.push_back(std::move(valve));
    }
    return chamber;
}

} // namespace atrium::heart
