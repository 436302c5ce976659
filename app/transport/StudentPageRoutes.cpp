#include "app/transport/StudentPageRoutes.h"

#include "io/BinaryIo.h"
#include "web/WebPage.h"

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <stdexcept>

namespace atrium::transport {

namespace {
constexpr const char* kRevalidate = "no-cache";
constexpr const char* kForever = "public, max-age=31536000, immutable";

std::string hashedName(const std::string& stem, const std::string& bytes, const std::string& extension) {
    return "/content/" + stem + "-" + io::hex64(io::fnv1a(io::kFnvOffset, bytes.data(), bytes.size())) + extension;
}
/// The response compressed when that saves at least a tenth.
void addGzip(PageResponse& r) {
    auto gz = std::make_shared<const std::string>(gzipCompress(r.body));
    if (gz->size() * 10 <= r.body.size() * 9) r.gzipped = std::move(gz);
}
} // namespace

std::string gzipCompress(std::string_view bytes) {
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer; level 1: fast, within 1 % of level 6 here.
    if (deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        throw std::runtime_error("gzip: deflateInit2 failed");
    std::string out(deflateBound(&z, uLong(bytes.size())), '\0');
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
    z.avail_in = uInt(bytes.size());
    z.next_out = reinterpret_cast<Bytef*>(out.data());
    z.avail_out = uInt(out.size());
    const int result = deflate(&z, Z_FINISH);
    const auto written = z.total_out;
    deflateEnd(&z);
    if (result != Z_STREAM_END) throw std::runtime_error("gzip: deflate did not finish");
    out.resize(written);
    return out;
}

StudentPageRoutes::StudentPageRoutes(std::shared_ptr<const std::string> wall, std::string wallMissing,
                                     std::shared_ptr<const std::string> narratives) {
    routes_["/"] = {webpage::kIndexHtml, nullptr, "text/html; charset=utf-8", kRevalidate};
    routes_["/style.css"] = {webpage::kStyleCss, nullptr, "text/css; charset=utf-8", kRevalidate};
    routes_["/app.js"] = {webpage::kAppJs, nullptr, "text/javascript; charset=utf-8", kRevalidate};
    addGzip(routes_["/app.js"]);
    nlohmann::json contents;
    if (wall) {
        wallPath_ = hashedName("wall", *wall, ".atrwall");
        routes_[wallPath_] = {*wall, wall, "application/octet-stream", kForever};
        addGzip(routes_[wallPath_]);
        contents["wall"] = {{"url", wallPath_}, {"bytes", wall->size()}};
    } else {
        contents["wall"] = nullptr;
        contents["wallMissing"] = wallMissing;
    }
    if (narratives) {
        const std::string path = hashedName("narratives", *narratives, ".json");
        routes_[path] = {*narratives, narratives, "application/json", kForever};
        contents["narratives"] = {{"url", path}, {"bytes", narratives->size()}};
    }
    auto json = std::make_shared<const std::string>(contents.dump());
    routes_["/content.json"] = {*json, json, "application/json", kRevalidate};
}

const PageResponse* StudentPageRoutes::find(std::string_view path) const {
    const auto it = routes_.find(path);
    return it == routes_.end() ? nullptr : &it->second;
}

} // namespace atrium::transport
