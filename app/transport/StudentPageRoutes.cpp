#include "app/transport/StudentPageRoutes.h"

#include "io/BinaryIo.h"
#include "web/WebPage.h"

#include <nlohmann/json.hpp>

namespace atrium::transport {

namespace {
constexpr const char* kRevalidate = "no-cache";
constexpr const char* kForever = "public, max-age=31536000, immutable";
} // namespace

namespace {
std::string hashedName(const std::string& stem, const std::string& bytes, const std::string& extension) {
    return "/content/" + stem + "-" + io::hex64(io::fnv1a(io::kFnvOffset, bytes.data(), bytes.size())) + extension;
}
} // namespace

StudentPageRoutes::StudentPageRoutes(std::shared_ptr<const std::string> wall, std::string wallMissing,
                                     std::shared_ptr<const std::string> narratives) {
    routes_["/"] = {webpage::kIndexHtml, nullptr, "text/html; charset=utf-8", kRevalidate};
    routes_["/style.css"] = {webpage::kStyleCss, nullptr, "text/css; charset=utf-8", kRevalidate};
    routes_["/app.js"] = {webpage::kAppJs, nullptr, "text/javascript; charset=utf-8", kRevalidate};
    nlohmann::json contents;
    if (wall) {
        wallPath_ = hashedName("wall", *wall, ".atrwall");
        routes_[wallPath_] = {*wall, wall, "application/octet-stream", kForever};
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
