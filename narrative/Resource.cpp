#include "narrative/Resource.h"

#include "narrative/NameTable.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <utility>

namespace atrium::narrative {

namespace {

constexpr NameTable<ResourceKind, 6> kKinds{{
    {ResourceKind::Text, "text"},
    {ResourceKind::Image, "image"},
    {ResourceKind::Video, "video"},
    {ResourceKind::Audio, "audio"},
    {ResourceKind::WebLink, "web-link"},
    {ResourceKind::File, "file"},
}};
constexpr NameTable<AutoLaunch, 3> kLaunch{{
    {AutoLaunch::Off, "off"},
    {AutoLaunch::On, "on"},
    {AutoLaunch::TextOnly, "text-only"},
}};
constexpr NameTable<CopyrightStatus, 6> kCopyright{{
    {CopyrightStatus::Unknown, "unknown"},
    {CopyrightStatus::Copyrighted, "copyrighted"},
    {CopyrightStatus::FairUse, "fair-use"},
    {CopyrightStatus::CreativeCommons, "creative-commons"},
    {CopyrightStatus::PublicDomain, "public-domain"},
    {CopyrightStatus::HeldByAuthor, "held-by-author"},
}};

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }

} // namespace

std::string toHex(Colour c) {
    char buffer[8];
    std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x", c.r, c.g, c.b);
    return buffer;
}

std::optional<Colour> colourFromHex(std::string_view text) {
    if (text.size() != 7 || text[0] != '#') return std::nullopt;
    std::uint8_t channel[3];
    for (int i = 0; i < 3; ++i) {
        const int hi = hexDigit(text[1 + 2 * i]), lo = hexDigit(text[2 + 2 * i]);
        if (hi < 0 || lo < 0) return std::nullopt;
        channel[i] = std::uint8_t(hi * 16 + lo);
    }
    return Colour{channel[0], channel[1], channel[2]};
}

bool launchesWhenActive(const Resource& r) {
    switch (r.autoLaunch) {
    case AutoLaunch::Off: return false;
    case AutoLaunch::On: return true;
    case AutoLaunch::TextOnly: return r.kind == ResourceKind::Text;
    }
    return false;
}

std::string_view toString(ResourceKind kind) { return nameOf(kKinds, kind); }
std::string_view toString(AutoLaunch mode) { return nameOf(kLaunch, mode); }
std::string_view toString(CopyrightStatus status) { return nameOf(kCopyright, status); }
std::optional<ResourceKind> resourceKindFromString(std::string_view name) { return lookup(kKinds, name); }
std::optional<AutoLaunch> autoLaunchFromString(std::string_view name) { return lookup(kLaunch, name); }
std::optional<CopyrightStatus> copyrightStatusFromString(std::string_view name) { return lookup(kCopyright, name); }

std::optional<std::string> validate(const Resource& r) {
    const std::string who = "resource '" + (r.id.empty() ? r.name : r.id) + "'";
    if (r.id.empty()) return who + ": 'id' is empty";
    if (r.name.empty()) return who + ": 'name' is empty";
    if (!(std::isfinite(r.radius) && r.radius > 0.0)) return who + ": 'radius' must be a finite number > 0";
    if (!finite(r.centre)) return who + ": 'centre' is not finite";
    if (!finite(r.target)) return who + ": 'target' is not finite";
    if (r.yearFrom && r.yearTo && *r.yearFrom > *r.yearTo) return who + ": 'years' run backwards";
    switch (r.kind) {
    case ResourceKind::Text:
        if (r.text.empty()) return who + ": a text resource needs 'text'";
        break;
    case ResourceKind::WebLink:
        if (r.url.rfind("https://", 0) != 0 && r.url.rfind("http://", 0) != 0)
            return who + ": a web link needs an http:// or https:// 'url'";
        break;
    default:
        if (r.media.empty()) return who + ": a " + std::string(toString(r.kind)) + " resource needs 'media'";
    }
    return std::nullopt;
}

} // namespace atrium::narrative
