#pragma once
// What the scene reader (SceneFile.cpp) and its value checks (SceneValidation.cpp)
// share: the limits of docs/scene-format.md, and how messages name numbers and the
// JSON Pointer paths of the fields at fault. Internal to sim/sph.

#include "io/JsonInput.h"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <string_view>

namespace atrium::sph::scene_file {

// Limits that are not physics but protect the machine (documented in scene-format.md).

constexpr std::size_t kMaxNesting = 32;                      // JSON nesting depth
constexpr std::int64_t kMaxSubsteps = 100'000;               // per rendered frame
constexpr std::int64_t kMaxParticleLimit = 2'147'483'647;    // 32-bit signed particle counts
constexpr int kMaxSubdivisions = 7;                          // 327 680 triangles
constexpr double kMaxFieldCells = double(1u << 27);          // wall distance field
constexpr std::uintmax_t kMaxFileBytes = 64u << 20;          // scene files are small
// Physical ranges (docs/scene-format.md, "Limits").
constexpr double kMaxKernelSpacings = 5.0;                   // kernelRadius / particleSpacing
constexpr double kMinDensity = 1.0, kMaxDensity = 1e5;       // kg/m^3: gases to beyond osmium
constexpr double kMaxSoundSpeed = 1e4;                       // m/s
constexpr double kMaxViscosity = 1e3;                        // Pa s, far beyond honey
constexpr double kMaxGravity = 1e3;                          // m/s^2, about 100 g

/// Shortest text that reads back as `v` (as a float when `v` is one).
inline std::string formatNumber(double v) {
    std::array<char, 64> buf{};
    std::to_chars_result r{};
    const bool isFloat = std::isfinite(v) && std::fabs(v) <= double(std::numeric_limits<float>::max()) &&
                         double(float(v)) == v;
    if (isFloat)
        r = std::to_chars(buf.data(), buf.data() + buf.size(), float(v));
    else
        r = std::to_chars(buf.data(), buf.data() + buf.size(), v);
    return std::string(buf.data(), r.ptr);
}

inline std::string quote(std::string_view s) {
    std::string out;
    out.reserve(s.size() + 2);
    out.append(1, '"').append(s).append(1, '"');
    return out;
}

/// `s` with control characters shown as \uXXXX so that messages stay on one line.
inline std::string printable(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (const char c : s) {
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
            std::array<char, 8> hex{};
            std::snprintf(hex.data(), hex.size(), "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
            out += hex.data();
        } else out += c;
    }
    return out;
}

/// One JSON Pointer reference token, escaped (RFC 6901) and printable.
inline std::string pointerToken(std::string_view key) { return printable(io::jsonPointerToken(key)); }

inline std::string child(const std::string& path, std::string_view key) { return path + "/" + pointerToken(key); }
inline std::string child(const std::string& path, std::size_t index) { return path + "/" + std::to_string(index); }

} // namespace atrium::sph::scene_file
