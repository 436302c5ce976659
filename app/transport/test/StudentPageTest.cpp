// The student page over HTTP on the lecture's port (StudentPageRoutes.h): the page, its
// script and the heart's wall are served by their fixed paths with a strict
// Content-Security-Policy; nothing else is, whatever the path is made of.
#include "app/transport/SessionServer.h"
#include "app/transport/StudentPageRoutes.h"
#include "session/StudentWall.h"
#include "web/WebPage.h"

#include "RawWebSocket.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <zlib.h>

#include <filesystem>
#include <fstream>

using namespace atrium::transport;
using namespace atrium::session;

namespace {
std::shared_ptr<const std::string> smallWall() {
    StudentWall wall;
    for (int k = 0; k < 2; ++k) {
        StudentWallPhase p;
        p.positions = {{0, 0, 0}, {10, 0, 0}, {0, 10, 0}};
        p.forward.assign(3, {0, 0, float(k)});
        p.backward.assign(3, {0, 0, -1});
        p.triangles = {{0, 1, 2}};
        wall.phases.push_back(p);
    }
    return std::make_shared<const std::string>(encodeStudentWall(wall));
}

std::string header(const std::string& response, const std::string& name) {
    const auto at = response.find("\r\n" + name + ": ");
    if (at == std::string::npos) return {};
    const auto start = at + name.size() + 4;
    return response.substr(start, response.find("\r\n", start) - start);
}

std::string get(int port, const std::string& path) {
    return test::httpExchange(port, "GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
}
} // namespace

TEST(StudentPage, ServesThePageItsScriptAndTheWallWithTheContentSecurityPolicy) {
    ServerOptions o;
    o.studentWall = smallWall();
    o.studentNarratives = std::make_shared<const std::string>(R"({"narratives":[]})");
    SessionServer server(o);
    EXPECT_EQ(server.pageUrl("127.0.0.1"), "http://127.0.0.1:" + std::to_string(server.port()) + "/?code=" + server.code());
    const auto [status, body] = test::httpGet(server.port(), "/content.json");
    ASSERT_EQ(status, 200);
    const auto contents = nlohmann::json::parse(body);
    const std::string wallPath = contents.at("wall").at("url");
    EXPECT_EQ(contents["wall"]["bytes"], o.studentWall->size());
    EXPECT_EQ(wallPath.rfind("/content/wall-", 0), 0u);
    const std::string narrativesPath = contents.at("narratives").at("url");
    EXPECT_EQ(narrativesPath.rfind("/content/narratives-", 0), 0u);

    for (const auto& [path, type, bytes] :
         {std::tuple<std::string, std::string, std::string_view>{"/", "text/html; charset=utf-8", atrium::webpage::kIndexHtml},
          {"/app.js", "text/javascript; charset=utf-8", atrium::webpage::kAppJs},
          {"/style.css", "text/css; charset=utf-8", atrium::webpage::kStyleCss},
          {wallPath, "application/octet-stream", *o.studentWall},
          {narrativesPath, "application/json", *o.studentNarratives}}) {
        const std::string response = get(server.port(), path);
        ASSERT_EQ(response.rfind("HTTP/1.1 200", 0), 0u) << path << ": " << response.substr(0, 200);
        EXPECT_EQ(header(response, "content-type"), type) << path;
        EXPECT_EQ(header(response, "content-security-policy"), kContentSecurityPolicy) << path;
        EXPECT_EQ(header(response, "x-content-type-options"), "nosniff") << path;
        EXPECT_EQ(response.substr(response.find("\r\n\r\n") + 4), bytes) << path;
    }
    EXPECT_NE(header(get(server.port(), wallPath), "cache-control").find("immutable"), std::string::npos);
    EXPECT_EQ(header(get(server.port(), "/app.js"), "cache-control"), "no-cache");
    // Refusals carry the policy too.
    EXPECT_EQ(header(get(server.port(), "/nothing"), "content-security-policy"), kContentSecurityPolicy);
}

TEST(StudentPage, OnlyListedPathsAreServed) {
    const auto file = std::filesystem::temp_directory_path() / ("atrium-page-" + std::to_string(::getpid()) + ".atrium");
    std::ofstream(file, std::ios::binary) << std::string(1000, 'p');
    ServerOptions o;
    o.package = file;
    o.studentWall = smallWall();
    {
        SessionServer server(o);
        for (const std::string path :
             {"/lock.json", "/manifest.json", "/signature.json", "/media/logo.svg", "/../lock.json", "/content/../lock.json",
              "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/content/", "/content", "//etc/passwd",
              "/index.html", "/app.js/", "/APP.JS", "/package/", "/package/../lock.json", "/content.json/x"}) {
            const auto [status, body] = test::httpGet(server.port(), path);
            EXPECT_EQ(status, 404) << path;
            EXPECT_EQ(body.find("atrium"), std::string::npos) << path;
        }
        // Dot segments are resolved within the root, as a browser resolves them (RFC 3986
        // 5.2.4), before the table is asked: they never climb above it.
        EXPECT_EQ(test::httpGet(server.port(), "/content/../app.js").second, atrium::webpage::kAppJs);
        EXPECT_EQ(test::httpGet(server.port(), "/../../app.js").second, atrium::webpage::kAppJs);
        // A path longer than the bound, and headers larger than libwebsockets holds, are refused.
        EXPECT_EQ(test::httpGet(server.port(), "/" + std::string(kMaxRequestPathBytes, 'a')).first, 414);
        const std::string huge = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: " + std::string(8192, 'x') +
                                 "\r\nConnection: close\r\n\r\n";
        EXPECT_NE(test::httpExchange(server.port(), huge).rfind("HTTP/1.1 200", 0), 0u);
        EXPECT_EQ(test::httpRequest(server.port(), "POST", "/app.js").first, 405);
        // The package itself stays where it was.
        EXPECT_EQ(test::httpGet(server.port(), "/package/" + server.content()->hash).first, 200);
    }
    std::filesystem::remove(file);
}

TEST(StudentPage, ABrowserThatAcceptsGzipGetsTheScriptCompressed) {
    SessionServer server(ServerOptions{});
    const std::string response = test::httpExchange(
        server.port(), "GET /app.js HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept-Encoding: gzip, deflate, br\r\nConnection: close\r\n\r\n");
    ASSERT_EQ(response.rfind("HTTP/1.1 200", 0), 0u);
    EXPECT_EQ(header(response, "content-encoding"), "gzip");
    EXPECT_EQ(header(response, "content-security-policy"), kContentSecurityPolicy);
    const std::string body = response.substr(response.find("\r\n\r\n") + 4);
    EXPECT_LT(body.size(), atrium::webpage::kAppJs.size() / 2);
    std::string inflated(atrium::webpage::kAppJs.size() + 1, '\0');
    z_stream z{};
    ASSERT_EQ(inflateInit2(&z, 15 + 16), Z_OK);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
    z.avail_in = uInt(body.size());
    z.next_out = reinterpret_cast<Bytef*>(inflated.data());
    z.avail_out = uInt(inflated.size());
    EXPECT_EQ(inflate(&z, Z_FINISH), Z_STREAM_END);
    inflated.resize(z.total_out);
    inflateEnd(&z);
    EXPECT_TRUE(inflated == atrium::webpage::kAppJs);
    // Without Accept-Encoding: as it is.
    EXPECT_EQ(header(get(server.port(), "/app.js"), "content-encoding"), "");
}

TEST(StudentPage, WithoutAWallThePageIsToldWhy) {
    ServerOptions o;
    o.studentWallMissing = "the heart is a series of files";
    SessionServer server(o);
    const auto [status, body] = test::httpGet(server.port(), "/content.json");
    ASSERT_EQ(status, 200);
    const auto contents = nlohmann::json::parse(body);
    EXPECT_TRUE(contents["wall"].is_null());
    EXPECT_EQ(contents["wallMissing"], "the heart is a series of files");
    EXPECT_EQ(test::httpGet(server.port(), "/").first, 200);
}
