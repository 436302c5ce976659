#include "narrative/package/Manifest.h"

#include "narrative/JsonSchema.h"
#include "narrative/package/JsonInput.h"
#include "narrative/package/PackageError.h"

#include <algorithm>
#include <set>

namespace atrium::package {
extern const char* const kManifestSchemaText; // generated from manifest.schema.json
}

namespace atrium::package {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;
using namespace atrium::narrative;

const narrative::JsonSchema& schemaValidator() {
    static const narrative::JsonSchema validator(manifestSchema());
    return validator;
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
    throw PackageError(PackageError::Kind::BadFile, where + ": " + what);
}

Vec3 point(const json& a) { return {a[0].get<double>(), a[1].get<double>(), a[2].get<double>()}; }
ordered_json point(const Vec3& v) { return ordered_json::array({v.x, v.y, v.z}); }

template <typename T>
T valueOr(const json& o, const char* key, T fallback) {
    auto it = o.find(key);
    return it == o.end() ? fallback : it->get<T>();
}

std::string_view sourceName(HeartSpec::Source s) {
    switch (s) {
    case HeartSpec::Source::Phantom: return "phantom";
    case HeartSpec::Source::Meshes: return "meshes";
    case HeartSpec::Source::Volumes: return "volumes";
    }
    return "?";
}

Resource resourceFrom(const json& o) {
    Resource r;
    r.id = o.at("id").get<std::string>();
    r.name = o.at("name").get<std::string>();
    r.kind = *resourceKindFromString(o.at("kind").get<std::string>());
    r.description = valueOr<std::string>(o, "description", "");
    r.author = valueOr<std::string>(o, "author", "");
    r.copyright = *copyrightStatusFromString(valueOr<std::string>(o, "copyright", "unknown"));
    if (auto it = o.find("years"); it != o.end()) {
        r.yearFrom = (*it)[0].get<int>();
        r.yearTo = it->size() > 1 ? (*it)[1].get<int>() : *r.yearFrom;
    }
    r.category = valueOr<std::string>(o, "category", "");
    r.text = valueOr<std::string>(o, "text", "");
    r.url = valueOr<std::string>(o, "url", "");
    r.media = valueOr<std::string>(o, "media", "");
    r.target = point(o.at("target"));
    r.centre = point(o.at("centre"));
    r.radius = o.at("radius").get<double>();
    r.ignoreTarget = valueOr<bool>(o, "ignoreTarget", false);
    r.autoLaunch = *autoLaunchFromString(valueOr<std::string>(o, "autoLaunch", "off"));
    r.reposition = valueOr<bool>(o, "reposition", false);
    r.global = valueOr<bool>(o, "global", false);
    return r;
}

ordered_json resourceJson(const Resource& r) {
    ordered_json o;
    o["id"] = r.id;
    o["name"] = r.name;
    o["kind"] = toString(r.kind);
    if (!r.description.empty()) o["description"] = r.description;
    if (!r.author.empty()) o["author"] = r.author;
    if (r.copyright != CopyrightStatus::Unknown) o["copyright"] = toString(r.copyright);
    if (r.yearFrom || r.yearTo) {
        const int from = r.yearFrom.value_or(*r.yearTo), to = r.yearTo.value_or(*r.yearFrom);
        o["years"] = from == to ? ordered_json::array({from}) : ordered_json::array({from, to});
    }
    if (!r.category.empty()) o["category"] = r.category;
    if (!r.text.empty()) o["text"] = r.text;
    if (!r.url.empty()) o["url"] = r.url;
    if (!r.media.empty()) o["media"] = r.media;
    o["target"] = point(r.target);
    o["centre"] = point(r.centre);
    o["radius"] = r.radius;
    if (r.ignoreTarget) o["ignoreTarget"] = true;
    if (r.autoLaunch != AutoLaunch::Off) o["autoLaunch"] = toString(r.autoLaunch);
    if (r.reposition) o["reposition"] = true;
    if (r.global) o["global"] = true;
    return o;
}

Manifest fromJson(const json& j, const std::string& where) {
    Manifest m;
    m.title = j.at("title").get<std::string>();
    m.description = valueOr<std::string>(j, "description", "");
    m.author = valueOr<std::string>(j, "author", "");
    m.created = valueOr<std::string>(j, "created", "");
    if (!m.created.empty() && !parseDate(m.created)) bad(where, "/created: '" + m.created + "' is not a calendar date");

    const json& h = j.at("heart");
    const std::string source = h.at("source").get<std::string>();
    m.heart.source = source == "phantom" ? HeartSpec::Source::Phantom
                     : source == "meshes" ? HeartSpec::Source::Meshes
                                          : HeartSpec::Source::Volumes;
    if (m.heart.source == HeartSpec::Source::Phantom) {
        m.heart.preset = h.at("preset").get<std::string>();
    } else {
        m.heart.preset.clear();
        m.heart.entries = h.at("entries").get<std::vector<std::string>>();
        if (auto it = h.find("cycleSeconds"); it != h.end()) m.heart.cycleSeconds = it->get<double>();
        if (auto it = h.find("isovalue"); it != h.end()) {
            if (m.heart.source != HeartSpec::Source::Volumes) bad(where, "/heart/isovalue: only a volume series has an isovalue");
            m.heart.isovalue = it->get<double>();
        }
    }
    m.narratives = valueOr<std::string>(j, "narratives", "");
    m.flow = valueOr<std::string>(j, "flow", "");

    std::set<std::string> categoryNames;
    if (auto it = j.find("categories"); it != j.end()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
            const json& c = (*it)[i];
            ResourceCategory category{c.at("name").get<std::string>(), *colourFromHex(c.at("colour").get<std::string>())};
            if (!categoryNames.insert(category.name).second)
                bad(where, "/categories/" + std::to_string(i) + "/name: category '" + category.name + "' is listed twice");
            m.categories.push_back(std::move(category));
        }
    }
    std::set<std::string> ids;
    if (auto it = j.find("resources"); it != j.end()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
            const std::string at = "/resources/" + std::to_string(i);
            Resource r = resourceFrom((*it)[i]);
            if (auto why = validate(r)) bad(where, at + ": " + *why);
            if (!ids.insert(r.id).second) bad(where, at + "/id: resource id '" + r.id + "' is used twice");
            if (!r.category.empty() && !categoryNames.count(r.category))
                bad(where, at + "/category: '" + r.category + "' is not one of the manifest's categories");
            m.resources.push_back(std::move(r));
        }
    }
    if (auto it = j.find("restrictions"); it != j.end()) {
        Restrictions& r = m.restrictions;
        r.brandingRequired = valueOr<bool>(*it, "brandingRequired", false);
        r.narrativesLocked = valueOr<bool>(*it, "narrativesLocked", false);
        r.resourcesLocked = valueOr<bool>(*it, "resourcesLocked", false);
        r.narrativeNavigationOnly = valueOr<bool>(*it, "narrativeNavigationOnly", false);
        r.videoExportForbidden = valueOr<bool>(*it, "videoExportForbidden", false);
        if (auto s = it->find("maxResolution"); s != it->end()) r.maxResolution = Resolution{(*s)[0].get<int>(), (*s)[1].get<int>()};
        if (auto e = it->find("expires"); e != it->end()) {
            r.expires = parseDate(e->get<std::string>());
            if (!r.expires) bad(where, "/restrictions/expires: '" + e->get<std::string>() + "' is not a calendar date");
        }
    }
    if (auto it = j.find("branding"); it != j.end()) {
        m.branding.text = valueOr<std::string>(*it, "text", "");
        m.branding.image = valueOr<std::string>(*it, "image", "");
        m.branding.link = valueOr<std::string>(*it, "link", "");
    }
    if (m.restrictions.brandingRequired && m.branding.empty())
        bad(where, "/branding: the restrictions require a branding bar, but it has neither text nor image");
    std::set<std::string> fileNames;
    if (auto it = j.find("files"); it != j.end()) {
        for (std::size_t i = 0; i < it->size(); ++i) {
            PackagedFile e{(*it)[i].at("entry").get<std::string>(), (*it)[i].at("type").get<std::string>()};
            if (e.entry == kManifestEntry || e.entry == "signature.json" || e.entry == "lock.json")
                bad(where, "/files/" + std::to_string(i) + "/entry: '" + e.entry + "' is reserved for the package itself");
            if (!fileNames.insert(e.entry).second)
                bad(where, "/files/" + std::to_string(i) + "/entry: '" + e.entry + "' is listed twice");
            m.files.push_back(std::move(e));
        }
    }
    return m;
}

} // namespace

const nlohmann::json& manifestSchema() {
    static const json schema = json::parse(kManifestSchemaText);
    return schema;
}

const Resource* Manifest::findResource(std::string_view id) const {
    for (const auto& r : resources)
        if (r.id == id) return &r;
    return nullptr;
}

const PackagedFile* Manifest::findFile(std::string_view entry) const {
    for (const auto& e : files)
        if (e.entry == entry) return &e;
    return nullptr;
}

std::vector<std::pair<std::string, std::string>> Manifest::references() const {
    std::vector<std::pair<std::string, std::string>> refs;
    auto add = [&](const std::string& entry, std::string who) {
        if (entry.empty()) return;
        for (const auto& [e, w] : refs)
            if (e == entry) return;
        refs.emplace_back(entry, std::move(who));
    };
    for (std::size_t i = 0; i < heart.entries.size(); ++i) add(heart.entries[i], "heart phase " + std::to_string(i));
    add(narratives, "narratives");
    add(flow, "flow");
    for (const auto& r : resources) add(r.media, "resource '" + r.id + "'");
    add(branding.image, "branding");
    return refs;
}

Manifest parseManifest(std::string_view text, const std::string& where) {
    const json j = parseJsonObject(text, where);
    if (auto it = j.find("version"); it != j.end() && it->is_number_integer() && it->get<long long>() != Manifest::kVersion)
        bad(where, "/version: schema version " + it->dump() + " is not supported (this Atrium reads version " +
                       std::to_string(Manifest::kVersion) + ")");
    if (auto problem = schemaValidator().check(j)) bad(where, *problem);
    try {
        return fromJson(j, where);
    } catch (const json::exception& e) {
        bad(where, std::string("unexpected content: ") + e.what()); // the schema should have caught it
    }
}

nlohmann::ordered_json restrictionsToJson(const narrative::Restrictions& r) {
    ordered_json o;
    o["brandingRequired"] = r.brandingRequired;
    o["narrativesLocked"] = r.narrativesLocked;
    o["resourcesLocked"] = r.resourcesLocked;
    o["narrativeNavigationOnly"] = r.narrativeNavigationOnly;
    o["videoExportForbidden"] = r.videoExportForbidden;
    if (r.maxResolution) o["maxResolution"] = {r.maxResolution->width, r.maxResolution->height};
    if (r.expires) o["expires"] = formatDate(*r.expires);
    return o;
}

std::string writeManifest(const Manifest& m) {
    ordered_json j;
    j["format"] = "atrium-content";
    j["version"] = Manifest::kVersion;
    j["title"] = m.title;
    if (!m.description.empty()) j["description"] = m.description;
    if (!m.author.empty()) j["author"] = m.author;
    if (!m.created.empty()) j["created"] = m.created;
    ordered_json h;
    h["source"] = sourceName(m.heart.source);
    if (m.heart.source == HeartSpec::Source::Phantom) {
        h["preset"] = m.heart.preset;
    } else {
        h["entries"] = m.heart.entries;
        if (m.heart.cycleSeconds) h["cycleSeconds"] = *m.heart.cycleSeconds;
        if (m.heart.isovalue) h["isovalue"] = *m.heart.isovalue;
    }
    j["heart"] = h;
    if (!m.narratives.empty()) j["narratives"] = m.narratives;
    if (!m.categories.empty()) {
        j["categories"] = ordered_json::array();
        for (const auto& c : m.categories) j["categories"].push_back({{"name", c.name}, {"colour", toHex(c.colour)}});
    }
    if (!m.resources.empty()) {
        j["resources"] = ordered_json::array();
        for (const auto& r : m.resources) j["resources"].push_back(resourceJson(r));
    }
    if (m.restrictions != Restrictions{}) j["restrictions"] = restrictionsToJson(m.restrictions);
    if (!m.branding.empty() || !m.branding.link.empty()) {
        ordered_json b;
        if (!m.branding.text.empty()) b["text"] = m.branding.text;
        if (!m.branding.image.empty()) b["image"] = m.branding.image;
        if (!m.branding.link.empty()) b["link"] = m.branding.link;
        j["branding"] = b;
    }
    if (!m.files.empty()) {
        j["files"] = ordered_json::array();
        for (const auto& e : m.files) j["files"].push_back({{"entry", e.entry}, {"type", e.type}});
    }
    if (!m.flow.empty()) j["flow"] = m.flow;
    std::string text = j.dump(2) + "\n";
    parseManifest(text, "manifest to write"); // throws if it would not read back
    return text;
}

std::string mediaTypeFor(std::string_view entry) {
    const auto dot = entry.rfind('.');
    std::string ext = dot == std::string_view::npos ? "" : std::string(entry.substr(dot + 1));
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    static const std::pair<const char*, const char*> kTypes[] = {
        {"png", "image/png"},        {"jpg", "image/jpeg"},      {"jpeg", "image/jpeg"},   {"svg", "image/svg+xml"},
        {"gif", "image/gif"},        {"webp", "image/webp"},     {"mp4", "video/mp4"},     {"webm", "video/webm"},
        {"mkv", "video/x-matroska"}, {"wav", "audio/wav"},       {"mp3", "audio/mpeg"},    {"ogg", "audio/ogg"},
        {"flac", "audio/flac"},      {"txt", "text/plain"},      {"md", "text/markdown"},  {"html", "text/html"},
        {"pdf", "application/pdf"},  {"json", "application/json"}, {"vtp", "application/vnd.vtk.polydata"},
        {"vtk", "application/vnd.vtk"}, {"vti", "application/vnd.vtk.imagedata"}, {"stl", "model/stl"},
        {"obj", "model/obj"},        {"ply", "model/ply"}};
    for (const auto& [e, type] : kTypes)
        if (ext == e) return type;
    return "application/octet-stream";
}

} // namespace atrium::package
