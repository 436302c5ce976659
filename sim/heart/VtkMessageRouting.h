#pragma once
// VTK's own output, routed through Atrium's messages.
//
// VTK prints the errors and warnings of objects that nobody observes straight to stderr
// ("[ERROR: In vtkXMLWriter.cxx, line 669] vtkXMLPolyDataWriter (0x55..): ..."), naming
// its own source file and no input or output file of the user's. routeVtkMessages()
// replaces VTK's output window: every such message goes to one sink as
//   "<program>: VTK warning (<file>): <message>"
// where <file> is the file the calling thread works on (the innermost VtkFileContext),
// so that a user sees which of their files VTK complained about. Readers and writers in
// sim/heart and app/ open a VtkFileContext around their VTK calls.

#include <filesystem>
#include <functional>
#include <string>

namespace atrium::heart {

/// Installs the routing for the whole process. `sink` receives each line (default:
/// written to stderr). Call once, early (atrium-sim and atrium do in main()).
void routeVtkMessages(const std::string& program, std::function<void(const std::string&)> sink = {});

/// Names the file this thread's VTK calls work on, for as long as it lives.
class VtkFileContext {
public:
    explicit VtkFileContext(const std::filesystem::path& file);
    ~VtkFileContext();
    VtkFileContext(const VtkFileContext&) = delete;
    VtkFileContext& operator=(const VtkFileContext&) = delete;

private:
    std::string previous_;
};

} // namespace atrium::heart
