#pragma once
// Aligning a student's clock with the lecturer's session clock by a ping exchange, as
// NTP does on a small scale: the student sends its time t0, the server answers with its
// time ts, the answer arrives at t1. Then offset = ts - (t0 + t1) / 2 with an error of at
// most half the round trip (t1 - t0); of the last few exchanges the one with the
// shortest round trip is the most trustworthy, and its offset is used.

#include <array>
#include <cstddef>
#include <optional>

namespace atrium::session {

class ClockSync {
public:
    /// How many recent exchanges are kept.
    static constexpr std::size_t kWindow = 8;

    /// One exchange, all in seconds: t0 and t1 on the local clock, ts on the server's.
    /// An answer that arrives before it was asked (t1 < t0) is ignored.
    void addExchange(double t0, double ts, double t1);

    bool synced() const { return count_ > 0; }
    /// Server time minus local time, from the exchange with the shortest round trip (0
    /// before any).
    double offset() const;
    /// That exchange's round trip, seconds (infinity before any).
    double roundTrip() const;
    double toServer(double local) const { return local + offset(); }
    double toLocal(double server) const { return server - offset(); }

private:
    struct Exchange {
        double offset = 0, roundTrip = 0;
    };
    std::array<Exchange, kWindow> recent_{};
    std::size_t count_ = 0, next_ = 0;
};

} // namespace atrium::session
