#pragma once
// Narratives (Poyart 2016 5.4): keyframe tours through the heart. A narrative is an
// ordered list of nodes - camera poses with a dwell time and on-screen overlays - and
// one transition between each pair of consecutive nodes. NarrativePlayer plays it;
// NarrativeDocument reads and writes it as versioned JSON.
//
// Beyond VSim, a node may also carry the view state at that node ("freeze at
// end-systole, blood coloured by speed, heart cut open here"): every field is optional,
// and an absent field keeps what is on screen.
//
// Units: world positions in millimetres (the heart's frame), times in seconds, heart
// phases as a fraction of the cardiac cycle in [0, 1), screen rectangles in normalised
// view coordinates (0..1 across the width and height, origin top-left, +y down).

#include "narrative/CameraPose.h"
#include "narrative/Vec3.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::narrative {

/// What an overlay item shows.
enum class OverlayKind {
    Text,    ///< rich text (the HTML subset Qt's rich text understands)
    Image,   ///< a picture (PNG, JPEG, SVG) from `media`
    Video,   ///< a video from `media`, played while the node shows
    Sound,   ///< a sound from `media` (nothing drawn), played while the node shows
    Label3D, ///< text pinned to a point on the heart (`anchor`), with a leader line
};

/// A rectangle in normalised view coordinates: x, y of the top-left corner and the
/// size, each a fraction of the view's width or height.
struct ScreenRect {
    double x = 0.1, y = 0.1, width = 0.3, height = 0.15;
    bool operator==(const ScreenRect&) const = default;
};

/// One thing drawn (or heard) over the view while a node shows (Poyart 2016 5.4.2).
struct OverlayItem {
    OverlayKind kind = OverlayKind::Text;
    /// Where it sits. For a Label3D, x and y are the offset of the label's top-left
    /// corner from the projection of `anchor` (so the label moves with its point), and
    /// width/height its size.
    ScreenRect rect;
    int z = 0;           ///< stacking order: higher draws on top
    std::string text;    ///< Text and Label3D: rich text
    std::string media;   ///< Image, Video, Sound: path relative to the document (or package) folder
    // Video and Sound.
    double startOffset = 0.0; ///< seconds into the media where playing starts, >= 0
    double volume = 1.0;      ///< 0..1
    bool loop = false;
    // Label3D.
    Vec3 anchor; ///< the labelled point on the heart wall, world mm (it follows the beating wall)

    bool operator==(const OverlayItem&) const = default;
};

/// How the blood is coloured (the viewer's colour quantities).
enum class BloodColouring { Blood, Speed, DensityError, Pressure };
/// How the blood is drawn.
enum class FluidDrawing { Spheres, Surface };

/// The cut that opens the heart: on, with the cut plane through the heart's centre
/// shifted by `offset` times its radius (-1..1) along the view direction.
struct Clipping {
    bool enabled = false;
    double offset = 0.0;
    bool operator==(const Clipping&) const = default;
};

/// The view at a node. Every field is optional: absent keeps what is on screen.
struct ViewState {
    std::optional<bool> heartRunning;      ///< false: the heart is held (at heartPhase when given)
    std::optional<double> heartPhase;      ///< [0, 1): the phase to hold the heart at
    std::optional<double> heartRateBpm;    ///< (20, 240)
    std::optional<BloodColouring> colouring;
    std::optional<FluidDrawing> fluid;
    std::optional<double> wallOpacity;     ///< 0..1
    std::optional<Clipping> clipping;
    std::optional<bool> wireframe;
    std::optional<bool> bloodVisible;

    bool empty() const { return *this == ViewState{}; }
    bool operator==(const ViewState&) const = default;
};

/// A keyframe: where the camera stands, how long it stays, and what shows there.
struct Node {
    std::string title;       ///< short name for the node's card (may be empty)
    CameraPose pose;
    double dwell = 4.0;      ///< seconds the overlays stay fully shown (ignored with waitForKey)
    bool waitForKey = false; ///< stay until a key press instead of `dwell`
    double fadeIn = 0.5;     ///< seconds, >= 0: overlays fade in on arrival
    double fadeOut = 0.5;    ///< seconds, >= 0: and out before the camera moves on
    std::vector<OverlayItem> overlays;
    /// A small picture of the node's view for its card: base64 of a PNG or JPEG file,
    /// empty when none was rendered yet.
    std::string thumbnail;
    ViewState view;

    bool operator==(const Node&) const = default;
};

/// The flight from one node to the next.
struct Transition {
    double duration = 3.0; ///< seconds, > 0
    /// The heart phase [0, 1) reached during the flight: the heart beats on (at its rate)
    /// until it is there and is held, e.g. to arrive at end-systole. Absent: unchanged.
    std::optional<double> heartPhase;

    bool operator==(const Transition&) const = default;
};

/// A tour: nodes[i] -> transitions[i] -> nodes[i + 1].
struct Narrative {
    std::string title;
    std::string author;
    std::string description;
    std::vector<Node> nodes;
    /// Exactly one between each pair of consecutive nodes: nodes.size() - 1 of them
    /// (0 for no node). Use the functions below to keep that true.
    std::vector<Transition> transitions;

    bool operator==(const Narrative&) const = default;
};

/// Inserts `node` before index `at` (clamped to [0, size]) with a default transition
/// on the side that has no transition yet, keeping the one-transition-per-pair rule.
void insertNode(Narrative& narrative, std::size_t at, Node node, Transition transition = {});
/// Removes node `at` and one of its transitions (the one after it; the one before it
/// for the last node). Returns false for an index out of range.
bool removeNode(Narrative& narrative, std::size_t at);
/// Moves node `from` to index `to` (both < size); transitions stay between the same
/// positions (the flight from the 2nd to the 3rd node keeps its duration).
bool moveNode(Narrative& narrative, std::size_t from, std::size_t to);

/// The view state in force at node `node` when the narrative is played from its start:
/// each field as the last node up to and including `node` that sets it left it (absent
/// when none does). What a jump to `node` applies, so that jumping shows what playing
/// would have shown.
ViewState viewStateAt(const Narrative& narrative, std::size_t node);

// Stable names used in documents ("label-3d", "density-error", ...).
std::string_view toString(OverlayKind kind);
std::string_view toString(BloodColouring colouring);
std::string_view toString(FluidDrawing fluid);
std::optional<OverlayKind> overlayKindFromString(std::string_view name);
std::optional<BloodColouring> bloodColouringFromString(std::string_view name);
std::optional<FluidDrawing> fluidDrawingFromString(std::string_view name);

/// Why `narrative` is not valid, naming the place as a JSON pointer below `where`
/// (e.g. "/narratives/0/nodes/2/dwell: must be finite and >= 0"), or nullopt when it
/// is: the transition count, finite poses, non-negative finite times, durations > 0,
/// phases in [0, 1), opacities and volumes in [0, 1], media present where the kind
/// needs it, finite rectangles with a positive size.
std::optional<std::string> validate(const Narrative& narrative, const std::string& where = "");

} // namespace atrium::narrative
