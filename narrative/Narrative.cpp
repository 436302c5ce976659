#include "narrative/Narrative.h"

#include "narrative/NameTable.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace atrium::narrative {

namespace {

constexpr NameTable<OverlayKind, 5> kOverlayKinds{{
    {OverlayKind::Text, "text"},
    {OverlayKind::Image, "image"},
    {OverlayKind::Video, "video"},
    {OverlayKind::Sound, "sound"},
    {OverlayKind::Label3D, "label-3d"},
}};
constexpr NameTable<BloodColouring, 4> kColourings{{
    {BloodColouring::Blood, "blood"},
    {BloodColouring::Speed, "speed"},
    {BloodColouring::DensityError, "density-error"},
    {BloodColouring::Pressure, "pressure"},
}};
constexpr NameTable<FluidDrawing, 2> kFluids{{
    {FluidDrawing::Spheres, "spheres"},
    {FluidDrawing::Surface, "surface"},
}};

bool finite(const Vec3& v) { return std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z); }
bool nonNegative(double v) { return std::isfinite(v) && v >= 0.0; }
bool unit(double v) { return std::isfinite(v) && v >= 0.0 && v <= 1.0; }
bool phase(double v) { return std::isfinite(v) && v >= 0.0 && v < 1.0; }

std::optional<std::string> validate(const OverlayItem& item, const std::string& at) {
    const ScreenRect& r = item.rect;
    if (!std::isfinite(r.x) || !std::isfinite(r.y) || !std::isfinite(r.width) || !std::isfinite(r.height) ||
        r.width <= 0.0 || r.height <= 0.0 || r.width > 1.0 || r.height > 1.0)
        return at + "/rect: needs finite x, y and a width and height in (0, 1]";
    if (std::abs(r.x) > 2.0 || std::abs(r.y) > 2.0) return at + "/rect: x and y must lie within [-2, 2]";
    const bool needsMedia = item.kind == OverlayKind::Image || item.kind == OverlayKind::Video || item.kind == OverlayKind::Sound;
    if (needsMedia && item.media.empty()) return at + "/media: a " + std::string(toString(item.kind)) + " needs a media file";
    if (!nonNegative(item.startOffset)) return at + "/startOffset: must be finite and >= 0";
    if (!unit(item.volume)) return at + "/volume: must lie in [0, 1]";
    if (!finite(item.anchor)) return at + "/anchor: must be finite";
    return std::nullopt;
}

std::optional<std::string> validate(const ViewState& v, const std::string& at) {
    if (v.heartPhase && !phase(*v.heartPhase)) return at + "/heartPhase: must lie in [0, 1)";
    if (v.heartRateBpm && !(std::isfinite(*v.heartRateBpm) && *v.heartRateBpm > 20.0 && *v.heartRateBpm < 240.0))
        return at + "/heartRateBpm: must lie in (20, 240)";
    if (v.wallOpacity && !unit(*v.wallOpacity)) return at + "/wallOpacity: must lie in [0, 1]";
    if (v.clipping && !(std::isfinite(v.clipping->offset) && std::abs(v.clipping->offset) <= 1.0))
        return at + "/clipping/offset: must lie in [-1, 1]";
    return std::nullopt;
}

} // namespace

std::string_view toString(OverlayKind kind) { return nameOf(kOverlayKinds, kind); }
std::string_view toString(BloodColouring colouring) { return nameOf(kColourings, colouring); }
std::string_view toString(FluidDrawing fluid) { return nameOf(kFluids, fluid); }
std::optional<OverlayKind> overlayKindFromString(std::string_view name) { return lookup(kOverlayKinds, name); }
std::optional<BloodColouring> bloodColouringFromString(std::string_view name) { return lookup(kColourings, name); }
std::optional<FluidDrawing> fluidDrawingFromString(std::string_view name) { return lookup(kFluids, name); }

void insertNode(Narrative& n, std::size_t at, Node node, Transition transition) {
    at = std::min(at, n.nodes.size());
    const bool hadNodes = !n.nodes.empty();
    n.nodes.insert(n.nodes.begin() + std::ptrdiff_t(at), std::move(node));
    if (!hadNodes) return;
    // A node appended at the end gets the flight into it; any other the flight out of it.
    const std::size_t t = at == n.nodes.size() - 1 ? at - 1 : at;
    n.transitions.insert(n.transitions.begin() + std::ptrdiff_t(t), transition);
}

bool removeNode(Narrative& n, std::size_t at) {
    if (at >= n.nodes.size()) return false;
    n.nodes.erase(n.nodes.begin() + std::ptrdiff_t(at));
    if (!n.transitions.empty())
        n.transitions.erase(n.transitions.begin() + std::ptrdiff_t(std::min(at, n.transitions.size() - 1)));
    return true;
}

bool moveNode(Narrative& n, std::size_t from, std::size_t to) {
    if (from >= n.nodes.size() || to >= n.nodes.size()) return false;
    Node node = std::move(n.nodes[from]);
    n.nodes.erase(n.nodes.begin() + std::ptrdiff_t(from));
    n.nodes.insert(n.nodes.begin() + std::ptrdiff_t(to), std::move(node));
    return true;
}

ViewState viewStateAt(const Narrative& n, std::size_t node) {
    ViewState v;
    for (std::size_t k = 0; k <= node && k < n.nodes.size(); ++k) {
        const ViewState& s = n.nodes[k].view;
        if (s.heartRunning) v.heartRunning = s.heartRunning;
        // A phase belongs to the hold that sets it: a node that lets the heart beat again drops it.
        if (s.heartPhase || s.heartRunning) v.heartPhase = s.heartPhase;
        if (s.heartRateBpm) v.heartRateBpm = s.heartRateBpm;
        if (s.colouring) v.colouring = s.colouring;
        if (s.fluid) v.fluid = s.fluid;
        if (s.wallOpacity) v.wallOpacity = s.wallOpacity;
        if (s.clipping) v.clipping = s.clipping;
        if (s.wireframe) v.wireframe = s.wireframe;
        if (s.bloodVisible) v.bloodVisible = s.bloodVisible;
    }
    return v;
}

std::optional<std::string> validate(const Narrative& n, const std::string& where) {
    const std::size_t expected = n.nodes.empty() ? 0 : n.nodes.size() - 1;
    if (n.transitions.size() != expected)
        return where + "/transitions: " + std::to_string(n.nodes.size()) + " nodes need " + std::to_string(expected) +
               " transitions, found " + std::to_string(n.transitions.size());
    for (std::size_t i = 0; i < n.nodes.size(); ++i) {
        const Node& node = n.nodes[i];
        const std::string at = where + "/nodes/" + std::to_string(i);
        if (!finite(node.pose.position()) || !std::isfinite(node.pose.yaw()) || !std::isfinite(node.pose.pitch()))
            return at + "/pose: must be finite";
        if (!nonNegative(node.dwell)) return at + "/dwell: must be finite and >= 0";
        if (!nonNegative(node.fadeIn)) return at + "/fadeIn: must be finite and >= 0";
        if (!nonNegative(node.fadeOut)) return at + "/fadeOut: must be finite and >= 0";
        for (std::size_t k = 0; k < node.overlays.size(); ++k)
            if (auto error = validate(node.overlays[k], at + "/overlays/" + std::to_string(k))) return error;
        if (auto error = validate(node.view, at + "/view")) return error;
    }
    for (std::size_t i = 0; i < n.transitions.size(); ++i) {
        const Transition& t = n.transitions[i];
        const std::string at = where + "/transitions/" + std::to_string(i);
        if (!(std::isfinite(t.duration) && t.duration > 0.0)) return at + "/duration: must be finite and > 0";
        if (t.heartPhase && !phase(*t.heartPhase)) return at + "/heartPhase: must lie in [0, 1)";
    }
    return std::nullopt;
}

} // namespace atrium::narrative
