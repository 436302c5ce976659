// atrium-sim: the headless simulator. See SimCommands.h and `atrium-sim --help`.
#include "app/BuildInfo.h"
#include "app/sim/SimCommands.h"
#include "sim/heart/VtkMessageRouting.h"
#include "sim/sph/Solver.h" // cudaBackendAvailable(), cudaBackendStatus()

#include <csignal>
#include <iostream>
#include <string>
#include <vector>

int main(int argc, char** argv) {
    using namespace atrium::app;
    // A file-size limit (ulimit -f) fails the write like a full disk, with exit code 4
    // naming the file, instead of killing the process.
    std::signal(SIGXFSZ, SIG_IGN);
    // VTK's own warnings name the user's file and go where Atrium's messages go.
    atrium::heart::routeVtkMessages("atrium-sim");
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << usage();
        return args.empty() ? 1 : 0;
    }
    if (args.size() == 1 && args[0] == "--version") {
        std::cout << atrium::app::versionText("atrium-sim");
        return 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    if (command == "run") return runCommand(args, std::cout, std::cerr);
    if (command == "bench") return benchCommand(args, std::cout, std::cerr);
    if (command == "heart") return heartCommand(args, std::cout, std::cerr);
    if (command == "phantom-meshes") return phantomMeshesCommand(args, std::cout, std::cerr);
    if (command == "backends") {
        std::cout << "cpu: available\ncuda: "
                  << (atrium::sph::cudaBackendAvailable() ? "available, " : "unavailable, ")
                  << atrium::sph::cudaBackendStatus() << "\n";
        return 0;
    }
    std::cerr << "atrium-sim: unknown command '" << command << "'\n\n" << usage();
    return 1;
}
