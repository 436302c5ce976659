#include "widgets/view/BloodSpheres.h"

#include "widgets/view/ShaderLibrary.h"
#include "widgets/flow/SimulationRunner.h"

#include <osg/PointSprite>

namespace atrium::widgets {

BloodSpheres::BloodSpheres()
    : geode_(new osg::Geode), geometry_(new osg::Geometry), positions_(new osg::Vec3Array),
      colors_(new osg::Vec4ubArray), points_(new osg::DrawArrays(GL_POINTS, 0, 0)),
      radius_(new osg::Uniform("radius", 1.0f)), viewportHeight_(new osg::Uniform("viewportHeight", 720.0f)) {
    geometry_->setUseDisplayList(false);
    geometry_->setUseVertexBufferObjects(true);
    geometry_->setDataVariance(osg::Object::DYNAMIC);
    geometry_->setVertexArray(positions_.get());
    geometry_->setColorArray(colors_.get(), osg::Array::BIND_PER_VERTEX);
    colors_->setNormalize(true);
    geometry_->addPrimitiveSet(points_.get());
    geometry_->setCullingActive(false); // bounds change every frame
    geode_->addDrawable(geometry_.get());
    geode_->setName("blood");

    osg::StateSet* ss = geode_->getOrCreateStateSet();
    ss->setAttributeAndModes(shaderProgram("blood_spheres").get(), osg::StateAttribute::ON);
    ss->setTextureAttributeAndModes(0, new osg::PointSprite, osg::StateAttribute::ON);
    ss->setMode(GL_VERTEX_PROGRAM_POINT_SIZE, osg::StateAttribute::ON);
    ss->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
    ss->addUniform(radius_.get());
    ss->addUniform(viewportHeight_.get());
    ss->setRenderBinDetails(0, "RenderBin"); // opaque, before the translucent wall
}

void BloodSpheres::update(const BloodSnapshot& snapshot, ColorQuantity quantity, ColorRange range) {
    const std::size_t n = snapshot.particles();
    const std::vector<float>* values = snapshot.values(quantity);
    positions_->resize(n);
    colors_->resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        (*positions_)[i].set(snapshot.positionMm[3 * i], snapshot.positionMm[3 * i + 1], snapshot.positionMm[3 * i + 2]);
        const auto c = colorFor(quantity, range, values && i < values->size() ? (*values)[i] : 0.f);
        (*colors_)[i].set(c[0], c[1], c[2], 255);
    }
    positions_->dirty();
    colors_->dirty();
    points_->setCount(GLsizei(n));
    geometry_->dirtyBound();
    drawn_ = n;
}

void BloodSpheres::setRadiusMm(float radius) { radius_->set(radius); }
void BloodSpheres::setViewportHeight(int pixels) { viewportHeight_->set(float(pixels)); }
void BloodSpheres::setVisible(bool visible) { geode_->setNodeMask(visible ? ~0u : 0u); }

} // namespace atrium::widgets
