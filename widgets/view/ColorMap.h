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
    bool operator==(const ColorRange&) const = default;
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

/// The smallest "nice" value (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten) that
/// is >= `value` (> 0).
float niceCeiling(float value);

/// The speed colouring's automatic range, held for a whole beat so that a colour means
/// one speed all through it (a per-frame range read 1.05, 2.24 and 1.14 m/s within one
/// systole): 0 to the previous beat's fastest blood (robust maximum) rounded up to a nice
/// value, never below kFloor. A normal heart reads 0-2 m/s beat after beat; a stenotic
/// jet widens the range for the beats that follow. Only blood faster than the range
/// widens it within a beat (the first, or a jet that grows); it never narrows there.
class BeatSpeedRange {
public:
    static constexpr float kFloor = 2.0f; ///< m/s: the top of the range at least
    /// Takes the blood shown at cycle phase `phase` (0..1) with robust maximum speed
    /// `fastest` (m/s); returns the range to colour it with. A phase that goes back (the
    /// next beat, or a seek) starts a beat.
    ColorRange update(double phase, float fastest);
    ColorRange range() const { return {0.0f, top_}; }

private:
    float top_ = kFloor;  // the range's top now
    float beatMax_ = 0.f; // the fastest blood of the beat so far
    double phase_ = -1.0;
};

/// Eases `current` towards `target` (exponential smoothing, time constant 0.5 s) so the
/// legend does not flicker from snapshot to snapshot.
ColorRange smoothRange(ColorRange current, ColorRange target, double dtSeconds);

} // namespace atrium::widgets
