// Fuzz target for session recordings (session/Recording.h): Recording::parse either
// returns a recording whose replay answers at any time, or throws RecordingError whose
// message starts with the source name; anything else is a bug.

#include "session/Recording.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace atrium::session;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const SessionReplay replay(Recording::parse(text, "fuzz.rec"));
        for (double t : {-1.0, replay.start(), (replay.start() + replay.end()) / 2, replay.end(), replay.end() + 1}) {
            replay.stateAt(t);
            replay.poseAt(t);
        }
    } catch (const RecordingError& e) {
        if (std::string_view(e.what()).rfind("fuzz.rec", 0) != 0)
            throw std::logic_error(std::string("RecordingError without the source name: ") + e.what());
    }
    return 0;
}
