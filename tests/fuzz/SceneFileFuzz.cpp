// Fuzz target for the scene-file reader (sim/sph/SceneFile.h).
//
// Contract checked: parseScene either returns a Scene or throws SceneError; any other
// exception, a crash or a sanitizer report is a bug. A scene that parses must also
// survive a round trip: parseScene(sceneToJson(s).dump()) succeeds and writes back the
// same JSON. Oracle failures throw FuzzFailure, which libFuzzer reports as a crash
// (uncaught exception) and scene_fuzz_replay reports with the input.

#include "sim/sph/SceneFile.h"

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
    using namespace atrium::sph;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Scene scene;
    try {
        scene = parseScene(text, "fuzz.json");
    } catch (const SceneError& e) {
        // Every message names the source.
        if (std::string_view(e.what()).rfind("fuzz.json: ", 0) != 0)
            throw FuzzFailure(std::string("SceneError without the source name: ") + e.what());
        return 0;
    }
    const nlohmann::json written = sceneToJson(scene);
    Scene again;
    try {
        again = parseScene(written.dump(), "round-trip.json");
    } catch (const SceneError& e) {
        throw FuzzFailure(std::string("a parsed scene does not read back: ") + e.what() + "\nwritten: " + written.dump());
    }
    if (sceneToJson(again) != written)
        throw FuzzFailure("round trip changed the scene:\nfirst:  " + written.dump() + "\nsecond: " + sceneToJson(again).dump());
    return 0;
}
