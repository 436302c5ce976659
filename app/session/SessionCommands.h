#pragma once
// atrium-session: live lectures without a window, for scripts, tests and measurements.
//
//   serve FILE.atrium [--port P] [--narrative K] [--loop] [--code C] [--seconds S]
//                     [--record FILE] [--self-signed | --tls-cert PEM --tls-key PEM]
//       a lecturer without a window that plays narrative K of the package; prints the
//       URL, the join code and the lecturer secret as one JSON line on stdout. With TLS
//       (a classroom's self-signed certificate, or a real one) the URLs are wss://.
//   follow URL --code C [--name N] [--secret S] [--seconds S] [--once] [--poses]
//       a student that prints what it receives, one JSON line per message.
//   replay RECORDING [--at T] [--every DT]
//       a recording's summary, the state at T, and the camera every DT seconds.
//   loadtest (URL --code C | --local [--package FILE.atrium]) --students N --seconds S [--json]
//       N students on one thread: end-to-end latency from the lecturer's timestamp
//       (p50, p99, max), bytes per second per student, dropped messages, join and
//       late-join convergence times; --local serves in this process with the camera
//       circling at 60 Hz and adds the server's CPU per student.
//
// Exit codes (as atrium-sim and atrium-pack): 0 done, 1 bad command line, 2 bad file
// (package or recording; the message names it), 3 refused (wrong join code) or the
// session could not be reached, 4 other errors. Manual: docs/live-lecture.md.

#include <iosfwd>
#include <string>
#include <vector>

namespace atrium::app {

/// Runs `args` (the command and its arguments, without the program name).
int sessionCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

std::string sessionUsage();

} // namespace atrium::app
