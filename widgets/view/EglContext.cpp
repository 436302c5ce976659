#include "widgets/view/EglContext.h"

#include <EGL/egl.h>
#include <EGL/eglext.h>

#include <array>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::widgets {
namespace {

std::string errorName(EGLint code) {
    switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_CURRENT_SURFACE: return "EGL_BAD_CURRENT_SURFACE";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_NATIVE_PIXMAP: return "EGL_BAD_NATIVE_PIXMAP";
    case EGL_BAD_NATIVE_WINDOW: return "EGL_BAD_NATIVE_WINDOW";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    case EGL_CONTEXT_LOST: return "EGL_CONTEXT_LOST";
    default: {
        char hex[16];
        std::snprintf(hex, sizeof hex, "0x%04x", unsigned(code));
        return hex;
    }
    }
}

/// "eglInitialize: EGL_NOT_INITIALIZED", with the error EGL reports now.
std::string failed(const char* call) { return std::string(call) + ": " + errorName(eglGetError()); }

bool hasExtension(const char* list, std::string_view name) {
    if (!list) return false;
    for (std::string_view rest(list); !rest.empty();) {
        const auto end = rest.find(' ');
        if (rest.substr(0, end) == name) return true;
        if (end == std::string_view::npos) break;
        rest.remove_prefix(end + 1);
    }
    return false;
}

/// A display's context: OpenGL 3.3 compatibility, surfaceless. The display is left
/// initialised on success and terminated on failure. Empty `why` on success.
EGLContext createContext(EGLDisplay display, std::string& why) {
    EGLint major = 0, minor = 0;
    if (!eglInitialize(display, &major, &minor)) {
        why = failed("eglInitialize");
        return EGL_NO_CONTEXT;
    }
    const char* extensions = eglQueryString(display, EGL_EXTENSIONS);
    if (!hasExtension(extensions, "EGL_KHR_surfaceless_context")) {
        why = "the display lacks EGL_KHR_surfaceless_context";
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    if (!eglBindAPI(EGL_OPENGL_API)) {
        why = failed("eglBindAPI(EGL_OPENGL_API)");
        eglTerminate(display);
        return EGL_NO_CONTEXT;
    }
    EGLConfig config = EGL_NO_CONFIG_KHR;
    if (!hasExtension(extensions, "EGL_KHR_no_config_context")) {
        const std::array<EGLint, 5> wanted{EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0, EGL_NONE};
        EGLint count = 0;
        if (!eglChooseConfig(display, wanted.data(), &config, 1, &count) || count < 1) {
            why = count < 1 && eglGetError() == EGL_SUCCESS ? "eglChooseConfig: no OpenGL configuration"
                                                            : failed("eglChooseConfig");
            eglTerminate(display);
            return EGL_NO_CONTEXT;
        }
    }
    const std::array<EGLint, 7> attributes{EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
                                           EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                           EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT, EGL_NONE};
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, attributes.data());
    if (context == EGL_NO_CONTEXT) {
        why = failed("eglCreateContext(OpenGL 3.3 compatibility)");
        eglTerminate(display);
    }
    return context;
}

} // namespace

EglContext::EglContext() {
    const char* client = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
    auto getPlatformDisplay =
        reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
    if (!client || !getPlatformDisplay || !hasExtension(client, "EGL_EXT_platform_base"))
        throw EglError("no EGL display could be initialised (eglQueryString: no EGL_EXT_platform_base, no EGL driver found)");
    std::vector<std::string> tried;

    // 1. A GPU: the first hardware device whose display gives a context.
    auto queryDevices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    auto deviceString = reinterpret_cast<PFNEGLQUERYDEVICESTRINGEXTPROC>(eglGetProcAddress("eglQueryDeviceStringEXT"));
    if (hasExtension(client, "EGL_EXT_platform_device") && queryDevices && deviceString) {
        std::array<EGLDeviceEXT, 16> devices{};
        EGLint count = 0;
        if (!queryDevices(EGLint(devices.size()), devices.data(), &count)) tried.push_back("devices: " + failed("eglQueryDevicesEXT"));
        for (EGLint i = 0; i < count && !context_; ++i) {
            const char* features = deviceString(devices[std::size_t(i)], EGL_EXTENSIONS);
            if (hasExtension(features, "EGL_MESA_device_software")) continue; // the surfaceless platform covers it
            const std::string name = "EGL device " + std::to_string(i);
            EGLDisplay display = getPlatformDisplay(EGL_PLATFORM_DEVICE_EXT, devices[std::size_t(i)], nullptr);
            if (display == EGL_NO_DISPLAY) {
                tried.push_back(name + ": " + failed("eglGetPlatformDisplayEXT"));
                continue;
            }
            std::string why;
            if (EGLContext c = createContext(display, why); c != EGL_NO_CONTEXT) {
                display_ = display;
                context_ = c;
            } else {
                tried.push_back(name + ": " + why);
            }
        }
    }
    // 2. Mesa's surfaceless platform: a Mesa GPU driver, or llvmpipe.
    if (!context_) {
        if (!hasExtension(client, "EGL_MESA_platform_surfaceless")) {
            tried.push_back("surfaceless: EGL lacks EGL_MESA_platform_surfaceless");
        } else if (EGLDisplay display = getPlatformDisplay(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
                   display == EGL_NO_DISPLAY) {
            tried.push_back("surfaceless: " + failed("eglGetPlatformDisplayEXT"));
        } else {
            std::string why;
            if (EGLContext c = createContext(display, why); c != EGL_NO_CONTEXT) {
                display_ = display;
                context_ = c;
            } else {
                tried.push_back("surfaceless: " + why);
            }
        }
    }
    if (!context_) {
        std::string list;
        for (const std::string& t : tried) list += (list.empty() ? "" : "; ") + t;
        throw EglError("no EGL display could be initialised (" + list + ")");
    }
}

EglContext::~EglContext() {
    if (eglGetCurrentContext() == context_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(display_, context_);
    eglTerminate(display_);
}

void EglContext::makeCurrent() {
    if (eglGetCurrentContext() == context_) return;
    // The API is per thread: the context's, whichever thread this is.
    if (!eglBindAPI(EGL_OPENGL_API)) throw EglError("the headless OpenGL context: " + failed("eglBindAPI(EGL_OPENGL_API)"));
    if (!eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, context_))
        throw EglError("the headless OpenGL context could not be made current (" + failed("eglMakeCurrent") + ")");
}

void EglContext::doneCurrent() {
    if (eglGetCurrentContext() == context_) eglMakeCurrent(display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
}

} // namespace atrium::widgets
