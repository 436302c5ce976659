#include "session/Protocol.h"

#include "session/ClientText.h"

#include "io/JsonInput.h"
#include "narrative/JsonSchema.h"

#include <array>
#include <cmath>
#include <map>
#include <memory>

namespace atrium::session {

// The schema file's text, embedded at build time (session/CMakeLists.txt).
extern const char* const kSessionSchemaText;

using nlohmann::json;

namespace {

// ---- names on the wire -----------------------------------------------------------

struct TypeNames {
    std::string_view operator()(const msg::Hello&) const { return "hello"; }
    std::string_view operator()(const msg::Auth&) const { return "auth"; }
    std::string_view operator()(const msg::Ping&) const { return "ping"; }
    std::string_view operator()(const msg::Status&) const { return "status"; }
    std::string_view operator()(const msg::Leave&) const { return "leave"; }
    std::string_view operator()(const msg::Resync&) const { return "resync"; }
    std::string_view operator()(const msg::Welcome&) const { return "welcome"; }
    std::string_view operator()(const msg::Pong&) const { return "pong"; }
    std::string_view operator()(const msg::AuthResult&) const { return "authResult"; }
    std::string_view operator()(const msg::Snapshot&) const { return "snapshot"; }
    std::string_view operator()(const msg::Roster&) const { return "roster"; }
    std::string_view operator()(const msg::Error&) const { return "error"; }
    std::string_view operator()(const msg::Bye&) const { return "bye"; }
    std::string_view operator()(const msg::Pose&) const { return "pose"; }
    std::string_view operator()(const msg::Narrative&) const { return "narrative"; }
    std::string_view operator()(const msg::Sim&) const { return "sim"; }
    std::string_view operator()(const msg::View&) const { return "view"; }
    std::string_view operator()(const msg::AttentionMode&) const { return "attention"; }
    std::string_view operator()(const msg::Floor&) const { return "floor"; }
    std::string_view operator()(const msg::Resource&) const { return "resource"; }
    std::string_view operator()(const msg::PointerAt&) const { return "pointer"; }
};

std::string_view roleName(Role r) {
    switch (r) {
    case Role::Lecturer: return "lecturer";
    case Role::Presenter: return "presenter";
    case Role::Student: break;
    }
    return "student";
}

// ---- writing -----------------------------------------------------------------------

json vec3(const narrative::Vec3& v) { return json::array({v.x, v.y, v.z}); }
narrative::Vec3 vec3(const json& j) { return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()}; }

void putPose(json& j, const PoseSample& s) {
    j["t"] = s.t;
    j["p"] = vec3(s.pose.position());
    j["yaw"] = s.pose.yaw();
    j["pitch"] = s.pose.pitch();
}
PoseSample readPose(const json& j) {
    return {j["t"].get<double>(), narrative::CameraPose(vec3(j["p"]), j["yaw"].get<double>(), j["pitch"].get<double>())};
}

json contentJson(const std::optional<ContentId>& c) {
    if (!c) return nullptr;
    return {{"hash", c->hash}, {"name", c->name}, {"bytes", c->bytes}};
}
std::optional<ContentId> readContent(const json& j) {
    if (j.is_null()) return std::nullopt;
    return ContentId{j["hash"].get<std::string>(), j["name"].get<std::string>(), j["bytes"].get<std::uint64_t>()};
}

json narrativeJson(const NarrativeState& n) {
    json j = {{"index", n.index}, {"time", n.time}, {"at", n.at}, {"playing", n.playing}, {"loop", n.loop}, {"keys", n.keys}};
    if (n.entry)
        j["entry"] = {{"p", vec3(n.entry->position())}, {"yaw", n.entry->yaw()}, {"pitch", n.entry->pitch()}};
    return j;
}
NarrativeState readNarrative(const json& j) {
    NarrativeState n;
    n.index = j["index"].get<int>();
    n.time = j["time"].get<double>();
    n.at = j["at"].get<double>();
    n.playing = j["playing"].get<bool>();
    n.loop = j["loop"].get<bool>();
    n.keys = j["keys"].get<std::vector<double>>();
    if (const auto e = j.find("entry"); e != j.end() && !e->is_null())
        n.entry = narrative::CameraPose(vec3((*e)["p"]), (*e)["yaw"].get<double>(), (*e)["pitch"].get<double>());
    return n;
}

json simJson(const SimState& s) {
    return {{"running", s.running},     {"phase", s.phase}, {"at", s.at},
            {"rateBpm", s.rateBpm},     {"particles", s.particles}, {"seed", s.seed},
            {"viscosity", s.viscosity}, {"soundSpeed", s.soundSpeed}, {"resets", s.resets}};
}
SimState readSim(const json& j) {
    SimState s;
    s.running = j["running"].get<bool>();
    s.phase = j["phase"].get<double>();
    s.at = j["at"].get<double>();
    s.rateBpm = j["rateBpm"].get<double>();
    s.particles = j["particles"].get<int>();
    s.seed = j["seed"].get<std::uint32_t>();
    s.viscosity = j["viscosity"].get<double>();
    s.soundSpeed = j["soundSpeed"].get<double>();
    s.resets = j["resets"].get<int>();
    return s;
}

json viewJson(const ViewSettings& v) {
    return {{"colouring", std::string(narrative::toString(v.colouring))},
            {"fluid", std::string(narrative::toString(v.fluid))},
            {"opacity", v.opacity},
            {"clip", v.clipping.enabled},
            {"clipOffset", v.clipping.offset},
            {"wireframe", v.wireframe},
            {"blood", v.blood}};
}
ViewSettings readView(const json& j) {
    ViewSettings v;
    v.colouring = *narrative::bloodColouringFromString(j["colouring"].get<std::string>());
    v.fluid = *narrative::fluidDrawingFromString(j["fluid"].get<std::string>());
    v.opacity = j["opacity"].get<double>();
    v.clipping = {j["clip"].get<bool>(), j["clipOffset"].get<double>()};
    v.wireframe = j["wireframe"].get<bool>();
    v.blood = j["blood"].get<bool>();
    return v;
}

json attentionJson(Attention a) { return a == Attention::Hold ? "hold" : "free"; }
Attention readAttention(const json& j) { return j.get<std::string>() == "hold" ? Attention::Hold : Attention::Free; }

json floorJson(const std::optional<int>& f) { return f ? json(*f) : json(nullptr); }
std::optional<int> readFloor(const json& j) { return j.is_null() ? std::nullopt : std::optional<int>(j.get<int>()); }

json resourceJson(const std::optional<std::string>& r) { return r ? json(*r) : json(nullptr); }
std::optional<std::string> readResource(const json& j) {
    return j.is_null() ? std::nullopt : std::optional<std::string>(j.get<std::string>());
}

json pointerJson(const std::optional<Pointer>& p) {
    if (!p) return nullptr;
    return {{"at", vec3(p->at)}, {"label", p->label}};
}
std::optional<Pointer> readPointer(const json& j) {
    if (j.is_null()) return std::nullopt;
    return Pointer{vec3(j["at"]), j["label"].get<std::string>()};
}

void putSeq(json& j, std::uint64_t seq) {
    if (seq != 0) j["seq"] = seq;
}
std::uint64_t readSeq(const json& j) { return j.contains("seq") ? j["seq"].get<std::uint64_t>() : 0; }

struct Writer {
    json& j;
    void operator()(const msg::Hello& m) const {
        j["code"] = m.code;
        j["name"] = m.name;
        if (m.resume) j["resume"] = *m.resume;
    }
    void operator()(const msg::Auth& m) const { j["tag"] = m.tag; }
    void operator()(const msg::Ping& m) const { j["id"] = m.id, j["t0"] = m.t0; }
    void operator()(const msg::Status& m) const { j["following"] = m.following; }
    void operator()(const msg::Leave&) const {}
    void operator()(const msg::Resync&) const {}
    void operator()(const msg::Welcome& m) const {
        j["id"] = m.id;
        j["session"] = m.session;
        j["now"] = m.now;
        j["content"] = contentJson(m.content);
        if (m.challenge)
            j["challenge"] = {{"nonce", m.challenge->nonce}, {"salt", m.challenge->salt}, {"ops", m.challenge->ops},
                              {"mem", m.challenge->mem}};
    }
    void operator()(const msg::Pong& m) const { j["id"] = m.id, j["t0"] = m.t0, j["ts"] = m.ts; }
    void operator()(const msg::AuthResult& m) const { j["ok"] = m.ok, j["reason"] = m.reason; }
    void operator()(const msg::Snapshot& m) const { j["seq"] = m.seq, j["state"] = toJson(m.state); }
    void operator()(const msg::Roster& m) const {
        json members = json::array();
        for (const Member& x : m.members)
            members.push_back({{"id", x.id}, {"name", x.name}, {"role", std::string(roleName(x.role))}, {"following", x.following}});
        j["members"] = std::move(members);
    }
    void operator()(const msg::Error& m) const { j["reason"] = m.reason; }
    void operator()(const msg::Bye& m) const { j["reason"] = m.reason; }
    void operator()(const msg::Pose& m) const { putPose(j, m.sample); }
    void operator()(const msg::Narrative& m) const { putSeq(j, m.seq), j["state"] = narrativeJson(m.state); }
    void operator()(const msg::Sim& m) const { putSeq(j, m.seq), j["state"] = simJson(m.state); }
    void operator()(const msg::View& m) const { putSeq(j, m.seq), j["state"] = viewJson(m.state); }
    void operator()(const msg::AttentionMode& m) const { putSeq(j, m.seq), j["mode"] = attentionJson(m.mode); }
    void operator()(const msg::Floor& m) const { putSeq(j, m.seq), j["holder"] = floorJson(m.holder); }
    void operator()(const msg::Resource& m) const { putSeq(j, m.seq), j["id"] = resourceJson(m.id); }
    void operator()(const msg::PointerAt& m) const { putSeq(j, m.seq), j["pointer"] = pointerJson(m.pointer); }
};

// ---- reading (after the schema) ---------------------------------------------------------

Role readRole(const std::string& s) {
    if (s == "lecturer") return Role::Lecturer;
    if (s == "presenter") return Role::Presenter;
    return Role::Student;
}

Message readMessage(const std::string& type, const json& j) {
    if (type == "hello") {
        msg::Hello m{j["code"].get<std::string>(), j["name"].get<std::string>(), std::nullopt};
        if (j.contains("resume")) m.resume = j["resume"].get<int>();
        return m;
    }
    if (type == "auth") return msg::Auth{j["tag"].get<std::string>()};
    if (type == "ping") return msg::Ping{j["id"].get<std::uint32_t>(), j["t0"].get<double>()};
    if (type == "status") return msg::Status{j["following"].get<bool>()};
    if (type == "leave") return msg::Leave{};
    if (type == "resync") return msg::Resync{};
    if (type == "welcome") {
        msg::Welcome m{j["id"].get<int>(), j["session"].get<std::string>(), j["now"].get<double>(), readContent(j["content"]),
                       std::nullopt};
        if (j.contains("challenge")) {
            const json& c = j["challenge"];
            m.challenge = Challenge{c["nonce"].get<std::string>(), c["salt"].get<std::string>(), c["ops"].get<unsigned>(),
                                    c["mem"].get<std::size_t>()};
        }
        return m;
    }
    if (type == "pong") return msg::Pong{j["id"].get<std::uint32_t>(), j["t0"].get<double>(), j["ts"].get<double>()};
    if (type == "authResult") return msg::AuthResult{j["ok"].get<bool>(), j["reason"].get<std::string>()};
    if (type == "snapshot") return msg::Snapshot{j["seq"].get<std::uint64_t>(), stateFromJson(j["state"])};
    if (type == "roster") {
        msg::Roster m;
        for (const json& x : j["members"])
            m.members.push_back({x["id"].get<int>(), x["name"].get<std::string>(), readRole(x["role"].get<std::string>()),
                                 x["following"].get<bool>()});
        return m;
    }
    if (type == "error") return msg::Error{j["reason"].get<std::string>()};
    if (type == "bye") return msg::Bye{j["reason"].get<std::string>()};
    if (type == "pose") return msg::Pose{readPose(j)};
    if (type == "narrative") return msg::Narrative{readSeq(j), readNarrative(j["state"])};
    if (type == "sim") return msg::Sim{readSeq(j), readSim(j["state"])};
    if (type == "view") return msg::View{readSeq(j), readView(j["state"])};
    if (type == "attention") return msg::AttentionMode{readSeq(j), readAttention(j["mode"])};
    if (type == "floor") return msg::Floor{readSeq(j), readFloor(j["holder"])};
    if (type == "resource") return msg::Resource{readSeq(j), readResource(j["id"])};
    return msg::PointerAt{readSeq(j), readPointer(j["pointer"])};
}

/// The schema, and one checker per message type ({"$ref": "#/$defs/TYPE"} with the defs).
struct Schemas {
    json schema;
    std::map<std::string, std::unique_ptr<narrative::JsonSchema>, std::less<>> byType;
    std::unique_ptr<narrative::JsonSchema> state;

    Schemas() : schema(json::parse(kSessionSchemaText)) {
        static constexpr std::array kTypes = {"hello",     "auth",   "ping", "status",   "leave",    "resync",  "welcome",
                                              "pong",      "authResult", "snapshot", "roster", "error", "bye", "pose",
                                              "narrative", "sim",    "view", "attention", "floor", "resource", "pointer"};
        auto checker = [&](const std::string& def) {
            json s = {{"$ref", "#/$defs/" + def}, {"$defs", schema["$defs"]}};
            return std::make_unique<narrative::JsonSchema>(std::move(s));
        };
        for (const char* t : kTypes) byType.emplace(t, checker(t));
        state = checker("state");
    }
};

const Schemas& schemas() {
    static const Schemas s;
    return s;
}

} // namespace

double SimState::phaseAt(double now) const {
    if (!running || now <= at) return phase;
    const double p = phase + (now - at) * rateBpm / 60.0;
    return p - std::floor(p);
}

std::string_view typeName(const Message& message) { return std::visit(TypeNames{}, message); }

bool isDrive(const Message& m) {
    return std::holds_alternative<msg::Pose>(m) || std::holds_alternative<msg::Narrative>(m) ||
           std::holds_alternative<msg::Sim>(m) || std::holds_alternative<msg::View>(m) ||
           std::holds_alternative<msg::AttentionMode>(m) || std::holds_alternative<msg::Floor>(m) ||
           std::holds_alternative<msg::Resource>(m) || std::holds_alternative<msg::PointerAt>(m);
}

std::uint64_t sequenceOf(const Message& message) {
    return std::visit(
        [](const auto& m) -> std::uint64_t {
            if constexpr (requires { m.seq; }) return m.seq;
            else return 0;
        },
        message);
}

void setSequence(Message& message, std::uint64_t seq) {
    std::visit(
        [seq](auto& m) {
            if constexpr (requires { m.seq; }) m.seq = seq;
        },
        message);
}

void applyToState(SessionState& s, const Message& m) {
    if (const auto* snap = std::get_if<msg::Snapshot>(&m)) s = snap->state;
    else if (const auto* p = std::get_if<msg::Pose>(&m)) s.pose = p->sample;
    else if (const auto* n = std::get_if<msg::Narrative>(&m)) s.narrative = n->state;
    else if (const auto* sim = std::get_if<msg::Sim>(&m)) s.sim = sim->state;
    else if (const auto* v = std::get_if<msg::View>(&m)) s.view = v->state;
    else if (const auto* a = std::get_if<msg::AttentionMode>(&m)) s.attention = a->mode;
    else if (const auto* f = std::get_if<msg::Floor>(&m)) s.floor = f->holder;
    else if (const auto* r = std::get_if<msg::Resource>(&m)) s.resource = r->id;
    else if (const auto* ptr = std::get_if<msg::PointerAt>(&m)) s.pointer = ptr->pointer;
}

json toJson(const Message& message) {
    json j = {{"v", kProtocolVersion}, {"type", std::string(typeName(message))}};
    std::visit(Writer{j}, message);
    return j;
}

std::string encode(const Message& message) { return toJson(message).dump(); }

json toJson(const SessionState& s) {
    json pose = nullptr;
    if (s.pose) {
        pose = json::object();
        putPose(pose, *s.pose);
    }
    return {{"content", contentJson(s.content)},       {"narrative", narrativeJson(s.narrative)},
            {"sim", simJson(s.sim)},                   {"view", viewJson(s.view)},
            {"attention", attentionJson(s.attention)}, {"floor", floorJson(s.floor)},
            {"resource", resourceJson(s.resource)},    {"pointer", pointerJson(s.pointer)},
            {"pose", pose}};
}

SessionState stateFromJson(const json& j) {
    SessionState s;
    s.content = readContent(j["content"]);
    s.narrative = readNarrative(j["narrative"]);
    s.sim = readSim(j["sim"]);
    s.view = readView(j["view"]);
    s.attention = readAttention(j["attention"]);
    s.floor = readFloor(j["floor"]);
    s.resource = readResource(j["resource"]);
    s.pointer = readPointer(j["pointer"]);
    if (!j["pose"].is_null()) s.pose = readPose(j["pose"]);
    return s;
}

ParseResult parseMessage(std::string_view text, const MessageLimits& limits) {
    ParseResult r;
    if (text.size() > limits.maxBytes) {
        r.error = "message of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                  std::to_string(limits.maxBytes);
        return r;
    }
    // A hostile "[[[[..." is refused by counting, before any parsing.
    if (io::jsonNestingDepth(text, limits.maxDepth) > limits.maxDepth) {
        r.error = "message nested deeper than " + std::to_string(limits.maxDepth);
        return r;
    }
    json j;
    try {
        j = io::parseJson(text, "message", {.maxBytes = limits.maxBytes, .maxDepth = limits.maxDepth});
    } catch (const io::JsonInputError& e) {
        r.error = "not JSON (" + e.where() + ")";
        return r;
    }
    if (!j.is_object()) {
        r.error = "not a JSON object";
        return r;
    }
    const auto v = j.find("v");
    if (v == j.end() || !v->is_number_integer()) {
        r.error = "/v: missing protocol version";
        return r;
    }
    if (*v != kProtocolVersion) {
        r.error = "/v: protocol version " + v->dump() + " is not supported (this build speaks " +
                  std::to_string(kProtocolVersion) + ")";
        return r;
    }
    const auto type = j.find("type");
    if (type == j.end() || !type->is_string()) {
        r.error = "/type: missing message type";
        return r;
    }
    const std::string& name = type->get_ref<const std::string&>();
    const auto checker = schemas().byType.find(name);
    if (checker == schemas().byType.end()) {
        // Cut at a character boundary: the reason is sent back as JSON, which must stay UTF-8.
        r.error = "/type: unknown message type \"" + std::string(truncateUtf8(name, 32)) + "\"";
        return r;
    }
    if (auto error = checker->second->check(j)) {
        r.error = name + ": " + *error;
        return r;
    }
    // The schema's maxLength counts characters; the name's limit is in bytes.
    if (name == "hello")
        if (const auto& who = j["name"].get_ref<const std::string&>(); who.size() > kMaxNameBytes) {
            r.error = "hello: /name: " + std::to_string(who.size()) + " bytes of UTF-8, more than " +
                      std::to_string(kMaxNameBytes);
            return r;
        }
    try {
        r.message = readMessage(name, j);
    } catch (const std::exception& e) { // the schema should make this unreachable
        r.error = name + ": " + e.what();
    }
    return r;
}

const json& messageSchema() { return schemas().schema; }

} // namespace atrium::session
