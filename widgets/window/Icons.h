#pragma once
// The shipped icon set (widgets/window/icons/*.svg, built into the library as :/atrium/icons).
// The icons are light and flat for the dark bars; Qt's own disabled rendering of such
// an icon stays bright, so a locked or unavailable button looked enabled (issue 23).
// Each icon here carries a faded picture for its disabled state.

#include <QIcon>

namespace atrium::widgets {

/// Opacity of an icon's disabled picture (the normal one is 1).
inline constexpr double kDisabledIconOpacity = 0.3;

/// The icon :/atrium/icons/NAME.svg, faded when disabled.
QIcon atriumIcon(const char* name);

/// One picture while its action is off (`off`) and another while on (`on`), both
/// faded when disabled.
QIcon atriumToggleIcon(const char* off, const char* on);

} // namespace atrium::widgets
