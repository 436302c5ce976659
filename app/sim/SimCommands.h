#pragma once
// The sub-commands of atrium-sim. Each returns the process exit code:
// 0 success, 1 bad command line, 2 bad input file, 3 simulation blew up, 4 other error.

#include <iosfwd>
#include <string>
#include <vector>

namespace atrium::app {

/// atrium-sim run SCENE.json --steps N [--backend cpu|cuda] [--out DIR] [--every K]
int runCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// atrium-sim bench --scene dam-break|pulsing-sphere|heart --particles N [--steps S] [--backend cpu|cuda] [--json]
/// `heart` times the default heart scene (the adult phantom's HeartSimulation, as the
/// heart command builds it, heart from the cache); the others are BenchmarkScenes.h's.
int benchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// atrium-sim heart [--phantom NAME | --volumes PATTERN | --meshes PATTERN] [--beats B]
///                  [--particles N] [--backend cpu|cuda] [--cycle SECONDS] [--json]
int heartCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// atrium-sim phantom-meshes PATTERN [--phantom NAME] [--ventricle] [--json]: the
/// phantom's surfaces as a mesh series; --ventricle: open at its valves.
int phantomMeshesCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// Usage text for all commands.
std::string usage();

} // namespace atrium::app
