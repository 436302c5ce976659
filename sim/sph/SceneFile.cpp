// Scene files: strict JSON reader/validator and writer. See SceneFile.h and
// docs/scene-format.md (keep the three in step when adding a field).

#include "sim/sph/SceneFile.h"

#include "io/AtomicFile.h"
#include "io/JsonInput.h"
#include "io/MemoryBudget.h"
#include "sim/sph/GridLimits.h"
#include "sim/sph/SceneFileText.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <utility>
#include <vector>

namespace atrium::sph {

using nlohmann::json;

SceneError::SceneError(std::string source, std::string location, std::string problem)
    : std::runtime_error(location.empty() ? source + ": " + problem
                                          : source + ": " + location + ": " + problem),
      source_(std::move(source)), location_(std::move(location)), problem_(std::move(problem)) {}

namespace {

using namespace scene_file;

// ---------------------------------------------------------------------------------
// Formatting helpers.

/// Optimal-string-alignment distance (Levenshtein plus adjacent transpositions),
/// ASCII case-insensitive.
std::size_t editDistance(std::string_view a, std::string_view b) {
    auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? char(c - 'A' + 'a') : c; };
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::size_t> d((n + 1) * (m + 1));
    auto at = [&](std::size_t i, std::size_t j) -> std::size_t& { return d[i * (m + 1) + j]; };
    for (std::size_t i = 0; i <= n; ++i) at(i, 0) = i;
    for (std::size_t j = 0; j <= m; ++j) at(0, j) = j;
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const std::size_t cost = lower(a[i - 1]) == lower(b[j - 1]) ? 0 : 1;
            std::size_t best = std::min({at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost});
            if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
                best = std::min(best, at(i - 2, j - 2) + 1);
            at(i, j) = best;
        }
    }
    return at(n, m);
}

/// `" (did you mean "x"?)"` when a candidate is close enough, else a list of all.
std::string suggestion(std::string_view word, std::span<const std::string_view> candidates,
                       std::string_view listIntro) {
    std::string_view best;
    std::size_t bestDistance = std::numeric_limits<std::size_t>::max();
    if (word.size() <= 64) { // long garbage keys: no point, and keeps the cost bounded
        for (const auto c : candidates) {
            const std::size_t dist = editDistance(word, c);
            if (dist < bestDistance) { bestDistance = dist; best = c; }
        }
    }
    const std::size_t threshold = std::max<std::size_t>(2, word.size() / 3);
    if (!best.empty() && bestDistance <= threshold) return " (did you mean " + quote(best) + "?)";
    std::string list;
    for (const auto c : candidates) list += (list.empty() ? "" : ", ") + quote(c);
    return " (" + std::string(listIntro) + ": " + list + ")";
}

// ---------------------------------------------------------------------------------
// Field names, per object. The order is the order of docs/scene-format.md.

constexpr std::string_view kRootFields[] = {
    "name", "parameters", "container", "wall", "fluidBlocks", "emitters", "outlets", "openBoundaries", "planes"};
constexpr std::string_view kParameterFields[] = {
    "particleSpacing", "kernelRadius", "referenceDensity", "restDensity", "restDensitySource", "equationOfState",
    "soundSpeed", "linearStiffness", "maxPressure", "clampNegativePressure", "maxTension", "viscosity",
    "artificialViscosity", "gravity", "cflNumber", "maxTimeStep", "frameRate", "substepsPerFrame", "maxSpeed",
    "wallMargin", "wallRestitution", "wallPressure", "maxParticles", "zOrder", "domain", "pressureSolver",
    "maxDensityError", "maxDivergenceError", "maxSolverIterations"};
constexpr std::string_view kBoxFields[] = {"min", "max"};
constexpr std::string_view kContainerFields[] = {"min", "max", "restitution"};
constexpr std::string_view kWallSphereFields[] = {
    "type", "center", "radius", "subdivisions", "pulseAmplitude", "pulsePeriod", "fieldCellSize"};
constexpr std::string_view kWallNoneFields[] = {"type"};
constexpr std::string_view kFluidBlockFields[] = {"min", "max", "velocity"};
constexpr std::string_view kEmitterFields[] = {
    "position", "direction", "radius", "speed", "rate", "start", "end"};
constexpr std::string_view kOutletSphereFields[] = {"type", "center", "radius"};
constexpr std::string_view kOutletBoxFields[] = {"type", "min", "max"};
constexpr std::string_view kOpenDiscFields[] = {"shape", "center", "normal", "radius", "depth", "pressure", "velocity"};
constexpr std::string_view kOpenRectangleFields[] = {
    "shape", "center", "normal", "axis", "halfWidth", "halfHeight", "depth", "pressure", "velocity"};
constexpr std::string_view kPlaneFields[] = {"point", "normal", "radius", "type", "restitution", "hole"};
constexpr std::string_view kHoleFields[] = {"radius", "speed", "depth", "convergence"};

bool contains(std::span<const std::string_view> list, std::string_view s) {
    return std::find(list.begin(), list.end(), s) != list.end();
}

// ---------------------------------------------------------------------------------
// Reading JSON values with paths.

std::string typeName(const json& v) {
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    case json::value_t::string: return "string";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
    case json::value_t::number_float: return "number";
    case json::value_t::binary: return "binary";
    case json::value_t::discarded: break;
    }
    return "nothing";
}

class Reader {
public:
    explicit Reader(const std::string& source) : source_(source) {}

    [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
        throw SceneError(source_, path.empty() ? "/" : path, problem);
    }

    void expectObject(const json& v, const std::string& path) const {
        if (!v.is_object()) fail(path, "expected an object, got " + typeName(v));
    }

    /// Rejects keys not in `known`, suggesting the closest known one.
    void checkFields(const json& obj, const std::string& path, std::span<const std::string_view> known) const {
        expectObject(obj, path);
        for (const auto& item : obj.items()) {
            const std::string& key = item.key();
            if (contains(known, key)) continue;
            std::string problem = "unknown field";
            if (path.empty() && contains(kParameterFields, key))
                problem += " (it belongs in \"parameters\")";
            else
                problem += suggestion(key, known, "known fields");
            fail(child(path, key), problem);
        }
    }

    double number(const json& v, const std::string& path) const {
        if (!v.is_number()) fail(path, "expected a number, got " + typeName(v));
        if (v.is_number_unsigned()) return double(v.get<std::uint64_t>());
        if (v.is_number_integer()) return double(v.get<std::int64_t>());
        return v.get<double>();
    }

    float floatValue(const json& v, const std::string& path) const {
        const double d = number(v, path);
        if (!std::isfinite(d) || std::fabs(d) > double(std::numeric_limits<float>::max()))
            fail(path, "out of range for a 32-bit float (got " + formatNumber(d) + ")");
        return static_cast<float>(d);
    }

    /// An integer in [lo, hi]; integral floats (2e6) are accepted.
    std::int64_t integer(const json& v, const std::string& path, std::int64_t lo, std::int64_t hi) const {
        if (!v.is_number()) fail(path, "expected an integer, got " + typeName(v));
        std::int64_t result = 0;
        if (v.is_number_unsigned()) {
            const std::uint64_t u = v.get<std::uint64_t>();
            if (u > std::uint64_t(hi)) fail(path, "must be <= " + std::to_string(hi) + " (got " + std::to_string(u) + ")");
            result = std::int64_t(u);
        } else if (v.is_number_integer()) {
            result = v.get<std::int64_t>();
        } else {
            const double d = v.get<double>();
            if (!std::isfinite(d) || std::floor(d) != d)
                fail(path, "expected an integer, got " + formatNumber(d));
            if (d < double(lo)) fail(path, "must be >= " + std::to_string(lo) + " (got " + formatNumber(d) + ")");
            if (d > double(hi)) fail(path, "must be <= " + std::to_string(hi) + " (got " + formatNumber(d) + ")");
            result = std::int64_t(d);
        }
        if (result < lo) fail(path, "must be >= " + std::to_string(lo) + " (got " + std::to_string(result) + ")");
        if (result > hi) fail(path, "must be <= " + std::to_string(hi) + " (got " + std::to_string(result) + ")");
        return result;
    }

    bool boolean(const json& v, const std::string& path) const {
        if (!v.is_boolean()) fail(path, "expected true or false, got " + typeName(v));
        return v.get<bool>();
    }

    std::string string(const json& v, const std::string& path) const {
        if (!v.is_string()) fail(path, "expected a string, got " + typeName(v));
        return v.get<std::string>();
    }

    /// One of `names` (given in enum order); returns its index.
    std::size_t choice(const json& v, const std::string& path, std::initializer_list<std::string_view> names) const {
        const std::string s = string(v, path);
        const auto it = std::find(names.begin(), names.end(), s);
        if (it != names.end()) return std::size_t(it - names.begin());
        fail(path, "unknown value " + quote(printable(s)) +
                       suggestion(s, std::span<const std::string_view>(names.begin(), names.size()), "expected one of"));
    }

    Vec3 vec3(const json& v, const std::string& path) const {
        if (!v.is_array()) fail(path, "expected an array of 3 numbers, got " + typeName(v));
        if (v.size() != 3)
            fail(path, "expected an array of 3 numbers, got " + std::to_string(v.size()) +
                           (v.size() == 1 ? " element" : " elements"));
        return {floatValue(v[0], child(path, 0)), floatValue(v[1], child(path, 1)), floatValue(v[2], child(path, 2))};
    }

    const json& array(const json& v, const std::string& path) const {
        if (!v.is_array()) fail(path, "expected an array, got " + typeName(v));
        return v;
    }

    /// Required member of an object already checked with checkFields.
    const json& required(const json& obj, const std::string& path, const char* key) const {
        const auto it = obj.find(key);
        if (it == obj.end()) fail(child(path, key), "required field is missing");
        return *it;
    }

    Aabb box(const json& obj, const std::string& path) const {
        return {vec3(required(obj, path, "min"), child(path, "min")), vec3(required(obj, path, "max"), child(path, "max"))};
    }

private:
    const std::string& source_;
};

/// Calls `f(value, path)` for obj[key] when present.
template <class F>
void ifPresent(const json& obj, const std::string& path, const char* key, F&& f) {
    const auto it = obj.find(key);
    if (it != obj.end()) f(*it, child(path, key));
}

// ---------------------------------------------------------------------------------
// JSON document -> Scene (structure and types; values are checked by validateScene).

void readParameters(const Reader& r, const json& obj, const std::string& path, SolverParameters& p) {
    r.checkFields(obj, path, kParameterFields);
    auto f = [&](const char* key, float& out) {
        ifPresent(obj, path, key, [&](const json& v, const std::string& at) { out = r.floatValue(v, at); });
    };
    auto optionalF = [&](const char* key, std::optional<float>& out) {
        ifPresent(obj, path, key, [&](const json& v, const std::string& at) { out = r.floatValue(v, at); });
    };
    auto b = [&](const char* key, bool& out) {
        ifPresent(obj, path, key, [&](const json& v, const std::string& at) { out = r.boolean(v, at); });
    };
    f("particleSpacing", p.particleSpacing);
    f("kernelRadius", p.kernelRadius);
    f("referenceDensity", p.referenceDensity);
    optionalF("restDensity", p.restDensity);
    ifPresent(obj, path, "restDensitySource", [&](const json& v, const std::string& at) {
        if (obj.contains("restDensity")) r.fail(at, "only used when \"restDensity\" is not given");
        p.restDensitySource = r.choice(v, at, {"bulk", "all"}) == 0 ? SolverParameters::RestDensitySource::Bulk
                                                                    : SolverParameters::RestDensitySource::All;
    });
    ifPresent(obj, path, "equationOfState", [&](const json& v, const std::string& at) {
        p.equationOfState = r.choice(v, at, {"tait", "linear"}) == 0 ? EquationOfState::Tait : EquationOfState::Linear;
    });
    f("soundSpeed", p.soundSpeed);
    optionalF("linearStiffness", p.linearStiffness);
    f("maxPressure", p.maxPressure);
    b("clampNegativePressure", p.clampNegativePressure);
    optionalF("maxTension", p.maxTension);
    f("viscosity", p.viscosity);
    f("artificialViscosity", p.artificialViscosity);
    ifPresent(obj, path, "gravity", [&](const json& v, const std::string& at) { p.gravity = r.vec3(v, at); });
    f("cflNumber", p.cflNumber);
    f("maxTimeStep", p.maxTimeStep);
    f("frameRate", p.frameRate);
    ifPresent(obj, path, "substepsPerFrame", [&](const json& v, const std::string& at) {
        p.substepsPerFrame = int(r.integer(v, at, 1, kMaxSubsteps));
    });
    f("maxSpeed", p.maxSpeed);
    f("wallMargin", p.wallMargin);
    f("wallRestitution", p.wallRestitution);
    ifPresent(obj, path, "wallPressure", [&](const json& v, const std::string& at) {
        p.wallPressure = r.choice(v, at, {"densityMap", "mirrored"}) == 0 ? WallPressure::DensityMap : WallPressure::Mirrored;
    });
    ifPresent(obj, path, "maxParticles", [&](const json& v, const std::string& at) {
        p.maxParticles = std::size_t(r.integer(v, at, 1, kMaxParticleLimit));
    });
    b("zOrder", p.zOrder);
    ifPresent(obj, path, "pressureSolver", [&](const json& v, const std::string& at) {
        p.pressureSolver = r.choice(v, at, {"weaklyCompressible", "divergenceFree"}) == 0 ? PressureSolver::WeaklyCompressible
                                                                                          : PressureSolver::DivergenceFree;
    });
    f("maxDensityError", p.maxDensityError);
    f("maxDivergenceError", p.maxDivergenceError);
    ifPresent(obj, path, "maxSolverIterations", [&](const json& v, const std::string& at) {
        p.maxSolverIterations = int(r.integer(v, at, 1, 10000));
    });
    ifPresent(obj, path, "domain", [&](const json& v, const std::string& at) {
        r.checkFields(v, at, kBoxFields);
        p.domain = r.box(v, at);
    });
}

void readWall(const Reader& r, const json& obj, const std::string& path, WallMeshSpec& w) {
    r.expectObject(obj, path);
    // The type decides which fields exist; default "sphere" when other fields are given.
    std::size_t type = 0;
    if (const auto it = obj.find("type"); it != obj.end())
        type = r.choice(*it, child(path, "type"), {"sphere", "none"});
    if (type == 1) {
        r.checkFields(obj, path, kWallNoneFields);
        w = WallMeshSpec{};
        return;
    }
    r.checkFields(obj, path, kWallSphereFields);
    w.kind = WallMeshSpec::Kind::Sphere;
    ifPresent(obj, path, "center", [&](const json& v, const std::string& at) { w.center = r.vec3(v, at); });
    w.radius = r.floatValue(r.required(obj, path, "radius"), child(path, "radius"));
    ifPresent(obj, path, "subdivisions", [&](const json& v, const std::string& at) {
        w.subdivisions = int(r.integer(v, at, 0, kMaxSubdivisions));
    });
    ifPresent(obj, path, "pulseAmplitude", [&](const json& v, const std::string& at) { w.pulseAmplitude = r.floatValue(v, at); });
    ifPresent(obj, path, "pulsePeriod", [&](const json& v, const std::string& at) { w.pulsePeriod = r.floatValue(v, at); });
    ifPresent(obj, path, "fieldCellSize", [&](const json& v, const std::string& at) { w.fieldCellSize = r.floatValue(v, at); });
}

Outlet readOutlet(const Reader& r, const json& obj, const std::string& path) {
    r.expectObject(obj, path);
    Outlet o;
    const std::size_t type = r.choice(r.required(obj, path, "type"), child(path, "type"), {"sphere", "box"});
    if (type == 0) {
        r.checkFields(obj, path, kOutletSphereFields);
        o.shape = OutletShape::Sphere;
        ifPresent(obj, path, "center", [&](const json& v, const std::string& at) { o.center = r.vec3(v, at); });
        o.radius = r.floatValue(r.required(obj, path, "radius"), child(path, "radius"));
    } else {
        r.checkFields(obj, path, kOutletBoxFields);
        o.shape = OutletShape::Box;
        o.bounds = r.box(obj, path);
    }
    return o;
}

OpenBoundary readOpenBoundary(const Reader& r, const json& obj, const std::string& path) {
    r.expectObject(obj, path);
    OpenBoundary b;
    std::size_t shape = 0;
    if (const auto it = obj.find("shape"); it != obj.end()) shape = r.choice(*it, child(path, "shape"), {"disc", "rectangle"});
    auto f = [&](const char* key, float& out) {
        ifPresent(obj, path, key, [&](const json& v, const std::string& at) { out = r.floatValue(v, at); });
    };
    if (shape == 0) {
        r.checkFields(obj, path, kOpenDiscFields);
        b.shape = OpenBoundaryShape::Disc;
        b.radius = r.floatValue(r.required(obj, path, "radius"), child(path, "radius"));
    } else {
        r.checkFields(obj, path, kOpenRectangleFields);
        b.shape = OpenBoundaryShape::Rectangle;
        b.axis = r.vec3(r.required(obj, path, "axis"), child(path, "axis"));
        b.halfWidth = r.floatValue(r.required(obj, path, "halfWidth"), child(path, "halfWidth"));
        b.halfHeight = r.floatValue(r.required(obj, path, "halfHeight"), child(path, "halfHeight"));
    }
    b.center = r.vec3(r.required(obj, path, "center"), child(path, "center"));
    b.normal = r.vec3(r.required(obj, path, "normal"), child(path, "normal"));
    f("depth", b.depth);
    f("pressure", b.pressure);
    ifPresent(obj, path, "velocity", [&](const json& v, const std::string& at) {
        if (v.is_string()) {
            r.choice(v, at, {"extrapolated"});
            b.velocity = OpenBoundaryVelocity::Extrapolated;
        } else if (v.is_number()) {
            b.velocity = OpenBoundaryVelocity::Prescribed;
            b.inflowSpeed = r.floatValue(v, at);
        } else {
            r.fail(at, "expected \"extrapolated\" or an inflow speed in m/s, got " + typeName(v));
        }
    });
    return b;
}

Scene readScene(const Reader& r, const json& doc) {
    const std::string root;
    r.checkFields(doc, root, kRootFields);
    Scene scene;
    ifPresent(doc, root, "name", [&](const json& v, const std::string& at) { scene.name = r.string(v, at); });
    ifPresent(doc, root, "parameters", [&](const json& v, const std::string& at) { readParameters(r, v, at, scene.parameters); });
    ifPresent(doc, root, "container", [&](const json& v, const std::string& at) {
        r.checkFields(v, at, kContainerFields);
        BoxContainer c;
        c.bounds = r.box(v, at);
        ifPresent(v, at, "restitution", [&](const json& e, const std::string& eat) { c.restitution = r.floatValue(e, eat); });
        scene.container = c;
    });
    ifPresent(doc, root, "wall", [&](const json& v, const std::string& at) { readWall(r, v, at, scene.wall); });
    ifPresent(doc, root, "fluidBlocks", [&](const json& list, const std::string& at) {
        r.array(list, at);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string ip = child(at, i);
            const json& v = list[i];
            r.checkFields(v, ip, kFluidBlockFields);
            FluidBlock b;
            b.bounds = r.box(v, ip);
            ifPresent(v, ip, "velocity", [&](const json& e, const std::string& eat) { b.velocity = r.vec3(e, eat); });
            scene.fluidBlocks.push_back(b);
        }
    });
    ifPresent(doc, root, "emitters", [&](const json& list, const std::string& at) {
        r.array(list, at);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string ip = child(at, i);
            const json& v = list[i];
            r.checkFields(v, ip, kEmitterFields);
            Emitter e;
            auto f = [&](const char* key, float& out) {
                ifPresent(v, ip, key, [&](const json& x, const std::string& xat) { out = r.floatValue(x, xat); });
            };
            ifPresent(v, ip, "position", [&](const json& x, const std::string& xat) { e.position = r.vec3(x, xat); });
            ifPresent(v, ip, "direction", [&](const json& x, const std::string& xat) { e.direction = r.vec3(x, xat); });
            f("radius", e.radius);
            f("speed", e.speed);
            f("rate", e.rate);
            f("start", e.start);
            f("end", e.end);
            scene.emitters.push_back(e);
        }
    });
    ifPresent(doc, root, "outlets", [&](const json& list, const std::string& at) {
        r.array(list, at);
        for (std::size_t i = 0; i < list.size(); ++i) scene.outlets.push_back(readOutlet(r, list[i], child(at, i)));
    });
    ifPresent(doc, root, "openBoundaries", [&](const json& list, const std::string& at) {
        r.array(list, at);
        if (list.size() > std::size_t(kMaxOpenBoundaries))
            r.fail(at, "at most " + std::to_string(kMaxOpenBoundaries) + " open boundaries (got " +
                           std::to_string(list.size()) + ")");
        for (std::size_t i = 0; i < list.size(); ++i)
            scene.openBoundaries.push_back(readOpenBoundary(r, list[i], child(at, i)));
    });
    ifPresent(doc, root, "planes", [&](const json& list, const std::string& at) {
        r.array(list, at);
        for (std::size_t i = 0; i < list.size(); ++i) {
            const std::string ip = child(at, i);
            const json& v = list[i];
            r.checkFields(v, ip, kPlaneFields);
            BoundaryPlane p;
            ifPresent(v, ip, "point", [&](const json& x, const std::string& xat) { p.point = r.vec3(x, xat); });
            ifPresent(v, ip, "normal", [&](const json& x, const std::string& xat) { p.normal = r.vec3(x, xat); });
            ifPresent(v, ip, "radius", [&](const json& x, const std::string& xat) { p.radius = r.floatValue(x, xat); });
            ifPresent(v, ip, "type", [&](const json& x, const std::string& xat) {
                p.kind = PlaneKind(r.choice(x, xat, {"two-sided", "one-way", "closed"}));
            });
            ifPresent(v, ip, "restitution", [&](const json& x, const std::string& xat) { p.restitution = r.floatValue(x, xat); });
            ifPresent(v, ip, "hole", [&](const json& h, const std::string& hat) {
                r.checkFields(h, hat, kHoleFields);
                ifPresent(h, hat, "radius", [&](const json& x, const std::string& xat) { p.holeRadius = r.floatValue(x, xat); });
                ifPresent(h, hat, "speed", [&](const json& x, const std::string& xat) { p.holeSpeed = r.floatValue(x, xat); });
                ifPresent(h, hat, "depth", [&](const json& x, const std::string& xat) { p.holeDepth = r.floatValue(x, xat); });
                ifPresent(h, hat, "convergence",
                          [&](const json& x, const std::string& xat) { p.holeConvergence = r.floatValue(x, xat); });
            });
            scene.planes.push_back(p);
        }
    });
    return scene;
}

// ---------------------------------------------------------------------------------
// Parsing through io/JsonInput.h, which tracks the JSON Pointer of the value being read
// (for errors the parser raises without one), rejects duplicate keys and deep nesting.

json parseJson(std::string_view text, const std::string& source) {
    try {
        return io::parseJson(text, source,
                             {.maxBytes = std::size_t(kMaxFileBytes), .maxDepth = int(kMaxNesting), .rejectDuplicateKeys = true});
    } catch (const io::JsonInputError& e) {
        throw SceneError(e.source(), e.where(), e.message());
    }
}

// ---------------------------------------------------------------------------------
// Writing.

/// A float as the double with the shortest decimal text that reads back as that float,
/// so that files say 0.01 rather than 0.009999999776482582.
json number(float v) {
    std::array<char, 32> buf{};
    const auto r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    double d = double(v);
    if (r.ec == std::errc{}) {
        const std::string text(buf.data(), r.ptr);
        double parsed = 0.0;
        const auto back = std::from_chars(text.data(), text.data() + text.size(), parsed);
        if (back.ec == std::errc{} && float(parsed) == v) d = parsed;
    }
    return d;
}

json vec(Vec3 v) { return json::array({number(v.x), number(v.y), number(v.z)}); }

json boxJson(const Aabb& b) { return json{{"min", vec(b.lo)}, {"max", vec(b.hi)}}; }

} // namespace

// ---------------------------------------------------------------------------------

Scene sceneFromJson(const json& document, const std::string& sourceName) {
    const Reader reader(sourceName);
    Scene scene = readScene(reader, document);
    validateScene(scene, sourceName);
    return scene;
}

Scene parseScene(std::string_view jsonText, const std::string& sourceName) {
    const json document = parseJson(jsonText, sourceName);
    return sceneFromJson(document, sourceName);
}

Scene loadSceneFile(const std::filesystem::path& file) {
    const std::string source = file.string();
    std::error_code ec;
    const auto status = std::filesystem::status(file, ec);
    if (ec || !std::filesystem::exists(status)) throw SceneError(source, "", "cannot open the scene file: no such file");
    if (!std::filesystem::is_regular_file(status)) throw SceneError(source, "", "cannot open the scene file: not a regular file");
    const auto size = std::filesystem::file_size(file, ec);
    if (!ec && size > kMaxFileBytes)
        throw SceneError(source, "", "the scene file is too large (" + std::to_string(size) + " bytes, limit " +
                                         std::to_string(kMaxFileBytes) + ")");
    std::ifstream in(file, std::ios::binary);
    if (!in) throw SceneError(source, "", "cannot open the scene file for reading");
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) throw SceneError(source, "", "error while reading the scene file");
    return parseScene(text.str(), source);
}

json sceneToJson(const Scene& scene) {
    const SolverParameters& p = scene.parameters;
    json params{
        {"particleSpacing", number(p.particleSpacing)},
        {"kernelRadius", number(p.kernelRadius)},
        {"referenceDensity", number(p.referenceDensity)},
        {"equationOfState", p.equationOfState == EquationOfState::Linear ? "linear" : "tait"},
        {"soundSpeed", number(p.soundSpeed)},
        {"maxPressure", number(p.maxPressure)},
        {"clampNegativePressure", p.clampNegativePressure},
        {"viscosity", number(p.viscosity)},
        {"artificialViscosity", number(p.artificialViscosity)},
        {"gravity", vec(p.gravity)},
        {"cflNumber", number(p.cflNumber)},
        {"maxTimeStep", number(p.maxTimeStep)},
        {"frameRate", number(p.frameRate)},
        {"substepsPerFrame", p.substepsPerFrame},
        {"maxSpeed", number(p.maxSpeed)},
        {"wallMargin", number(p.wallMargin)},
        {"wallRestitution", number(p.wallRestitution)},
        {"wallPressure", p.wallPressure == WallPressure::Mirrored ? "mirrored" : "densityMap"},
        {"maxParticles", std::uint64_t(p.maxParticles)},
        {"zOrder", p.zOrder},
        {"pressureSolver", p.pressureSolver == PressureSolver::DivergenceFree ? "divergenceFree" : "weaklyCompressible"},
        {"maxDensityError", number(p.maxDensityError)},
        {"maxDivergenceError", number(p.maxDivergenceError)},
        {"maxSolverIterations", p.maxSolverIterations},
    };
    if (p.restDensity) params["restDensity"] = number(*p.restDensity);
    else params["restDensitySource"] = p.restDensitySource == SolverParameters::RestDensitySource::All ? "all" : "bulk";
    if (p.linearStiffness) params["linearStiffness"] = number(*p.linearStiffness);
    if (p.maxTension) params["maxTension"] = number(*p.maxTension);
    if (p.domain) params["domain"] = boxJson(*p.domain);

    json doc{{"name", scene.name}, {"parameters", std::move(params)}};
    if (scene.container) {
        json c = boxJson(scene.container->bounds);
        c["restitution"] = number(scene.container->restitution);
        doc["container"] = std::move(c);
    }
    if (scene.wall.kind == WallMeshSpec::Kind::Sphere) {
        const WallMeshSpec& w = scene.wall;
        doc["wall"] = json{{"type", "sphere"},
                           {"center", vec(w.center)},
                           {"radius", number(w.radius)},
                           {"subdivisions", w.subdivisions},
                           {"pulseAmplitude", number(w.pulseAmplitude)},
                           {"pulsePeriod", number(w.pulsePeriod)},
                           {"fieldCellSize", number(w.fieldCellSize)}};
    }
    json blocks = json::array();
    for (const FluidBlock& b : scene.fluidBlocks) {
        json j = boxJson(b.bounds);
        j["velocity"] = vec(b.velocity);
        blocks.push_back(std::move(j));
    }
    doc["fluidBlocks"] = std::move(blocks);
    json emitters = json::array();
    for (const Emitter& e : scene.emitters)
        emitters.push_back(json{{"position", vec(e.position)},
                                {"direction", vec(e.direction)},
                                {"radius", number(e.radius)},
                                {"speed", number(e.speed)},
                                {"rate", number(e.rate)},
                                {"start", number(e.start)},
                                {"end", number(e.end)}});
    doc["emitters"] = std::move(emitters);
    json outlets = json::array();
    for (const Outlet& o : scene.outlets) {
        if (o.shape == OutletShape::Box) {
            json j = boxJson(o.bounds);
            j["type"] = "box";
            outlets.push_back(std::move(j));
        } else {
            outlets.push_back(json{{"type", "sphere"}, {"center", vec(o.center)}, {"radius", number(o.radius)}});
        }
    }
    doc["outlets"] = std::move(outlets);
    json open = json::array();
    for (const OpenBoundary& b : scene.openBoundaries) {
        json j{{"center", vec(b.center)}, {"normal", vec(b.normal)}, {"depth", number(b.depth)},
               {"pressure", number(b.pressure)}};
        if (b.shape == OpenBoundaryShape::Rectangle) {
            j["shape"] = "rectangle";
            j["axis"] = vec(b.axis);
            j["halfWidth"] = number(b.halfWidth);
            j["halfHeight"] = number(b.halfHeight);
        } else {
            j["shape"] = "disc";
            j["radius"] = number(b.radius);
        }
        if (b.velocity == OpenBoundaryVelocity::Prescribed) j["velocity"] = number(b.inflowSpeed);
        else j["velocity"] = "extrapolated";
        open.push_back(std::move(j));
    }
    doc["openBoundaries"] = std::move(open);
    json planes = json::array();
    for (const BoundaryPlane& pl : scene.planes) {
        json j{{"point", vec(pl.point)},
               {"normal", vec(pl.normal)},
               {"radius", number(pl.radius)},
               {"type", pl.kind == PlaneKind::OneWay   ? "one-way"
                        : pl.kind == PlaneKind::Closed ? "closed"
                                                       : "two-sided"},
               {"restitution", number(pl.restitution)}};
        if (pl.holeRadius != 0.f || pl.holeSpeed != 0.f || pl.holeDepth != 0.f || pl.holeConvergence != 0.f)
            j["hole"] = json{{"radius", number(pl.holeRadius)},
                             {"speed", number(pl.holeSpeed)},
                             {"depth", number(pl.holeDepth)},
                             {"convergence", number(pl.holeConvergence)}};
        planes.push_back(std::move(j));
    }
    doc["planes"] = std::move(planes);
    return doc;
}

void saveSceneFile(const Scene& scene, const std::filesystem::path& file) {
    try {
        io::writeFileAtomically(file, sceneToJson(scene).dump(2) + "\n");
    } catch (const io::WriteError& e) {
        throw SceneError(file.string(), "", e.why());
    }
}

} // namespace atrium::sph
