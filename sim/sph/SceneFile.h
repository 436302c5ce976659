#pragma once
// Scene files: strict JSON (nlohmann/json) <-> atrium::sph::Scene. The format is
// documented field by field in docs/scene-format.md; shipped scenes live in
// content/scenes/.
//
// Strict means: unknown fields, wrong types, values that do not fit a 32-bit float and
// physically impossible values are all errors. Every error is a SceneError whose
// message names the source and the JSON Pointer of the field at fault, for example
//   dam.json: /parameters/kernelRadius: must be > 0 (got -1)
//   dam.json: /emitters/0/speed: expected a number, got string
//   dam.json: /parameters/kernelRadus: unknown field (did you mean "kernelRadius"?)
//   dam.json: line 3, column 5: JSON syntax error: ...
// Omitted fields take the defaults of Scene.h. Emitter directions and plane normals are
// normalised on load.

#include "sim/sph/Scene.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace atrium::sph {

/// A scene file could not be read or is invalid. what() is
/// "<source>: <location>: <problem>", where location is a JSON Pointer
/// ("/parameters/kernelRadius"; "/" for the document itself) or, for syntax errors,
/// "line L, column C". For I/O errors the location is empty and what() is
/// "<source>: <problem>".
class SceneError : public std::runtime_error {
public:
    SceneError(std::string source, std::string location, std::string problem);

    const std::string& source() const noexcept { return source_; }
    /// JSON Pointer of the field at fault, "line L, column C", or empty (I/O).
    const std::string& location() const noexcept { return location_; }
    /// The problem alone, without source and location.
    const std::string& problem() const noexcept { return problem_; }

private:
    std::string source_;
    std::string location_;
    std::string problem_;
};

/// Reads and validates a scene file. The source name in errors is `file` as given.
/// Throws SceneError on I/O, syntax or validation problems.
Scene loadSceneFile(const std::filesystem::path& file);

/// Parses and validates scene JSON text; `sourceName` names it in error messages.
/// Throws SceneError (never any other exception, except std::bad_alloc).
Scene parseScene(std::string_view jsonText, const std::string& sourceName);

/// Same as parseScene for an already parsed document.
Scene sceneFromJson(const nlohmann::json& document, const std::string& sourceName);

/// Checks the values of an in-memory scene with the same rules as a scene file and
/// normalises emitter directions and plane normals. Errors name `sourceName` and the
/// JSON Pointer that the offending field has in the file format.
void validateScene(Scene& scene, const std::string& sourceName);

/// Writes every field of `scene` (optional values only when set; the wall only when it
/// is not None), in the format parseScene reads: for a valid scene,
/// parseScene(sceneToJson(s).dump(), ...) gives back `s` exactly.
nlohmann::json sceneToJson(const Scene& scene);

/// sceneToJson(scene).dump(2) written to `file` whole (a temporary file renamed into
/// place); throws SceneError on I/O errors.
void saveSceneFile(const Scene& scene, const std::filesystem::path& file);

} // namespace atrium::sph
