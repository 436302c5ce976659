#pragma once
// The interface every camera controller offers (Poyart 2016 5.2): it is fed input
// events and a time step, and yields a camera pose. Controllers are plain objects:
// no clock, no toolkit, no collision (the camera passes through everything).
//
// A frame: handle() each pending event, then update(dt) once, then read pose().

#include "narrative/CameraPose.h"
#include "narrative/InputEvent.h"
#include "narrative/Vec3.h"

namespace atrium::narrative {

class CameraController {
public:
    virtual ~CameraController() = default;

    /// Takes one input event; its effect on the pose shows at the next update().
    virtual void handle(const InputEvent& event) = 0;
    /// Advances the camera by dt seconds. dt <= 0 does nothing.
    virtual void update(double dt) = 0;

    virtual const CameraPose& pose() const = 0;
    /// Jumps to pose (e.g. a narrative node, the home view, a mode switch). Held keys
    /// and speeds are kept; call stop() as well to come to rest.
    virtual void setPose(const CameraPose& pose) = 0;

    /// Camera velocity during the last update(), world units per second.
    virtual Vec3 velocity() const = 0;

    /// True while the mouse steers the camera: the UI then hides (and may confine) the
    /// cursor. False = mouse released for menus and icons; mouse motion does not steer.
    virtual bool mouseCaptured() const = 0;
    /// What Key::ToggleMouseCapture flips. A controller that never captures ignores it.
    virtual void setMouseCaptured(bool captured) = 0;

    /// Forgets held keys and buttons and brings the camera to rest at once. For a mode
    /// switch or when the view loses keyboard focus (key releases would be lost).
    virtual void stop() = 0;

protected:
    CameraController() = default;
    CameraController(const CameraController&) = default;
    CameraController& operator=(const CameraController&) = default;
};

} // namespace atrium::narrative
