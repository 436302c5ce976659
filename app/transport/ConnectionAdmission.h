#pragma once
// Who may hold a connection to the session server before joining it, and for how long.
// A connection that has not said hello (or an HTTP request still being read) holds a
// descriptor and memory while giving nothing; libwebsockets answers its pings, so it
// would never time out by itself. The server therefore
//  - closes one that has not joined within `helloTimeout` seconds (a package download
//    in progress is exempt: libwebsockets' own timeouts end a stalled one);
//  - refuses a new one from an address that already holds `perAddress` of them;
//  - when `total` are held, closes the oldest to make room (an honest student joins in
//    milliseconds, so the oldest is the one least likely to join);
//  - refuses any connection whose descriptor number reaches `descriptorCeiling`: the
//    process's table is nearly full (whoever holds it), and what is left stays for
//    files, the package being served and the recording.
// Pure bookkeeping, without sockets: the server asks and acts. Keys are opaque (the
// server uses libwebsockets' connection pointers); times are seconds on any one clock.

#include <cstddef>
#include <map>
#include <sys/socket.h>
#include <string>
#include <vector>

namespace atrium::transport {

struct AdmissionLimits {
    double helloTimeout = 5.0;
    std::size_t perAddress = 32;
    std::size_t total = 256;
    int descriptorCeiling = 1 << 30;
};

/// How many descriptors the server may use, from RLIMIT_NOFILE: libwebsockets is told to
/// stop accepting at `serverLimit` (it then stops polling the listening socket instead
/// of failing accept() in a loop), and connections past `ceiling` are refused at once.
struct DescriptorBudget {
    int limit = 0;       ///< the soft RLIMIT_NOFILE (capped at 65536)
    int serverLimit = 0; ///< limit minus a reserve of an eighth (32 to 256)
    int ceiling = 0;     ///< descriptor numbers from here on are refused
};
DescriptorBudget descriptorBudget();

/// Whom a peer address counts against: an IPv4 address itself (also when it arrives
/// IPv4-mapped on a dual-stack socket), and an IPv6 address's /64 network, since one
/// machine may take any number of addresses in its own /64. Empty for other families.
std::string addressGroup(const sockaddr_storage& address);

class ConnectionAdmission {
public:
    explicit ConnectionAdmission(AdmissionLimits limits) : limits_(limits) {}

    enum class Verdict { Admit, RefuseAddress, RefuseDescriptors };
    struct Decision {
        Verdict verdict = Verdict::Admit;
        const void* evict = nullptr; ///< the oldest connection that has not joined: close it
    };
    /// A connection was accepted on descriptor `fd` from `address`: may it stay? A
    /// connection named to evict is not named again (it is on its way out).
    Decision admit(int fd, const std::string& address);

    /// An admitted connection exists now, under `key`.
    void opened(const void* key, const std::string& address, double now);
    /// Its WebSocket is open, as `connection` (the server's id for it).
    void upgraded(const void* key, int connection);
    /// It joined the session: no longer counted or timed.
    void joined(const void* key);
    /// It is downloading the package: counted, but not timed by helloTimeout.
    void serving(const void* key);
    /// It is gone.
    void closed(const void* key);

    struct Expired {
        const void* key;
        int connection; ///< 0 while it is still HTTP (never upgraded)
    };
    /// Connections past the hello timeout, each reported once (they stay counted until closed()).
    /// Those already named to evict are not reported again.
    std::vector<Expired> expired(double now);

    std::size_t waiting() const { return waiting_.size(); }
    std::size_t waitingFrom(const std::string& address) const;
    const AdmissionLimits& limits() const { return limits_; }

private:
    struct Waiting {
        std::string address;
        double since = 0.0;
        int connection = 0;
        bool serving = false, reported = false;
    };
    AdmissionLimits limits_;
    std::map<const void*, Waiting> waiting_;
    std::map<std::string, std::size_t> byAddress_;
};

/// Lets one line through per `interval` seconds and counts the rest, for log lines that a
/// stranger could otherwise repeat thousands of times a second.
class LogThrottle {
public:
    explicit LogThrottle(double interval = 5.0) : interval_(interval) {}
    /// True when a line may be written at `now`; `suppressed` is then how many were held
    /// back since the last one written (to say so).
    bool allow(double now, std::size_t& suppressed);

private:
    double interval_, last_ = -1e300;
    std::size_t held_ = 0;
};

} // namespace atrium::transport
