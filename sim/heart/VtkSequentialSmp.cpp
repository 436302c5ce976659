// Compiled as C++17: VTK 9.1's vtkSMPTools.h does not compile as C++20 (a template-id
// constructor). Used by IsolatedVtkReaders.cpp only.
#include <vtkNew.h>
#include <vtkOutputWindow.h>
#include <vtkSMPTools.h>

namespace atrium::heart {

/// Prepares a forked child for VTK: its SMP tools run sequentially (the parent's TBB
/// worker threads do not exist here), and its output window is a plain one again, whose
/// text the parent captures (the routed window's lock may have been held by another
/// thread of the parent at the fork).
void prepareVtkInChild() {
    vtkSMPTools::SetBackend("Sequential");
    vtkNew<vtkOutputWindow> plain;
    vtkOutputWindow::SetInstance(plain);
}

} // namespace atrium::heart
