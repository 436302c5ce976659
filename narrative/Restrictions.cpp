#include "narrative/Restrictions.h"

#include <cstdio>

namespace atrium::narrative {

namespace {

using namespace std::chrono;

bool digits(std::string_view s) {
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return !s.empty();
}

constexpr const char* kLocked = "the package is locked by its author; unlock it with the author's password to edit it";

} // namespace

std::optional<year_month_day> parseDate(std::string_view text) {
    if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
    const auto y = text.substr(0, 4), m = text.substr(5, 2), d = text.substr(8, 2);
    if (!digits(y) || !digits(m) || !digits(d)) return std::nullopt;
    auto number = [](std::string_view s) {
        int v = 0;
        for (char c : s) v = v * 10 + (c - '0');
        return v;
    };
    const year_month_day date{year{number(y)}, month{unsigned(number(m))}, day{unsigned(number(d))}};
    if (!date.ok()) return std::nullopt;
    return date;
}

std::string formatDate(year_month_day date) {
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02u", int(date.year()), unsigned(date.month()), unsigned(date.day()));
    return buffer;
}

year_month_day todayUtc() { return year_month_day{floor<days>(system_clock::now())}; }

std::string_view toString(Operation op) {
    switch (op) {
    case Operation::OpenContent: return "open the content";
    case Operation::EditNarratives: return "edit narratives";
    case Operation::EditResources: return "edit embedded resources";
    case Operation::EditBranding: return "change the branding bar";
    case Operation::EditRestrictions: return "change the restrictions";
    case Operation::EditContent: return "edit the content";
    case Operation::FreeNavigation: return "navigate freely";
    case Operation::ExportVideo: return "export video";
    case Operation::RenderImage: return "render an image";
    }
    return "?";
}

bool ContentGate::expired() const {
    const auto& e = state_.restrictions.expires;
    return e && sys_days{state_.today} > sys_days{*e};
}

std::optional<std::string> ContentGate::check(Operation op) const {
    if (state_.authorPresent) return std::nullopt;
    const Restrictions& r = state_.restrictions;
    auto refuse = [op](const std::string& why) { return "Cannot " + std::string(toString(op)) + ": " + why + "."; };
    if (expired())
        return refuse("this content expired after " + formatDate(*r.expires) + " and now opens only for its author");
    switch (op) {
    case Operation::OpenContent:
    case Operation::RenderImage: return std::nullopt;
    case Operation::EditNarratives:
        if (r.narrativesLocked) return refuse("the author locked this content's narratives");
        break;
    case Operation::EditResources:
        if (r.resourcesLocked) return refuse("the author locked this content's embedded resources");
        break;
    case Operation::EditBranding:
        if (r.brandingRequired) return refuse("the author requires this branding bar");
        break;
    case Operation::EditRestrictions:
    case Operation::EditContent: break;
    case Operation::FreeNavigation:
        if (r.narrativeNavigationOnly) return refuse("the author keeps navigation to the narratives");
        return std::nullopt;
    case Operation::ExportVideo:
        if (r.videoExportForbidden) return refuse("the author forbids video export");
        return std::nullopt;
    }
    if (state_.locked) return refuse(kLocked);
    return std::nullopt;
}

std::optional<std::string> ContentGate::checkSize(Operation op, Resolution size) const {
    if (auto why = check(op)) return why;
    if (state_.authorPresent) return std::nullopt;
    const auto& limit = state_.restrictions.maxResolution;
    if (limit && (size.width > limit->width || size.height > limit->height))
        return "Cannot " + std::string(toString(op)) + " at " + std::to_string(size.width) + " x " +
               std::to_string(size.height) + ": the author allows at most " + std::to_string(limit->width) + " x " +
               std::to_string(limit->height) + ".";
    return std::nullopt;
}

} // namespace atrium::narrative
