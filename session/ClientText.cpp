#include "session/ClientText.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace atrium::session {

namespace {

/// The length of the valid UTF-8 sequence at the start of `s` and its code point, or 0
/// when it is not one (overlong, surrogate, past U+10FFFF, cut short).
std::size_t decodeUtf8(std::string_view s, char32_t& cp) {
    const auto b = [&](std::size_t i) { return static_cast<unsigned char>(s[i]); };
    const unsigned char c = b(0);
    std::size_t n = 0;
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
    else return 0;
    if (s.size() < n) return 0;
    for (std::size_t i = 1; i < n; ++i) {
        if ((b(i) & 0xC0) != 0x80) return 0;
        cp = (cp << 6) | (b(i) & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    return n;
}

/// Characters that must not reach a log or a label as they are.
bool invisibleControl(char32_t cp) {
    return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || // C0, DEL, C1
           cp == 0x2028 || cp == 0x2029 ||                           // line and paragraph separators
           (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069) || // bidi embeddings, isolates
           cp == 0x200E || cp == 0x200F || cp == 0x061C ||                      // direction marks
           cp == 0xFEFF;                                                        // zero-width no-break space
}

void appendEscape(std::string& out, char32_t cp) {
    switch (cp) {
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case 0x1B: out += "\\e"; return;
    case 0: out += "\\0"; return;
    default: break;
    }
    char hex[16];
    std::snprintf(hex, sizeof hex, cp < 0x100 ? "\\x%02X" : "\\u{%X}", unsigned(cp));
    out += hex;
}

std::string escape(std::string_view text, std::size_t maxBytes, bool quoted) {
    const std::string_view kept = truncateUtf8(text, maxBytes);
    std::string out;
    out.reserve(kept.size() + 8);
    if (quoted) out += '"';
    for (std::size_t i = 0; i < kept.size();) {
        char32_t cp = 0;
        const std::size_t n = decodeUtf8(kept.substr(i), cp);
        if (n == 0) { // not UTF-8: the byte itself, escaped
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", unsigned(static_cast<unsigned char>(kept[i])));
            out += hex;
            ++i;
            continue;
        }
        if (cp == '\\') out += "\\\\";
        else if (quoted && cp == '"') out += "\\\"";
        else if (invisibleControl(cp)) appendEscape(out, cp);
        else out.append(kept.substr(i, n));
        i += n;
    }
    if (quoted) out += '"';
    if (kept.size() < text.size()) out += "…";
    return out;
}

} // namespace

std::string_view truncateUtf8(std::string_view text, std::size_t maxBytes) {
    if (text.size() <= maxBytes) return text;
    std::size_t end = 0;
    while (end < text.size()) {
        char32_t cp = 0;
        const std::size_t n = std::max<std::size_t>(1, decodeUtf8(text.substr(end), cp));
        if (end + n > maxBytes) break;
        end += n;
    }
    return text.substr(0, end);
}

std::string escapeClientText(std::string_view text, std::size_t maxBytes) { return escape(text, maxBytes, false); }

std::string quoteClientText(std::string_view text, std::size_t maxBytes) { return escape(text, maxBytes, true); }

} // namespace atrium::session
