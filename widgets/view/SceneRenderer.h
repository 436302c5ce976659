#pragma once
// The 3D scene of the view and its OpenSceneGraph viewer, drawn into a framebuffer
// object on whatever OpenGL context is current: the window's (SceneView hosts it in its
// QOpenGLWidget and draws into the widget's framebuffer) or a headless one (EglContext;
// the renderer draws into a framebuffer of its own and reads pictures back).
//
// It holds the scene's parts - heart wall, shell, valve leaflets, blood spheres, blood
// surface, the resource editor's gizmo - and draws them from a camera pose; what they
// show (the snapshot, colours, clipping) is set on the parts by the view. No widget:
// sizes are in pixels of the target, lengths in millimetres (the heart's frame).
//
// Every call that draws or reads must have the renderer's context current; the
// renderer's OpenGL objects are released with it, so destroy it with that context
// current too.

#include "narrative/CameraPose.h"

#include <QImage>
#include <QSize>

#include <osg/ref_ptr>

#include <cstdint>
#include <memory>
#include <string>

namespace osg {
class GLExtensions;
class Group;
class State;
}
namespace osgViewer {
class Viewer;
class GraphicsWindowEmbedded;
}

namespace atrium::widgets {

class BloodSpheres;
class FluidSurface;
class HeartWall;
class ResourceGizmo;

class SceneRenderer {
public:
    /// Vertical field of view of the camera, degrees.
    static constexpr double kFieldOfViewDeg = 40.0;

    /// The scene and its viewer; no OpenGL is touched until realize().
    SceneRenderer();
    ~SceneRenderer();
    SceneRenderer(const SceneRenderer&) = delete;
    SceneRenderer& operator=(const SceneRenderer&) = delete;

    /// Binds the viewer to the current context at `size` pixels. Once, before drawing.
    void realize(QSize size);
    bool realized() const;
    /// The current context's GL_RENDERER (e.g. "llvmpipe (LLVM 15.0.6, 256 bits)").
    std::string glRenderer() const;

    /// Heart radius (mm) from which the near (0.005 r) and far (60 r) planes follow:
    /// the camera may fly inside the ventricle.
    void setHeartRadius(double radiusMm) { heartRadius_ = radiusMm; }

    /// Draws the scene from `pose` into the framebuffer object `fbo` (0: the default
    /// framebuffer) at `size` pixels, its viewport the whole of it.
    void render(unsigned fbo, QSize size, const narrative::CameraPose& pose);
    /// Draws the scene from `pose` into a framebuffer of its own of `size` pixels
    /// (RGBA8, depth 24 and stencil 8, as a window's) and reads it back, top row first,
    /// as premultiplied ARGB32. Throws std::runtime_error when the framebuffer cannot
    /// be made (its status named).
    QImage renderImage(QSize size, const narrative::CameraPose& pose);
    /// The framebuffer object of `size` pixels that headless frames are drawn into,
    /// kept between frames (remade when the size changes).
    unsigned offscreenFramebuffer(QSize size);
    /// Reads `size` pixels of framebuffer `fbo` as RGBA, bottom row first.
    void readRgba(unsigned fbo, QSize size, std::uint8_t* rgba) const;

    /// Around drawing by another library into the frame (QPainter's OpenGL engine):
    /// before, OSG's buffers and arrays are unbound and texture unit 0 made active;
    /// after, the OpenGL state is brought back to what OSG's record says it is.
    void beginForeignDrawing();
    void endForeignDrawing();

    HeartWall& wall() { return *wall_; }
    HeartWall& shellWall() { return *shellWall_; }
    HeartWall& leaflets() { return *leaflets_; }
    BloodSpheres& blood() { return *blood_; }
    FluidSurface& fluid() { return *fluid_; }
    ResourceGizmo& gizmo() { return *gizmo_; }
    const HeartWall& wall() const { return *wall_; }
    const HeartWall& shellWall() const { return *shellWall_; }
    const HeartWall& leaflets() const { return *leaflets_; }

private:
    class Framebuffer;
    /// Viewport, the blood's point scale and the surface's buffers for `size`.
    void resize(QSize size);
    void applyCamera(QSize size, const narrative::CameraPose& pose);
    osg::State& state() const;
    /// OpenGL's functions beyond 1.1 on the current context (framebuffer objects).
    const osg::GLExtensions& gl() const;

    osg::ref_ptr<osgViewer::Viewer> viewer_;
    osg::ref_ptr<osgViewer::GraphicsWindowEmbedded> window_;
    osg::ref_ptr<osg::Group> root_;
    std::unique_ptr<HeartWall> wall_;
    std::unique_ptr<HeartWall> shellWall_;
    std::unique_ptr<HeartWall> leaflets_;
    std::unique_ptr<BloodSpheres> blood_;
    std::unique_ptr<FluidSurface> fluid_; // shares blood_'s particle geometry
    std::unique_ptr<ResourceGizmo> gizmo_;
    std::unique_ptr<Framebuffer> offscreen_;
    QSize size_;                // the size the viewport and the surface's buffers have now
    double heartRadius_ = 60.0; // mm
};

} // namespace atrium::widgets
