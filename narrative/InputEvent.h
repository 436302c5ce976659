#pragma once
// Input for the camera controllers, free of any toolkit: the Qt side translates its
// QMouseEvent / QKeyEvent / QWheelEvent into these (keys are roles, not key codes, so
// the binding W/A/S/D/Q/E/Shift/Space lives in the UI).
//
// Pointer positions are in pixels with the origin at the top-left corner of the view
// and +y pointing down (Qt's convention), together with the view's size in pixels.

namespace atrium::narrative {

enum class MouseButton { Left, Right, Middle };

/// What a key does, not which key it is. The default binding (docs/navigation.md):
/// W/S/A/D = Forward/Back/Left/Right, E/Q = Up/Down, Shift = LookAside,
/// Space = ToggleMouseCapture.
enum class Key {
    Forward,
    Back,
    Left,
    Right,
    Up,
    Down,
    LookAside,
    ToggleMouseCapture,
};

enum class InputType {
    MouseMove,   ///< the pointer moved to (x, y)
    MouseWarp,   ///< the UI itself moved the pointer to (x, y) (e.g. re-centred it): record, do not steer
    ButtonDown,  ///< button pressed at (x, y)
    ButtonUp,    ///< button released at (x, y)
    KeyDown,     ///< send once per physical press: drop auto-repeats (ToggleMouseCapture toggles on each)
    KeyUp,
    Wheel,       ///< wheelNotches turned; positive = rolled away from the user
};

struct InputEvent {
    InputType type = InputType::MouseMove;
    double x = 0.0, y = 0.0;                           ///< pixels, top-left origin, +y down
    double viewportWidth = 0.0, viewportHeight = 0.0;  ///< pixels
    MouseButton button = MouseButton::Left;            ///< ButtonDown / ButtonUp
    Key key = Key::Forward;                            ///< KeyDown / KeyUp
    double wheelNotches = 0.0;                         ///< Wheel; 1 notch = Qt angleDelta 120

    static InputEvent mouseMove(double x, double y, double viewportWidth, double viewportHeight) {
        return pointer(InputType::MouseMove, x, y, viewportWidth, viewportHeight);
    }
    static InputEvent mouseWarp(double x, double y, double viewportWidth, double viewportHeight) {
        return pointer(InputType::MouseWarp, x, y, viewportWidth, viewportHeight);
    }
    static InputEvent buttonDown(MouseButton b, double x, double y, double viewportWidth, double viewportHeight) {
        InputEvent e = pointer(InputType::ButtonDown, x, y, viewportWidth, viewportHeight);
        e.button = b;
        return e;
    }
    static InputEvent buttonUp(MouseButton b, double x, double y, double viewportWidth, double viewportHeight) {
        InputEvent e = pointer(InputType::ButtonUp, x, y, viewportWidth, viewportHeight);
        e.button = b;
        return e;
    }
    static InputEvent keyDown(Key k) {
        InputEvent e;
        e.type = InputType::KeyDown;
        e.key = k;
        return e;
    }
    static InputEvent keyUp(Key k) {
        InputEvent e;
        e.type = InputType::KeyUp;
        e.key = k;
        return e;
    }
    static InputEvent wheel(double notches) {
        InputEvent e;
        e.type = InputType::Wheel;
        e.wheelNotches = notches;
        return e;
    }

private:
    static InputEvent pointer(InputType t, double x, double y, double w, double h) {
        InputEvent e;
        e.type = t;
        e.x = x;
        e.y = y;
        e.viewportWidth = w;
        e.viewportHeight = h;
        return e;
    }
};

} // namespace atrium::narrative
