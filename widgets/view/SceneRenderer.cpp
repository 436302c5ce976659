#include "widgets/view/SceneRenderer.h"

#include "widgets/lecture/ResourceGizmo.h"
#include "widgets/view/BloodSpheres.h"
#include "widgets/view/FluidSurface.h"
#include "widgets/view/HeartWall.h"

#include <osg/GLExtensions>
#include <osg/Group>
#include <osg/State>
#include <osgViewer/GraphicsWindow>
#include <osgViewer/Viewer>

#include <GL/gl.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace atrium::widgets {
namespace {

osg::Vec3d toOsg(const narrative::Vec3& v) { return {v.x, v.y, v.z}; }

} // namespace

/// A framebuffer object with an RGBA8 colour and a 24/8 depth-stencil renderbuffer, as
/// a window's default framebuffer has; made on the current context, released with it.
class SceneRenderer::Framebuffer {
public:
    Framebuffer(const osg::GLExtensions& gl, QSize size) : gl_(gl), size_(size) {
        gl_.glGenFramebuffers(1, &fbo_);
        gl_.glGenRenderbuffers(2, buffers_);
        gl_.glBindRenderbuffer(GL_RENDERBUFFER_EXT, buffers_[0]);
        gl_.glRenderbufferStorage(GL_RENDERBUFFER_EXT, GL_RGBA8, size.width(), size.height());
        gl_.glBindRenderbuffer(GL_RENDERBUFFER_EXT, buffers_[1]);
        gl_.glRenderbufferStorage(GL_RENDERBUFFER_EXT, GL_DEPTH24_STENCIL8_EXT, size.width(), size.height());
        gl_.glBindRenderbuffer(GL_RENDERBUFFER_EXT, 0);
        gl_.glBindFramebuffer(GL_FRAMEBUFFER_EXT, fbo_);
        gl_.glFramebufferRenderbuffer(GL_FRAMEBUFFER_EXT, GL_COLOR_ATTACHMENT0_EXT, GL_RENDERBUFFER_EXT, buffers_[0]);
        gl_.glFramebufferRenderbuffer(GL_FRAMEBUFFER_EXT, GL_DEPTH_ATTACHMENT_EXT, GL_RENDERBUFFER_EXT, buffers_[1]);
        gl_.glFramebufferRenderbuffer(GL_FRAMEBUFFER_EXT, GL_STENCIL_ATTACHMENT_EXT, GL_RENDERBUFFER_EXT, buffers_[1]);
        const GLenum status = gl_.glCheckFramebufferStatus(GL_FRAMEBUFFER_EXT);
        gl_.glBindFramebuffer(GL_FRAMEBUFFER_EXT, 0);
        if (status != GL_FRAMEBUFFER_COMPLETE_EXT) {
            release();
            char hex[16];
            std::snprintf(hex, sizeof hex, "0x%04x", unsigned(status));
            throw std::runtime_error("a " + std::to_string(size.width()) + "x" + std::to_string(size.height()) +
                                     " framebuffer object could not be made (glCheckFramebufferStatus: " + hex + ")");
        }
    }
    ~Framebuffer() { release(); }
    Framebuffer(const Framebuffer&) = delete;
    Framebuffer& operator=(const Framebuffer&) = delete;
    unsigned id() const { return fbo_; }
    QSize size() const { return size_; }

private:
    void release() {
        if (fbo_) gl_.glDeleteFramebuffers(1, &fbo_);
        gl_.glDeleteRenderbuffers(2, buffers_);
        fbo_ = 0;
        buffers_[0] = buffers_[1] = 0;
    }
    const osg::GLExtensions& gl_;
    QSize size_;
    GLuint fbo_ = 0;
    GLuint buffers_[2] = {0, 0};
};

SceneRenderer::SceneRenderer()
    : viewer_(new osgViewer::Viewer), root_(new osg::Group), wall_(std::make_unique<HeartWall>()),
      shellWall_(std::make_unique<HeartWall>(HeartWall::Kind::Shell)),
      leaflets_(std::make_unique<HeartWall>(HeartWall::Kind::Leaflets)), blood_(std::make_unique<BloodSpheres>()),
      fluid_(std::make_unique<FluidSurface>(blood_->geometry())), gizmo_(std::make_unique<ResourceGizmo>()) {
    root_->addChild(blood_->node());
    root_->addChild(fluid_->node());
    root_->addChild(wall_->node());
    root_->addChild(shellWall_->node());
    shellWall_->setVisible(false);
    root_->addChild(leaflets_->node());
    leaflets_->setVisible(false);
    root_->addChild(gizmo_->node());
    root_->getOrCreateStateSet()->setMode(GL_LIGHTING, osg::StateAttribute::OFF);
    viewer_->setSceneData(root_.get());
    viewer_->setThreadingModel(osgViewer::Viewer::SingleThreaded);
    viewer_->setKeyEventSetsDone(0);
    viewer_->setQuitEventSetsDone(false);
    // The view is framed from the camera rig, never by OSG's automatic near/far.
    viewer_->getCamera()->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
    viewer_->getCamera()->setClearColor(osg::Vec4(0.07f, 0.08f, 0.10f, 1.f));
}

SceneRenderer::~SceneRenderer() {
    offscreen_.reset();
    viewer_ = nullptr; // releases the OpenGL objects, with the context current
}

void SceneRenderer::realize(QSize size) {
    // An embedded window: OSG draws on whatever context is current and never swaps.
    window_ = new osgViewer::GraphicsWindowEmbedded(0, 0, size.width(), size.height());
    viewer_->getCamera()->setGraphicsContext(window_.get());
    viewer_->getCamera()->setViewport(0, 0, size.width(), size.height());
    viewer_->realize();
    resize(size);
}

bool SceneRenderer::realized() const { return window_ != nullptr; }

std::string SceneRenderer::glRenderer() const {
    const auto* name = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return name ? name : "";
}

osg::State& SceneRenderer::state() const { return *window_->getState(); }

const osg::GLExtensions& SceneRenderer::gl() const {
    // Made on first use with the context current (OSG itself makes them at its first
    // frame, which a headless framebuffer precedes).
    return *osg::GLExtensions::Get(state().getContextID(), true);
}

void SceneRenderer::resize(QSize size) {
    window_->resized(0, 0, size.width(), size.height());
    window_->getEventQueue()->windowResize(0, 0, size.width(), size.height());
    viewer_->getCamera()->setViewport(0, 0, size.width(), size.height());
    blood_->setViewportHeight(size.height());
    fluid_->resize(size.width(), size.height());
    size_ = size;
}

void SceneRenderer::applyCamera(QSize size, const narrative::CameraPose& pose) {
    const narrative::Vec3 eye = pose.position();
    viewer_->getCamera()->setViewMatrixAsLookAt(toOsg(eye), toOsg(eye + pose.forward()), toOsg(pose.up()));
    const double nearPlane = heartRadius_ * 0.005, farPlane = heartRadius_ * 60.0;
    viewer_->getCamera()->setProjectionMatrixAsPerspective(kFieldOfViewDeg, double(size.width()) / std::max(size.height(), 1),
                                                           nearPlane, farPlane);
    fluid_->setCamera(viewer_->getCamera()->getViewMatrix(), viewer_->getCamera()->getProjectionMatrix());
}

void SceneRenderer::render(unsigned fbo, QSize size, const narrative::CameraPose& pose) {
    if (!window_) throw std::logic_error("SceneRenderer::render before realize");
    if (size != size_) resize(size);
    // OSG's main camera draws into the framebuffer bound now; its render-to-texture
    // passes (the blood surface) bind the default one back when they are done.
    gl().glBindFramebuffer(GL_FRAMEBUFFER_EXT, fbo);
    window_->setDefaultFboId(fbo);
    applyCamera(size, pose);
    viewer_->frame();
}

QImage SceneRenderer::renderImage(QSize size, const narrative::CameraPose& pose) {
    if (!window_) throw std::runtime_error("the view has not been shown yet");
    Framebuffer target(gl(), size);
    gl().glBindFramebuffer(GL_FRAMEBUFFER_EXT, target.id());
    window_->setDefaultFboId(target.id());
    // The picture's size for this frame only; the frame size comes back below.
    viewer_->getCamera()->setViewport(0, 0, size.width(), size.height());
    blood_->setViewportHeight(size.height());
    fluid_->resize(size.width(), size.height());
    applyCamera(size, pose);
    viewer_->frame();
    // As QOpenGLFramebufferObject::toImage reads it: BGRA words, premultiplied.
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    gl().glBindFramebuffer(GL_FRAMEBUFFER_EXT, target.id());
    glPixelStorei(GL_PACK_ALIGNMENT, 4);
    glReadPixels(0, 0, size.width(), size.height(), GL_BGRA, GL_UNSIGNED_INT_8_8_8_8_REV, image.bits());
    gl().glBindFramebuffer(GL_FRAMEBUFFER_EXT, 0);
    if (size_.isValid()) resize(size_);
    return image.mirrored();
}

unsigned SceneRenderer::offscreenFramebuffer(QSize size) {
    if (!window_) throw std::logic_error("SceneRenderer::offscreenFramebuffer before realize");
    if (!offscreen_ || offscreen_->size() != size) {
        offscreen_.reset();
        offscreen_ = std::make_unique<Framebuffer>(gl(), size);
    }
    return offscreen_->id();
}

void SceneRenderer::readRgba(unsigned fbo, QSize size, std::uint8_t* rgba) const {
    gl().glBindFramebuffer(GL_FRAMEBUFFER_EXT, fbo);
    glPixelStorei(GL_PACK_ALIGNMENT, 1);
    glReadPixels(0, 0, size.width(), size.height(), GL_RGBA, GL_UNSIGNED_BYTE, rgba);
}

void SceneRenderer::beginForeignDrawing() {
    // QPainter's OpenGL engine draws from client-side arrays and leaves its own state
    // behind: OSG's buffers and arrays are unbound first.
    osg::State& s = state();
    s.unbindVertexBufferObject();
    s.unbindElementBufferObject();
    s.disableAllVertexArrays();
    // QPainter's engine takes unit 0 to be active; the surface's composite pass leaves
    // unit 1 so, and the pictures' images were then sampled as black.
    gl().glActiveTexture(GL_TEXTURE0);
}

void SceneRenderer::endForeignDrawing() {
    // OSG's record says which modes it left on; QPainter changed some. They are set
    // back as recorded (State::dirtyAllModes would invert the record instead, and a
    // mode QPainter left alone would then stay wrong for a frame: the blood's point
    // size, for one). Attributes, arrays and the program are simply applied again.
    osg::State& s = state();
    const auto restore = [](const osg::State::ModeMap& modes) {
        for (const auto& [mode, stack] : modes)
            if (stack.valid) stack.last_applied_value ? glEnable(mode) : glDisable(mode);
    };
    restore(s.getModeMap());
    const auto& textureModes = s.getTextureModeMapList();
    for (std::size_t unit = 0; unit < textureModes.size(); ++unit) {
        gl().glActiveTexture(GLenum(GL_TEXTURE0 + unit));
        restore(textureModes[unit]);
    }
    gl().glActiveTexture(GLenum(GL_TEXTURE0 + s.getActiveTextureUnit()));
    gl().glUseProgram(0);
    s.setLastAppliedProgramObject(nullptr);
    s.dirtyAllAttributes();
    s.dirtyAllVertexArrays();
}

} // namespace atrium::widgets
