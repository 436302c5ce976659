// atrium-pack: content packages for authors and scripts. See PackCommands.h and
// `atrium-pack --help`.
#include "app/BuildInfo.h"
#include "app/pack/PackCommands.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--version") {
        std::cout << atrium::app::versionText("atrium-pack");
        return 0;
    }
    return atrium::app::packCommand(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
