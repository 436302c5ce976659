#include "narrative/CameraRig.h"

namespace atrium::narrative {

CameraRig::CameraRig() = default;

CameraController& CameraRig::active() {
    switch (mode_) {
    case CameraMode::Usim: return usim_;
    case CameraMode::Orbit: return orbit_;
    case CameraMode::FirstPerson: break;
    }
    return firstPerson_;
}

const CameraController& CameraRig::active() const {
    switch (mode_) {
    case CameraMode::Usim: return usim_;
    case CameraMode::Orbit: return orbit_;
    case CameraMode::FirstPerson: break;
    }
    return firstPerson_;
}

void CameraRig::setMode(CameraMode mode) {
    if (mode == mode_) return;
    const CameraPose pose = active().pose();
    const bool captured = active().mouseCaptured();
    active().stop();
    mode_ = mode;
    CameraController& next = active();
    next.stop();
    next.setPose(pose);
    next.setMouseCaptured(captured);
}

void CameraRig::setHome(const CameraPose& pose) {
    home_ = pose;
    homeOrbitCentre_.reset();
}

void CameraRig::setHome(const Vec3& eye, const Vec3& orbitCentre) {
    OrbitController probe = orbit_; // the pose orbit mode would take, pitch clamp included
    probe.setLookAt(eye, orbitCentre);
    home_ = probe.pose();
    homeOrbitCentre_ = orbitCentre;
}

void CameraRig::goHome() {
    CameraController* const all[] = {&usim_, &firstPerson_, &orbit_};
    for (CameraController* c : all) {
        c->stop();
        c->setPose(home_);
    }
    if (homeOrbitCentre_) orbit_.setLookAt(home_.position(), *homeOrbitCentre_);
}

} // namespace atrium::narrative
