// Fuzz target for the session server's HTTP side (app/transport/SessionServer): each input
// is sent, byte for byte, to a running server on loopback - libwebsockets parses it as an
// HTTP request or a WebSocket upgrade (and what follows as frames), and the server answers:
// the package by its hash, 404, 405, an upgrade, a close.
//
// Contract checked: whatever the bytes, the server answers with a well-formed status line
// or closes, within a few seconds; and afterwards it still serves the package by its hash,
// byte for byte. A crash of the server is a crash of this process.

#include "app/transport/SessionServer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace {

struct FuzzFailure : std::logic_error {
    using std::logic_error::logic_error;
};

/// The package the server offers: 1000 bytes of 'p' (its hash is in the corpus's requests).
const std::string kPackageBytes(1000, 'p');

atrium::transport::SessionServer& server() {
    static atrium::transport::SessionServer* s = [] {
        const auto file = std::filesystem::temp_directory_path() / ("atrium-http-fuzz-" + std::to_string(::getpid()) + ".atrium");
        std::ofstream(file, std::ios::binary) << kPackageBytes;
        atrium::transport::ServerOptions o;
        o.package = file;
        o.interface = "127.0.0.1";
        o.log = [](const std::string&) {}; // refusals are expected by the thousand
        static const std::filesystem::path served = file;
        std::atexit([] { std::filesystem::remove(served); });
        return new atrium::transport::SessionServer(o); // lives as long as the process
    }();
    return *s;
}

/// Whether `response` holds a whole answer: its headers and as many bytes as its
/// content-length says.
bool complete(const std::string& response) {
    const std::size_t end = response.find("\r\n\r\n");
    const std::size_t length = response.find("content-length: ");
    if (end == std::string::npos || length == std::string::npos || length > end) return false;
    return response.size() - end - 4 >= std::stoull(response.substr(length + 16));
}

/// Sends `bytes` to the server and returns what comes back, until the server closes or,
/// for a `whole` request, until the answer is complete (at most 5 s: longer is a hang).
/// A fuzzed request is followed by the end of the sending side, so that the server does
/// not wait for more (it then closes at once, even in the middle of an answer).
std::string roundTrip(std::string_view bytes, bool whole = false) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) throw std::runtime_error("socket() failed");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(std::uint16_t(server().port()));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
        ::close(fd);
        throw FuzzFailure("the server no longer accepts connections");
    }
    for (std::size_t done = 0; done < bytes.size();) {
        const ssize_t n = ::send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
        if (n <= 0) break; // the server may close before reading everything
        done += std::size_t(n);
    }
    if (!whole) ::shutdown(fd, SHUT_WR);
    std::string response;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    char buffer[16384];
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd p{fd, POLLIN, 0};
        if (left.count() <= 0 || ::poll(&p, 1, int(left.count())) <= 0) {
            ::close(fd);
            throw FuzzFailure("the server neither answered nor closed within 5 s");
        }
        const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
        if (n <= 0) break;
        response.append(buffer, std::size_t(n));
        if (whole && complete(response)) break;
    }
    ::close(fd);
    return response;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string response = roundTrip(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!response.empty() && (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12))
        throw FuzzFailure("an answer that is not an HTTP status line: " + response.substr(0, 64));

    // The server still serves the package, whole.
    const std::string get = "GET /package/" + server().content()->hash + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    const std::string answer = roundTrip(get, true);
    if (answer.rfind("HTTP/1.1 200", 0) != 0 || answer.size() < kPackageBytes.size() ||
        answer.compare(answer.size() - kPackageBytes.size(), kPackageBytes.size(), kPackageBytes) != 0)
        throw FuzzFailure("the package is no longer served after the input: " + answer.substr(0, 400));
    return 0;
}
