// Compiled as C++17: VTK 9.1's vtkSMPTools.h does not compile as C++20 (a template-id
// constructor). Used by IsolatedVtkReaders.cpp only.
#include <vtkSMPTools.h>

namespace atrium::heart {

/// Makes VTK's SMP tools run sequentially in this process (a forked child, where the
/// parent's TBB worker threads do not exist).
void useSequentialVtkSmp() { vtkSMPTools::SetBackend("Sequential"); }

} // namespace atrium::heart
