#pragma once
// GLSL sources kept as files in widgets/view/shaders/ and embedded at build time as Qt
// resources (":/atrium/shaders/<name>").

#include <osg/Program>
#include <string>

namespace atrium::widgets {

/// The embedded source of `fileName` (e.g. "heart_wall.frag"). Throws std::runtime_error
/// naming the file when it is not embedded.
std::string shaderSource(const std::string& fileName);

/// A program of the vertex and fragment shaders `<baseName>.vert` and `<baseName>.frag`.
osg::ref_ptr<osg::Program> shaderProgram(const std::string& baseName);

} // namespace atrium::widgets
