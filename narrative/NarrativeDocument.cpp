#include "narrative/NarrativeDocument.h"

#include "io/AtomicFile.h"
#include "io/JsonInput.h"

#include "narrative/JsonSchema.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>

#include <unistd.h>

namespace atrium::narrative {

// The schema file's text, embedded at build time (narrative/CMakeLists.txt).
extern const char* const kNarrativeSchemaText;

namespace {

using nlohmann::json;

json vec3(const Vec3& v) { return json::array({v.x, v.y, v.z}); }
Vec3 vec3(const json& j) { return {j[0].get<double>(), j[1].get<double>(), j[2].get<double>()}; }

const JsonSchema& schema() {
    static const JsonSchema s(json::parse(kNarrativeSchemaText));
    return s;
}

json toJson(const OverlayItem& item) {
    const OverlayItem d;
    json j{{"kind", std::string(toString(item.kind))},
           {"rect", {{"x", item.rect.x}, {"y", item.rect.y}, {"width", item.rect.width}, {"height", item.rect.height}}}};
    if (item.z != d.z) j["z"] = item.z;
    if (!item.text.empty()) j["text"] = item.text;
    if (!item.media.empty()) j["media"] = item.media;
    if (item.startOffset != d.startOffset) j["startOffset"] = item.startOffset;
    if (item.volume != d.volume) j["volume"] = item.volume;
    if (item.loop != d.loop) j["loop"] = item.loop;
    if (item.anchor != d.anchor || item.kind == OverlayKind::Label3D) j["anchor"] = vec3(item.anchor);
    return j;
}

json toJson(const ViewState& v) {
    json j = json::object();
    if (v.heartRunning) j["heartRunning"] = *v.heartRunning;
    if (v.heartPhase) j["heartPhase"] = *v.heartPhase;
    if (v.heartRateBpm) j["heartRateBpm"] = *v.heartRateBpm;
    if (v.colouring) j["colouring"] = std::string(toString(*v.colouring));
    if (v.fluid) j["fluid"] = std::string(toString(*v.fluid));
    if (v.wallOpacity) j["wallOpacity"] = *v.wallOpacity;
    if (v.clipping) j["clipping"] = {{"enabled", v.clipping->enabled}, {"offset", v.clipping->offset}};
    if (v.wireframe) j["wireframe"] = *v.wireframe;
    if (v.bloodVisible) j["bloodVisible"] = *v.bloodVisible;
    return j;
}

json toJson(const Node& n) {
    json j{{"title", n.title},
           {"pose", {{"position", vec3(n.pose.position())}, {"yaw", n.pose.yaw()}, {"pitch", n.pose.pitch()}}},
           {"dwell", n.dwell},
           {"waitForKey", n.waitForKey},
           {"fadeIn", n.fadeIn},
           {"fadeOut", n.fadeOut},
           {"overlays", json::array()}};
    for (const OverlayItem& item : n.overlays) j["overlays"].push_back(toJson(item));
    if (!n.thumbnail.empty()) j["thumbnail"] = n.thumbnail;
    if (!n.view.empty()) j["view"] = toJson(n.view);
    return j;
}

json toJson(const Narrative& n) {
    json j{{"title", n.title}, {"author", n.author}, {"description", n.description},
           {"nodes", json::array()}, {"transitions", json::array()}};
    for (const Node& node : n.nodes) j["nodes"].push_back(toJson(node));
    for (const Transition& t : n.transitions) {
        json tj{{"duration", t.duration}};
        if (t.heartPhase) tj["heartPhase"] = *t.heartPhase;
        j["transitions"].push_back(tj);
    }
    return j;
}

template <typename T>
void read(const json& j, const char* key, T& out) {
    if (const auto it = j.find(key); it != j.end()) out = it->get<T>();
}

template <typename T>
void read(const json& j, const char* key, std::optional<T>& out) {
    if (const auto it = j.find(key); it != j.end()) out = it->get<T>();
}

// The readers below run on JSON that passed the schema: types and ranges are checked.
OverlayItem overlayFrom(const json& j) {
    OverlayItem item;
    item.kind = *overlayKindFromString(j["kind"].get<std::string>());
    const json& r = j["rect"];
    item.rect = {r["x"].get<double>(), r["y"].get<double>(), r["width"].get<double>(), r["height"].get<double>()};
    read(j, "z", item.z);
    read(j, "text", item.text);
    read(j, "media", item.media);
    read(j, "startOffset", item.startOffset);
    read(j, "volume", item.volume);
    read(j, "loop", item.loop);
    if (j.contains("anchor")) item.anchor = vec3(j["anchor"]);
    return item;
}

ViewState viewFrom(const json& j) {
    ViewState v;
    read(j, "heartRunning", v.heartRunning);
    read(j, "heartPhase", v.heartPhase);
    read(j, "heartRateBpm", v.heartRateBpm);
    if (j.contains("colouring")) v.colouring = bloodColouringFromString(j["colouring"].get<std::string>());
    if (j.contains("fluid")) v.fluid = fluidDrawingFromString(j["fluid"].get<std::string>());
    read(j, "wallOpacity", v.wallOpacity);
    if (const auto c = j.find("clipping"); c != j.end()) v.clipping = Clipping{(*c)["enabled"].get<bool>(), c->value("offset", 0.0)};
    read(j, "wireframe", v.wireframe);
    read(j, "bloodVisible", v.bloodVisible);
    return v;
}

Node nodeFrom(const json& j) {
    Node n;
    read(j, "title", n.title);
    const json& p = j["pose"];
    n.pose = CameraPose(vec3(p["position"]), p["yaw"].get<double>(), p["pitch"].get<double>());
    read(j, "dwell", n.dwell);
    read(j, "waitForKey", n.waitForKey);
    read(j, "fadeIn", n.fadeIn);
    read(j, "fadeOut", n.fadeOut);
    if (const auto o = j.find("overlays"); o != j.end())
        for (const json& item : *o) n.overlays.push_back(overlayFrom(item));
    read(j, "thumbnail", n.thumbnail);
    if (const auto v = j.find("view"); v != j.end()) n.view = viewFrom(*v);
    return n;
}

Narrative narrativeFrom(const json& j) {
    Narrative n;
    read(j, "title", n.title);
    read(j, "author", n.author);
    read(j, "description", n.description);
    for (const json& node : j["nodes"]) n.nodes.push_back(nodeFrom(node));
    for (const json& t : j["transitions"]) {
        Transition transition;
        read(t, "duration", transition.duration);
        read(t, "heartPhase", transition.heartPhase);
        n.transitions.push_back(transition);
    }
    return n;
}

} // namespace

const nlohmann::json& narrativeDocumentSchema() { return schema().schema(); }

nlohmann::json toJson(const NarrativeDocument& document) {
    json j{{"format", std::string(NarrativeDocument::kFormat)}, {"version", NarrativeDocument::kVersion},
           {"narratives", json::array()}};
    for (const Narrative& n : document.narratives) j["narratives"].push_back(toJson(n));
    return j;
}

std::optional<std::string> checkMediaPath(const std::string& path) {
    if (path.empty()) return "an empty media path";
    if (path.front() == '/') return "media path '" + path + "' is absolute; give it relative to the document's folder";
    for (char c : path) {
        if (c == '\\') return "media path '" + path + "' has a backslash; use '/'";
        if (static_cast<unsigned char>(c) < 0x20) return "media path '" + path + "' has a control character";
    }
    std::size_t start = 0;
    while (start <= path.size()) {
        const std::size_t end = std::min(path.find('/', start), path.size());
        const std::string_view part(path.data() + start, end - start);
        if (part == "..") return "media path '" + path + "' leaves the document's folder ('..')";
        if (part.empty() || part == ".") return "media path '" + path + "' has an empty or '.' component";
        start = end + 1;
    }
    return std::nullopt;
}

NarrativeDocument fromJson(const nlohmann::json& j, const std::string& source, const MediaExists& mediaExists) {
    auto fail = [&](const std::string& what) -> NarrativeDocumentError { return NarrativeDocumentError(source + ": " + what); };
    if (!j.is_object()) throw fail("expected a JSON object holding narratives, got " + std::string(j.type_name()));
    // The version first: a newer file gets a message about its version, not about the
    // fields this build does not know.
    if (const auto v = j.find("version"); v != j.end()) {
        if (!v->is_number_integer()) throw fail("/version: expected an integer, got " + std::string(v->type_name()));
        if (v->get<std::int64_t>() != NarrativeDocument::kVersion)
            throw fail("/version: unsupported version " + v->dump() + " (this Atrium reads version " +
                       std::to_string(NarrativeDocument::kVersion) + ")");
    }
    if (auto error = schema().check(j)) throw fail(*error);

    NarrativeDocument document;
    for (const json& n : j["narratives"]) document.narratives.push_back(narrativeFrom(n));
    for (std::size_t i = 0; i < document.narratives.size(); ++i) {
        const std::string at = "/narratives/" + std::to_string(i);
        const Narrative& n = document.narratives[i];
        if (auto error = validate(n, at)) throw fail(*error);
        for (std::size_t k = 0; k < n.nodes.size(); ++k)
            for (std::size_t o = 0; o < n.nodes[k].overlays.size(); ++o) {
                const std::string& media = n.nodes[k].overlays[o].media;
                if (media.empty()) continue;
                const std::string pointer = at + "/nodes/" + std::to_string(k) + "/overlays/" + std::to_string(o) + "/media";
                if (auto error = checkMediaPath(media)) throw fail(pointer + ": " + *error);
                if (mediaExists && !mediaExists(media)) throw fail(pointer + ": media file '" + media + "' not found");
            }
    }
    return document;
}

NarrativeDocument parseNarrativeDocument(std::string_view text, const std::string& source, const MediaExists& mediaExists) {
    if (text.size() > NarrativeDocument::kMaxFileBytes)
        throw NarrativeDocumentError(source + ": " + std::to_string(text.size()) + " bytes, more than the " +
                                     std::to_string(NarrativeDocument::kMaxFileBytes >> 20) + " MiB a narrative document may have");
    json j;
    try {
        j = io::parseJson(text, source, {.maxBytes = NarrativeDocument::kMaxFileBytes}); // nested 64 deep at most
    } catch (const io::JsonInputError& e) { // syntax, a number too large for a double, nesting
        throw NarrativeDocumentError(source + ": not valid JSON (" + e.where() + "): " + e.message());
    }
    return fromJson(j, source, mediaExists);
}

NarrativeDocument loadNarrativeDocument(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    const std::string source = path.string();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec)) throw NarrativeDocumentError(source + ": no such file");
    const auto size = fs::file_size(path, ec);
    if (ec) throw NarrativeDocumentError(source + ": cannot read its size: " + ec.message());
    if (size > NarrativeDocument::kMaxFileBytes)
        throw NarrativeDocumentError(source + ": " + std::to_string(size) + " bytes, more than the " +
                                     std::to_string(NarrativeDocument::kMaxFileBytes >> 20) + " MiB a narrative document may have");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw NarrativeDocumentError(source + ": cannot open it for reading");
    std::string text(std::size_t(size), '\0');
    in.read(text.data(), std::streamsize(size));
    if (std::size_t(in.gcount()) != size) throw NarrativeDocumentError(source + ": could not read the whole file");
    const fs::path folder = path.parent_path();
    return parseNarrativeDocument(text, source, [&](const std::string& media) {
        std::error_code e;
        return fs::is_regular_file(folder / media, e);
    });
}

void saveNarrativeDocument(const NarrativeDocument& document, const std::filesystem::path& path) {
    for (std::size_t i = 0; i < document.narratives.size(); ++i)
        if (auto error = validate(document.narratives[i], "/narratives/" + std::to_string(i)))
            throw NarrativeDocumentError(path.string() + ": not saved, " + *error);
    try {
        io::writeFileAtomically(path, toJson(document).dump(2) + "\n", {.createDirectory = false});
    } catch (const std::runtime_error& e) {
        throw NarrativeDocumentError(e.what());
    }
}

} // namespace atrium::narrative
