#pragma once
// atrium-pack: builds, locks, signs, verifies and inspects content packages (.atrium)
// for authors and scripts. Every edit goes through package::ContentPackage, so the
// lock and the restriction flags hold here exactly as in the viewer.
// Manual: docs/atrium-pack.md.
//
// Exit codes (as atrium-sim): 0 success, 1 bad command line, 2 bad or tampered file
// (the message names the entry), 3 refused (locked, a restriction, a wrong password),
// 4 other errors (files that cannot be read or written).
//
// Passwords are read from --password-file FILE (its first line), else from
// $ATRIUM_PACK_PASSWORD, else from the terminal without echo.

#include <iosfwd>
#include <string>
#include <vector>

namespace atrium::app {

/// Runs `args` (the command and its arguments, without the program name).
int packCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// Usage text for all commands.
std::string packUsage();

} // namespace atrium::app
