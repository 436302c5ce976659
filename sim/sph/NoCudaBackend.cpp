// Built instead of CudaBackend.cu when nvcc is absent or ATRIUM_WITH_CUDA=OFF.
#include "sim/sph/Backend.h"

namespace atrium::sph {

std::unique_ptr<Backend> makeCudaBackend() { return nullptr; }
std::string cudaBackendStatus() { return "this build has no CUDA backend (nvcc not found or ATRIUM_WITH_CUDA=OFF)"; }
bool cudaBackendAvailable() { return false; }

} // namespace atrium::sph
