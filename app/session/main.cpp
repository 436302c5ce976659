// atrium-session: live lectures without a window. See SessionCommands.h and
// `atrium-session --help`.
#include "app/BuildInfo.h"
#include "app/session/SessionCommands.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    if (argc == 2 && std::string(argv[1]) == "--version") {
        std::cout << atrium::app::versionText("atrium-session");
        return 0;
    }
    return atrium::app::sessionCommand(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
