#pragma once
// Embedded resources (Poyart 2016 5.5): documents tied to a place in the heart - a
// picture of a real mitral valve, a text on the aortic arch, a heart sound - that appear
// as icons on the resource bar when the viewer stands where the author meant them to be
// seen, without interrupting navigation.
//
// Where a resource shows is given, as in the thesis, by a target t (the structure it is
// about), a camera centre c and a radius r: it is active while the camera is inside the
// sphere (c, r) and t lies in the view frustum (ResourceActivation). Separating c from t
// lets an author say "in front of the valve, looking at it" rather than "near the valve".
// Positions are in world units (millimetres for the heart scene).

#include "narrative/CameraPose.h"
#include "narrative/Vec3.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::narrative {

/// What a resource holds, and so how the bar opens it.
enum class ResourceKind {
    Text,    ///< body text shown in place
    Image,   ///< a picture (PNG, JPEG, SVG) shown in place with zoom and pan
    Video,   ///< played in place
    Audio,   ///< played in place
    WebLink, ///< an address opened in the system browser
    File,    ///< any other document (a PDF, say), saved where the user says
};

/// Whether a resource opens by itself when it becomes active.
enum class AutoLaunch {
    Off,      ///< only its icon appears (the default: navigation is not interrupted)
    On,       ///< it opens whatever its kind
    TextOnly, ///< it opens if it is a text, otherwise only its icon appears
};

/// The copyright status an author declares for a resource's media.
enum class CopyrightStatus { Unknown, Copyrighted, FairUse, CreativeCommons, PublicDomain, HeldByAuthor };

/// An sRGB colour, 8 bits per channel.
struct Colour {
    std::uint8_t r = 0, g = 0, b = 0;
    constexpr bool operator==(const Colour&) const = default;
};

/// "#rrggbb", lower case.
std::string toHex(Colour c);
/// Parses "#rrggbb" (either case); nullopt for anything else.
std::optional<Colour> colourFromHex(std::string_view text);

/// A named group of resources (e.g. "Valves"), drawn in its colour on the bar.
struct ResourceCategory {
    std::string name;
    Colour colour{128, 128, 128};
    bool operator==(const ResourceCategory&) const = default;
};

struct Resource {
    std::string id;   ///< unique within a document and stable across edits (e.g. "mitral-photo")
    std::string name; ///< the label under its icon
    ResourceKind kind = ResourceKind::Text;

    // Metadata.
    std::string description;
    std::string author;
    CopyrightStatus copyright = CopyrightStatus::Unknown;
    std::optional<int> yearFrom; ///< year range of the work (e.g. 1543 - 1543); either may be absent
    std::optional<int> yearTo;
    std::string category; ///< a ResourceCategory's name; empty: uncategorised

    // Content: `text` for Text; `url` for WebLink; for the other kinds `media`, the path
    // of the media entry inside the content package (e.g. "media/mitral.png").
    std::string text;
    std::string url;
    std::string media;

    // Placement (5.5). The target condition is dropped when ignoreTarget is set: the
    // resource then "attracts attention" whichever way the camera looks.
    Vec3 target;
    Vec3 centre;
    double radius = 10.0; ///< world units, > 0
    bool ignoreTarget = false;

    // Options VSim users relied on.
    AutoLaunch autoLaunch = AutoLaunch::Off;
    bool reposition = false; ///< opening it flies the camera to view() first
    bool global = false;     ///< always listed on the bar, wherever the camera is

    /// The resource's own view: at the centre of its sphere, looking at its target.
    CameraPose view() const { return CameraPose::lookAt(centre, target); }

    bool operator==(const Resource&) const = default;
};

/// Whether `r` opens by itself when it becomes active (its autoLaunch and kind).
bool launchesWhenActive(const Resource& r);

// Stable names used in documents, the CLI and messages ("text", "web-link", ...).
std::string_view toString(ResourceKind kind);
std::string_view toString(AutoLaunch mode);
std::string_view toString(CopyrightStatus status);
std::optional<ResourceKind> resourceKindFromString(std::string_view name);
std::optional<AutoLaunch> autoLaunchFromString(std::string_view name);
std::optional<CopyrightStatus> copyrightStatusFromString(std::string_view name);

/// Why `r` is not a valid resource (empty id or name, radius not finite and > 0, a
/// non-finite position, year range reversed, content missing for its kind), or
/// nullopt when it is. The message names the resource and the field.
std::optional<std::string> validate(const Resource& r);

} // namespace atrium::narrative
