#include "narrative/JsonSchema.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>

namespace atrium::narrative {

namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 7> kTypes{"null", "boolean", "object", "array", "number", "string", "integer"};
constexpr std::array<std::string_view, 30> kKeywords{
    "type",      "enum",      "const",   "properties",       "required",         "additionalProperties",
    "items",     "minItems",  "maxItems", "uniqueItems",     "minLength",        "maxLength", "pattern", "oneOf", "minimum",
    "maximum",   "exclusiveMinimum", "exclusiveMaximum", "$ref", "$schema", "$id", "$defs", "$comment",
    "title",     "description", "default", "examples", "readOnly", "writeOnly", "deprecated"};
/// Schemas nest this deep at most (a $ref cycle without a value in between stops here).
constexpr int kMaxDepth = 64;

bool isType(const json& v, std::string_view type) {
    if (type == "null") return v.is_null();
    if (type == "boolean") return v.is_boolean();
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "number") return v.is_number();
    if (type == "integer") {
        if (v.is_number_integer()) return true;
        if (!v.is_number_float()) return false;
        const double d = v.get<double>();
        return std::isfinite(d) && d == std::floor(d);
    }
    return false;
}

std::string typeName(const json& v) {
    if (v.is_number_integer()) return "integer";
    if (v.is_number()) return "number";
    return v.type_name();
}

std::string joinTypes(const json& type) {
    if (type.is_string()) return type.get<std::string>();
    std::string out;
    for (std::size_t i = 0; i < type.size(); ++i) out += (i == 0 ? "" : i + 1 == type.size() ? " or " : ", ") + type[i].get<std::string>();
    return out;
}

std::string shortDump(const json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string child(const std::string& at, const std::string& token) { return at + "/" + jsonPointerToken(token); }

bool nonNegativeInteger(const json& v) { return v.is_number_unsigned() || (v.is_number_integer() && v.get<std::int64_t>() >= 0); }

} // namespace

std::string jsonPointerToken(const std::string& token) {
    std::string out;
    for (char c : token) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

JsonSchema::JsonSchema(json schema) : schema_(std::move(schema)) { verify(schema_, ""); }

const json& JsonSchema::resolve(const std::string& ref, const std::string& at) const {
    constexpr std::string_view prefix = "#/$defs/";
    if (ref.rfind(prefix, 0) != 0) throw std::invalid_argument("schema " + at + "/$ref: only \"#/$defs/NAME\" is supported, got \"" + ref + "\"");
    const std::string name = ref.substr(prefix.size());
    const auto defs = schema_.find("$defs");
    if (defs == schema_.end() || !defs->is_object() || !defs->contains(name))
        throw std::invalid_argument("schema " + at + "/$ref: no definition \"" + name + "\"");
    return (*defs)[name];
}

void JsonSchema::verify(const json& s, const std::string& at) {
    if (s.is_boolean()) return;
    if (!s.is_object()) throw std::invalid_argument("schema " + at + ": a schema must be an object or a boolean");
    auto bad = [&](const std::string& keyword, const std::string& why) {
        throw std::invalid_argument("schema " + child(at, keyword) + ": " + why);
    };
    for (const auto& [key, value] : s.items()) {
        if (std::find(kKeywords.begin(), kKeywords.end(), key) == kKeywords.end())
            bad(key, "keyword not supported by this checker");
        if (key == "type") {
            const json list = value.is_array() ? value : json::array({value});
            if (list.empty()) bad(key, "an empty list of types");
            for (const json& t : list)
                if (!t.is_string() || std::find(kTypes.begin(), kTypes.end(), t.get<std::string>()) == kTypes.end())
                    bad(key, "unknown type " + t.dump());
        } else if (key == "enum") {
            if (!value.is_array() || value.empty()) bad(key, "must be a non-empty array");
        } else if (key == "properties" || key == "$defs") {
            if (!value.is_object()) bad(key, "must be an object");
            for (const auto& [name, sub] : value.items()) verify(sub, child(child(at, key), name));
        } else if (key == "required") {
            if (!value.is_array()) bad(key, "must be an array of names");
            for (const json& name : value)
                if (!name.is_string()) bad(key, "must be an array of names");
        } else if (key == "additionalProperties" || key == "items") {
            verify(value, child(at, key));
        } else if (key == "minItems" || key == "maxItems" || key == "minLength" || key == "maxLength") {
            if (!nonNegativeInteger(value)) bad(key, "must be a non-negative integer");
        } else if (key == "minimum" || key == "maximum" || key == "exclusiveMinimum" || key == "exclusiveMaximum") {
            if (!value.is_number()) bad(key, "must be a number");
        } else if (key == "$ref") {
            if (!value.is_string()) bad(key, "must be a string");
            resolve(value.get<std::string>(), at);
        } else if (key == "uniqueItems") {
            if (!value.is_boolean()) bad(key, "must be a boolean");
        } else if (key == "pattern") {
            if (!value.is_string()) bad(key, "must be a string");
            try {
                patterns_.try_emplace(value.get<std::string>(), value.get<std::string>(), std::regex::ECMAScript);
            } catch (const std::regex_error& e) {
                bad(key, std::string("not a valid ECMAScript regular expression: ") + e.what());
            }
        } else if (key == "oneOf") {
            if (!value.is_array() || value.empty()) bad(key, "must be a non-empty array of schemas");
            for (std::size_t i = 0; i < value.size(); ++i) verify(value[i], child(child(at, key), std::to_string(i)));
        }
    }
}

std::optional<std::string> JsonSchema::check(const json& document) const { return check(schema_, document, "", 0); }

std::optional<std::string> JsonSchema::check(const json& s, const json& v, const std::string& at, int depth) const {
    if (depth > kMaxDepth) return at + ": the schema nests deeper than " + std::to_string(kMaxDepth) + " levels here";
    if (s.is_boolean()) {
        if (s.get<bool>()) return std::nullopt;
        return at + ": not allowed here";
    }
    const std::string place = at.empty() ? "the document" : at;
    if (const auto ref = s.find("$ref"); ref != s.end())
        if (auto error = check(resolve(ref->get<std::string>(), at), v, at, depth + 1)) return error;
    if (const auto type = s.find("type"); type != s.end()) {
        const json list = type->is_array() ? *type : json::array({*type});
        const bool ok = std::any_of(list.begin(), list.end(), [&](const json& t) { return isType(v, t.get<std::string>()); });
        if (!ok) return at + ": expected " + joinTypes(*type) + ", got " + typeName(v);
    }
    if (const auto c = s.find("const"); c != s.end() && v != *c)
        return at + ": must be " + c->dump() + ", got " + shortDump(v);
    if (const auto e = s.find("enum"); e != s.end() && std::find(e->begin(), e->end(), v) == e->end()) {
        std::string options;
        for (const json& o : *e) options += (options.empty() ? "" : ", ") + o.dump();
        return at + ": must be one of " + options + ", got " + shortDump(v);
    }
    if (v.is_number()) {
        const double d = v.get<double>();
        if (!std::isfinite(d)) return at + ": must be a finite number";
        if (const auto m = s.find("minimum"); m != s.end() && d < m->get<double>()) return at + ": must be >= " + m->dump();
        if (const auto m = s.find("maximum"); m != s.end() && d > m->get<double>()) return at + ": must be <= " + m->dump();
        if (const auto m = s.find("exclusiveMinimum"); m != s.end() && d <= m->get<double>()) return at + ": must be > " + m->dump();
        if (const auto m = s.find("exclusiveMaximum"); m != s.end() && d >= m->get<double>()) return at + ": must be < " + m->dump();
    }
    if (v.is_string()) {
        // Lengths in bytes of UTF-8 are an upper bound of the characters; count characters.
        const std::string& text = v.get_ref<const std::string&>();
        const auto characters = std::size_t(std::count_if(text.begin(), text.end(), [](char c) { return (c & 0xC0) != 0x80; }));
        if (const auto m = s.find("minLength"); m != s.end() && characters < m->get<std::size_t>())
            return at + ": must have at least " + m->dump() + " characters";
        if (const auto m = s.find("maxLength"); m != s.end() && characters > m->get<std::size_t>())
            return at + ": must have at most " + m->dump() + " characters";
        if (const auto p = s.find("pattern"); p != s.end() && !std::regex_search(text, patterns_.at(p->get<std::string>())))
            return at + ": " + shortDump(v) + " does not match the pattern " + p->get<std::string>();
    }
    if (v.is_array()) {
        if (const auto m = s.find("minItems"); m != s.end() && v.size() < m->get<std::size_t>())
            return at + ": must have at least " + m->dump() + " items, has " + std::to_string(v.size());
        if (const auto m = s.find("maxItems"); m != s.end() && v.size() > m->get<std::size_t>())
            return at + ": must have at most " + m->dump() + " items, has " + std::to_string(v.size());
        if (const auto u = s.find("uniqueItems"); u != s.end() && u->get<bool>())
            for (std::size_t i = 1; i < v.size(); ++i)
                for (std::size_t j = 0; j < i; ++j)
                    if (v[i] == v[j]) return at + "/" + std::to_string(i) + ": repeats item " + std::to_string(j);
        if (const auto items = s.find("items"); items != s.end())
            for (std::size_t i = 0; i < v.size(); ++i)
                if (auto error = check(*items, v[i], at + "/" + std::to_string(i), depth + 1)) return error;
    }
    if (v.is_object()) {
        if (const auto required = s.find("required"); required != s.end())
            for (const json& name : *required)
                if (!v.contains(name.get<std::string>()))
                    return child(at, name.get<std::string>()) + ": required in " + place + " but missing";
        const auto properties = s.find("properties");
        const auto additional = s.find("additionalProperties");
        for (const auto& [key, value] : v.items()) {
            const std::string here = child(at, key);
            if (properties != s.end() && properties->contains(key)) {
                if (auto error = check((*properties)[key], value, here, depth + 1)) return error;
            } else if (additional != s.end()) {
                if (additional->is_boolean() && !additional->get<bool>()) return here + ": unknown field in " + place;
                if (auto error = check(*additional, value, here, depth + 1)) return error;
            }
        }
    }
    if (const auto one = s.find("oneOf"); one != s.end()) {
        std::size_t matches = 0;
        std::string why;
        for (std::size_t i = 0; i < one->size(); ++i) {
            if (auto error = check((*one)[i], v, at, depth + 1)) why += (why.empty() ? "" : "; or ") + *error;
            else ++matches;
        }
        if (matches == 0) return at + ": matches none of the allowed forms (" + why + ")";
        if (matches > 1) return at + ": matches more than one of the allowed forms";
    }
    return std::nullopt;
}

} // namespace atrium::narrative
