#include "widgets/view/HeartWall.h"

#include "widgets/view/ShaderLibrary.h"
#include "widgets/flow/SimulationRunner.h"

#include <osg/BlendFunc>
#include <osg/Depth>

namespace atrium::widgets {

HeartWall::HeartWall(Kind kind)
    : geode_(new osg::Geode), geometry_(new osg::Geometry), vertices_(new osg::Vec3Array),
      normals_(new osg::Vec3Array), elements_(new osg::DrawElementsUInt(GL_TRIANGLES)),
      polygonMode_(new osg::PolygonMode(osg::PolygonMode::FRONT_AND_BACK, osg::PolygonMode::FILL)),
      opacity_(new osg::Uniform("opacity", kind == Kind::Shell ? 0.12f : kind == Kind::Leaflets ? 0.8f : 0.35f)),
      clipEnabled_(new osg::Uniform("clipEnabled", false)),
      clipPlane_(new osg::Uniform("clipPlane", osg::Vec4(1, 0, 0, 0))) {
    geometry_->setUseDisplayList(false);
    geometry_->setUseVertexBufferObjects(true);
    geometry_->setDataVariance(osg::Object::DYNAMIC);
    geometry_->setVertexArray(vertices_.get());
    geometry_->setNormalArray(normals_.get(), osg::Array::BIND_PER_VERTEX);
    geometry_->addPrimitiveSet(elements_.get());
    geode_->addDrawable(geometry_.get());
    geode_->setName(kind == Kind::Shell ? "heart shell" : kind == Kind::Leaflets ? "valve leaflets" : "heart wall");

    osg::StateSet* ss = geode_->getOrCreateStateSet();
    ss->setAttributeAndModes(shaderProgram("heart_wall").get(), osg::StateAttribute::ON);
    ss->addUniform(new osg::Uniform("wallColor", kind == Kind::Shell      ? osg::Vec3(0.85f, 0.72f, 0.66f)
                                                 : kind == Kind::Leaflets ? osg::Vec3(0.95f, 0.88f, 0.74f)
                                                                          : osg::Vec3(0.80f, 0.42f, 0.40f)));
    ss->addUniform(opacity_.get());
    ss->addUniform(clipEnabled_.get());
    ss->addUniform(clipPlane_.get());
    ss->setAttributeAndModes(polygonMode_.get(), osg::StateAttribute::ON);
    ss->setMode(GL_CULL_FACE, osg::StateAttribute::OFF);
    ss->setMode(GL_BLEND, osg::StateAttribute::ON);
    // The colour blends; the framebuffer's alpha stays 1 (the clear's). Blended into it,
    // it fell below 1 behind the translucent wall, and Qt, composing the view's
    // framebuffer into the window, showed those pixels cyan; screenshots had holes.
    ss->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE));
    // Translucent: drawn after the blood, tested against its depth but not writing any.
    ss->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, false));
    // The shell lies outside the wall: drawn after it, over it.
    // The leaflets lie inside the wall: drawn before it.
    ss->setRenderBinDetails(kind == Kind::Shell ? 11 : kind == Kind::Leaflets ? 9 : 10, "RenderBin");
}

void HeartWall::update(const BloodSnapshot& snapshot) {
    update(snapshot.wallVertexMm, snapshot.wallTriangles, snapshot.wallTopology);
}

void HeartWall::update(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                       std::uint64_t topology) {
    const std::size_t nv = vertexMm.size() / 3;
    vertices_->resize(nv);
    bounds_.init();
    for (std::size_t v = 0; v < nv; ++v) {
        (*vertices_)[v].set(vertexMm[3 * v], vertexMm[3 * v + 1], vertexMm[3 * v + 2]);
        bounds_.expandBy((*vertices_)[v]);
    }
    if (topology != topology_) {
        elements_->assign(triangles.begin(), triangles.end());
        elements_->dirty();
        topology_ = topology;
    }
    // Area-weighted vertex normals (the cross product's length is twice the area).
    normals_->assign(nv, osg::Vec3());
    for (std::size_t t = 0; t + 2 < elements_->size(); t += 3) {
        const unsigned a = (*elements_)[t], b = (*elements_)[t + 1], c = (*elements_)[t + 2];
        if (a >= nv || b >= nv || c >= nv) continue;
        const osg::Vec3 n = ((*vertices_)[b] - (*vertices_)[a]) ^ ((*vertices_)[c] - (*vertices_)[a]);
        (*normals_)[a] += n;
        (*normals_)[b] += n;
        (*normals_)[c] += n;
    }
    for (auto& n : *normals_) n.normalize();
    vertices_->dirty();
    normals_->dirty();
    geometry_->dirtyBound();
}

void HeartWall::setOpacity(float opacity) { opacity_->set(opacity); }

void HeartWall::setWireframe(bool on) {
    polygonMode_->setMode(osg::PolygonMode::FRONT_AND_BACK, on ? osg::PolygonMode::LINE : osg::PolygonMode::FILL);
}

void HeartWall::setClipPlane(bool enabled, const osg::Vec4& plane) {
    clipEnabled_->set(enabled);
    if (enabled) clipPlane_->set(plane);
}

void HeartWall::setVisible(bool visible) { geode_->setNodeMask(visible ? ~0u : 0u); }

} // namespace atrium::widgets
