// The screen-space surface's filter arithmetic (FluidSurface.h), which fluid_blur.frag
// mirrors: how wide the bilateral kernel is and how much a neighbour counts.

#include "widgets/view/FluidSurface.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace atrium::widgets;

namespace {
// A 40 degree vertical field of view, as SceneView uses: P[1][1] = cot(20 deg).
const float kYScale = float(1.0 / std::tan(20.0 * 3.14159265358979 / 180.0));
} // namespace

TEST(FluidSurfaceFilter, ProjectedRadiusFollowsPerspective) {
    const float r = projectedRadiusPixels(1.5f, 300.f, kYScale, 720.f);
    EXPECT_NEAR(r, 0.5f * 720.f * kYScale * 1.5f / 300.f, 1e-4f);
    EXPECT_NEAR(projectedRadiusPixels(1.5f, 600.f, kYScale, 720.f), 0.5f * r, 1e-4f); // twice as far: half as big
    EXPECT_NEAR(projectedRadiusPixels(1.5f, 300.f, kYScale, 1440.f), 2.f * r, 1e-4f); // twice the pixels: twice as big
    EXPECT_EQ(projectedRadiusPixels(1.5f, 0.f, kYScale, 720.f), 0.f);
    EXPECT_EQ(projectedRadiusPixels(1.5f, -10.f, kYScale, 720.f), 0.f); // behind the eye
}

TEST(FluidSurfaceFilter, KernelScalesWithTheSplatAndIsClamped) {
    EXPECT_FLOAT_EQ(blurRadiusPixels(3.f, 4.5f, 32.f), 13.5f);
    EXPECT_FLOAT_EQ(blurRadiusPixels(0.05f, 4.5f, 32.f), 1.f);  // far away: still one pixel
    EXPECT_FLOAT_EQ(blurRadiusPixels(20.f, 4.5f, 32.f), 32.f);  // close up: capped
    EXPECT_FLOAT_EQ(blurRadiusPixels(20.f, 4.5f, 0.f), 1.f);    // a nonsensical cap still leaves one pixel
}

TEST(FluidSurfaceFilter, WeightIsOneAtTheCentreAndFallsWithDistance) {
    EXPECT_FLOAT_EQ(bilateralWeight(0.f, 10.f, 0.f, 2.f), 1.f);
    float last = 1.f;
    for (float x = 1.f; x <= 10.f; x += 1.f) {
        const float w = bilateralWeight(x, 10.f, 0.f, 2.f);
        EXPECT_LT(w, last) << "at " << x;
        EXPECT_FLOAT_EQ(w, bilateralWeight(-x, 10.f, 0.f, 2.f)) << "symmetric at " << x;
        last = w;
    }
    // sigma = half the kernel: exp(-2) at its edge, nothing beyond it.
    EXPECT_NEAR(bilateralWeight(10.f, 10.f, 0.f, 2.f), std::exp(-2.f), 1e-6f);
    EXPECT_EQ(bilateralWeight(10.5f, 10.f, 0.f, 2.f), 0.f);
}

TEST(FluidSurfaceFilter, DepthStepsKeepEdgesSharp) {
    // 1/e at the falloff, symmetric in the sign of the step.
    EXPECT_NEAR(bilateralWeight(0.f, 10.f, 2.f, 2.f), std::exp(-1.f), 1e-6f);
    EXPECT_FLOAT_EQ(bilateralWeight(3.f, 10.f, 1.f, 2.f), bilateralWeight(3.f, 10.f, -1.f, 2.f));
    // Another layer of blood 5 falloffs behind: it does not bleed into this one.
    EXPECT_LT(bilateralWeight(1.f, 10.f, 10.f, 2.f), 1e-10f);
}

TEST(FluidSurfaceFilter, SlopeToleranceLetsASlantedSurfaceBlur) {
    // A surface receding 1.5 mm per pixel: 6 mm at 4 pixels, three falloffs of 2 mm.
    const float flat = bilateralWeight(4.f, 10.f, 6.f, 2.f);
    const float slanted = bilateralWeight(4.f, 10.f, 6.f, 2.f, 2.f); // 2 + 2 * 4 = 10 mm allowed
    EXPECT_LT(flat, 1e-3f);
    EXPECT_GT(slanted, 0.5f * bilateralWeight(4.f, 10.f, 0.f, 2.f));
    // At the centre the tolerance adds nothing.
    EXPECT_FLOAT_EQ(bilateralWeight(0.f, 10.f, 2.f, 2.f, 5.f), bilateralWeight(0.f, 10.f, 2.f, 2.f));
}
