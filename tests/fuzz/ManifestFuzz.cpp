// Fuzz target for the content manifest reader (narrative/package/Manifest.h).
//
// Contract checked: parseManifest either returns a Manifest or throws PackageError
// (BadFile) whose message names the source; any other exception, a crash or a sanitizer
// report is a bug. A manifest that parses must survive a round trip: writing it and
// parsing that gives the same manifest.

#include "narrative/package/Manifest.h"
#include "narrative/package/PackageError.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

struct FuzzFailure : std::logic_error {
    using std::logic_error::logic_error;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace atrium::package;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Manifest manifest;
    try {
        manifest = parseManifest(text, "fuzz.json");
    } catch (const PackageError& e) {
        if (e.kind() != PackageError::Kind::BadFile || std::string_view(e.what()).rfind("fuzz.json: ", 0) != 0)
            throw FuzzFailure(std::string("PackageError of the wrong kind or without the source name: ") + e.what());
        return 0;
    }
    std::string written;
    try {
        written = writeManifest(manifest);
    } catch (const PackageError& e) {
        throw FuzzFailure(std::string("a manifest that parsed cannot be written: ") + e.what());
    }
    if (!(parseManifest(written, "round-trip.json") == manifest))
        throw FuzzFailure("the manifest changed in a write/parse round trip");
    return 0;
}
