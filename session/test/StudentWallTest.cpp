// The heart's wall for the student page: encoded, decoded within the quantisation's
// tolerance, and every damaged or hostile encoding refused naming its field.
#include "session/StudentWall.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

using namespace atrium::session;

namespace {
/// A tetrahedron per phase, growing with the phase, plus one extra vertex in phase 1 (the
/// phases' topologies differ, as a phantom's do).
StudentWall tetrahedra() {
    StudentWall wall;
    for (int k = 0; k < 3; ++k) {
        StudentWallPhase p;
        const float s = 10.0f + 5.0f * float(k);
        p.positions = {{0, 0, 0}, {s, 0, 0}, {0, s, 0}, {0, 0, s}};
        p.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
        if (k == 1) p.positions.push_back({-7.25f, 3.5f, 120.0f});
        p.forward.assign(p.positions.size(), {0.5f, -0.25f, 1.75f});
        p.backward.assign(p.positions.size(), {-0.5f, 0.125f, -2.0f});
        wall.phases.push_back(p);
    }
    return wall;
}

void putU32(std::string& bytes, std::size_t at, std::uint32_t v) { std::memcpy(bytes.data() + at, &v, 4); }

std::string refusal(const std::string& bytes) {
    try {
        decodeStudentWall(bytes);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "accepted";
}
constexpr std::size_t kHeader = 8 + 4 + 4 + 6 * 4 + 4; // then phase 0's vertex count
} // namespace

TEST(StudentWall, RoundTripsWithinHalfAQuantisationStep) {
    const StudentWall wall = tetrahedra();
    const std::string bytes = encodeStudentWall(wall);
    // Header, then per phase 8 bytes of counts, 18 bytes a vertex, 6 a triangle (u16 indices).
    EXPECT_EQ(bytes.size(), kHeader + 3 * 8 + (4 + 5 + 4) * 18 + 3 * 4 * 6);
    const StudentWall back = decodeStudentWall(bytes);
    ASSERT_EQ(back.phases.size(), 3u);
    const double positionTolerance = studentWallPositionTolerance(127.25) * 1.01; // the box's largest extent
    const double displacementTolerance = studentWallDisplacementTolerance(2.0) * 1.01;
    for (std::size_t k = 0; k < 3; ++k) {
        const auto& a = wall.phases[k];
        const auto& b = back.phases[k];
        ASSERT_EQ(b.positions.size(), a.positions.size());
        EXPECT_EQ(b.triangles, a.triangles);
        for (std::size_t i = 0; i < a.positions.size(); ++i)
            for (int c = 0; c < 3; ++c) {
                EXPECT_NEAR(b.positions[i][c], a.positions[i][c], positionTolerance) << "phase " << k << " vertex " << i;
                EXPECT_NEAR(b.forward[i][c], a.forward[i][c], displacementTolerance);
                EXPECT_NEAR(b.backward[i][c], a.backward[i][c], displacementTolerance);
            }
    }
}

TEST(StudentWall, EncoderRefusesWhatThePageCouldNotDraw) {
    StudentWall wall = tetrahedra();
    wall.phases[2].triangles[1][2] = 4;
    EXPECT_THROW(
        {
            try {
                encodeStudentWall(wall);
            } catch (const std::invalid_argument& e) {
                EXPECT_NE(std::string(e.what()).find("phase 2: triangle 1: vertex index 4 of 4"), std::string::npos) << e.what();
                throw;
            }
        },
        std::invalid_argument);
    wall = tetrahedra();
    wall.phases[0].forward.pop_back();
    EXPECT_THROW(encodeStudentWall(wall), std::invalid_argument);
    wall = tetrahedra();
    wall.phases[1].positions[0][1] = std::nanf("");
    EXPECT_THROW(encodeStudentWall(wall), std::invalid_argument);
    wall = tetrahedra();
    wall.phases.resize(1);
    EXPECT_THROW(encodeStudentWall(wall), std::invalid_argument);
}

TEST(StudentWall, DecoderRefusesDamagedEncodingsNamingTheField) {
    const std::string good = encodeStudentWall(tetrahedra());
    std::string bad = good;
    bad[0] = 'X';
    EXPECT_NE(refusal(bad).find("magic"), std::string::npos);
    bad = good;
    putU32(bad, 8, 2);
    EXPECT_NE(refusal(bad).find("version: 2"), std::string::npos);
    bad = good;
    putU32(bad, 12, 100000); // phases beyond the limit
    EXPECT_NE(refusal(bad).find("phases: 100000"), std::string::npos);
    bad = good;
    putU32(bad, kHeader, 1'500'000); // within the limit, beyond the bytes: refused before allocating
    EXPECT_NE(refusal(bad).find("student wall: positions"), std::string::npos) << refusal(bad);
    bad = good;
    putU32(bad, kHeader + 4, 0xFFFFFFFFu); // triangles beyond the limit
    EXPECT_NE(refusal(bad).find("triangle count"), std::string::npos);
    bad = good;
    bad[kHeader + 8 + 4 * 18] = 9; // phase 0's first index: vertex 9 of 4
    EXPECT_NE(refusal(bad).find("phase 0: triangle 0: vertex index 9 of 4"), std::string::npos) << refusal(bad);
    EXPECT_NE(refusal(good.substr(0, good.size() - 1)).find("indices"), std::string::npos);
    EXPECT_NE(refusal(good + "x").find("1 bytes after the last phase"), std::string::npos);
    EXPECT_NE(refusal("").find("magic"), std::string::npos);
}
