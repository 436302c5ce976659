#pragma once
// Points on the beating heart wall, for the 3D labels of narratives: picking the wall
// under the pointer, and keeping a labelled point on the same spot of the wall while
// it moves. The wall comes as the renderer gets it (BloodSnapshot): xyz floats per
// vertex in mm and three indices per triangle; its connectivity may change over the
// cycle (the interpolated heart switches phase meshes half way between phases).

#include "narrative/Vec3.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace atrium::widgets {

/// The nearest point where the ray origin + s dir (s > 0) meets a triangle, or nullopt.
std::optional<narrative::Vec3> intersectWall(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                                             const narrative::Vec3& origin, const narrative::Vec3& dir);

/// How many times the segment from -> to (mm) crosses the wall's triangles: a point
/// inside a closed surface is seen from outside through one crossing, and each other
/// closed surface in between adds two. A malformed wall crosses nothing.
std::size_t wallCrossings(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                          const narrative::Vec3& from, const narrative::Vec3& to);

/// A point glued to the wall. The first time it sees a connectivity it binds to the
/// point of the wall nearest to where it was in the previous frame (a triangle and
/// barycentric coordinates); from then on it follows that triangle's vertices, so it
/// always lies on the wall. Each connectivity keeps its binding, so after a whole beat the
/// point is where it was a beat before: it does not drift.
class WallAnchor {
public:
    explicit WallAnchor(const narrative::Vec3& point) : point_(point) {}

    /// The point on this wall (mm). `topology` changes whenever the triangles do (as
    /// BloodSnapshot::wallTopology); the connectivity is recognised by its content, so a
    /// connectivity seen before keeps its binding. An empty or malformed wall leaves the
    /// point where it was.
    narrative::Vec3 follow(const std::vector<float>& vertexMm, const std::vector<std::uint32_t>& triangles,
                           std::uint64_t topology);
    const narrative::Vec3& point() const { return point_; }
    /// Connectivities bound so far.
    std::size_t bindings() const { return bindings_.size(); }

private:
    struct Binding {
        std::uint32_t triangle = 0;
        double a = 1.0, b = 0.0; // barycentric weights of the first two corners
    };
    narrative::Vec3 point_;
    std::map<std::uint64_t, Binding> bindings_; // by a hash of the connectivity
    std::optional<std::uint64_t> lastTopology_;
    std::uint64_t lastKey_ = 0;
};

} // namespace atrium::widgets
