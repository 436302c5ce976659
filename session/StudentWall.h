#pragma once
// The heart's wall as the student page (web/) receives it over HTTP: what the desktop
// viewer's moving heart mesh (sim/heart/MeshInterpolation.h) holds, quantised to 16 bits
// so that a phone downloads a beat in a few megabytes. session/ does not know sim/: the
// app copies a MovingHeartMesh into a StudentWall and encodes it here.
//
// Each phase of the cycle has its own mesh (its own vertices and triangles: a phantom's
// phases are extracted one by one and share no topology) and, per vertex, the half-way
// displacements towards the next and the previous phase. At cycle fraction c with P
// phases, u = c P, k = floor(u), s = u - k: for s < 0.5 the wall is phase k's mesh moved
// by (s / 0.5) times its forward displacement, else phase k+1's moved by ((1 - s) / 0.5)
// times its backward displacement - MovingHeartMesh::sample's rule, which the page follows.
//
// Encoding "ATRWALL1" (little-endian, no padding; docs/session-protocol.md):
//   "ATRWALL1" magic (8 bytes), u32 format version (1), u32 phase count P,
//   f32 box min x, y, z, f32 box max x, y, z (mm; every position lies within),
//   f32 displacement range D (mm; every displacement component lies within +-D);
//   per phase: u32 vertex count n, u32 triangle count t,
//     n x 3 u16 positions (min + q / 65535 (max - min) per axis),
//     n x 3 i16 forward and then n x 3 i16 backward displacements (q / 32767 D),
//     t x 3 vertex indices, u16 when n <= 65536, else u32.
// Units: millimetres in the heart's frame (+Z up), as the session's camera poses.

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::session {

/// One phase's mesh, as floats and indices (mm).
struct StudentWallPhase {
    std::vector<std::array<float, 3>> positions;
    std::vector<std::array<float, 3>> forward;  ///< half-way displacement towards the next phase
    std::vector<std::array<float, 3>> backward; ///< half-way displacement towards the previous phase
    std::vector<std::array<std::uint32_t, 3>> triangles;
};

struct StudentWall {
    std::vector<StudentWallPhase> phases;
};

/// Limits a decoder holds an encoding to (and the encoder its input to).
struct StudentWallLimits {
    std::size_t maxPhases = 256;
    std::size_t maxVerticesPerPhase = 2'000'000;
    std::size_t maxTrianglesPerPhase = 4'000'000;
};

inline constexpr char kStudentWallMagic[8] = {'A', 'T', 'R', 'W', 'A', 'L', 'L', '1'};
inline constexpr std::uint32_t kStudentWallVersion = 1;

/// The encoding above. Throws std::invalid_argument naming the phase and field for a
/// wall the page could not draw: fewer than 2 phases or more than the limits, a phase
/// without triangles, displacement arrays of another length than the positions, a
/// non-finite value, an index out of range.
std::string encodeStudentWall(const StudentWall& wall, const StudentWallLimits& limits = {});

/// Reads an encoding back (dequantised). Throws std::runtime_error naming the field
/// (and the byte) for another magic or version, counts beyond the limits or beyond the
/// bytes present (checked before allocating), an index out of range, or bytes left over.
StudentWall decodeStudentWall(std::string_view bytes, const StudentWallLimits& limits = {});

/// Largest error of a quantised position along an axis of a box `extent` mm long, and of
/// a displacement within +-range mm (half a quantisation step).
inline double studentWallPositionTolerance(double extent) { return 0.5 * extent / 65535.0; }
inline double studentWallDisplacementTolerance(double range) { return 0.5 * range / 32767.0; }

} // namespace atrium::session
