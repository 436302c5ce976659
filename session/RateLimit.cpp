#include "session/RateLimit.h"

#include <algorithm>

namespace atrium::session {

double TokenBucket::available(double now) {
    if (last_ >= 0.0 && now > last_) tokens_ = std::min(burst_, tokens_ + (now - last_) * rate_);
    if (now > last_) last_ = now;
    return tokens_;
}

bool TokenBucket::take(double cost, double now) {
    if (available(now) < cost) return false;
    tokens_ -= cost;
    return true;
}

ConnectionGuard::ConnectionGuard(RateLimits l)
    : messages_(l.messagesPerSecond, l.messageBurst), bytes_(l.bytesPerSecond, l.byteBurst) {}

void ConnectionGuard::setLimits(RateLimits l) {
    messages_ = TokenBucket(l.messagesPerSecond, l.messageBurst);
    bytes_ = TokenBucket(l.bytesPerSecond, l.byteBurst);
}

bool ConnectionGuard::admit(std::size_t bytes, double now) {
    // Both buckets are asked so that a refused message still costs its bytes.
    const bool message = messages_.take(1.0, now);
    const bool size = bytes_.take(double(bytes), now);
    return message && size;
}

bool ConnectionGuard::strike(double now) {
    if (now > lastStrike_) strikes_ = std::max(0.0, strikes_ - (now - lastStrike_) * kStrikeFade);
    lastStrike_ = std::max(lastStrike_, now);
    strikes_ += 1.0;
    return exhausted();
}

} // namespace atrium::session
