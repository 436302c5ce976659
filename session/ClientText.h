#pragma once
// Text that came from the network (a student's name, a message type it echoed, a parse
// error that quotes its keys), made safe to write to a log or show on screen: it can
// neither forge a log line nor hide, reorder or restyle what follows it.
//
// escapeClientText shows every control character as a visible escape - newlines,
// carriage returns, tabs, ESC (terminal colour and cursor sequences), NUL, DEL, the C1
// controls, Unicode's line and paragraph separators and its bidirectional overrides -
// and every byte that is not valid UTF-8 as \xNN; a backslash is doubled, so that an
// escape in the output always means one in the input. It keeps at most `maxBytes` of
// the input, cut at a character boundary (never inside a UTF-8 sequence), and then adds
// "…". quoteClientText puts the result in double quotes (a quote inside escaped), for
// log lines where client text sits beside the server's own words.

#include <cstddef>
#include <string>
#include <string_view>

namespace atrium::session {

/// The longest prefix of `text` of at most `maxBytes` bytes that does not end inside a
/// UTF-8 sequence (invalid bytes count as one character each).
std::string_view truncateUtf8(std::string_view text, std::size_t maxBytes);

/// `text` (at most `maxBytes` of it) with control, invisible-direction and invalid bytes
/// shown as escapes; see above.
std::string escapeClientText(std::string_view text, std::size_t maxBytes = 256);

/// escapeClientText in double quotes, with `"` escaped too: `"Ana\n..."`.
std::string quoteClientText(std::string_view text, std::size_t maxBytes = 256);

} // namespace atrium::session
