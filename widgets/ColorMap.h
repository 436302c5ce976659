#pragma once
// Colouring the blood, plainly or by a per-particle quantity, shared by the renderer and the legend
// so that both always agree. Speed and pressure (physiological, from 0 mmHg) use a
// sequential map (dark -> bright); density error a diverging map centred on zero (blue
// below, red above).

#include <array>
#include <cstdint>
#include <span>
#include <string>

namespace atrium::widgets {

/// Blood: plain blood red (no legend); the others colour by a per-particle value.
enum class ColorQuantity { Blood, Speed, DensityError, Pressure };

struct ColorRange {
    float min = 0.f, max = 1.f;
};

/// Display name with unit, e.g. "speed (m/s)". The values are in those units: speed in
/// m/s, density error (rho/rho0 - 1) in %, pressure in mmHg (as clinicians read it).
std::string quantityLabel(ColorQuantity q);
/// True for quantities shown on the diverging, zero-centred map.
bool isDiverging(ColorQuantity q);

/// Colour of `value` in `range` as 8-bit RGB.
std::array<std::uint8_t, 3> colorFor(ColorQuantity q, ColorRange range, float value);

/// A range that holds all but the most extreme 2 % of `values`: [0, p98] for speed,
/// symmetric [-p98(|v|), p98(|v|)] for diverging quantities. Never narrower than
/// 0.01 (units above) on either side of its zero.
ColorRange robustRange(ColorQuantity q, std::span<const float> values);

/// Decimals for the legend's ticks over `range` (fixed notation, never 1e+03).
int tickDecimals(ColorRange range);

/// Eases `current` towards `target` (exponential smoothing, time constant 0.5 s) so the
/// legend does not flicker from snapshot to snapshot.
ColorRange smoothRange(ColorRange current, ColorRange target, double dtSeconds);

} // namespace atrium::widgets
