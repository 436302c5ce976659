#include "widgets/lecture/ResourceGizmo.h"

#include <osg/BlendFunc>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/LineWidth>
#include <osg/MatrixTransform>
#include <osg/PolygonMode>
#include <osg/ShapeDrawable>
#include <osg/Switch>

namespace atrium::widgets {

namespace {

osg::ref_ptr<osg::Geode> ball(const osg::Vec4& colour, bool wire) {
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    osg::ref_ptr<osg::TessellationHints> hints = new osg::TessellationHints;
    hints->setDetailRatio(wire ? 0.6f : 0.4f);
    osg::ref_ptr<osg::ShapeDrawable> shape = new osg::ShapeDrawable(new osg::Sphere(osg::Vec3(), 1.f), hints.get());
    shape->setColor(colour);
    geode->addDrawable(shape.get());
    osg::StateSet* ss = geode->getOrCreateStateSet();
    if (wire) ss->setAttributeAndModes(new osg::PolygonMode(osg::PolygonMode::FRONT_AND_BACK, osg::PolygonMode::LINE));
    ss->setMode(GL_BLEND, osg::StateAttribute::ON);
    ss->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA));
    ss->setRenderingHint(osg::StateSet::TRANSPARENT_BIN);
    return geode;
}

} // namespace

ResourceGizmo::ResourceGizmo() : switch_(new osg::Switch), sphere_(new osg::MatrixTransform), target_(new osg::MatrixTransform) {
    sphere_->addChild(ball({0.35f, 0.75f, 1.f, 0.45f}, true).get());
    target_->addChild(ball({1.f, 0.85f, 0.2f, 0.95f}, false).get());
    line_ = new osg::Geode;
    switch_->addChild(sphere_.get());
    switch_->addChild(target_.get());
    switch_->addChild(line_.get());
    switch_->setAllChildrenOff();
}

ResourceGizmo::~ResourceGizmo() = default;

osg::Node* ResourceGizmo::node() const { return switch_.get(); }

void ResourceGizmo::set(const narrative::Vec3& c, double r, const narrative::Vec3& t) {
    sphere_->setMatrix(osg::Matrix::scale(r, r, r) * osg::Matrix::translate(c.x, c.y, c.z));
    const double ballRadius = std::max(0.6, 0.04 * r);
    target_->setMatrix(osg::Matrix::scale(ballRadius, ballRadius, ballRadius) * osg::Matrix::translate(t.x, t.y, t.z));
    line_->removeDrawables(0, line_->getNumDrawables());
    osg::ref_ptr<osg::Geometry> g = new osg::Geometry;
    osg::ref_ptr<osg::Vec3Array> v = new osg::Vec3Array;
    v->push_back(osg::Vec3(float(c.x), float(c.y), float(c.z)));
    v->push_back(osg::Vec3(float(t.x), float(t.y), float(t.z)));
    g->setVertexArray(v.get());
    osg::ref_ptr<osg::Vec4Array> colours = new osg::Vec4Array;
    colours->push_back({1.f, 0.85f, 0.2f, 1.f});
    g->setColorArray(colours.get(), osg::Array::BIND_OVERALL);
    g->addPrimitiveSet(new osg::DrawArrays(GL_LINES, 0, 2));
    g->getOrCreateStateSet()->setAttributeAndModes(new osg::LineWidth(2.f));
    line_->addDrawable(g.get());
}

void ResourceGizmo::setVisible(bool visible) {
    if (visible) switch_->setAllChildrenOn();
    else switch_->setAllChildrenOff();
}

bool ResourceGizmo::visible() const { return switch_->getNumChildren() > 0 && switch_->getValue(0); }

} // namespace atrium::widgets
