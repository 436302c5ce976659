#pragma once
// The lecture's narratives as the student page plays them: per narrative its nodes (pose,
// fade-in, dwell, wait for a key, fade-out) and transitions (duration), and each node's
// text overlays (rectangle as fractions of the view, stacking order, rich text). Every
// field is written, so the page needs no defaults of its own; the page evaluates the
// timeline as narrative::evaluate does (web/src/narrative.js) and sanitises the text.
// Pictures, sounds, videos and 3D labels are not offered to the page yet.

#include "narrative/NarrativeDocument.h"

#include <string>

namespace atrium::app {

/// {"narratives": [{"nodes": [{"pose": {"p", "yaw", "pitch"}, "fadeIn", "dwell",
/// "waitForKey", "fadeOut", "overlays": [{"rect": {"x", "y", "width", "height"}, "z",
/// "text"}]}], "transitions": [{"duration"}]}]} (seconds, mm, radians).
std::string studentNarrativesJson(const narrative::NarrativeDocument& document);

} // namespace atrium::app
