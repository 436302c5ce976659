#pragma once
// Memory of the CUDA backend (CudaBackend.cu): error checks that throw, device arrays
// that only grow, and page-locked host buffers for asynchronous copies. CUDA-only
// header, included by .cu files only.

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace atrium::sph::cuda {

// --- error handling -----------------------------------------------------------------

[[noreturn]] inline void throwCudaError(cudaError_t error, const char* call, const char* file, int line) {
    std::ostringstream m;
    m << "CUDA error: " << call << " failed at " << file << ":" << line << ": " << cudaGetErrorString(error) << " ("
      << cudaGetErrorName(error) << ")";
    throw std::runtime_error(m.str());
}

#define ATRIUM_CUDA_CHECK(call)                                                                   \
    do {                                                                                          \
        const cudaError_t atriumCudaError_ = (call);                                              \
        if (atriumCudaError_ != cudaSuccess)                                                      \
            ::atrium::sph::cuda::throwCudaError(atriumCudaError_, #call, __FILE__, __LINE__);     \
    } while (0)

// --- memory -------------------------------------------------------------------------

/// A device array that only grows. Growing copies the first `keep` elements on the
/// stream and waits for the stream before freeing the old allocation.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    ~DeviceBuffer() {
        if (ptr_) cudaFree(ptr_); // no throw from a destructor; errors are sticky anyway
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const { return ptr_; }
    std::size_t capacity() const { return capacity_; }
    std::size_t bytes() const { return capacity_ * sizeof(T); }

    /// Makes room for exactly `capacity` elements if there is less; returns true if it
    /// reallocated.
    bool reserve(std::size_t capacity, std::size_t keep, cudaStream_t stream) {
        if (capacity <= capacity_) return false;
        T* fresh = nullptr;
        ATRIUM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&fresh), capacity * sizeof(T)));
        keep = std::min(keep, capacity_);
        if (ptr_) {
            if (keep > 0) {
                const cudaError_t e = cudaMemcpyAsync(fresh, ptr_, keep * sizeof(T), cudaMemcpyDeviceToDevice, stream);
                if (e != cudaSuccess) {
                    cudaFree(fresh);
                    throwCudaError(e, "cudaMemcpyAsync(grow)", __FILE__, __LINE__);
                }
            }
            ATRIUM_CUDA_CHECK(cudaStreamSynchronize(stream)); // nothing may still use ptr_
            ATRIUM_CUDA_CHECK(cudaFree(ptr_));
        }
        ptr_ = fresh;
        capacity_ = capacity;
        return true;
    }

    void swap(DeviceBuffer& o) noexcept {
        std::swap(ptr_, o.ptr_);
        std::swap(capacity_, o.capacity_);
    }

private:
    T* ptr_ = nullptr;
    std::size_t capacity_ = 0;
};

/// Page-locked host memory (for truly asynchronous copies).
template <class T>
class PinnedBuffer {
public:
    PinnedBuffer() = default;
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;

    T* get() const { return ptr_; }
    std::size_t capacity() const { return capacity_; }

    /// Grows to at least `capacity` elements (contents lost); the caller makes sure no
    /// copy still uses the old memory.
    void reserve(std::size_t capacity) {
        if (capacity <= capacity_) return;
        if (ptr_) ATRIUM_CUDA_CHECK(cudaFreeHost(ptr_));
        ptr_ = nullptr;
        capacity_ = 0;
        ATRIUM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), capacity * sizeof(T)));
        capacity_ = capacity;
    }

private:
    T* ptr_ = nullptr;
    std::size_t capacity_ = 0;
};

} // namespace atrium::sph::cuda
