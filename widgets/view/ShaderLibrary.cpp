#include "widgets/view/ShaderLibrary.h"

#include <QFile>
#include <stdexcept>

namespace atrium::widgets {

std::string shaderSource(const std::string& fileName) {
    QFile file(QString::fromStdString(":/atrium/shaders/" + fileName));
    if (!file.open(QIODevice::ReadOnly)) throw std::runtime_error("shader " + fileName + " is not embedded in the build");
    return file.readAll().toStdString();
}

osg::ref_ptr<osg::Program> shaderProgram(const std::string& baseName) {
    osg::ref_ptr<osg::Program> program = new osg::Program;
    program->setName(baseName);
    program->addShader(new osg::Shader(osg::Shader::VERTEX, shaderSource(baseName + ".vert")));
    program->addShader(new osg::Shader(osg::Shader::FRAGMENT, shaderSource(baseName + ".frag")));
    return program;
}

} // namespace atrium::widgets
