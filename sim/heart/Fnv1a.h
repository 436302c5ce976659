#pragma once
// FNV-1a 64, the checksum and key hash of the heart's binary files (the heart cache,
// baked beats): fast, no dependency, and enough to catch damage (not tampering).

#include <cstddef>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <string>

namespace atrium::heart {

inline constexpr std::uint64_t kFnvOffset = 14695981039346656037ull;

/// FNV-1a 64 of `n` bytes at `p`, continuing from `hash` (kFnvOffset to start).
inline std::uint64_t fnv1a(std::uint64_t hash, const void* p, std::size_t n) {
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
        hash ^= bytes[i];
        hash *= 1099511628211ull;
    }
    return hash;
}

/// `v` as 16 lower-case hex digits.
inline std::string hex64(std::uint64_t v) {
    std::ostringstream s;
    s << std::hex << std::setw(16) << std::setfill('0') << v;
    return s.str();
}

} // namespace atrium::heart
