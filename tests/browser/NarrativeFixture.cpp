// Writes what narrative::evaluate shows of a narratives document - the node, its stage
// and its overlays' alpha at many timeline seconds, with and without a loop, an entry
// flight and key presses - beside the narratives as the student page receives them
// (app/session/StudentNarratives.h), as JSON on stdout, for web/test/narrativeParity.mjs.
// Usage: narrative_fixture NARRATIVES.json
#include "app/session/StudentNarratives.h"
#include "narrative/NarrativePlayer.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <iostream>
#include <iterator>

using namespace atrium;

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: narrative_fixture NARRATIVES.json\n";
        return 1;
    }
    // Parsed as a package's document is (its media are in the package, not beside the file).
    std::ifstream in(argv[1], std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const narrative::NarrativeDocument document = narrative::parseNarrativeDocument(text, argv[1]);
    nlohmann::json cases = nlohmann::json::array();
    const char* stages[] = {"transition", "fadeIn", "dwell", "waitingForKey", "fadeOut", "finished"};
    for (std::size_t index = 0; index < document.narratives.size(); ++index) {
        const narrative::Narrative& n = document.narratives[index];
        for (const bool loop : {false, true})
            for (const bool entry : {false, true}) {
                const std::vector<double> keys = loop ? std::vector<double>{61.5, 200.0} : std::vector<double>{};
                narrative::PlayerOptions options{loop};
                if (entry) options.entryFrom = narrative::CameraPose({0, -300, 0}, 0.2, 0.1);
                nlohmann::json frames = nlohmann::json::array();
                for (double t = 0.0; t < 240.0; t += 0.173) {
                    const narrative::PlayerFrame f = narrative::evaluate(n, t, keys, options);
                    frames.push_back({{"t", t}, {"stage", stages[int(f.stage)]}, {"node", f.node}, {"alpha", f.overlayAlpha}});
                }
                cases.push_back({{"index", index}, {"loop", loop}, {"entry", entry}, {"keys", keys}, {"frames", frames}});
            }
    }
    std::cout << nlohmann::json{{"narratives", nlohmann::json::parse(app::studentNarrativesJson(document))["narratives"]},
                                {"cases", cases}}
                     .dump()
              << "\n";
    return 0;
}
