#pragma once
// The blood drawn as a smooth liquid surface in screen space (Poyart 2016, 3.6.1, after
// van der Laan, Green and Sainz 2009, "Screen space fluid rendering with curvature
// flow", and Green 2010, "Screen space fluid rendering for games"). No mesh is built:
//
//  1. depth:     the particles as sphere impostors; the nearest sphere's eye-space
//                depth (mm) goes into a float texture.
//  2. thickness: the same splats, additive and without depth test: how much blood a
//                view ray crosses (mm), and beside it the particles' colours weighted
//                the same way, so that the surface shows the colouring the spheres do.
//  3. blur:      a separable bilateral filter smooths the depth, across then down,
//                twice (a fine kernel, then a wide one), with kernels a few projected
//                particles wide and a falloff in depth difference, so that the spheres
//                melt into one surface while silhouettes and separate layers stay sharp.
//  4. composite: a full-screen pass in the main scene takes normals from the smoothed
//                depth, shades with a Fresnel-weighted sky reflection, Beer-Lambert
//                absorption through the thickness and a highlight, and writes the
//                surface's depth, so that the translucent heart wall drawn after it
//                composes as it does over the spheres.
//
// Passes 1-3 are pre-render cameras (FBOs) inside the scene graph; they follow the main
// camera through setCamera(), and their textures follow the target through resize().

#include <osg/Camera>
#include <osg/Geode>
#include <osg/Geometry>
#include <osg/Group>
#include <osg/Texture2D>
#include <osg/Uniform>

#include <vector>

namespace atrium::widgets {

/// Tunables of the surface. Lengths in mm unless named otherwise.
struct FluidSurfaceParams {
    /// Passes 1-3 run at this fraction of the view's resolution (the composite at full
    /// resolution reads them): a quarter of the pixels for the splats and the blur,
    /// whose result is smooth anyway (issue 15: 2 fps on llvmpipe at 1280x720).
    float resolutionScale = 0.5f;
    float radiusInSpacings = 0.5f;       ///< depth splat radius / particle spacing: as far as the wall margin
    float thicknessRadiusInSpacings = 1.5f; ///< thickness splat radius / particle spacing: soft and wide
    float fineBlurScale = 2.f;           ///< first blur pair: kernel radius in projected splat radii
    float blurScale = 4.5f;              ///< second blur pair: kernel radius in projected splat radii
    float maxBlurRadiusPixels = 32.f;    ///< keeps close-ups affordable: every texel within the kernel is read
    float depthFalloffInRadii = 6.0f;    ///< depth difference (in splat radii) where a neighbour's weight falls to 1/e...
    float slopeTolerance = 4.0f;         ///< ...plus this much per unit of lateral offset: slanted surfaces blur too
    osg::Vec3 absorptionPerMm{0.015f, 0.22f, 0.26f}; ///< Beer-Lambert coefficients: red passes, green and blue die
    float scatterDepthMm = 6.f;          ///< light crosses at least this much blood (scattering): thin rims stay red
    float opacityPerMm = 0.3f;           ///< coverage 1 - exp(-k (t - edge)): only thin rims are see-through...
    float edgeThicknessInSpacings = 1.5f; ///< ...and less blood than this is none: a smooth outline
};

/// Radius in pixels of the image of a sphere of `radiusMm` at eye depth `depthMm`, under
/// a perspective projection whose [1][1] element is `projectionYScale` (cot(fovy / 2)),
/// in a viewport `viewportHeight` pixels high. 0 for a depth at or behind the eye.
float projectedRadiusPixels(float radiusMm, float depthMm, float projectionYScale, float viewportHeight);

/// The bilateral blur's kernel radius in pixels for a splat of `projectedRadius` pixels:
/// `blurScale` splat radii, at least one pixel and at most `maxRadius`.
float blurRadiusPixels(float projectedRadius, float blurScale, float maxRadius);

/// Weight of a neighbour `offsetPixels` from the centre along the blur direction whose
/// depth differs from the centre's by `depthDifferenceMm`: a Gaussian in distance
/// (sigma = half the kernel radius) times a Gaussian in depth difference, 1/e at
/// `depthFalloffMm` + `slopeMmPerPixel` * |offsetPixels| (the depth change a surface
/// slanted that much away from the eye is allowed). 1 at the centre; 0 beyond the
/// kernel radius.
float bilateralWeight(float offsetPixels, float kernelRadiusPixels, float depthDifferenceMm, float depthFalloffMm,
                      float slopeMmPerPixel = 0.f);

class FluidSurface {
public:
    /// `particles` is the blood's point geometry (BloodSpheres::geometry()), shared:
    /// uploads to it show up here without a copy.
    explicit FluidSurface(osg::Geometry* particles, const FluidSurfaceParams& params = {});
    osg::Node* node() const { return root_.get(); }

    /// The splat radius follows the simulation's particle spacing.
    void setParticleSpacingMm(float spacing);
    /// Sizes the textures and passes to the target, in pixels (the widget's viewport, or
    /// an offscreen image for one frame).
    void resize(int width, int height);
    /// The main camera's matrices for this frame (world mm -> eye -> clip).
    void setCamera(const osg::Matrixd& view, const osg::Matrixd& projection);
    /// Colour the surface by the particles' colours (true), or shade it as blood,
    /// red by absorption through its thickness (false).
    void setColored(bool colored);
    void setVisible(bool visible);
    /// The size passes 1-3 run at, pixels.
    int passWidth() const { return passWidth_; }
    int passHeight() const { return passHeight_; }
    bool visible() const { return root_->getNodeMask() != 0u; }

private:
    FluidSurfaceParams params_;
    int width_ = 0, height_ = 0, passWidth_ = 0, passHeight_ = 0;
    float radiusMm_ = 1.f;
    osg::ref_ptr<osg::Geometry> particles_;
    osg::ref_ptr<osg::Group> root_;
    osg::ref_ptr<osg::Camera> depthPass_, thicknessPass_;
    std::vector<osg::ref_ptr<osg::Camera>> blurPasses_; // fine across, fine down, wide across, wide down
    osg::ref_ptr<osg::Texture2D> depth_[2], thickness_; // depth_[0]: splats, then the blurred result
    osg::ref_ptr<osg::Geode> composite_;
    osg::ref_ptr<osg::Uniform> radius_, viewportHeight_, texelSize_, projection_, pixelsPerMm_, depthFalloff_,
        thicknessRadius_, thicknessPeak_, edgeThickness_, screenRect_, colored_;
};

} // namespace atrium::widgets
