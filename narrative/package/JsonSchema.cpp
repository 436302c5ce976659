#include "narrative/package/JsonSchema.h"

#include <charconv>
#include <cmath>
#include <regex>
#include <set>
#include <stdexcept>

namespace atrium::package {

namespace {

using nlohmann::json;

const std::set<std::string> kKeywords = {
    "type", "enum", "const", "properties", "required", "additionalProperties", "items", "minItems", "maxItems",
    "uniqueItems", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "pattern",
    "$ref", "allOf", "anyOf", "oneOf", "not", "$schema", "$id", "$comment", "title", "description", "default",
    "examples", "format", "$defs"};

std::string typeOf(const json& v) {
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    case json::value_t::string: return "string";
    case json::value_t::array: return "array";
    case json::value_t::object: return "object";
    default: return "binary";
    }
}

bool hasType(const json& v, const std::string& type) {
    const std::string t = typeOf(v);
    if (t == type) return true;
    if (type == "number" && t == "integer") return true;
    if (type == "integer" && t == "number") {
        const double d = v.get<double>();
        return std::isfinite(d) && std::floor(d) == d;
    }
    return false;
}

std::size_t codePoints(const std::string& s) {
    std::size_t n = 0;
    for (unsigned char c : s) n += (c & 0xC0) != 0x80;
    return n;
}

std::string shortText(const json& v) {
    std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

std::string escapePointer(const std::string& key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

void checkSchema(const json& schema, const json& root, const std::string& where) {
    if (schema.is_boolean()) return;
    if (!schema.is_object()) throw std::invalid_argument("schema at '" + where + "' is not an object");
    for (const auto& [key, value] : schema.items()) {
        if (!kKeywords.count(key)) throw std::invalid_argument("schema keyword '" + key + "' at '" + where + "' is not supported");
        if (key == "properties" || key == "$defs") {
            for (const auto& [name, sub] : value.items()) checkSchema(sub, root, where + "/" + key + "/" + name);
        } else if (key == "items" || key == "additionalProperties" || key == "not") {
            checkSchema(value, root, where + "/" + key);
        } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
            for (std::size_t i = 0; i < value.size(); ++i) checkSchema(value[i], root, where + "/" + key);
        } else if (key == "$ref") {
            const std::string ref = value.get<std::string>();
            if (ref.rfind("#/$defs/", 0) != 0 || !root.contains("$defs") || !root["$defs"].contains(ref.substr(8)))
                throw std::invalid_argument("schema $ref '" + ref + "' at '" + where + "' does not resolve");
        } else if (key == "pattern") {
            std::regex(value.get<std::string>(), std::regex::ECMAScript); // throws if malformed
        }
    }
}

struct Validator {
    const json& root;
    std::size_t maxErrors;
    std::vector<std::string> errors;
    std::map<std::string, std::regex> patterns;

    bool full() const { return errors.size() >= maxErrors; }
    void fail(const std::string& where, const std::string& what) {
        if (!full()) errors.push_back((where.empty() ? std::string("/") : where) + ": " + what);
    }

    bool valid(const json& schema, const json& v, const std::string& where) {
        Validator probe{root, 1, {}, {}};
        probe.check(schema, v, where);
        return probe.errors.empty();
    }

    const std::regex& pattern(const std::string& p) {
        auto it = patterns.find(p);
        if (it == patterns.end()) it = patterns.emplace(p, std::regex(p, std::regex::ECMAScript)).first;
        return it->second;
    }

    void check(const json& schema, const json& v, const std::string& where) {
        if (full()) return;
        if (schema.is_boolean()) {
            if (!schema.get<bool>()) fail(where, "is not allowed here");
            return;
        }
        if (auto it = schema.find("$ref"); it != schema.end())
            check(root["$defs"][it->get<std::string>().substr(8)], v, where);
        if (auto it = schema.find("type"); it != schema.end()) {
            bool ok = false;
            std::string names;
            if (it->is_string()) {
                ok = hasType(v, it->get<std::string>());
                names = it->get<std::string>();
            } else {
                for (const auto& t : *it) {
                    ok = ok || hasType(v, t.get<std::string>());
                    names += (names.empty() ? "" : " or ") + t.get<std::string>();
                }
            }
            if (!ok) return fail(where, "must be " + names + ", not " + typeOf(v));
        }
        if (auto it = schema.find("enum"); it != schema.end()) {
            bool found = false;
            for (const auto& e : *it) found = found || e == v;
            if (!found) fail(where, shortText(v) + " is not one of " + shortText(*it));
        }
        if (auto it = schema.find("const"); it != schema.end() && *it != v) fail(where, "must be " + shortText(*it));
        if (v.is_number()) checkNumber(schema, v.get<double>(), where);
        if (v.is_string()) checkString(schema, v.get_ref<const std::string&>(), where);
        if (v.is_array()) checkArray(schema, v, where);
        if (v.is_object()) checkObject(schema, v, where);
        for (const char* key : {"allOf", "anyOf", "oneOf"}) {
            auto it = schema.find(key);
            if (it == schema.end()) continue;
            std::size_t passed = 0;
            for (const auto& sub : *it) {
                if (std::string(key) == "allOf") check(sub, v, where);
                else passed += valid(sub, v, where);
            }
            if (std::string(key) == "anyOf" && passed == 0) fail(where, "matches none of the allowed forms");
            if (std::string(key) == "oneOf" && passed != 1)
                fail(where, passed == 0 ? "matches none of the allowed forms" : "matches more than one of the allowed forms");
        }
        if (auto it = schema.find("not"); it != schema.end() && valid(*it, v, where)) fail(where, "is not allowed in this form");
    }

    void checkNumber(const json& s, double d, const std::string& where) {
        if (!std::isfinite(d)) return fail(where, "must be a finite number");
        auto bound = [&](const char* key) -> std::optional<double> {
            auto it = s.find(key);
            return it == s.end() ? std::nullopt : std::optional<double>(it->get<double>());
        };
        const auto num = [](double x) {
            char buffer[32];
            const auto end = std::to_chars(buffer, buffer + sizeof buffer, x).ptr;
            return std::string(buffer, end);
        };
        if (auto b = bound("minimum"); b && d < *b) fail(where, num(d) + " is below the minimum " + num(*b));
        if (auto b = bound("maximum"); b && d > *b) fail(where, num(d) + " is above the maximum " + num(*b));
        if (auto b = bound("exclusiveMinimum"); b && d <= *b) fail(where, num(d) + " must be greater than " + num(*b));
        if (auto b = bound("exclusiveMaximum"); b && d >= *b) fail(where, num(d) + " must be less than " + num(*b));
    }

    void checkString(const json& s, const std::string& text, const std::string& where) {
        const std::size_t n = codePoints(text);
        if (auto it = s.find("minLength"); it != s.end() && n < it->get<std::size_t>())
            fail(where, "must have at least " + std::to_string(it->get<std::size_t>()) + " characters");
        if (auto it = s.find("maxLength"); it != s.end() && n > it->get<std::size_t>())
            return fail(where, "must have at most " + std::to_string(it->get<std::size_t>()) + " characters");
        if (auto it = s.find("pattern"); it != s.end() && !std::regex_search(text, pattern(it->get<std::string>())))
            fail(where, shortText(json(text)) + " does not match the pattern " + it->get<std::string>());
    }

    void checkArray(const json& s, const json& a, const std::string& where) {
        if (auto it = s.find("minItems"); it != s.end() && a.size() < it->get<std::size_t>())
            fail(where, "must have at least " + std::to_string(it->get<std::size_t>()) + " items");
        if (auto it = s.find("maxItems"); it != s.end() && a.size() > it->get<std::size_t>())
            return fail(where, "must have at most " + std::to_string(it->get<std::size_t>()) + " items");
        if (auto it = s.find("uniqueItems"); it != s.end() && it->get<bool>()) {
            for (std::size_t i = 0; i < a.size(); ++i)
                for (std::size_t j = i + 1; j < a.size(); ++j)
                    if (a[i] == a[j]) fail(where + "/" + std::to_string(j), "repeats item " + std::to_string(i));
        }
        if (auto it = s.find("items"); it != s.end())
            for (std::size_t i = 0; i < a.size() && !full(); ++i) check(*it, a[i], where + "/" + std::to_string(i));
    }

    void checkObject(const json& s, const json& o, const std::string& where) {
        if (auto it = s.find("required"); it != s.end())
            for (const auto& key : *it)
                if (!o.contains(key.get<std::string>())) fail(where, "lacks the required field '" + key.get<std::string>() + "'");
        const auto props = s.find("properties");
        const auto extra = s.find("additionalProperties");
        for (const auto& [key, value] : o.items()) {
            const std::string at = where + "/" + escapePointer(key);
            if (props != s.end() && props->contains(key)) check((*props)[key], value, at);
            else if (extra != s.end()) {
                if (extra->is_boolean() && !extra->get<bool>()) fail(at, "is not a known field");
                else check(*extra, value, at);
            }
        }
    }
};

} // namespace

JsonSchema::JsonSchema(nlohmann::json schema) : schema_(std::move(schema)) { checkSchema(schema_, schema_, ""); }

std::vector<std::string> JsonSchema::validate(const nlohmann::json& document, std::size_t maxErrors) const {
    Validator v{schema_, std::max<std::size_t>(1, maxErrors), {}, {}};
    v.check(schema_, document, "");
    return std::move(v.errors);
}

} // namespace atrium::package
