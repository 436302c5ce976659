#pragma once
// Whether the CUDA backend can run here (cudaBackendStatus, makeCudaBackend): a device,
// its name and whether this build has a kernel image for it, probed once. Included by
// CudaBackend.cu only, after the kernels (it asks for densityKernel's attributes).

#include "sim/sph/CudaStepKernels.cuh"

#include <cuda_runtime.h>

#include <sstream>
#include <string>

namespace atrium::sph {
namespace {

struct DeviceProbe {
    bool available = false;
    int device = 0;
    std::string status;
    std::string name;
};

DeviceProbe probe() {
    DeviceProbe r;
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e != cudaSuccess) {
        cudaGetLastError();
        r.status = std::string("no usable CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorString(e);
        return r;
    }
    if (count <= 0) {
        r.status = "no CUDA device found";
        return r;
    }
    e = cudaGetDevice(&r.device);
    cudaDeviceProp prop{};
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&prop, r.device);
    if (e != cudaSuccess) {
        cudaGetLastError();
        r.status = std::string("cannot query the CUDA device: ") + cudaGetErrorString(e);
        return r;
    }
    r.name = prop.name;
    std::ostringstream s;
    s.setf(std::ios::fixed);
    s.precision(1);
    s << prop.name << " (compute capability " << prop.major << "." << prop.minor << ", "
      << prop.multiProcessorCount << " SMs, " << double(prop.totalGlobalMem) / double(1ull << 30) << " GiB)";
    // A kernel image for this GPU must exist (the build targets sm_80 and sm_90 plus
    // PTX for compute_80+); an older GPU fails here rather than at the first launch.
    cudaFuncAttributes attributes{};
    e = cudaFuncGetAttributes(&attributes, densityKernel);
    if (e != cudaSuccess) {
        cudaGetLastError();
        r.status = s.str() + ": unusable: " + cudaGetErrorString(e);
        return r;
    }
    r.available = true;
    r.status = s.str();
    return r;
}

const DeviceProbe& cachedProbe() {
    static const DeviceProbe p = probe();
    return p;
}

} // namespace
} // namespace atrium::sph
