// Scene files: a full valid scene, defaults, round trip, every class of error (the
// message must name the file and the JSON Pointer of the field), and every scene
// shipped in content/scenes/.

#include "sim/sph/SceneFile.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#ifndef ATRIUM_CONTENT_DIR
#error "ATRIUM_CONTENT_DIR must name the content/ folder"
#endif

namespace atrium::sph {
namespace {

using nlohmann::json;

constexpr const char* kFullScene = R"({
  "name": "everything",
  "parameters": {
    "particleSpacing": 0.005, "kernelRadius": 0.012, "referenceDensity": 1060,
    "restDensity": 1050, "equationOfState": "linear", "soundSpeed": 15,
    "linearStiffness": 200, "maxPressure": 2e5, "clampNegativePressure": false, "maxTension": 1500,
    "viscosity": 0.0035, "gravity": [0, -9.81, 0], "cflNumber": 0.3, "maxTimeStep": 5e-4,
    "frameRate": 30, "substepsPerFrame": 12, "maxSpeed": 40, "wallMargin": 0.001,
    "wallRestitution": 0.25, "wallPressure": "mirrored", "maxParticles": 2e6, "zOrder": true,
    "domain": {"min": [-1, -1, -1], "max": [1, 1, 1]}
  },
  "container": {"min": [-0.5, -0.5, -0.5], "max": [0.5, 0.5, 0.5], "restitution": 0.75},
  "wall": {"type": "sphere", "center": [0, 0, 0.1], "radius": 0.4, "subdivisions": 4,
           "pulseAmplitude": 0.2, "pulsePeriod": 0.8, "fieldCellSize": 0.004},
  "fluidBlocks": [{"min": [-0.1, -0.1, -0.1], "max": [0.1, 0.1, 0.1], "velocity": [0.5, 0, 0]}],
  "emitters": [{"position": [0, 0, 0.3], "direction": [0, 0, -2], "radius": 0.02, "speed": 1.5,
                "rate": 1000, "start": 0.5, "end": 2}],
  "outlets": [{"type": "sphere", "center": [0.3, 0, 0], "radius": 0.05},
              {"type": "box", "min": [-0.5, -0.5, -0.5], "max": [-0.4, 0.5, 0.5]}],
  "openBoundaries": [{"center": [0, 0.3, 0], "normal": [0, -1, 0], "radius": 0.05, "depth": 0.024,
                      "pressure": 1200},
                     {"shape": "rectangle", "center": [0, -0.3, 0], "normal": [0, 2, 0], "axis": [1, 0, 0],
                      "halfWidth": 0.04, "halfHeight": 0.02, "pressure": -300, "velocity": 0.4}],
  "planes": [{"point": [0, 0, 0.2], "normal": [0, 3, 4], "radius": 0.1, "type": "one-way", "restitution": 0},
             {"point": [0, 0, -0.2], "normal": [1, 0, 0], "type": "closed",
              "hole": {"radius": 0.004, "speed": -5, "depth": 0.003, "convergence": 0.012}}]
})";

/// A small valid scene to which each error test applies one change.
json baseScene() {
    return json::parse(R"({
      "name": "base",
      "parameters": {"particleSpacing": 0.01, "kernelRadius": 0.02},
      "container": {"min": [0, 0, 0], "max": [1, 1, 1]},
      "fluidBlocks": [{"min": [0, 0, 0], "max": [0.2, 0.2, 0.2]}],
      "emitters": [{"position": [0.5, 0.5, 0.9], "direction": [0, 0, -1]}],
      "outlets": [{"type": "sphere", "center": [0.9, 0.9, 0.1], "radius": 0.05}],
      "planes": [{"point": [0.5, 0.5, 0.5], "normal": [0, 0, 1]}]
    })");
}

/// Parses `text` as "test.json" and checks the SceneError message names the file, the
/// location and contains `detail`.
void expectError(const std::string& text, const std::string& location, const std::string& detail) {
    SCOPED_TRACE(text.size() < 400 ? text : text.substr(0, 400) + "...");
    try {
        (void)parseScene(text, "test.json");
        ADD_FAILURE() << "no error; expected " << location << ": " << detail;
    } catch (const SceneError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("test.json: " + location + ": ", 0), 0u) << what;
        EXPECT_NE(what.find(detail), std::string::npos) << what;
        EXPECT_EQ(e.source(), "test.json");
        EXPECT_EQ(e.location(), location);
    }
}

void expectError(const json& doc, const std::string& location, const std::string& detail) {
    expectError(doc.dump(), location, detail);
}

/// baseScene() with the value at `pointer` replaced by `value`.
json with(const std::string& pointer, json value) {
    json doc = baseScene();
    doc[json::json_pointer(pointer)] = std::move(value);
    return doc;
}

json without(const std::string& parent, const std::string& key) {
    json doc = baseScene();
    doc[json::json_pointer(parent)].erase(key);
    return doc;
}

std::uint32_t bits(float f) {
    std::uint32_t u = 0;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

// ---------------------------------------------------------------------------------

TEST(SceneFile, FullSceneReadsEveryField) {
    const Scene s = parseScene(kFullScene, "full.json");
    EXPECT_EQ(s.name, "everything");
    const SolverParameters& p = s.parameters;
    EXPECT_FLOAT_EQ(p.particleSpacing, 0.005f);
    EXPECT_FLOAT_EQ(p.kernelRadius, 0.012f);
    EXPECT_FLOAT_EQ(p.referenceDensity, 1060.f);
    ASSERT_TRUE(p.restDensity.has_value());
    EXPECT_FLOAT_EQ(*p.restDensity, 1050.f);
    EXPECT_EQ(p.equationOfState, EquationOfState::Linear);
    EXPECT_FLOAT_EQ(p.soundSpeed, 15.f);
    ASSERT_TRUE(p.linearStiffness.has_value());
    EXPECT_FLOAT_EQ(*p.linearStiffness, 200.f);
    EXPECT_FLOAT_EQ(p.maxPressure, 2e5f);
    EXPECT_FALSE(p.clampNegativePressure);
    ASSERT_TRUE(p.maxTension.has_value());
    EXPECT_FLOAT_EQ(*p.maxTension, 1500.f);
    EXPECT_FLOAT_EQ(p.viscosity, 0.0035f);
    EXPECT_EQ(p.gravity, (Vec3{0.f, -9.81f, 0.f}));
    EXPECT_FLOAT_EQ(p.cflNumber, 0.3f);
    EXPECT_FLOAT_EQ(p.maxTimeStep, 5e-4f);
    EXPECT_FLOAT_EQ(p.frameRate, 30.f);
    EXPECT_EQ(p.substepsPerFrame, 12);
    EXPECT_FLOAT_EQ(p.maxSpeed, 40.f);
    EXPECT_FLOAT_EQ(p.wallMargin, 0.001f);
    EXPECT_FLOAT_EQ(p.wallRestitution, 0.25f);
    EXPECT_EQ(p.wallPressure, WallPressure::Mirrored);
    EXPECT_EQ(p.maxParticles, 2'000'000u);
    EXPECT_TRUE(p.zOrder);
    ASSERT_TRUE(p.domain.has_value());
    EXPECT_EQ(p.domain->lo, (Vec3{-1.f, -1.f, -1.f}));
    EXPECT_EQ(p.domain->hi, (Vec3{1.f, 1.f, 1.f}));

    ASSERT_TRUE(s.container.has_value());
    EXPECT_EQ(s.container->bounds.lo, (Vec3{-0.5f, -0.5f, -0.5f}));
    EXPECT_EQ(s.container->bounds.hi, (Vec3{0.5f, 0.5f, 0.5f}));
    EXPECT_FLOAT_EQ(s.container->restitution, 0.75f);

    EXPECT_EQ(s.wall.kind, WallMeshSpec::Kind::Sphere);
    EXPECT_EQ(s.wall.center, (Vec3{0.f, 0.f, 0.1f}));
    EXPECT_FLOAT_EQ(s.wall.radius, 0.4f);
    EXPECT_EQ(s.wall.subdivisions, 4);
    EXPECT_FLOAT_EQ(s.wall.pulseAmplitude, 0.2f);
    EXPECT_FLOAT_EQ(s.wall.pulsePeriod, 0.8f);
    EXPECT_FLOAT_EQ(s.wall.fieldCellSize, 0.004f);

    ASSERT_EQ(s.fluidBlocks.size(), 1u);
    EXPECT_EQ(s.fluidBlocks[0].bounds.lo, (Vec3{-0.1f, -0.1f, -0.1f}));
    EXPECT_EQ(s.fluidBlocks[0].velocity, (Vec3{0.5f, 0.f, 0.f}));

    ASSERT_EQ(s.emitters.size(), 1u);
    const Emitter& e = s.emitters[0];
    EXPECT_EQ(e.position, (Vec3{0.f, 0.f, 0.3f}));
    EXPECT_EQ(e.direction, (Vec3{0.f, 0.f, -1.f})); // normalised
    EXPECT_FLOAT_EQ(e.radius, 0.02f);
    EXPECT_FLOAT_EQ(e.speed, 1.5f);
    EXPECT_FLOAT_EQ(e.rate, 1000.f);
    EXPECT_FLOAT_EQ(e.start, 0.5f);
    EXPECT_FLOAT_EQ(e.end, 2.f);

    ASSERT_EQ(s.outlets.size(), 2u);
    EXPECT_EQ(s.outlets[0].shape, OutletShape::Sphere);
    EXPECT_EQ(s.outlets[0].center, (Vec3{0.3f, 0.f, 0.f}));
    EXPECT_FLOAT_EQ(s.outlets[0].radius, 0.05f);
    EXPECT_EQ(s.outlets[1].shape, OutletShape::Box);
    EXPECT_EQ(s.outlets[1].bounds.hi, (Vec3{-0.4f, 0.5f, 0.5f}));

    ASSERT_EQ(s.openBoundaries.size(), 2u);
    EXPECT_EQ(s.openBoundaries[0].shape, OpenBoundaryShape::Disc);
    EXPECT_FLOAT_EQ(s.openBoundaries[0].radius, 0.05f);
    EXPECT_FLOAT_EQ(s.openBoundaries[0].depth, 0.024f);
    EXPECT_FLOAT_EQ(s.openBoundaries[0].pressure, 1200.f);
    EXPECT_EQ(s.openBoundaries[0].velocity, OpenBoundaryVelocity::Extrapolated);
    EXPECT_EQ(s.openBoundaries[1].shape, OpenBoundaryShape::Rectangle);
    EXPECT_FLOAT_EQ(s.openBoundaries[1].normal.y, 1.f); // normalised
    EXPECT_FLOAT_EQ(s.openBoundaries[1].halfWidth, 0.04f);
    EXPECT_FLOAT_EQ(s.openBoundaries[1].halfHeight, 0.02f);
    EXPECT_FLOAT_EQ(s.openBoundaries[1].depth, 0.f);
    EXPECT_FLOAT_EQ(s.openBoundaries[1].pressure, -300.f);
    EXPECT_EQ(s.openBoundaries[1].velocity, OpenBoundaryVelocity::Prescribed);
    EXPECT_FLOAT_EQ(s.openBoundaries[1].inflowSpeed, 0.4f);
    ASSERT_EQ(s.planes.size(), 2u);
    EXPECT_EQ(s.planes[0].kind, PlaneKind::OneWay);
    EXPECT_NEAR(s.planes[0].normal.y, 0.6f, 1e-6f);
    EXPECT_NEAR(s.planes[0].normal.z, 0.8f, 1e-6f);
    EXPECT_FLOAT_EQ(s.planes[0].radius, 0.1f);
    EXPECT_FLOAT_EQ(s.planes[0].restitution, 0.f);
    EXPECT_EQ(s.planes[1].kind, PlaneKind::Closed);
    EXPECT_FLOAT_EQ(s.planes[1].restitution, 0.5f);
    EXPECT_FALSE(s.planes[0].hasHole());
    EXPECT_TRUE(s.planes[1].hasHole());
    EXPECT_FLOAT_EQ(s.planes[1].holeRadius, 0.004f);
    EXPECT_FLOAT_EQ(s.planes[1].holeSpeed, -5.f);
    EXPECT_FLOAT_EQ(s.planes[1].holeDepth, 0.003f);
    EXPECT_FLOAT_EQ(s.planes[1].holeConvergence, 0.012f);
}

TEST(SceneFile, OmittedFieldsTakeSceneDefaults) {
    const Scene s = parseScene(R"({"container": {"min": [0,0,0], "max": [1,1,1]},
                                   "fluidBlocks": [{"min": [0,0,0], "max": [0.5,0.5,0.5]}]})",
                               "min.json");
    Scene expected;
    expected.container = BoxContainer{{{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}}};
    expected.fluidBlocks.push_back(FluidBlock{{{0.f, 0.f, 0.f}, {0.5f, 0.5f, 0.5f}}, {}});
    EXPECT_EQ(sceneToJson(s), sceneToJson(expected));
    EXPECT_FALSE(s.parameters.restDensity.has_value());
    EXPECT_EQ(s.parameters.restDensitySource, SolverParameters::RestDensitySource::Bulk);
    EXPECT_FALSE(s.parameters.linearStiffness.has_value());
    EXPECT_FALSE(s.parameters.domain.has_value());
    EXPECT_EQ(s.wall.kind, WallMeshSpec::Kind::None);
    EXPECT_FLOAT_EQ(s.container->restitution, BoxContainer{}.restitution);
}

TEST(SceneFile, RoundTripIsExact) {
    const Scene a = parseScene(kFullScene, "full.json");
    const json ja = sceneToJson(a);
    const std::string text = ja.dump(2);
    const Scene b = parseScene(text, "round-trip.json");
    EXPECT_EQ(sceneToJson(b), ja);
    EXPECT_EQ(b.name, a.name);
    EXPECT_EQ(bits(b.parameters.kernelRadius), bits(a.parameters.kernelRadius));
    EXPECT_EQ(b.emitters[0].direction, a.emitters[0].direction);
    EXPECT_EQ(b.planes[0].normal, a.planes[0].normal); // normalising twice changes nothing
    // Floats are written with the shortest text that reads back exactly.
    EXPECT_NE(text.find("0.005"), std::string::npos) << text;
    EXPECT_EQ(text.find("0.004999"), std::string::npos) << text;
}

TEST(SceneFile, RoundTripKeepsAwkwardFloatsBitExact) {
    Scene s;
    s.name = "awkward \"quoted\" name";
    s.parameters.particleSpacing = 0.1f + 1e-9f;
    s.parameters.kernelRadius = 0.3f;
    s.parameters.maxPressure = 3.3e38f;
    s.parameters.viscosity = 1e-38f;
    s.parameters.gravity = {1.f / 3.f, -0.f, -9.80665f};
    s.parameters.frameRate = 16777217.f;
    s.parameters.restDensity = 999.9f;
    s.container = BoxContainer{{{-1.f / 7.f, 0.f, 0.f}, {1.f, 2.f / 3.f, 1.f}}, 0.1f};
    s.fluidBlocks.push_back(FluidBlock{{{0.f, 0.1f, 0.2f}, {0.7f, 0.6f, 0.9f}}, {}});
    s.emitters.push_back(Emitter{});
    s.emitters[0].position = {0.5f, 0.5f, 0.5f};
    s.emitters[0].direction = normalized(Vec3{1.f, 2.f, 3.f});
    validateScene(s, "memory");
    const Scene back = parseScene(sceneToJson(s).dump(), "memory.json");
    EXPECT_EQ(back.name, s.name);
    EXPECT_EQ(bits(back.parameters.particleSpacing), bits(s.parameters.particleSpacing));
    EXPECT_EQ(bits(back.parameters.maxPressure), bits(s.parameters.maxPressure));
    EXPECT_EQ(bits(back.parameters.viscosity), bits(s.parameters.viscosity));
    EXPECT_EQ(bits(back.parameters.gravity.x), bits(s.parameters.gravity.x));
    EXPECT_EQ(bits(back.parameters.gravity.y), bits(s.parameters.gravity.y)); // -0 stays -0
    EXPECT_EQ(bits(back.parameters.frameRate), bits(s.parameters.frameRate));
    EXPECT_EQ(back.container->bounds.lo, s.container->bounds.lo);
    EXPECT_EQ(back.container->bounds.hi, s.container->bounds.hi);
    EXPECT_EQ(back.emitters[0].direction, s.emitters[0].direction);
    EXPECT_EQ(sceneToJson(back), sceneToJson(s));
}

TEST(SceneFile, RestDensitySource) {
    json doc = baseScene();
    doc["parameters"]["restDensitySource"] = "all";
    const Scene s = parseScene(doc.dump(), "test.json");
    EXPECT_EQ(s.parameters.restDensitySource, SolverParameters::RestDensitySource::All);
    EXPECT_FALSE(s.parameters.restDensity.has_value());
    const Scene back = parseScene(sceneToJson(s).dump(), "test.json");
    EXPECT_EQ(back.parameters.restDensitySource, SolverParameters::RestDensitySource::All);
    expectError(with("/parameters/restDensitySource", "mean"), "/parameters/restDensitySource",
                "unknown value \"mean\" (expected one of: \"bulk\", \"all\")");
}

TEST(SceneFile, WallPressure) {
    EXPECT_EQ(parseScene(baseScene().dump(), "test.json").parameters.wallPressure, WallPressure::DensityMap);
    expectError(with("/parameters/wallPressure", "mirror"), "/parameters/wallPressure",
                "unknown value \"mirror\" (did you mean \"mirrored\"?)");
    expectError(with("/parameters/wallPressure", true), "/parameters/wallPressure", "expected a string, got boolean");
}

TEST(SceneFile, PressureSolver) {
    const Scene plain = parseScene(baseScene().dump(), "test.json");
    EXPECT_EQ(plain.parameters.pressureSolver, PressureSolver::WeaklyCompressible);
    json doc = with("/parameters/pressureSolver", "divergenceFree");
    doc["parameters"]["maxDensityError"] = 0.001;
    doc["parameters"]["maxDivergenceError"] = 0.002;
    doc["parameters"]["maxSolverIterations"] = 50;
    const Scene dfsph = parseScene(doc.dump(), "test.json");
    EXPECT_EQ(dfsph.parameters.pressureSolver, PressureSolver::DivergenceFree);
    EXPECT_FLOAT_EQ(dfsph.parameters.maxDensityError, 0.001f);
    EXPECT_FLOAT_EQ(dfsph.parameters.maxDivergenceError, 0.002f);
    EXPECT_EQ(dfsph.parameters.maxSolverIterations, 50);
    EXPECT_EQ(sceneToJson(parseScene(sceneToJson(dfsph).dump(), "again.json")), sceneToJson(dfsph));

    expectError(with("/parameters/pressureSolver", "dfsph"), "/parameters/pressureSolver", "unknown value \"dfsph\"");
    expectError(with("/parameters/maxDensityError", 0), "/parameters/maxDensityError", "must be in (0, 0.1]");
    expectError(with("/parameters/maxSolverIterations", 0), "/parameters/maxSolverIterations", "");
    doc = with("/parameters/pressureSolver", "divergenceFree");
    doc["parameters"]["wallPressure"] = "mirrored";
    expectError(doc, "/parameters/pressureSolver", "density-map walls");
    doc = with("/parameters/pressureSolver", "divergenceFree");
    doc["openBoundaries"] = json::array({{{"center", {0.5, 0.5, 0.5}}, {"normal", {0, 0, 1}}, {"radius", 0.05}}});
    expectError(doc, "/parameters/pressureSolver", "does not take open boundaries yet");
}

TEST(SceneFile, SaveAndLoadFile) {
    const auto dir = std::filesystem::temp_directory_path() / "atrium_scene_file_test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "saved.json";
    const Scene a = parseScene(kFullScene, "full.json");
    saveSceneFile(a, file);
    const Scene b = loadSceneFile(file);
    EXPECT_EQ(sceneToJson(b), sceneToJson(a));
    std::filesystem::remove_all(dir);
}

TEST(SceneFile, FormatCoversEveryFieldOfSceneH) {
    // A tripwire, not a proof: when a field is added to a struct of Scene.h, read and
    // write it in SceneFile.cpp, document it in docs/scene-format.md, extend the tests,
    // then update the size here (x86-64 sizes; padding may hide a small field).
    if constexpr (sizeof(void*) == 8) {
        EXPECT_EQ(sizeof(SolverParameters), 168u) << "SolverParameters changed: update the scene format";
        EXPECT_EQ(sizeof(FluidBlock), 36u) << "FluidBlock changed: update the scene format";
        EXPECT_EQ(sizeof(Emitter), 44u) << "Emitter changed: update the scene format";
        EXPECT_EQ(sizeof(WallMeshSpec), 36u) << "WallMeshSpec changed: update the scene format";
        EXPECT_EQ(sizeof(Outlet), 44u) << "Outlet changed: update the scene format";
        EXPECT_EQ(sizeof(BoundaryPlane), 52u) << "BoundaryPlane changed: update the scene format";
        EXPECT_EQ(sizeof(BoxContainer), 28u) << "BoxContainer changed: update the scene format";
        EXPECT_EQ(sizeof(OpenBoundary), 68u) << "OpenBoundary changed: update the scene format";
    }
}

// ---------------------------------------------------------------------------------
// Errors. Each names test.json and the JSON Pointer of the field at fault.

TEST(SceneFileErrors, SyntaxErrorsGiveLineAndColumn) {
    expectError(std::string("{\n  \"name\": \"x\",\n  \"parameters\": {,}\n}"), "line 3, column 18", "JSON syntax error");
    expectError(std::string(""), "line 1, column 0", "JSON syntax error");
    expectError(std::string("{\"name\": \"x\"} trailing"), "line 1, column 17", "JSON syntax error");
    expectError(std::string("{\"name\": \"\xff\"}"), "line 1, column 11", "JSON syntax error");
    expectError(std::string("{\"a\": 1 // comment\n}"), "line 1, column 9", "JSON syntax error");
}

TEST(SceneFileErrors, OpenBoundaryErrorsNameTheField) {
    const json disc = {{"center", {0.5, 0.5, 0.5}}, {"normal", {0, 0, 1}}, {"radius", 0.05}};
    const auto withOpen = [&](json boundary) {
        json doc = baseScene();
        doc["openBoundaries"] = json::array({std::move(boundary)});
        return doc;
    };
    json b = disc;
    b.erase("radius");
    expectError(withOpen(b), "/openBoundaries/0/radius", "required field is missing");
    b = disc;
    b["radius"] = -1;
    expectError(withOpen(b), "/openBoundaries/0/radius", "must be > 0");
    b = disc;
    b["normal"] = {0, 0, 0};
    expectError(withOpen(b), "/openBoundaries/0/normal", "must not be the zero vector");
    b = disc;
    b["shape"] = "disk";
    expectError(withOpen(b), "/openBoundaries/0/shape", "did you mean \"disc\"");
    b = disc;
    b["halfWidth"] = 0.1;
    expectError(withOpen(b), "/openBoundaries/0/halfWidth", "unknown field");
    b = disc;
    b["depth"] = 0.001; // below the kernel radius
    expectError(withOpen(b), "/openBoundaries/0/depth", "at least kernelRadius");
    b = disc;
    b["velocity"] = "fixed";
    expectError(withOpen(b), "/openBoundaries/0/velocity", "unknown value \"fixed\"");
    b = disc;
    b["velocity"] = true;
    expectError(withOpen(b), "/openBoundaries/0/velocity", "expected \"extrapolated\" or an inflow speed");
    b = disc;
    b["pressure"] = 1e9;
    expectError(withOpen(b), "/openBoundaries/0/pressure", "maxPressure");
    json rect = {{"shape", "rectangle"}, {"center", {0.5, 0.5, 0.5}}, {"normal", {0, 0, 1}}, {"axis", {0, 0, 2}},
                 {"halfWidth", 0.1}, {"halfHeight", 0.1}};
    expectError(withOpen(rect), "/openBoundaries/0/axis", "must not be parallel to the normal");
    rect["axis"] = {1, 0, 0};
    rect.erase("halfHeight");
    expectError(withOpen(rect), "/openBoundaries/0/halfHeight", "required field is missing");
    json doc = baseScene();
    doc["openBoundaries"] = json::array();
    for (int i = 0; i <= kMaxOpenBoundaries; ++i) doc["openBoundaries"].push_back(disc);
    expectError(doc, "/openBoundaries", "at most 8 open boundaries");
}

TEST(SceneFileErrors, StructuralErrors) {
    expectError(std::string("[1, 2]"), "/", "expected an object, got array");
    expectError(std::string(R"({"name": "a", "name": "b"})"), "/name", "duplicate key");
    expectError(std::string(R"({"planes": [{"point": [0,0,0], "point": [1,1,1]}]})"), "/planes/0/point", "duplicate key");
    std::string deep(100, '[');
    expectError(deep, "/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0/0", "nested deeper than 32");
}

TEST(SceneFileErrors, WrongTypes) {
    expectError(with("/emitters/0/speed", "fast"), "/emitters/0/speed", "expected a number, got string");
    expectError(with("/parameters/zOrder", 1), "/parameters/zOrder", "expected true or false, got number");
    expectError(with("/name", 3), "/name", "expected a string, got number");
    expectError(with("/parameters", json::array()), "/parameters", "expected an object, got array");
    expectError(with("/fluidBlocks", json::object()), "/fluidBlocks", "expected an array, got object");
    expectError(with("/planes/0", 5), "/planes/0", "expected an object, got number");
    expectError(with("/parameters/gravity", {0, -9.81}), "/parameters/gravity", "expected an array of 3 numbers, got 2 elements");
    expectError(with("/parameters/gravity", "down"), "/parameters/gravity", "expected an array of 3 numbers, got string");
    expectError(with("/parameters/gravity", {0, "x", 0}), "/parameters/gravity/1", "expected a number, got string");
    expectError(with("/parameters/restDensity", nullptr), "/parameters/restDensity", "expected a number, got null");
    expectError(with("/parameters/substepsPerFrame", 2.5), "/parameters/substepsPerFrame", "expected an integer, got 2.5");
    expectError(with("/parameters/equationOfState", 7), "/parameters/equationOfState", "expected a string, got number");
}

TEST(SceneFileErrors, UnknownFieldsSuggestTheClosestName) {
    json doc = baseScene();
    doc["parameters"]["kernelRadus"] = 0.02;
    expectError(doc, "/parameters/kernelRadus", "unknown field (did you mean \"kernelRadius\"?)");
    doc = baseScene();
    doc["parameters"]["kernel_radius"] = 0.02;
    expectError(doc, "/parameters/kernel_radius", "did you mean \"kernelRadius\"?");
    doc = baseScene();
    doc["emitters"][0]["sped"] = 1;
    expectError(doc, "/emitters/0/sped", "did you mean \"speed\"?");
    doc = baseScene();
    doc["container"]["colour"] = "red";
    expectError(doc, "/container/colour", "unknown field (known fields: \"min\", \"max\", \"restitution\")");
    doc = baseScene();
    doc["soundSpeed"] = 20;
    expectError(doc, "/soundSpeed", "unknown field (it belongs in \"parameters\")");
    doc = baseScene();
    doc["a/b~c"] = 1;
    expectError(doc, "/a~1b~0c", "unknown field");
    expectError(with("/parameters/equationOfState", "tiat"), "/parameters/equationOfState",
                "unknown value \"tiat\" (did you mean \"tait\"?)");
    expectError(with("/planes/0/type", "oneway"), "/planes/0/type", "did you mean \"one-way\"?");
    // Fields of the other variant are unknown.
    expectError(with("/outlets/0", {{"type", "box"}, {"min", {0, 0, 0}}, {"max", {1, 1, 1}}, {"radius", 1}}),
                "/outlets/0/radius", "unknown field");
    expectError(with("/wall", {{"type", "none"}, {"radius", 1}}), "/wall/radius", "unknown field");
}

TEST(SceneFileErrors, MissingRequiredFields) {
    expectError(without("/fluidBlocks/0", "max"), "/fluidBlocks/0/max", "required field is missing");
    expectError(without("/container", "min"), "/container/min", "required field is missing");
    expectError(without("/outlets/0", "type"), "/outlets/0/type", "required field is missing");
    expectError(without("/outlets/0", "radius"), "/outlets/0/radius", "required field is missing");
    expectError(with("/wall", json::object()), "/wall/radius", "required field is missing");
}

TEST(SceneFileErrors, ImpossibleValues) {
    expectError(with("/parameters/kernelRadius", -1), "/parameters/kernelRadius", "must be > 0 (got -1)");
    expectError(with("/parameters/particleSpacing", 0), "/parameters/particleSpacing", "must be > 0 (got 0)");
    expectError(with("/parameters/soundSpeed", -20), "/parameters/soundSpeed", "must be > 0 (got -20)");
    expectError(with("/parameters/frameRate", 0), "/parameters/frameRate", "must be > 0");
    expectError(with("/parameters/maxTimeStep", 0), "/parameters/maxTimeStep", "must be > 0");
    expectError(with("/parameters/referenceDensity", 0), "/parameters/referenceDensity", "must be > 0");
    expectError(with("/parameters/restDensity", -1000), "/parameters/restDensity", "must be > 0");
    expectError(with("/parameters/viscosity", -0.1), "/parameters/viscosity", "must be >= 0 (got -0.1)");
    expectError(with("/parameters/substepsPerFrame", 0), "/parameters/substepsPerFrame", "must be >= 1 (got 0)");
    expectError(with("/parameters/maxParticles", 0), "/parameters/maxParticles", "must be >= 1 (got 0)");
    expectError(with("/parameters/maxParticles", -5), "/parameters/maxParticles", "must be >= 1 (got -5)");
    expectError(with("/parameters/cflNumber", 0), "/parameters/cflNumber", "must be in (0, 1] (got 0)");
    expectError(with("/parameters/cflNumber", 1.5), "/parameters/cflNumber", "must be in (0, 1] (got 1.5)");
    EXPECT_NO_THROW(parseScene(with("/parameters/cflNumber", 1).dump(), "test.json"));
    expectError(with("/parameters/kernelRadius", 0.005), "/parameters/kernelRadius",
                "must be >= particleSpacing 0.01 (got 0.005)");
    expectError(with("/parameters/wallRestitution", 1.5), "/parameters/wallRestitution", "must be in [0, 1] (got 1.5)");
    expectError(with("/container/restitution", -0.1), "/container/restitution", "must be in [0, 1] (got -0.1)");
    expectError(with("/planes/0/restitution", 2), "/planes/0/restitution", "must be in [0, 1] (got 2)");
    expectError(with("/container/max", {1, 0, 1}), "/container/max", "must be greater than min on every axis (y: max 0 <= min 0)");
    expectError(with("/fluidBlocks/0/max", {0.2, 0.2, -0.1}), "/fluidBlocks/0/max", "must be greater than min");
    expectError(with("/parameters/domain", {{"min", {0, 0, 0}}, {"max", {-1, 1, 1}}}), "/parameters/domain/max",
                "must be greater than min");
    expectError(with("/outlets/0", {{"type", "box"}, {"min", {0, 0, 0}}, {"max", {0, 1, 1}}}), "/outlets/0/max",
                "must be greater than min");
    expectError(with("/outlets/0/radius", 0), "/outlets/0/radius", "must be > 0");
    expectError(with("/emitters/0/direction", {0, 0, 0}), "/emitters/0/direction", "must not be the zero vector");
    expectError(with("/planes/0/normal", {0, 0, 0}), "/planes/0/normal", "must not be the zero vector");
    expectError(with("/planes/0/radius", -1), "/planes/0/radius", "must be >= 0");
    expectError(with("/planes/1/hole/depth", -0.1), "/planes/1/hole/depth", "must be >= 0");
    expectError(with("/planes/1/hole/radius", -1), "/planes/1/hole/radius", "must be >= 0");
    expectError(with("/emitters/0/radius", 0), "/emitters/0/radius", "must be > 0");
    expectError(with("/emitters/0/speed", 0), "/emitters/0/speed", "must be > 0");
    expectError(with("/emitters/0/rate", -1), "/emitters/0/rate", "must be >= 0");
    json doc = baseScene();
    doc["emitters"][0]["start"] = 2;
    doc["emitters"][0]["end"] = 1;
    expectError(doc, "/emitters/0/end", "must be >= start 2 (got 1)");
    expectError(with("/emitters/0/position", {2, 0.5, 0.5}), "/emitters/0/position", "outside the container");
    expectError(with("/fluidBlocks/0/max", {0.2, 1.5, 0.2}), "/fluidBlocks/0/max",
                "not inside the container (y: max 1.5 > container max 1)");
    expectError(with("/fluidBlocks/0/max", {0.2, 0.005, 0.2}), "/fluidBlocks/0/max",
                "the fluid block is thinner than particleSpacing 0.01 along y (0.005): it would hold no particle");
    expectError(with("/fluidBlocks/0/min", {-0.5, 0, 0}), "/fluidBlocks/0/min", "not inside the container (x: min -0.5");
    doc = baseScene();
    doc["parameters"]["restDensity"] = 1000;
    doc["parameters"]["restDensitySource"] = "all";
    expectError(doc, "/parameters/restDensitySource", "only used when \"restDensity\" is not given");
    doc = baseScene();
    doc["parameters"]["equationOfState"] = "tait";
    doc["parameters"]["linearStiffness"] = 100;
    expectError(doc, "/parameters/linearStiffness", "only used with \"equationOfState\": \"linear\"");
    doc["parameters"]["equationOfState"] = "linear";
    EXPECT_NO_THROW(parseScene(doc.dump(), "test.json"));
    doc = baseScene();
    doc["parameters"]["maxTension"] = 1000;
    expectError(doc, "/parameters/maxTension", "only used with \"clampNegativePressure\": false");
    doc["parameters"]["clampNegativePressure"] = false;
    EXPECT_NO_THROW(parseScene(doc.dump(), "test.json"));
    doc["parameters"]["maxTension"] = -5;
    expectError(doc, "/parameters/maxTension", "");
}

TEST(SceneFileErrors, NumbersTooLargeForAFloat) {
    expectError(with("/parameters/maxPressure", 1e39), "/parameters/maxPressure", "out of range for a 32-bit float (got 1e+39)");
    expectError(with("/parameters/gravity", {0, 0, -1e39}), "/parameters/gravity/2", "out of range for a 32-bit float");
    expectError(std::string(R"({"parameters": {"gravity": [0, 0, 1e400]}})"), "/parameters/gravity/2", "number overflow");
    expectError(with("/parameters/substepsPerFrame", 1e12), "/parameters/substepsPerFrame", "must be <= 100000");
    expectError(with("/parameters/maxParticles", 18446744073709551615ull), "/parameters/maxParticles", "must be <= 2147483647");
}

TEST(SceneFileErrors, SizesThatWouldExhaustMemory) {
    json doc = baseScene();
    doc["parameters"]["particleSpacing"] = 1e-5;
    doc["parameters"]["kernelRadius"] = 2e-5;
    expectError(doc, "/parameters/kernelRadius", "neighbour grid would need about");
    doc["parameters"]["particleSpacing"] = 1e-3;
    doc["parameters"]["kernelRadius"] = 5e-3;
    expectError(doc, "/fluidBlocks/0", "more than maxParticles (2000000)");
}

TEST(SceneFileErrors, WallValues) {
    json sphere = {{"type", "sphere"}, {"center", {0.5, 0.5, 0.5}}, {"radius", 0.4}};
    EXPECT_NO_THROW(parseScene(with("/wall", sphere).dump(), "test.json"));
    sphere["pulseAmplitude"] = 1.0;
    expectError(with("/wall", sphere), "/wall/pulseAmplitude", "must be in [0, 1) (got 1)");
    sphere["pulseAmplitude"] = 0.1;
    sphere["subdivisions"] = 9;
    expectError(with("/wall", sphere), "/wall/subdivisions", "must be <= 7 (got 9)");
    sphere["subdivisions"] = 3;
    sphere["radius"] = 0;
    expectError(with("/wall", sphere), "/wall/radius", "must be > 0 (got 0)");
    sphere["radius"] = 0.4;
    sphere["pulsePeriod"] = 0;
    expectError(with("/wall", sphere), "/wall/pulsePeriod", "must be > 0");
    sphere["pulsePeriod"] = 1;
    sphere["fieldCellSize"] = 1e-6;
    expectError(with("/wall", sphere), "/wall/fieldCellSize", "distance field would need about");
    sphere["type"] = "cube";
    expectError(with("/wall", sphere), "/wall/type", "unknown value \"cube\"");
}

TEST(SceneFileErrors, SceneLevelRequirements) {
    json doc = baseScene();
    doc.erase("fluidBlocks");
    doc.erase("emitters");
    expectError(doc, "/fluidBlocks", "the scene has no fluid");
    doc = baseScene();
    doc.erase("container");
    expectError(doc, "/container", "neither a container nor a wall");
    // A wall instead of a container is fine if the fluid reaches inside it.
    doc["wall"] = {{"type", "sphere"}, {"center", {0.1, 0.1, 0.1}}, {"radius", 0.3}};
    doc["emitters"][0]["position"] = {0.1, 0.1, 0.1};
    EXPECT_NO_THROW(parseScene(doc.dump(), "test.json"));
    doc["fluidBlocks"][0] = {{"min", {2, 2, 2}}, {"max", {3, 3, 3}}};
    expectError(doc, "/fluidBlocks/0", "lies entirely outside the wall sphere");
}

TEST(SceneFileErrors, ValidateInMemoryScene) {
    Scene s;
    s.container = BoxContainer{{{0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}}};
    s.fluidBlocks.push_back(FluidBlock{{{0.f, 0.f, 0.f}, {0.5f, 0.5f, 0.5f}}, {}});
    s.parameters.gravity.y = std::numeric_limits<float>::quiet_NaN();
    try {
        validateScene(s, "memory");
        ADD_FAILURE() << "NaN accepted";
    } catch (const SceneError& e) {
        EXPECT_EQ(e.location(), "/parameters/gravity/1");
        EXPECT_NE(std::string(e.what()).find("must be a finite number"), std::string::npos) << e.what();
    }
    s.parameters.gravity.y = 0.f;
    s.planes.push_back(BoundaryPlane{{0.5f, 0.5f, 0.5f}, {0.f, 0.f, 5.f}});
    validateScene(s, "memory");
    EXPECT_EQ(s.planes[0].normal, (Vec3{0.f, 0.f, 1.f}));
}

TEST(SceneFileErrors, FileErrorsNameTheFile) {
    const auto missing = std::filesystem::temp_directory_path() / "atrium_no_such_scene.json";
    try {
        (void)loadSceneFile(missing);
        ADD_FAILURE() << "missing file accepted";
    } catch (const SceneError& e) {
        EXPECT_NE(std::string(e.what()).find("atrium_no_such_scene.json"), std::string::npos) << e.what();
    }
    const auto dir = std::filesystem::temp_directory_path() / "atrium_scene_error_test";
    std::filesystem::create_directories(dir);
    const auto file = dir / "dam.json";
    {
        std::ofstream out(file);
        out << "{\n  \"parameters\": {\n    \"kernelRadius\": -1\n  }\n}\n";
    }
    try {
        (void)loadSceneFile(file);
        ADD_FAILURE() << "bad file accepted";
    } catch (const SceneError& e) {
        EXPECT_EQ(std::string(e.what()), file.string() + ": /parameters/kernelRadius: must be > 0 (got -1)");
        EXPECT_EQ(e.problem(), "must be > 0 (got -1)");
    }
    try {
        (void)loadSceneFile(dir);
        ADD_FAILURE() << "directory accepted";
    } catch (const SceneError& e) {
        EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
    }
    std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------------------------
// Shipped scenes.

std::vector<std::filesystem::path> contentScenes() {
    std::vector<std::filesystem::path> files;
    const std::filesystem::path dir = std::filesystem::path(ATRIUM_CONTENT_DIR) / "scenes";
    for (const auto& entry : std::filesystem::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    return files;
}

TEST(ContentScenes, EveryShippedSceneLoadsAndRoundTrips) {
    const auto files = contentScenes();
    EXPECT_GE(files.size(), 4u);
    for (const auto& file : files) {
        SCOPED_TRACE(file.string());
        try {
            const Scene s = loadSceneFile(file);
            EXPECT_FALSE(s.name.empty());
            const Scene back = parseScene(sceneToJson(s).dump(), file.string());
            EXPECT_EQ(sceneToJson(back), sceneToJson(s));
        } catch (const SceneError& e) {
            ADD_FAILURE() << e.what();
        }
    }
}

TEST(ContentScenes, ShippedScenesHaveTheirIngredients) {
    const std::filesystem::path dir = std::filesystem::path(ATRIUM_CONTENT_DIR) / "scenes";

    const Scene dam = loadSceneFile(dir / "dam-break.json");
    ASSERT_TRUE(dam.container.has_value());
    ASSERT_EQ(dam.fluidBlocks.size(), 1u);
    const Vec3 column = dam.fluidBlocks[0].bounds.size();
    const Vec3 tank = dam.container->bounds.size();
    const float a = column.x;
    EXPECT_NEAR(a, 0.1f, 1e-6f);
    EXPECT_NEAR(column.z, 2.f * a, 1e-6f);          // column height 2a
    EXPECT_NEAR(tank.x, 5.f * a, 1e-6f);            // tank length 5a
    EXPECT_NEAR(tank.y, 4.f * dam.parameters.particleSpacing, 1e-6f); // thin: 4 spacings deep
    EXPECT_NEAR(column.y, tank.y, 1e-6f);
    EXPECT_EQ(dam.wall.kind, WallMeshSpec::Kind::None);

    const Scene hydro = loadSceneFile(dir / "hydrostatic.json");
    ASSERT_TRUE(hydro.container.has_value());
    EXPECT_EQ(hydro.fluidBlocks.size(), 1u);
    EXPECT_TRUE(hydro.emitters.empty());

    const Scene sphere = loadSceneFile(dir / "pulsing-sphere.json");
    EXPECT_FALSE(sphere.container.has_value());
    EXPECT_EQ(sphere.wall.kind, WallMeshSpec::Kind::Sphere);
    EXPECT_GT(sphere.wall.pulseAmplitude, 0.f);
    EXPECT_LT(sphere.parameters.gravity.z, 0.f);
    EXPECT_FALSE(sphere.fluidBlocks.empty());

    const Scene valve = loadSceneFile(dir / "valve-demo.json");
    ASSERT_TRUE(valve.container.has_value());
    EXPECT_FALSE(valve.emitters.empty());
    EXPECT_FALSE(valve.outlets.empty());
    EXPECT_TRUE(std::any_of(valve.planes.begin(), valve.planes.end(),
                            [](const BoundaryPlane& p) { return p.kind == PlaneKind::OneWay; }));
}

} // namespace
} // namespace atrium::sph
