// Fuzz target for the baked-beat reader (sim/heart/BakedBeat.h).
//
// Contract checked: BakedBeat::parse either returns a beat or throws BakedBeatError
// whose message starts with the source's name; any other exception, a crash or a
// sanitizer report is a bug. A beat that parses writes back the very same bytes, and
// every frame decodes and plays back to finite values. Each input is also tried with
// its last 8 bytes replaced by the right checksum, so that mutations reach the checks
// behind it. Oracle failures throw FuzzFailure.

#include "sim/heart/BakedBeat.h"
#include "io/BinaryIo.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct FuzzFailure : std::logic_error {
    using std::logic_error::logic_error;
};

void check(std::span<const std::byte> bytes) {
    using namespace atrium::heart;
    BakedBeat beat;
    try {
        beat = BakedBeat::parse(bytes, "fuzz.atriumflow");
    } catch (const BakedBeatError& e) {
        if (std::string(e.what()).rfind("fuzz.atriumflow: ", 0) != 0)
            throw FuzzFailure(std::string("BakedBeatError without the source name: ") + e.what());
        return;
    }
    const std::string again = beat.serialize();
    if (again.size() != bytes.size() || std::memcmp(again.data(), bytes.data(), bytes.size()) != 0)
        throw FuzzFailure("a parsed beat does not write back the same bytes");
    BloodFrame f;
    for (int k = 0; k < beat.framesPerBeat(); ++k) {
        beat.decode(k, f);
        if (f.particles() != beat.particles(k)) throw FuzzFailure("decoded particle count differs");
        for (float v : f.positionMm)
            if (!std::isfinite(v)) throw FuzzFailure("a decoded position is not finite");
    }
    beat.sampleAt(0.37, f);
    for (float v : f.positionMm)
        if (!std::isfinite(v)) throw FuzzFailure("a played-back position is not finite");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const auto* bytes = reinterpret_cast<const std::byte*>(data);
    check({bytes, size});
    if (size >= 8) {
        std::vector<std::byte> fixed(bytes, bytes + size);
        const std::uint64_t sum = atrium::io::fnv1a(atrium::io::kFnvOffset, fixed.data(), size - 8);
        std::memcpy(fixed.data() + size - 8, &sum, 8);
        check(fixed);
    }
    return 0;
}
