// atrium-pack: content packages for authors and scripts. See PackCommands.h and
// `atrium-pack --help`.
#include "app/pack/PackCommands.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    return atrium::app::packCommand(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
