#pragma once
// Which embedded resources are active for a camera pose (Poyart 2016 5.5, figure 5.5):
// a resource is active while the camera is inside its sphere (c, r) and its target t lies
// inside the view frustum - or, with ignoreTarget, while the camera is inside the sphere
// whichever way it looks. Global resources are not placed: they are listed always and
// never counted as active here (they cannot "become" active, so they never auto-launch).
//
// The test runs every frame for every resource, so the placement is kept as flat arrays
// (structure of arrays) and one update is a single branch-light pass: 1-6 ns per
// resource on one core (tests/bench: resource_benchmarks, docs/PERFORMANCE.md).

#include "narrative/CameraPose.h"
#include "narrative/Resource.h"

#include <cstdint>
#include <limits>
#include <numbers>
#include <span>
#include <string>
#include <vector>

namespace atrium::narrative {

/// The camera's field of view for the target test (a symmetric perspective frustum).
struct ViewFrustum {
    double verticalFov = 45.0 * std::numbers::pi / 180.0; ///< radians, in (0, pi)
    double aspect = 16.0 / 9.0;                           ///< width / height, > 0
    double nearDistance = 0.0;                            ///< world units along the view axis
    double farDistance = std::numeric_limits<double>::infinity();
};

/// Whether `target` lies inside the frustum of a camera at `pose` (the near plane
/// excluded, the far plane and the side planes included).
bool inFrustum(const Vec3& target, const CameraPose& pose, const ViewFrustum& frustum);

/// Whether one resource is active for `pose` (global resources: false).
bool isActive(const Resource& resource, const CameraPose& pose, const ViewFrustum& frustum);

class ResourceActivation {
public:
    using Index = std::uint32_t;

    /// Takes the placement of `resources`; indices below refer to this order. Forgets
    /// which were active (the next update reports all active ones as entered).
    void setResources(std::span<const Resource> resources);
    std::size_t size() const { return radius2_.size(); }

    /// Tests every resource against `pose`; returns active(). Afterwards entered() and
    /// left() hold the changes since the previous update.
    const std::vector<Index>& update(const CameraPose& pose, const ViewFrustum& frustum);

    /// Indices of the active resources, ascending.
    const std::vector<Index>& active() const { return active_; }
    /// Indices that became active in the last update, ascending (auto-launch candidates).
    const std::vector<Index>& entered() const { return entered_; }
    /// Indices that stopped being active in the last update, ascending.
    const std::vector<Index>& left() const { return left_; }

private:
    std::vector<double> cx_, cy_, cz_, radius2_, tx_, ty_, tz_;
    std::vector<std::uint8_t> mode_; // 0: sphere and target, 1: sphere only, 2: global (never active)
    std::vector<Index> active_, previous_, entered_, left_;
};

/// How the resource bar orders its icons.
enum class ResourceOrder {
    Document, ///< the author's order
    Name,     ///< by name
    Category, ///< by category (in the document's category order), then by name
};

/// What the resource bar lists: the global resources and the active ones, those of
/// `category` only when it is not empty, in `order`.
struct ResourceFilter {
    std::string category;
    ResourceOrder order = ResourceOrder::Document;
};

/// The indices (into `resources`) that the bar shows for `active` (ascending, as
/// ResourceActivation gives them) under `filter`. `categories` gives the category order.
std::vector<ResourceActivation::Index> listedResources(std::span<const Resource> resources,
                                                       std::span<const ResourceActivation::Index> active,
                                                       std::span<const ResourceCategory> categories,
                                                       const ResourceFilter& filter);

} // namespace atrium::narrative
