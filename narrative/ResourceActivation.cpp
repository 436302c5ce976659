#include "narrative/ResourceActivation.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace atrium::narrative {

namespace {

enum Mode : std::uint8_t { kSphereAndTarget = 0, kSphereOnly = 1, kGlobal = 2 };

/// The frustum in the camera's frame: a point d (relative to the eye) is inside when
/// near < z <= far, |x| <= z tanH and |y| <= z tanV with x, y, z its components along
/// right, up and forward.
struct FrustumFrame {
    Vec3 eye, right, up, forward;
    double tanH, tanV, nearZ, farZ;

    FrustumFrame(const CameraPose& pose, const ViewFrustum& f)
        : eye(pose.position()), right(pose.right()), up(pose.up()), forward(pose.forward()) {
        tanV = std::tan(0.5 * f.verticalFov);
        tanH = tanV * f.aspect;
        nearZ = f.nearDistance;
        farZ = f.farDistance;
    }

    bool contains(double dx, double dy, double dz) const {
        const double z = dx * forward.x + dy * forward.y + dz * forward.z;
        const double x = dx * right.x + dy * right.y + dz * right.z;
        const double y = dx * up.x + dy * up.y + dz * up.z;
        return z > nearZ && z <= farZ && std::abs(x) <= z * tanH && std::abs(y) <= z * tanV;
    }
};

} // namespace

bool inFrustum(const Vec3& target, const CameraPose& pose, const ViewFrustum& frustum) {
    const FrustumFrame f(pose, frustum);
    const Vec3 d = target - pose.position();
    return f.contains(d.x, d.y, d.z);
}

bool isActive(const Resource& r, const CameraPose& pose, const ViewFrustum& frustum) {
    if (r.global) return false;
    if (lengthSquared(pose.position() - r.centre) > r.radius * r.radius) return false;
    return r.ignoreTarget || inFrustum(r.target, pose, frustum);
}

void ResourceActivation::setResources(std::span<const Resource> resources) {
    const std::size_t n = resources.size();
    for (auto* v : {&cx_, &cy_, &cz_, &radius2_, &tx_, &ty_, &tz_}) v->resize(n);
    mode_.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Resource& r = resources[i];
        cx_[i] = r.centre.x;
        cy_[i] = r.centre.y;
        cz_[i] = r.centre.z;
        radius2_[i] = r.radius * r.radius;
        tx_[i] = r.target.x;
        ty_[i] = r.target.y;
        tz_[i] = r.target.z;
        mode_[i] = r.global ? kGlobal : r.ignoreTarget ? kSphereOnly : kSphereAndTarget;
    }
    active_.clear();
    previous_.clear();
    entered_.clear();
    left_.clear();
}

const std::vector<ResourceActivation::Index>& ResourceActivation::update(const CameraPose& pose,
                                                                          const ViewFrustum& frustum) {
    std::swap(previous_, active_);
    active_.clear();
    const FrustumFrame f(pose, frustum);
    const Vec3 eye = pose.position();
    const std::size_t n = radius2_.size();
    for (std::size_t i = 0; i < n; ++i) {
        // The sphere test first: it rejects almost every resource of a large scene.
        const double ex = eye.x - cx_[i], ey = eye.y - cy_[i], ez = eye.z - cz_[i];
        if (ex * ex + ey * ey + ez * ez > radius2_[i] || mode_[i] == kGlobal) continue;
        if (mode_[i] == kSphereOnly || f.contains(tx_[i] - eye.x, ty_[i] - eye.y, tz_[i] - eye.z))
            active_.push_back(Index(i));
    }
    entered_.clear();
    left_.clear();
    std::set_difference(active_.begin(), active_.end(), previous_.begin(), previous_.end(), std::back_inserter(entered_));
    std::set_difference(previous_.begin(), previous_.end(), active_.begin(), active_.end(), std::back_inserter(left_));
    return active_;
}

std::vector<ResourceActivation::Index> listedResources(std::span<const Resource> resources,
                                                       std::span<const ResourceActivation::Index> active,
                                                       std::span<const ResourceCategory> categories,
                                                       const ResourceFilter& filter) {
    using Index = ResourceActivation::Index;
    std::vector<Index> listed;
    auto take = [&](Index i) {
        if (filter.category.empty() || resources[i].category == filter.category) listed.push_back(i);
    };
    auto a = active.begin();
    for (Index i = 0; i < Index(resources.size()); ++i) {
        while (a != active.end() && *a < i) ++a;
        if (resources[i].global || (a != active.end() && *a == i)) take(i);
    }
    auto categoryRank = [&](const std::string& name) {
        for (std::size_t k = 0; k < categories.size(); ++k)
            if (categories[k].name == name) return k;
        return categories.size(); // uncategorised or unknown: last
    };
    switch (filter.order) {
    case ResourceOrder::Document: break;
    case ResourceOrder::Name:
        std::stable_sort(listed.begin(), listed.end(), [&](Index x, Index y) { return resources[x].name < resources[y].name; });
        break;
    case ResourceOrder::Category:
        std::stable_sort(listed.begin(), listed.end(), [&](Index x, Index y) {
            const auto cx = categoryRank(resources[x].category), cy = categoryRank(resources[y].category);
            return cx != cy ? cx < cy : resources[x].name < resources[y].name;
        });
        break;
    }
    return listed;
}

} // namespace atrium::narrative
