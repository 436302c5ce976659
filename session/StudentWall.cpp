#include "session/StudentWall.h"

#include "io/BinaryIo.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace atrium::session {

namespace {
using Vec = std::array<float, 3>;

std::string phaseName(std::size_t k) { return "phase " + std::to_string(k); }

void checkFinite(const std::vector<Vec>& v, std::size_t k, const char* field) {
    for (std::size_t i = 0; i < v.size(); ++i)
        for (float x : v[i])
            if (!std::isfinite(x))
                throw std::invalid_argument("student wall: " + phaseName(k) + ": " + field + " " + std::to_string(i) +
                                            " is not finite");
}

std::uint16_t quantisePosition(float x, float low, float extent) {
    if (!(extent > 0.0f)) return 0;
    const double q = std::round(double(x - low) / double(extent) * 65535.0);
    return std::uint16_t(std::clamp(q, 0.0, 65535.0));
}

std::int16_t quantiseDisplacement(float d, float range) {
    if (!(range > 0.0f)) return 0;
    const double q = std::round(double(d) / double(range) * 32767.0);
    return std::int16_t(std::clamp(q, -32767.0, 32767.0));
}
} // namespace

std::string encodeStudentWall(const StudentWall& wall, const StudentWallLimits& limits) {
    if (wall.phases.size() < 2 || wall.phases.size() > limits.maxPhases)
        throw std::invalid_argument("student wall: phases: " + std::to_string(wall.phases.size()) +
                                    ", needs 2 to " + std::to_string(limits.maxPhases));
    Vec low{std::numeric_limits<float>::max(), std::numeric_limits<float>::max(), std::numeric_limits<float>::max()};
    Vec high{std::numeric_limits<float>::lowest(), std::numeric_limits<float>::lowest(),
             std::numeric_limits<float>::lowest()};
    float range = 0.0f;
    for (std::size_t k = 0; k < wall.phases.size(); ++k) {
        const StudentWallPhase& p = wall.phases[k];
        const std::size_t n = p.positions.size();
        if (n == 0 || n > limits.maxVerticesPerPhase)
            throw std::invalid_argument("student wall: " + phaseName(k) + ": vertices: " + std::to_string(n) +
                                        ", needs 1 to " + std::to_string(limits.maxVerticesPerPhase));
        if (p.triangles.empty() || p.triangles.size() > limits.maxTrianglesPerPhase)
            throw std::invalid_argument("student wall: " + phaseName(k) + ": triangles: " +
                                        std::to_string(p.triangles.size()) + ", needs 1 to " +
                                        std::to_string(limits.maxTrianglesPerPhase));
        if (p.forward.size() != n || p.backward.size() != n)
            throw std::invalid_argument("student wall: " + phaseName(k) + ": forward/backward displacements: " +
                                        std::to_string(p.forward.size()) + "/" + std::to_string(p.backward.size()) +
                                        " for " + std::to_string(n) + " vertices");
        checkFinite(p.positions, k, "position");
        checkFinite(p.forward, k, "forward displacement");
        checkFinite(p.backward, k, "backward displacement");
        for (std::size_t t = 0; t < p.triangles.size(); ++t)
            for (std::uint32_t i : p.triangles[t])
                if (i >= n)
                    throw std::invalid_argument("student wall: " + phaseName(k) + ": triangle " + std::to_string(t) +
                                                ": vertex index " + std::to_string(i) + " of " + std::to_string(n));
        for (const Vec& x : p.positions)
            for (int a = 0; a < 3; ++a) low[a] = std::min(low[a], x[a]), high[a] = std::max(high[a], x[a]);
        for (const auto* d : {&p.forward, &p.backward})
            for (const Vec& v : *d)
                for (float c : v) range = std::max(range, std::abs(c));
    }

    std::string out;
    io::ByteWriter w(out);
    w.bytes(kStudentWallMagic, sizeof kStudentWallMagic);
    w.value(kStudentWallVersion);
    w.value(std::uint32_t(wall.phases.size()));
    for (float v : low) w.value(v);
    for (float v : high) w.value(v);
    w.value(range);
    const Vec extent{high[0] - low[0], high[1] - low[1], high[2] - low[2]};
    std::vector<std::uint16_t> positions;
    std::vector<std::int16_t> displacements;
    for (const StudentWallPhase& p : wall.phases) {
        const std::size_t n = p.positions.size();
        w.value(std::uint32_t(n));
        w.value(std::uint32_t(p.triangles.size()));
        positions.clear();
        for (const Vec& x : p.positions)
            for (int a = 0; a < 3; ++a) positions.push_back(quantisePosition(x[a], low[a], extent[a]));
        w.words<std::uint16_t>(positions);
        for (const auto* d : {&p.forward, &p.backward}) {
            displacements.clear();
            for (const Vec& v : *d)
                for (float c : v) displacements.push_back(quantiseDisplacement(c, range));
            w.words<std::int16_t>(displacements);
        }
        if (n <= 65536) {
            std::vector<std::uint16_t> indices;
            indices.reserve(3 * p.triangles.size());
            for (const auto& t : p.triangles)
                for (std::uint32_t i : t) indices.push_back(std::uint16_t(i));
            w.words<std::uint16_t>(indices);
        } else {
            w.words<std::uint32_t>(p.triangles);
        }
    }
    return out;
}

StudentWall decodeStudentWall(std::string_view bytes, const StudentWallLimits& limits) {
    io::ByteReader r(bytes);
    char magic[8];
    r.copy(magic, sizeof magic, "student wall: magic");
    if (std::memcmp(magic, kStudentWallMagic, sizeof magic) != 0)
        throw std::runtime_error("student wall: magic: not an ATRWALL1 encoding");
    const auto version = r.value<std::uint32_t>("student wall: version");
    if (version != kStudentWallVersion)
        throw std::runtime_error("student wall: version: " + std::to_string(version) + ", this build reads " +
                                 std::to_string(kStudentWallVersion));
    const auto phases = r.value<std::uint32_t>("student wall: phases");
    if (phases < 2 || phases > limits.maxPhases)
        throw std::runtime_error("student wall: phases: " + std::to_string(phases) + ", needs 2 to " +
                                 std::to_string(limits.maxPhases));
    Vec low{}, high{};
    for (float& v : low) v = r.value<float>("student wall: box min");
    for (float& v : high) v = r.value<float>("student wall: box max");
    const float range = r.value<float>("student wall: displacement range");
    for (int a = 0; a < 3; ++a)
        if (!std::isfinite(low[a]) || !std::isfinite(high[a]) || high[a] < low[a])
            throw std::runtime_error("student wall: box: not a finite box");
    if (!std::isfinite(range) || range < 0.0f) throw std::runtime_error("student wall: displacement range: not finite and >= 0");

    StudentWall wall;
    wall.phases.resize(phases);
    for (std::uint32_t k = 0; k < phases; ++k) {
        StudentWallPhase& p = wall.phases[k];
        const auto n = r.value<std::uint32_t>("student wall: vertex count");
        const auto t = r.value<std::uint32_t>("student wall: triangle count");
        if (n == 0 || n > limits.maxVerticesPerPhase)
            throw std::runtime_error("student wall: " + phaseName(k) + ": vertex count " + std::to_string(n) +
                                     ", needs 1 to " + std::to_string(limits.maxVerticesPerPhase));
        if (t == 0 || t > limits.maxTrianglesPerPhase)
            throw std::runtime_error("student wall: " + phaseName(k) + ": triangle count " + std::to_string(t) +
                                     ", needs 1 to " + std::to_string(limits.maxTrianglesPerPhase));
        const auto q = r.words<std::uint16_t, std::uint16_t>(3ull * n, "student wall: positions");
        p.positions.resize(n);
        for (std::size_t i = 0; i < n; ++i)
            for (int a = 0; a < 3; ++a)
                p.positions[i][a] = low[a] + float(q[3 * i + a]) / 65535.0f * (high[a] - low[a]);
        for (auto* d : {&p.forward, &p.backward}) {
            const auto dq = r.words<std::int16_t, std::int16_t>(3ull * n, "student wall: displacements");
            d->resize(n);
            for (std::size_t i = 0; i < n; ++i)
                for (int a = 0; a < 3; ++a) (*d)[i][a] = float(dq[3 * i + a]) / 32767.0f * range;
        }
        std::vector<std::uint32_t> indices;
        if (n <= 65536) {
            const auto small = r.words<std::uint16_t, std::uint16_t>(3ull * t, "student wall: indices");
            indices.assign(small.begin(), small.end());
        } else {
            indices = r.words<std::uint32_t, std::uint32_t>(3ull * t, "student wall: indices");
        }
        p.triangles.resize(t);
        for (std::size_t i = 0; i < t; ++i)
            for (int c = 0; c < 3; ++c) {
                const std::uint32_t v = indices[3 * i + c];
                if (v >= n)
                    throw std::runtime_error("student wall: " + phaseName(k) + ": triangle " + std::to_string(i) +
                                             ": vertex index " + std::to_string(v) + " of " + std::to_string(n));
                p.triangles[i][c] = v;
            }
    }
    if (r.remaining() != 0)
        throw std::runtime_error("student wall: " + std::to_string(r.remaining()) + " bytes after the last phase (at byte " +
                                 std::to_string(r.position()) + ")");
    return wall;
}

} // namespace atrium::session
