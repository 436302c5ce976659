#pragma once
// Bounding what one connection may send. A token bucket each for messages and bytes
// (a burst, refilled at a steady rate) decides whether a message is accepted; every
// refused message - malformed, oversized, unknown, out of order, not allowed for the
// sender's role, or over the rate - is a strike, strikes fade at a steady rate, and a
// connection whose strikes pass a limit is closed (repeated abuse).

#include <cstddef>

namespace atrium::session {

class TokenBucket {
public:
    TokenBucket(double ratePerSecond, double burst) : rate_(ratePerSecond), burst_(burst), tokens_(burst) {}
    /// Takes `cost` tokens at time `now` (seconds) if there are enough; false otherwise.
    bool take(double cost, double now);
    /// Tokens available at time `now`.
    double available(double now);

private:
    double rate_, burst_, tokens_;
    double last_ = -1.0;
};

/// Per-connection bounds, for a follower and for a driver.
struct RateLimits {
    double messagesPerSecond, messageBurst;
    double bytesPerSecond, byteBurst;
};
/// Students send hello, ping about once a second, status when they leave or rejoin follow.
inline constexpr RateLimits kFollowerRates{10.0, 30.0, 4096.0, 16384.0};
/// The lecturer sends poses at up to 60 Hz plus state changes.
inline constexpr RateLimits kDriverRates{200.0, 400.0, 256.0 * 1024, 1024.0 * 1024};

class ConnectionGuard {
public:
    static constexpr double kStrikeLimit = 10.0;  ///< strikes held that close the connection
    static constexpr double kStrikeFade = 0.2;    ///< strikes forgiven per second

    explicit ConnectionGuard(RateLimits limits = kFollowerRates);
    /// Switches limits (a student given the floor, or an authenticated lecturer).
    void setLimits(RateLimits limits);
    /// Whether a message of `bytes` at time `now` is within the rates (a refusal strikes).
    bool admit(std::size_t bytes, double now);
    /// Counts a refused message. Returns true when the connection should now be closed.
    bool strike(double now);
    bool exhausted() const { return strikes_ >= kStrikeLimit; }
    double strikes() const { return strikes_; }

private:
    TokenBucket messages_, bytes_;
    double strikes_ = 0.0, lastStrike_ = 0.0;
};

} // namespace atrium::session
