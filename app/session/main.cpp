// atrium-session: live lectures without a window. See SessionCommands.h and
// `atrium-session --help`.
#include "app/session/SessionCommands.h"

#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    return atrium::app::sessionCommand(std::vector<std::string>(argv + 1, argv + argc), std::cout, std::cerr);
}
