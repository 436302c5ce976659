#pragma once
// An OpenGL context with no window and no display server, made through EGL, for
// rendering the scene headless: SceneRenderer draws into a framebuffer object of its
// own on it (`atrium --offscreen`, or any headless run without DISPLAY).
//
// Where the context comes from, in this order:
//  1. a GPU through EGL_EXT_platform_device: the first hardware device (not Mesa's
//     software device) whose display initialises and gives the context;
//  2. Mesa's surfaceless platform (EGL_MESA_platform_surfaceless): the GPU's Mesa
//     driver, or llvmpipe (OpenGL in software) on a machine without one.
// The context is OpenGL 3.3, compatibility profile (OSG's fixed-function state and the
// view's shaders need both), and has no surface: draw into a framebuffer object.
//
// Qt-free: EGL's handles are kept as opaque pointers so that no EGL header leaks out.

#include <stdexcept>

namespace atrium::widgets {

/// Why no headless OpenGL context could be made: names the EGL call and its error
/// code, e.g. "no EGL display could be initialised (eglInitialize: EGL_NOT_INITIALIZED)".
class EglError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

class EglContext {
public:
    /// Makes the display and the context (not yet current). Throws EglError naming
    /// every platform and device tried and why each failed.
    EglContext();
    /// Releases the context (current or not) and terminates its display.
    ~EglContext();
    EglContext(const EglContext&) = delete;
    EglContext& operator=(const EglContext&) = delete;

    /// Makes the context current on the calling thread, with no surface. Throws
    /// EglError (eglMakeCurrent and its error) when it cannot be made current, e.g.
    /// while another API's (GLX's) context is current on this thread.
    void makeCurrent();
    /// Leaves the calling thread with no current context (a GLX context may then be
    /// made current again).
    void doneCurrent();

private:
    void* display_ = nullptr; // EGLDisplay
    void* context_ = nullptr; // EGLContext
};

} // namespace atrium::widgets
