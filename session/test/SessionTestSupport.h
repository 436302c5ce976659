#pragma once
// Readable failures: gtest prints session states and messages as their JSON.
#include "session/Protocol.h"

#include <ostream>

namespace atrium::session {
inline void PrintTo(const SessionState& s, std::ostream* os) { *os << toJson(s).dump(); }
inline void PrintTo(const Message& m, std::ostream* os) { *os << encode(m); }
} // namespace atrium::session
