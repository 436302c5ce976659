#pragma once
// Orbit mode: the camera circles a centre point and always looks at it -- the usual
// way to inspect an object, added to the paper's two flying modes (Poyart 2016 5.2)
// for looking at the heart from outside. The camera collides with nothing.
//
// Mouse (dx, dy in pixels, +y down), all while the button is held:
//  - left drag rotates about the centre at a fixed distance, as if grabbing the scene:
//    yaw -= s dx, pitch -= s dy (pitch clamped to +-89 degrees), s = rotateSensitivity()
//  - right drag zooms: distance *= exp(zoomPerPixel() dy) (drag down = farther)
//  - middle drag pans: the centre moves in the view plane so that the scene follows
//    the pointer at the centre's depth: centre -= right (dx w) - up (dy w),
//    w = 2 distance tan(fovY / 2) / viewportHeight world units per pixel
//  - wheel: distance *= zoomPerNotch()^notches (rolled away from the user = closer)
// The mouse is never captured (the cursor stays visible); ToggleMouseCapture is ignored.

#include "narrative/CameraController.h"

#include <numbers>

namespace atrium::narrative {

class OrbitController final : public CameraController {
public:
    static constexpr double DefaultRotateSensitivity = 0.005; ///< rad per pixel
    static constexpr double DefaultZoomPerPixel = 0.005;      ///< log-distance per pixel
    static constexpr double DefaultZoomPerNotch = 0.9;        ///< distance factor per wheel notch
    /// OpenSceneGraph's default vertical field of view (30 degrees), radians; set it to
    /// the view's so that panning tracks the pointer.
    static constexpr double DefaultVerticalFieldOfView = 30.0 * std::numbers::pi / 180.0;

    /// At distance 1 from the origin, looking along +Y.
    OrbitController();

    void handle(const InputEvent& event) override;
    /// Orbit moves happen as the events arrive; nothing is animated.
    void update(double dt) override;
    const CameraPose& pose() const override { return pose_; }
    /// Keeps distance(); the centre becomes the point that far ahead of the pose.
    void setPose(const CameraPose& pose) override;
    Vec3 velocity() const override { return {}; }
    bool mouseCaptured() const override { return false; }
    void setMouseCaptured(bool) override {}
    /// Ends any drag in progress.
    void stop() override;

    /// Camera at eye, orbiting (and looking at) centre. The camera always looks at the
    /// centre, so an eye straight above or below it is moved slightly by the +-89 degree
    /// pitch clamp; eye == centre keeps the view direction at the minimum distance.
    void setLookAt(const Vec3& eye, const Vec3& centre);

    const Vec3& centre() const { return centre_; }
    double distance() const { return distance_; }
    /// Keeps the centre and the view direction; clamped to the distance limits.
    void setDistance(double worldUnits);
    double minDistance() const { return minDistance_; }
    double maxDistance() const { return maxDistance_; }
    /// 0 < minDistance <= maxDistance, world units.
    void setDistanceLimits(double minDistance, double maxDistance);

    double rotateSensitivity() const { return rotateSensitivity_; }
    void setRotateSensitivity(double radiansPerPixel) { rotateSensitivity_ = radiansPerPixel; }
    double zoomPerPixel() const { return zoomPerPixel_; }
    void setZoomPerPixel(double logDistancePerPixel) { zoomPerPixel_ = logDistancePerPixel; }
    double zoomPerNotch() const { return zoomPerNotch_; }
    /// Distance factor per notch rolled away from the user, in (0, 1).
    void setZoomPerNotch(double factor);
    double verticalFieldOfView() const { return verticalFieldOfView_; }
    void setVerticalFieldOfView(double radians);

private:
    void placeCamera(); // pose position from centre, distance and the view direction

    CameraPose pose_;
    Vec3 centre_{0.0, 1.0, 0.0};
    double distance_ = 1.0;
    double minDistance_ = 1e-3, maxDistance_ = 1e6;
    bool rotating_ = false, zooming_ = false, panning_ = false;
    double lastX_ = 0.0, lastY_ = 0.0;
    double rotateSensitivity_ = DefaultRotateSensitivity;
    double zoomPerPixel_ = DefaultZoomPerPixel;
    double zoomPerNotch_ = DefaultZoomPerNotch;
    double verticalFieldOfView_ = DefaultVerticalFieldOfView;
};

} // namespace atrium::narrative
