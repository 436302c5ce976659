#include "LoopbackRelay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace atrium::transport::test {

namespace {
sockaddr_in loopback(int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(std::uint16_t(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return a;
}

/// Moves what `from` has to `to`; false when `from` closed or either failed.
bool relay(int from, int to) {
    char buffer[64 * 1024];
    const ssize_t n = ::recv(from, buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    for (ssize_t done = 0; done < n;) {
        const ssize_t w = ::send(to, buffer + done, std::size_t(n - done), MSG_NOSIGNAL);
        if (w <= 0) return false;
        done += w;
    }
    return true;
}
} // namespace

LoopbackRelay::LoopbackRelay(int targetPort) : target_(targetPort) {
    listener_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = loopback(0);
    socklen_t size = sizeof a;
    if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(listener_, 16) != 0 ||
        ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &size) != 0) {
        if (listener_ >= 0) ::close(listener_);
        throw std::runtime_error("the relay cannot listen on loopback");
    }
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { run(); });
}

LoopbackRelay::~LoopbackRelay() {
    stop_ = true;
    thread_.join();
    for (const Pair& p : pairs_) {
        ::close(p.client);
        ::close(p.server);
    }
    ::close(listener_);
}

void LoopbackRelay::cut() {
    std::lock_guard lock(mutex_);
    cut_ = true;
    for (Pair& p : pairs_) p.live = false;
}

void LoopbackRelay::mend() {
    std::lock_guard lock(mutex_);
    cut_ = false;
}

void LoopbackRelay::run() {
    while (!stop_) {
        std::vector<pollfd> fds{{listener_, POLLIN, 0}};
        std::vector<std::size_t> owner{0};
        {
            std::lock_guard lock(mutex_);
            for (std::size_t i = 0; i < pairs_.size(); ++i)
                if (pairs_[i].live) {
                    fds.push_back({pairs_[i].client, POLLIN, 0});
                    fds.push_back({pairs_[i].server, POLLIN, 0});
                    owner.insert(owner.end(), {i, i});
                }
        }
        if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
        std::lock_guard lock(mutex_);
        if (fds[0].revents & POLLIN) {
            const int client = ::accept(listener_, nullptr, nullptr);
            if (client >= 0) {
                const int server = cut_ ? -1 : ::socket(AF_INET, SOCK_STREAM, 0);
                const sockaddr_in a = loopback(target_);
                if (server >= 0 && ::connect(server, reinterpret_cast<const sockaddr*>(&a), sizeof a) == 0) {
                    pairs_.push_back({client, server, true});
                } else {
                    if (server >= 0) ::close(server);
                    ::close(client);
                }
            }
        }
        for (std::size_t k = 1; k < fds.size(); ++k) {
            Pair& p = pairs_[owner[k]];
            if (!p.live || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const bool fromClient = fds[k].fd == p.client;
            if (!relay(fds[k].fd, fromClient ? p.server : p.client)) { // one end closed: close the other
                ::shutdown(p.client, SHUT_RDWR);
                ::shutdown(p.server, SHUT_RDWR);
                p.live = false;
            }
        }
    }
}

} // namespace atrium::transport::test
