// Fuzz target for the narrative document reader (narrative/NarrativeDocument.h).
//
// Contract checked: parseNarrativeDocument either returns a document or throws
// NarrativeDocumentError whose message starts with the source name; any other
// exception, a crash or a sanitizer report is a bug. A document that reads must also
// survive a round trip: what toJson writes reads back to the same document and writes
// the same JSON again. Media are taken to exist (their paths are still checked).

#include "narrative/NarrativeDocument.h"

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
    using namespace atrium::narrative;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const MediaExists allPresent = [](const std::string&) { return true; };
    NarrativeDocument document;
    try {
        document = parseNarrativeDocument(text, "fuzz.json", allPresent);
    } catch (const NarrativeDocumentError& e) {
        if (std::string_view(e.what()).rfind("fuzz.json: ", 0) != 0)
            throw FuzzFailure(std::string("NarrativeDocumentError without the source name: ") + e.what());
        return 0;
    }
    const nlohmann::json written = toJson(document);
    NarrativeDocument again;
    try {
        again = parseNarrativeDocument(written.dump(), "round-trip.json", allPresent);
    } catch (const NarrativeDocumentError& e) {
        throw FuzzFailure(std::string("a document that read does not read back: ") + e.what());
    }
    if (!(again == document) || toJson(again) != written)
        throw FuzzFailure("round trip changed the document:\nfirst:  " + written.dump() + "\nsecond: " + toJson(again).dump());
    return 0;
}
