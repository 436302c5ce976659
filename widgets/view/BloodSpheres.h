#pragma once
// The blood drawn as sphere impostors (point sprites shaded as lit spheres with true
// depth), coloured plainly or by speed, density error or pressure.

#include "widgets/view/ColorMap.h"

#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Uniform>

namespace atrium::widgets {

struct BloodSnapshot;

class BloodSpheres {
public:
    BloodSpheres();
    osg::Node* node() const { return geode_.get(); }
    /// The particles' point geometry, for other renderings of the same blood (FluidSurface).
    osg::Geometry* geometry() const { return geometry_.get(); }

    /// Uploads the snapshot's particles with colours for `quantity` in `range`.
    void update(const BloodSnapshot& snapshot, ColorQuantity quantity, ColorRange range);
    void setRadiusMm(float radius);
    void setViewportHeight(int pixels);
    void setVisible(bool visible);
    std::size_t drawnParticles() const { return drawn_; }

private:
    osg::ref_ptr<osg::Geode> geode_;
    osg::ref_ptr<osg::Geometry> geometry_;
    osg::ref_ptr<osg::Vec3Array> positions_;
    osg::ref_ptr<osg::Vec4ubArray> colors_;
    osg::ref_ptr<osg::DrawArrays> points_;
    osg::ref_ptr<osg::Uniform> radius_, viewportHeight_;
    std::size_t drawn_ = 0;
};

} // namespace atrium::widgets
