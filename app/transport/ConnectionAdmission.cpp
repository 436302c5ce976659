#include "app/transport/ConnectionAdmission.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/resource.h>

#include <algorithm>
#include <iterator>

namespace atrium::transport {

DescriptorBudget descriptorBudget() {
    rlimit r{};
    rlim_t soft = 1024;
    if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur != RLIM_INFINITY) soft = r.rlim_cur;
    else if (getrlimit(RLIMIT_NOFILE, &r) == 0) soft = 65536;
    DescriptorBudget b;
    b.limit = int(std::min<rlim_t>(soft, 65536));
    const int reserve = std::clamp(b.limit / 8, 32, 256);
    b.serverLimit = std::max(16, b.limit - reserve);
    b.ceiling = std::max(16, b.limit - reserve / 2);
    return b;
}

std::string addressGroup(const sockaddr_storage& address) {
    char text[INET6_ADDRSTRLEN] = {};
    if (address.ss_family == AF_INET) {
        inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&address)->sin_addr, text, sizeof text);
        return text;
    }
    if (address.ss_family != AF_INET6) return {};
    in6_addr a = reinterpret_cast<const sockaddr_in6*>(&address)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
        inet_ntop(AF_INET, &a.s6_addr[12], text, sizeof text);
        return text;
    }
    std::fill(std::begin(a.s6_addr) + 8, std::end(a.s6_addr), 0); // the /64 network
    inet_ntop(AF_INET6, &a, text, sizeof text);
    return std::string(text) + "/64";
}

ConnectionAdmission::Decision ConnectionAdmission::admit(int fd, const std::string& address) {
    Decision d;
    if (fd >= limits_.descriptorCeiling) d.verdict = Verdict::RefuseDescriptors;
    else if (waitingFrom(address) >= limits_.perAddress) d.verdict = Verdict::RefuseAddress;
    // Full (or out of descriptors): make room by closing the connection that has waited longest.
    if ((d.verdict == Verdict::Admit && waiting_.size() >= limits_.total) || d.verdict == Verdict::RefuseDescriptors) {
        double oldest = 1e300;
        Waiting* chosen = nullptr;
        for (auto& [key, w] : waiting_)
            if (!w.reported && !w.serving && w.since < oldest) {
                oldest = w.since;
                d.evict = key;
                chosen = &w;
            }
        if (chosen) chosen->reported = true;
    }
    return d;
}

void ConnectionAdmission::opened(const void* key, const std::string& address, double now) {
    if (waiting_.count(key)) return;
    waiting_[key] = Waiting{address, now};
    ++byAddress_[address];
}

void ConnectionAdmission::upgraded(const void* key, int connection) {
    if (auto it = waiting_.find(key); it != waiting_.end()) it->second.connection = connection;
}

void ConnectionAdmission::serving(const void* key) {
    if (auto it = waiting_.find(key); it != waiting_.end()) it->second.serving = true;
}

void ConnectionAdmission::joined(const void* key) { closed(key); }

void ConnectionAdmission::closed(const void* key) {
    const auto it = waiting_.find(key);
    if (it == waiting_.end()) return;
    if (auto a = byAddress_.find(it->second.address); a != byAddress_.end() && --a->second == 0) byAddress_.erase(a);
    waiting_.erase(it);
}

std::vector<ConnectionAdmission::Expired> ConnectionAdmission::expired(double now) {
    std::vector<Expired> out;
    for (auto& [key, w] : waiting_)
        if (!w.reported && !w.serving && now - w.since > limits_.helloTimeout) {
            w.reported = true;
            out.push_back({key, w.connection});
        }
    return out;
}

std::size_t ConnectionAdmission::waitingFrom(const std::string& address) const {
    const auto it = byAddress_.find(address);
    return it == byAddress_.end() ? 0 : it->second;
}

bool LogThrottle::allow(double now, std::size_t& suppressed) {
    if (now - last_ < interval_) {
        ++held_;
        return false;
    }
    last_ = now;
    suppressed = held_;
    held_ = 0;
    return true;
}

} // namespace atrium::transport
