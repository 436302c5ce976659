#include "session/ClockSync.h"

#include <algorithm>
#include <limits>

namespace atrium::session {

void ClockSync::addExchange(double t0, double ts, double t1) {
    if (!(t1 >= t0)) return;
    recent_[next_] = {ts - 0.5 * (t0 + t1), t1 - t0};
    next_ = (next_ + 1) % kWindow;
    if (count_ < kWindow) ++count_;
}

double ClockSync::offset() const {
    const Exchange* best = nullptr;
    for (std::size_t i = 0; i < count_; ++i)
        if (!best || recent_[i].roundTrip < best->roundTrip) best = &recent_[i];
    return best ? best->offset : 0.0;
}

double ClockSync::roundTrip() const {
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < count_; ++i) best = std::min(best, recent_[i].roundTrip);
    return best;
}

} // namespace atrium::session
