#pragma once
// What LiveLectureUi's files (LiveLectureUi.cpp, LiveLectureLecturer.cpp,
// LiveLectureReplay.cpp) share; not for other code.

#include "session/Protocol.h"

#include <algorithm>
#include <cmath>

namespace atrium::widgets::live_detail {

/// Whether two narrative states play the same at session time `now` (within 50 ms).
inline bool sameNarrative(const session::NarrativeState& a, const session::NarrativeState& b, double now) {
    return a.index == b.index && a.playing == b.playing && a.loop == b.loop && a.keys == b.keys && a.entry == b.entry &&
           std::abs(a.timeAt(now) - b.timeAt(now)) < 0.05;
}

/// The distance between two heart phases around the cycle, 0..0.5.
inline double phaseDistance(double a, double b) {
    const double d = std::abs(a - b);
    return std::min(d, 1.0 - d);
}

} // namespace atrium::widgets::live_detail
