#pragma once
// Internal to sim/heart: VTK's own readers (VTK XML meshes and images, MetaImage, gzip
// NRRD, DICOM) run in a child process (io/IsolatedRun.h). Fuzzing showed that
// corrupt files make them crash (SIGSEGV, SIGBUS, SIGFPE), loop, or allocate gigabytes;
// in a child, each of those becomes an error naming the file, and what the library prints
// is kept instead of reaching the terminal. The child runs VTK's SMP tools sequentially
// (the parent's TBB threads do not exist there) and sends back plain arrays, which the
// parent checks (MeshFileReaders.h) before it builds anything on them.

#include "sim/heart/MeshFileReaders.h"
#include "sim/heart/VolumeSeries.h"

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace atrium::heart {

/// Reads a .vtp (unstructured = false) or .vtu with VTK's XML reader in a child process.
/// The cells are checked (validateMeshFileData); VTK's errors and warnings go to
/// `messages`. Throws MeshError naming the file.
MeshFileData readVtkXmlMeshIsolated(const std::filesystem::path& file, bool unstructured,
                                    std::vector<std::string>& messages);

/// Runs `read` (a volume reader built on VTK or metaio) in a child process and checks
/// the volume it returns. Throws VolumeError naming `file` when it fails in any way.
Volume readVolumeIsolated(const std::filesystem::path& file, const std::function<Volume()>& read);

} // namespace atrium::heart
