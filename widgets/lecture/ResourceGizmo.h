#pragma once
// What the resource editor draws in the 3D view while a resource is edited: the camera
// sphere (c, r) as a translucent wire sphere, the target t as a small solid ball, and a
// line from c to t (Poyart 2016 figure 5.5).

#include "narrative/Vec3.h"

#include <osg/ref_ptr>

namespace osg {
class Geode;
class MatrixTransform;
class Node;
class Switch;
}

namespace atrium::widgets {

class ResourceGizmo {
public:
    ResourceGizmo();
    ~ResourceGizmo();
    osg::Node* node() const;
    void set(const narrative::Vec3& centre, double radius, const narrative::Vec3& target);
    void setVisible(bool visible);
    bool visible() const;

private:
    osg::ref_ptr<osg::Switch> switch_;
    osg::ref_ptr<osg::MatrixTransform> sphere_, target_;
    osg::ref_ptr<osg::Geode> line_;
};

} // namespace atrium::widgets
