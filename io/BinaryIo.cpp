#include "io/BinaryIo.h"

#include <cstdio>

namespace atrium::io {

std::string hex64(std::uint64_t v) {
    char text[17];
    std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
    return text;
}

BinaryInputError::BinaryInputError(const std::string& what, std::uint64_t needed, std::uint64_t remaining,
                                   std::uint64_t at)
    : std::runtime_error("truncated: " + what + " needs " + std::to_string(needed) + " bytes where " +
                         std::to_string(remaining) + " remain (at byte " + std::to_string(at) + ")"),
      at_(at) {}

void StreamWriter::bytes(const void* p, std::size_t n) {
    hash_ = fnv1a(hash_, p, n);
    out_.write(static_cast<const char*>(p), std::streamsize(n));
    if (!out_) throw std::runtime_error("the stream failed while writing");
}

} // namespace atrium::io
