#pragma once
// What the lecture's port serves to browsers besides the WebSocket and the package
// (docs/session-protocol.md, "The student page over HTTP"): the student page (web/,
// embedded at build time) and the lecture's content for it, each under a fixed path.
// Nothing else: a path is looked up whole in a table, never mapped to a file, so
// "/../", "%2e%2e", absolute paths, package entries such as lock.json and anything
// unlisted find nothing (404).
//
//   /              the page (text/html)              revalidated on every load
//   /style.css     its style sheet                   revalidated
//   /app.js        its script (web/src, bundled)      revalidated
//   /content.json  where the lecture's content lies  revalidated
//   /content/wall-<16 hex>.atrwall   the heart's wall (session/StudentWall.h), named by
//                  the FNV-1a 64 hash of its bytes, so a browser keeps it across reconnects
//   /content/narratives-<16 hex>.json   the narratives' timeline and text overlays
//                  (app/session/StudentNarratives.h), named by its hash
//
// Every response carries the same strict Content-Security-Policy (kContentSecurityPolicy).
// The script and the wall are also kept gzip-compressed (zlib, level 1: a few tenths of
// a second once), and sent so to a browser that accepts gzip.

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace atrium::transport {

/// Scripts and styles only from this origin, connections only back to it (the page's
/// fetches and its WebSocket), no frames, forms, plug-ins or foreign base URL.
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// Longest request path the server reads (bytes); a longer one is answered 414.
inline constexpr std::size_t kMaxRequestPathBytes = 512;
/// Most bytes of request headers libwebsockets holds for one request (a larger request is refused).
inline constexpr unsigned kMaxRequestHeaderBytes = 4096;

/// One response: its body (embedded text, or bytes `owner` keeps alive) and the headers
/// that say what it is.
struct PageResponse {
    std::string_view body;
    std::shared_ptr<const std::string> owner;
    std::string contentType;
    std::string cacheControl;
    std::shared_ptr<const std::string> gzipped; ///< the body gzip-compressed, or null
};

/// `bytes` as a gzip stream (RFC 1952). Throws std::runtime_error when zlib fails.
std::string gzipCompress(std::string_view bytes);

class StudentPageRoutes {
public:
    /// `wall`: the heart's wall encoded (session::encodeStudentWall), or null with
    /// `wallMissing` saying why there is none (the page shows it); `narratives`: their
    /// JSON for the page, or null (no overlays).
    StudentPageRoutes(std::shared_ptr<const std::string> wall, std::string wallMissing,
                      std::shared_ptr<const std::string> narratives = nullptr);

    /// The response for a GET of `path` (without the query), or null: 404.
    const PageResponse* find(std::string_view path) const;
    /// The wall's path ("/content/wall-<hash>.atrwall"), empty without a wall.
    const std::string& wallPath() const { return wallPath_; }

private:
    std::map<std::string, PageResponse, std::less<>> routes_;
    std::string wallPath_;
};

} // namespace atrium::transport
