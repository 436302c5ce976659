#include "widgets/view/ColorMap.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <vector>

using namespace atrium::widgets;

TEST(ColorMap, SequentialMapGetsBrighterWithSpeed) {
    const ColorRange r{0.f, 1.f};
    int last = -1;
    for (float v = 0.f; v <= 1.f; v += 0.1f) {
        const auto c = colorFor(ColorQuantity::Speed, r, v);
        const int brightness = c[0] + c[1] + c[2];
        EXPECT_GT(brightness, last) << "at " << v;
        last = brightness;
    }
}

TEST(ColorMap, DivergingMapIsWhiteAtZeroBlueBelowRedAbove) {
    const ColorRange r{-2.f, 2.f};
    const auto zero = colorFor(ColorQuantity::DensityError, r, 0.f);
    const auto low = colorFor(ColorQuantity::DensityError, r, -2.f);
    const auto high = colorFor(ColorQuantity::DensityError, r, 2.f);
    EXPECT_GT(zero[0], 230);
    EXPECT_GT(zero[1], 230);
    EXPECT_GT(zero[2], 230);
    EXPECT_GT(low[2], low[0]);
    EXPECT_GT(high[0], high[2]);
}

TEST(ColorMap, OutOfRangeAndNonFiniteValuesAreClamped) {
    const ColorRange r{0.f, 1.f};
    EXPECT_EQ(colorFor(ColorQuantity::Speed, r, 5.f), colorFor(ColorQuantity::Speed, r, 1.f));
    EXPECT_EQ(colorFor(ColorQuantity::Speed, r, -5.f), colorFor(ColorQuantity::Speed, r, 0.f));
    EXPECT_EQ(colorFor(ColorQuantity::Speed, r, std::numeric_limits<float>::quiet_NaN()),
              colorFor(ColorQuantity::Speed, r, 0.f));
}

TEST(ColorMap, BloodIsRedWhateverTheValue) {
    const auto c = colorFor(ColorQuantity::Blood, {0.f, 1.f}, 0.7f);
    EXPECT_GT(c[0], 3 * c[1]);
    EXPECT_GT(c[0], 3 * c[2]);
}

TEST(ColorMap, RobustRangeIgnoresTheTopTwoPercent) {
    std::vector<float> speeds(1000, 0.5f);
    for (int k = 0; k < 10; ++k) speeds[std::size_t(k)] = 50.f; // 1 % outliers
    const ColorRange r = robustRange(ColorQuantity::Speed, speeds);
    EXPECT_FLOAT_EQ(r.min, 0.f);
    EXPECT_FLOAT_EQ(r.max, 0.5f);
}

TEST(ColorMap, RobustRangeOfDivergingQuantityIsSymmetric) {
    const std::vector<float> e = {-300.f, 10.f, 20.f, -5.f, 100.f};
    const ColorRange r = robustRange(ColorQuantity::DensityError, e);
    EXPECT_FLOAT_EQ(r.min, -r.max);
    EXPECT_GE(r.max, 100.f);
}

// Pressure is physiological (a level of ~0-130 mmHg, docs/physiology.md), read from
// low to high as a clinician reads it: sequential from 0, like speed.
TEST(ColorMap, PhysiologicalPressureIsSequentialFromZero) {
    EXPECT_FALSE(isDiverging(ColorQuantity::Pressure));
    const std::vector<float> p(100, 120.f);
    const ColorRange r = robustRange(ColorQuantity::Pressure, p);
    EXPECT_FLOAT_EQ(r.min, 0.f);
    EXPECT_FLOAT_EQ(r.max, 120.f);
}

TEST(ColorMap, RobustRangeIsNeverEmpty) {
    const ColorRange r = robustRange(ColorQuantity::Speed, std::vector<float>{});
    EXPECT_GT(r.max, r.min);
}

TEST(ColorMap, SmoothingApproachesTargetExponentially) {
    const ColorRange start{0.f, 0.f}, target{0.f, 1.f};
    const ColorRange half = smoothRange(start, target, 0.5 * std::log(2.0)); // tau = 0.5 s
    EXPECT_NEAR(half.max, 0.5f, 1e-4);
    EXPECT_NEAR(smoothRange(start, target, 100.0).max, 1.f, 1e-6);
    EXPECT_FLOAT_EQ(smoothRange(start, target, 0.0).max, 0.f);
}

TEST(ColorMap, TicksUseFixedNotationWithEnoughDecimals) {
    EXPECT_EQ(tickDecimals({-1000.f, 1000.f}), 0); // pressure ticks read "500", never "1e+03"
    EXPECT_EQ(tickDecimals({0.f, 1.2f}), 2);       // 0.00, 0.30, 0.60 ...
    EXPECT_GE(tickDecimals({-0.05f, 0.05f}), 2);
    EXPECT_EQ(tickDecimals({1.f, 1.f}), 1);        // an empty range does not break it
}
