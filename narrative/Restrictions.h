#pragma once
// Restrictions on redistributable content (Poyart 2016 5.6) and the one gate that
// enforces them.
//
// An author sets flags on a content package: a branding bar that must show, narratives
// and resources that may not be edited, navigation kept to the narratives, no video
// export, a largest render size, and - beyond VSim - a last day after which the content
// opens only for its author. Every operation that a flag can forbid asks ContentGate
// first, whoever the caller is (the viewer, atrium-pack, a test); a refusal is a
// message saying which flag forbids it and nothing changes. The UI only reflects the
// gate (a disabled control's tooltip is the gate's message).
//
// The author is "present" when the package's lock was opened with the author's
// password (package::ContentPackage::unlock): the flags bind the audience, not the
// person who set them. A locked package refuses every edit to anyone else, flags or
// not; an unlocked draft lets anyone edit what no flag forbids, the flags included.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace atrium::narrative {

/// Width and height in pixels.
struct Resolution {
    int width = 0;
    int height = 0;
    bool operator==(const Resolution&) const = default;
};

/// The flags of a package (5.6 items 1-6, plus expiry).
struct Restrictions {
    bool brandingRequired = false;        ///< the branding bar shows and may not be changed or removed
    bool narrativesLocked = false;        ///< narratives may not be edited
    bool resourcesLocked = false;         ///< embedded resources may not be edited
    bool narrativeNavigationOnly = false; ///< no free flight: the camera follows narratives only
    bool videoExportForbidden = false;    ///< no video recording
    std::optional<Resolution> maxResolution; ///< largest render, screenshot and video size
    /// The last day (UTC) the content opens for its audience; from the next day on it
    /// opens only for its author.
    std::optional<std::chrono::year_month_day> expires;

    bool operator==(const Restrictions&) const = default;
};

/// The branding bar: an institution's logo and a line of text, and where it links to.
struct Branding {
    std::string text;
    std::string image; ///< media entry inside the package (e.g. "media/logo.png"); may be empty
    std::string link;  ///< http(s) address opened when the bar is clicked; may be empty
    bool operator==(const Branding&) const = default;
    bool empty() const { return text.empty() && image.empty(); }
};

/// "YYYY-MM-DD" (a valid calendar date) or nullopt.
std::optional<std::chrono::year_month_day> parseDate(std::string_view text);
std::string formatDate(std::chrono::year_month_day date);
/// Today's date in UTC.
std::chrono::year_month_day todayUtc();

/// What a caller wants to do with the content.
enum class Operation {
    OpenContent,      ///< show it at all (expiry)
    EditNarratives,
    EditResources,
    EditBranding,     ///< change or remove the branding bar
    EditRestrictions, ///< change these flags
    EditContent,      ///< anything else: title, description, heart source, media
    FreeNavigation,   ///< fly the camera outside narratives
    ExportVideo,      ///< record a video (any size)
    RenderImage,      ///< a screenshot or render (any size)
};

std::string_view toString(Operation op);

/// Who asks and in what state the content is; ContentGate decides from these alone.
struct AccessState {
    Restrictions restrictions;
    bool locked = false;        ///< the package carries its author's lock
    bool authorPresent = false; ///< the lock was opened with the author's password
    std::chrono::year_month_day today = todayUtc();
};

class ContentGate {
public:
    ContentGate() = default;
    explicit ContentGate(AccessState state) : state_(std::move(state)) {}

    /// nullopt when `op` is allowed, else why not (the message names the flag or lock).
    std::optional<std::string> check(Operation op) const;
    /// As check(op) for ExportVideo or RenderImage, and also refuses a size beyond
    /// maxResolution (either side).
    std::optional<std::string> checkSize(Operation op, Resolution size) const;

    /// Whether the content has expired for its audience (the author still opens it).
    bool expired() const;
    const AccessState& state() const { return state_; }

private:
    AccessState state_;
};

} // namespace atrium::narrative
