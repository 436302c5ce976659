#include "widgets/view/FluidSurface.h"

#include "widgets/view/ShaderLibrary.h"

#include <osg/BlendFunc>
#include <osg/Depth>
#include <osg/PointSprite>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace atrium::widgets {

float projectedRadiusPixels(float radiusMm, float depthMm, float projectionYScale, float viewportHeight) {
    if (!(depthMm > 0.f)) return 0.f;
    // NDC spans 2 units over the viewport's height; a length L at depth d covers L P11 / d of them.
    return 0.5f * viewportHeight * projectionYScale * radiusMm / depthMm;
}

float blurRadiusPixels(float projectedRadius, float blurScale, float maxRadius) {
    return std::clamp(blurScale * projectedRadius, 1.f, std::max(maxRadius, 1.f));
}

float bilateralWeight(float offsetPixels, float kernelRadiusPixels, float depthDifferenceMm, float depthFalloffMm,
                      float slopeMmPerPixel) {
    if (std::fabs(offsetPixels) > kernelRadiusPixels) return 0.f;
    const float sigma = 0.5f * kernelRadiusPixels;
    const float spatial = std::exp(-offsetPixels * offsetPixels / (2.f * sigma * sigma));
    const float dz = depthDifferenceMm / (depthFalloffMm + slopeMmPerPixel * std::fabs(offsetPixels));
    return spatial * std::exp(-dz * dz);
}

namespace {

osg::ref_ptr<osg::Program> program(const std::string& name, const std::string& vertex, const std::string& fragment) {
    osg::ref_ptr<osg::Program> p = new osg::Program;
    p->setName(name);
    p->addShader(new osg::Shader(osg::Shader::VERTEX, shaderSource(vertex)));
    p->addShader(new osg::Shader(osg::Shader::FRAGMENT, shaderSource(fragment)));
    return p;
}

/// One float channel (or four), sampled texel for texel: depth and thickness must not
/// be blended with the empty background (0) by filtering.
osg::ref_ptr<osg::Texture2D> floatTarget(const char* name, bool rgba = false) {
    osg::ref_ptr<osg::Texture2D> t = new osg::Texture2D;
    t->setName(name);
    t->setInternalFormat(rgba ? GL_RGBA32F_ARB : GL_R32F);
    t->setSourceFormat(rgba ? GL_RGBA : GL_RED);
    t->setSourceType(GL_FLOAT);
    t->setFilter(osg::Texture::MIN_FILTER, osg::Texture::NEAREST);
    t->setFilter(osg::Texture::MAG_FILTER, osg::Texture::NEAREST);
    t->setWrap(osg::Texture::WRAP_S, osg::Texture::CLAMP_TO_EDGE);
    t->setWrap(osg::Texture::WRAP_T, osg::Texture::CLAMP_TO_EDGE);
    t->setResizeNonPowerOfTwoHint(false);
    return t;
}

/// A pass rendering into `target` before the main scene; `order` sets the sequence.
osg::ref_ptr<osg::Camera> prePass(const char* name, osg::Texture2D* target, int order, bool depthBuffer) {
    osg::ref_ptr<osg::Camera> c = new osg::Camera;
    c->setName(name);
    c->setRenderOrder(osg::Camera::PRE_RENDER, order);
    c->setRenderTargetImplementation(osg::Camera::FRAME_BUFFER_OBJECT);
    c->setReferenceFrame(osg::Transform::ABSOLUTE_RF);
    c->setComputeNearFarMode(osg::CullSettings::DO_NOT_COMPUTE_NEAR_FAR);
    c->setClearColor(osg::Vec4(0.f, 0.f, 0.f, 0.f)); // 0: no blood on this pixel
    c->setClearMask(depthBuffer ? GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT : GL_COLOR_BUFFER_BIT);
    c->attach(osg::Camera::COLOR_BUFFER0, target);
    if (depthBuffer) c->attach(osg::Camera::DEPTH_BUFFER, GL_DEPTH_COMPONENT24);
    c->setImplicitBufferAttachmentMask(0, 0); // no depth renderbuffer unless asked for above
    c->setCullingActive(false);
    return c;
}

/// A quad covering the viewport; fluid_quad.vert maps it onto the blood's screen rectangle.
osg::ref_ptr<osg::Geode> fullScreenQuad(const char* name) {
    osg::ref_ptr<osg::Geometry> quad =
        osg::createTexturedQuadGeometry(osg::Vec3(-1.f, -1.f, 0.f), osg::Vec3(2.f, 0.f, 0.f), osg::Vec3(0.f, 2.f, 0.f));
    quad->setUseDisplayList(false);
    quad->setUseVertexBufferObjects(true);
    quad->setCullingActive(false);
    osg::ref_ptr<osg::Geode> geode = new osg::Geode;
    geode->setName(name);
    geode->addDrawable(quad.get());
    geode->setCullingActive(false); // its bounds are in NDC, not in the world
    return geode;
}

} // namespace

FluidSurface::FluidSurface(osg::Geometry* particles, const FluidSurfaceParams& params)
    : params_(params), particles_(particles), root_(new osg::Group),
      depth_{floatTarget("fluid depth"), floatTarget("fluid depth, half blurred")},
      thickness_(floatTarget("fluid thickness and colour", true)), radius_(new osg::Uniform("radius", 1.0f)),
      viewportHeight_(new osg::Uniform("viewportHeight", 720.0f)),
      texelSize_(new osg::Uniform("texelSize", osg::Vec2(1.f / 1280.f, 1.f / 720.f))),
      projection_(new osg::Uniform("sceneProjection", osg::Matrixf())), pixelsPerMm_(new osg::Uniform("pixelsPerMm", 1.0f)),
      depthFalloff_(new osg::Uniform("depthFalloff", 1.0f)),
      thicknessRadius_(new osg::Uniform("radius", 1.0f)), thicknessPeak_(new osg::Uniform("thicknessPeak", 1.0f)),
      edgeThickness_(new osg::Uniform("edgeThickness", 0.0f)),
      screenRect_(new osg::Uniform("screenRect", osg::Vec4(-1.f, -1.f, 1.f, 1.f))),
      colored_(new osg::Uniform("colored", false)) {
    root_->setName("blood surface");
    root_->setCullingActive(false);
    osg::StateSet* shared = root_->getOrCreateStateSet();
    for (osg::Uniform* u : {radius_.get(), viewportHeight_.get(), texelSize_.get(), projection_.get(), pixelsPerMm_.get(),
                            depthFalloff_.get(), screenRect_.get()})
        shared->addUniform(u);

    // 1. Depth of the nearest sphere, eye space (mm).
    depthPass_ = prePass("fluid depth pass", depth_[0].get(), 0, true);
    auto* splatsDepth = new osg::Geode;
    splatsDepth->addDrawable(particles);
    splatsDepth->setCullingActive(false);
    depthPass_->addChild(splatsDepth);
    osg::StateSet* ds = splatsDepth->getOrCreateStateSet();
    ds->setAttributeAndModes(program("fluid_depth", "fluid_splat.vert", "fluid_depth.frag").get());
    ds->setTextureAttributeAndModes(0, new osg::PointSprite, osg::StateAttribute::ON);
    ds->setMode(GL_VERTEX_PROGRAM_POINT_SIZE, osg::StateAttribute::ON);
    ds->setMode(GL_BLEND, osg::StateAttribute::OFF);
    ds->setAttributeAndModes(new osg::Depth(osg::Depth::LESS, 0.0, 1.0, true));

    // 2. Thickness: every splat adds its share of blood, nothing hides anything.
    thicknessPass_ = prePass("fluid thickness pass", thickness_.get(), 1, false);
    auto* splatsThickness = new osg::Geode;
    splatsThickness->addDrawable(particles);
    splatsThickness->setCullingActive(false);
    thicknessPass_->addChild(splatsThickness);
    osg::StateSet* ts = splatsThickness->getOrCreateStateSet();
    ts->setAttributeAndModes(program("fluid_thickness", "fluid_splat.vert", "fluid_thickness.frag").get());
    ts->setTextureAttributeAndModes(0, new osg::PointSprite, osg::StateAttribute::ON);
    ts->setMode(GL_VERTEX_PROGRAM_POINT_SIZE, osg::StateAttribute::ON);
    ts->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
    ts->setMode(GL_BLEND, osg::StateAttribute::ON);
    ts->setAttributeAndModes(new osg::BlendFunc(GL_ONE, GL_ONE));
    ts->addUniform(thicknessRadius_.get()); // wider splats than for depth: their sum ripples less
    ts->addUniform(thicknessPeak_.get());

    // 3. Bilateral blur of the depth, ping-pong: depth_[0] -> depth_[1] across, back to
    // depth_[0] down, first with a fine kernel (it takes out the splats' bumps), then with
    // the wide one (the second pair also hides most of a separable filter's streaks).
    // The result is in depth_[0].
    const osg::ref_ptr<osg::Program> blur = program("fluid_blur", "fluid_quad.vert", "fluid_blur.frag");
    for (int pass = 0; pass < 4; ++pass) {
        const int from = pass % 2;
        const bool across = from == 0, wide = pass >= 2;
        osg::ref_ptr<osg::Camera> camera =
            prePass(across ? "fluid blur across" : "fluid blur down", depth_[1 - from].get(), 2 + pass, false);
        osg::ref_ptr<osg::Geode> quad = fullScreenQuad("fluid blur quad");
        camera->addChild(quad.get());
        osg::StateSet* bs = quad->getOrCreateStateSet();
        bs->setAttributeAndModes(blur.get());
        bs->setTextureAttributeAndModes(0, depth_[from].get(), osg::StateAttribute::ON);
        bs->addUniform(new osg::Uniform("depthTex", 0));
        bs->addUniform(new osg::Uniform("blurDirection", across ? osg::Vec2(1.f, 0.f) : osg::Vec2(0.f, 1.f)));
        bs->addUniform(new osg::Uniform("blurScale", wide ? params_.blurScale : params_.fineBlurScale));
        bs->addUniform(new osg::Uniform("maxBlurRadius", params_.maxBlurRadiusPixels));
        bs->addUniform(new osg::Uniform("slopeTolerance", params_.slopeTolerance));
        bs->setMode(GL_DEPTH_TEST, osg::StateAttribute::OFF);
        bs->setMode(GL_BLEND, osg::StateAttribute::OFF);
        blurPasses_.push_back(camera);
    }

    // 4. Composite, in the main scene's opaque bin: before the translucent wall (bin 10),
    // which tests against the depth written here.
    composite_ = fullScreenQuad("fluid composite");
    osg::StateSet* cs = composite_->getOrCreateStateSet();
    cs->setAttributeAndModes(program("fluid_composite", "fluid_quad.vert", "fluid_composite.frag").get());
    cs->setTextureAttributeAndModes(0, depth_[0].get(), osg::StateAttribute::ON);
    cs->setTextureAttributeAndModes(1, thickness_.get(), osg::StateAttribute::ON);
    cs->addUniform(new osg::Uniform("depthTex", 0));
    cs->addUniform(new osg::Uniform("thicknessTex", 1));
    cs->addUniform(new osg::Uniform("absorption", params_.absorptionPerMm));
    cs->addUniform(new osg::Uniform("opacityPerMm", params_.opacityPerMm));
    cs->addUniform(new osg::Uniform("scatterDepth", params_.scatterDepthMm));
    cs->addUniform(edgeThickness_.get());
    cs->addUniform(colored_.get());
    cs->setMode(GL_BLEND, osg::StateAttribute::ON);
    cs->setAttributeAndModes(new osg::BlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE)); // alpha stays 1
    cs->setAttributeAndModes(new osg::Depth(osg::Depth::LEQUAL, 0.0, 1.0, true)); // LEQUAL: faint rims sit at 1.0
    cs->setRenderBinDetails(0, "RenderBin");

    root_->addChild(depthPass_.get());
    root_->addChild(thicknessPass_.get());
    for (const auto& c : blurPasses_) root_->addChild(c.get());
    root_->addChild(composite_.get());
    resize(1280, 720);
}

void FluidSurface::setParticleSpacingMm(float spacing) {
    radiusMm_ = std::max(spacing, 1e-3f) * params_.radiusInSpacings;
    radius_->set(radiusMm_);
    // A thickness splat of radius R adds peak (1 - rho^2)^2 over its disc, pi R^2 peak / 3
    // in all: peak = 3 s^3 / (pi R^2) puts one particle's share of blood (s^3) in it.
    const float s = std::max(spacing, 1e-3f), wide = s * params_.thicknessRadiusInSpacings;
    thicknessRadius_->set(wide);
    thicknessPeak_->set(3.f * s * s * s / (std::numbers::pi_v<float> * wide * wide));
    edgeThickness_->set(s * params_.edgeThicknessInSpacings);
    depthFalloff_->set(radiusMm_ * params_.depthFalloffInRadii);
}

void FluidSurface::resize(int width, int height) {
    width = std::max(width, 1);
    height = std::max(height, 1);
    if (width == width_ && height == height_) return;
    width_ = width;
    height_ = height;
    const float scale = std::clamp(params_.resolutionScale, 0.1f, 1.f);
    passWidth_ = std::max(1, int(std::lround(width * scale)));
    passHeight_ = std::max(1, int(std::lround(height * scale)));
    for (osg::Texture2D* t : {depth_[0].get(), depth_[1].get(), thickness_.get()}) {
        t->setTextureSize(passWidth_, passHeight_);
        t->dirtyTextureObject(); // reallocated at the new size on next use
    }
    std::vector<osg::Camera*> passes{depthPass_.get(), thicknessPass_.get()};
    for (const auto& c : blurPasses_) passes.push_back(c.get());
    for (osg::Camera* c : passes) {
        c->setViewport(0, 0, passWidth_, passHeight_);
        c->dirtyAttachmentMap(); // rebuild the FBO (and the depth renderbuffer) at the new size
    }
    viewportHeight_->set(float(passHeight_));
    texelSize_->set(osg::Vec2(1.f / float(passWidth_), 1.f / float(passHeight_)));
}

void FluidSurface::setCamera(const osg::Matrixd& view, const osg::Matrixd& projection) {
    for (osg::Camera* c : {depthPass_.get(), thicknessPass_.get()}) {
        c->setViewMatrix(view);
        c->setProjectionMatrix(projection);
    }
    projection_->set(osg::Matrixf(projection));
    pixelsPerMm_->set(projectedRadiusPixels(1.f, 1.f, float(projection(1, 1)), float(passHeight_)));

    // The full-screen passes only cover the blood's screen rectangle: on a software
    // rasteriser a pass costs about as much per covered pixel as per shaded one.
    osg::BoundingBox box = particles_->getBoundingBox();
    osg::Vec4 rect(0.f, 0.f, 0.f, 0.f); // empty: no blood, nothing to shade
    if (box.valid()) {
        box.expandBy(box._min - osg::Vec3(radiusMm_, radiusMm_, radiusMm_));
        box.expandBy(box._max + osg::Vec3(radiusMm_, radiusMm_, radiusMm_));
        rect.set(1.f, 1.f, -1.f, -1.f);
        const osg::Matrixd viewProjection = view * projection;
        for (unsigned k = 0; k < 8; ++k) {
            const osg::Vec4d clip = osg::Vec4d(box.corner(k), 1.0) * viewProjection;
            if (clip.w() <= 1e-6) { // a corner at or behind the eye: the box may span the whole view
                rect.set(-1.f, -1.f, 1.f, 1.f);
                break;
            }
            rect.x() = std::min(rect.x(), float(clip.x() / clip.w()));
            rect.y() = std::min(rect.y(), float(clip.y() / clip.w()));
            rect.z() = std::max(rect.z(), float(clip.x() / clip.w()));
            rect.w() = std::max(rect.w(), float(clip.y() / clip.w()));
        }
        // A pixel's margin against rounding, and never beyond the viewport.
        const float mx = 2.f / float(passWidth_), my = 2.f / float(passHeight_);
        rect.set(std::clamp(rect.x() - mx, -1.f, 1.f), std::clamp(rect.y() - my, -1.f, 1.f),
                 std::clamp(rect.z() + mx, -1.f, 1.f), std::clamp(rect.w() + my, -1.f, 1.f));
        if (rect.x() >= rect.z() || rect.y() >= rect.w()) rect.set(0.f, 0.f, 0.f, 0.f);
    }
    screenRect_->set(rect);
}

void FluidSurface::setColored(bool colored) { colored_->set(colored); }

void FluidSurface::setVisible(bool visible) { root_->setNodeMask(visible ? ~0u : 0u); }

} // namespace atrium::widgets
