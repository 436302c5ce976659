// Issue 11: user numbers that made the work or memory grow without bound, undefined
// behaviour or a silent no-op are refused when the scene is validated, naming the file
// and the field; the validator and the solver share one grid limit (GridLimits.h).

#include "io/MemoryBudget.h"
#include "sim/sph/GridLimits.h"
#include "sim/sph/SceneFile.h"
#include "sim/sph/Seeding.h"
#include "sim/sph/Solver.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace atrium::sph {
namespace {

using nlohmann::json;

json baseScene() {
    return json::parse(R"({
      "name": "limits",
      "parameters": {"particleSpacing": 0.01, "kernelRadius": 0.02},
      "container": {"min": [0, 0, 0], "max": [0.1, 0.1, 0.1]},
      "fluidBlocks": [{"min": [0, 0, 0], "max": [0.05, 0.05, 0.05]}],
      "emitters": [{"position": [0.05, 0.05, 0.09], "direction": [0, 0, -1], "radius": 0.02, "speed": 1}]
    })");
}

json with(const std::string& pointer, json value) {
    json doc = baseScene();
    doc[json::json_pointer(pointer)] = std::move(value);
    return doc;
}

std::string errorOf(const json& doc) {
    try {
        (void)parseScene(doc.dump(), "limits.json");
    } catch (const SceneError& e) {
        return e.what();
    }
    ADD_FAILURE() << "accepted: " << doc.dump();
    return {};
}

void expectRefused(const json& doc, const std::string& pointer, const std::string& detail) {
    const std::string what = errorOf(doc);
    EXPECT_EQ(what.rfind("limits.json: " + pointer + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(detail), std::string::npos) << what;
}

} // namespace

TEST(SceneLimits, TheBaseSceneIsValid) { EXPECT_NO_THROW(parseScene(baseScene().dump(), "limits.json")); }

TEST(SceneLimits, EmitterFasterThanSoundIsRefused) {
    // 1e12 m/s made one step loop ~4e13 times adding layers.
    expectRefused(with("/emitters/0/speed", 1e12), "/emitters/0/speed", "must be below parameters.soundSpeed 20 m/s");
    expectRefused(with("/emitters/0/speed", 20), "/emitters/0/speed", "must be below parameters.soundSpeed");
}

TEST(SceneLimits, EmitterDiscMustFitItsContainer) {
    // A radius of 1 m in a 0.1 m box emitted nothing, with exit 0; 1e30 negated INT_MIN.
    expectRefused(with("/emitters/0/radius", 1), "/emitters/0/radius", "reaches outside the container along x");
    expectRefused(with("/emitters/0/radius", 1e30), "/emitters/0/radius", "reaches outside the container");
    // A disc facing along x is thin along x: only y and z must fit.
    json doc = baseScene();
    doc["emitters"][0] = {{"position", {0.01, 0.05, 0.05}}, {"direction", {1, 0, 0}}, {"radius", 0.04}, {"speed", 1}};
    EXPECT_NO_THROW(parseScene(doc.dump(), "limits.json"));
    // Inside a wall sphere when there is no container.
    doc = baseScene();
    doc.erase("container");
    doc["wall"] = {{"type", "sphere"}, {"center", {0.05, 0.05, 0.05}}, {"radius", 0.05}};
    doc["emitters"][0]["radius"] = 0.03;
    expectRefused(doc, "/emitters/0/radius", "reaches outside the wall sphere (radius 0.05 m)");
}

TEST(SceneLimits, PhysicalRangesOfGravityDensityViscositySoundAndKernel) {
    // -3e38 m/s^2 left the clock at 0 after 50 steps, with exit 0.
    expectRefused(with("/parameters/gravity", {0, 0, -3e38}), "/parameters/gravity", "must be at most 1000 m/s^2");
    expectRefused(with("/parameters/referenceDensity", 1e-3), "/parameters/referenceDensity", "must be within 1 to 1e+05 kg/m^3");
    expectRefused(with("/parameters/referenceDensity", 1e9), "/parameters/referenceDensity", "must be within 1 to 1e+05");
    expectRefused(with("/parameters/restDensity", 1e7), "/parameters/restDensity", "must be within 1 to 1e+05");
    expectRefused(with("/parameters/viscosity", 1e6), "/parameters/viscosity", "must be at most 1000 Pa s");
    expectRefused(with("/parameters/soundSpeed", 1e8), "/parameters/soundSpeed", "must be at most 10000 m/s");
    expectRefused(with("/parameters/kernelRadius", 0.5), "/parameters/kernelRadius", "must be at most 5 x particleSpacing 0.01 m (got 0.5 m");
    EXPECT_NO_THROW(parseScene(with("/parameters/gravity", {0, 0, -98.1}).dump(), "limits.json"));
}

TEST(SceneLimits, ParticlesBeyondTheMemoryBudgetAreRefusedAtValidation) {
    // 1e9 seeded particles passed validation and died in std::bad_alloc.
    io::setMemoryBudget(1ull << 30, "--max-memory");
    json doc = baseScene();
    doc["parameters"]["particleSpacing"] = 1e-4;
    doc["parameters"]["kernelRadius"] = 5e-4;
    doc["parameters"]["maxParticles"] = 2147483647;
    doc["fluidBlocks"][0]["max"] = {0.1, 0.1, 0.1};
    doc.erase("emitters");
    const std::string what = errorOf(doc);
    io::setMemoryBudget(0);
    EXPECT_NE(what.find("limits.json: /fluidBlocks: the fluid blocks would seed about 1e+09 particles, which needs about 476.8 GiB, more than the memory limit of 1.0 GiB (--max-memory); raise particleSpacing"),
              std::string::npos)
        << what;
    // Emitters may grow to maxParticles: that must fit too.
    io::setMemoryBudget(64ull << 20, "--max-memory");
    const std::string emitters = errorOf(with("/parameters/maxParticles", 2000000));
    io::setMemoryBudget(0);
    EXPECT_NE(emitters.find("/parameters/maxParticles: emitters may add particles up to maxParticles 2000000"), std::string::npos)
        << emitters;
}

TEST(SceneLimits, OneGridLimitForTheValidatorAndTheSolver) {
    // A grid of 465^3 = 1.0e8 cells: above 2^26, below the 2^28 the validator allowed
    // while the solver refused it, naming no file and the wrong remedy.
    json doc = baseScene();
    doc["parameters"]["particleSpacing"] = 1.0 / 470.0;
    doc["parameters"]["kernelRadius"] = 1.0 / 465.0 * 1.001;
    doc["container"]["max"] = {1, 1, 1};
    doc["fluidBlocks"][0]["max"] = {0.02, 0.02, 0.02};
    doc.erase("emitters");
    const std::string what = errorOf(doc);
    EXPECT_NE(what.find("limits.json: /parameters/kernelRadius: too small for the scene's extent"), std::string::npos) << what;
    EXPECT_NE(what.find("(limit 67108864)"), std::string::npos) << what;
    EXPECT_NE(what.find("raise kernelRadius (with particleSpacing) or set a smaller container"), std::string::npos) << what;

    // The solver, handed the same scene without validation, refuses it with the same limit.
    Scene scene;
    scene.parameters.particleSpacing = 1.f / 470.f;
    scene.parameters.kernelRadius = 1.f / 465.f * 1.001f;
    scene.container = BoxContainer{{{0, 0, 0}, {1, 1, 1}}};
    scene.fluidBlocks.push_back({{{0, 0, 0}, {0.02f, 0.02f, 0.02f}}, {}});
    EXPECT_GT(gridCellCount(sceneGridBounds(scene), scene.parameters.kernelRadius), kMaxGridCells);
    try {
        Solver solver(scene);
        ADD_FAILURE() << "the solver built a grid past the limit";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("(limit 67108864)"), std::string::npos) << e.what();
    }
    // Just inside the limit is accepted by both.
    doc["parameters"]["kernelRadius"] = 1.0 / 400.0;
    EXPECT_NO_THROW(parseScene(doc.dump(), "limits.json"));
}

TEST(SceneLimits, SeedingConversionsAreCheckedNotUndefined) {
    // UBSan: Seeding.cpp:33 negated INT_MIN for a radius of 1e30.
    EXPECT_THROW(emitterLayer({0, 0, 0}, {0, 0, 1}, 1e30f, 0.01f), std::invalid_argument);
    EXPECT_THROW(latticeInBox({{0, 0, 0}, {1e30f, 1, 1}}, 0.01f), std::invalid_argument);
    EXPECT_THROW(latticeDensity(1e-30f, 1.f, 1.f), std::invalid_argument);
    EXPECT_EQ(emitterLayer({0, 0, 0}, {0, 0, 1}, 0.025f, 0.01f).size(), 21u); // |i|,|j| <= 2 inside r = 2.5
}

TEST(SceneLimits, AnEmitterSpeedSetLaterAddsABoundedNumberOfLayersPerStep) {
    Scene scene = parseScene(baseScene().dump(), "limits.json");
    Solver solver(scene);
    const std::size_t before = solver.particleCount();
    const std::size_t layer = emitterLayer({}, {0, 0, 1}, 0.02f, 0.01f).size();
    solver.setEmitterSpeed(0, 1e12f);
    EXPECT_THROW(solver.step(), SimulationBlowUp); // so fast a flow blows up - after a bounded step
    EXPECT_LE(solver.particleCount() - before, 16 * layer);
    EXPECT_THROW(solver.setEmitterSpeed(0, std::numeric_limits<float>::infinity()), std::invalid_argument);
}

} // namespace atrium::sph
