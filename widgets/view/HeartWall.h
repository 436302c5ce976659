#pragma once
// The moving heart wall: shaded, semi-transparent with adjustable opacity, two-sided,
// with an optional clipping plane to look inside and a wireframe toggle. A second one,
// paler, more transparent and drawn after it, shows a display-only shell (an
// epicardium around the chambers).

#include <osg/Geode>
#include <osg/Geometry>
#include <osg/PolygonMode>
#include <osg/Uniform>

#include <cstdint>
#include <vector>

namespace atrium::widgets {

struct BloodSnapshot;

class HeartWall {
public:
    /// The wall; a display-only shell; valve leaflets (heart::ValveLeaflets: paler,
    /// nearly opaque, drawn before the wall).
    enum class Kind { Wall, Shell, Leaflets };
    explicit HeartWall(Kind kind = Kind::Wall);
    osg::Node* node() const { return geode_.get(); }

    /// Uploads the snapshot's wall (vertices every time, triangles when they changed).
    void update(const BloodSnapshot& snapshot);
    /// Uploads a surface: xyz per vertex in mm, three indices per triangle, and a value
    /// that changes whenever the triangles do.
    void update(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles, std::uint64_t topology);
    void setOpacity(float opacity);        ///< 0..1 at normal incidence
    void setWireframe(bool on);
    /// Keeps dot(normal, x) + d >= 0 (world, mm); disabled with enabled = false.
    void setClipPlane(bool enabled, const osg::Vec4& plane = {});
    void setVisible(bool visible);
    const osg::BoundingBox& bounds() const { return bounds_; }
    std::size_t triangles() const { return elements_->size() / 3; }

private:
    osg::ref_ptr<osg::Geode> geode_;
    osg::ref_ptr<osg::Geometry> geometry_;
    osg::ref_ptr<osg::Vec3Array> vertices_, normals_;
    osg::ref_ptr<osg::DrawElementsUInt> elements_;
    osg::ref_ptr<osg::PolygonMode> polygonMode_;
    osg::ref_ptr<osg::Uniform> opacity_, clipEnabled_, clipPlane_;
    std::uint64_t topology_ = ~std::uint64_t(0);
    osg::BoundingBox bounds_;
};

} // namespace atrium::widgets
