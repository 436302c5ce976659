#pragma once
// The camera of the viewer: owns one controller per navigation mode (uSim,
// first-person, orbit; Poyart 2016 5.2-5.3), routes input to the active one and
// keeps the pose when the mode changes, plus the home view. The UI holds one rig
// and uses it through the CameraController interface.

#include "narrative/CameraController.h"
#include "narrative/FirstPersonController.h"
#include "narrative/OrbitController.h"
#include "narrative/UsimController.h"

#include <optional>

namespace atrium::narrative {

enum class CameraMode { Usim, FirstPerson, Orbit };

class CameraRig final : public CameraController {
public:
    /// Starts in first-person mode at the default pose, mouse released.
    CameraRig();

    CameraMode mode() const { return mode_; }
    /// Switches mode keeping the pose. The new controller starts at rest with no keys
    /// or buttons held (stop()); mouse capture carries over between uSim and
    /// first-person (orbit never captures; leaving orbit starts released).
    void setMode(CameraMode mode);

    /// The home view; goHome() returns to it. With a centre, orbit mode also orbits
    /// around that centre after goHome(); without, it keeps its orbit distance.
    void setHome(const CameraPose& pose);
    void setHome(const Vec3& eye, const Vec3& orbitCentre);
    const CameraPose& home() const { return home_; }
    /// Jumps to the home view and comes to rest (all controllers), in the current mode.
    void goHome();

    void handle(const InputEvent& event) override { active().handle(event); }
    void update(double dt) override { active().update(dt); }
    const CameraPose& pose() const override { return active().pose(); }
    /// Sets the pose of the active controller (the others take it on a mode switch).
    void setPose(const CameraPose& pose) override { active().setPose(pose); }
    Vec3 velocity() const override { return active().velocity(); }
    bool mouseCaptured() const override { return active().mouseCaptured(); }
    void setMouseCaptured(bool captured) override { active().setMouseCaptured(captured); }
    void stop() override { active().stop(); }

    CameraController& active();
    const CameraController& active() const;
    /// The controllers, for their settings (speeds, sensitivities, blend time).
    UsimController& usim() { return usim_; }
    FirstPersonController& firstPerson() { return firstPerson_; }
    OrbitController& orbit() { return orbit_; }

private:
    UsimController usim_;
    FirstPersonController firstPerson_;
    OrbitController orbit_;
    CameraMode mode_ = CameraMode::FirstPerson;
    CameraPose home_;
    std::optional<Vec3> homeOrbitCentre_;
};

} // namespace atrium::narrative
