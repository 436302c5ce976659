#pragma once
// A TCP relay on loopback between a client and a server, for tests of a network that
// drops without closing anything: after cut(), the connections it carries stay open but
// no byte crosses them any more, either way, as when a cable is pulled or a Wi-Fi
// network is lost; new connections are turned away until mend().

#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace atrium::transport::test {

class LoopbackRelay {
public:
    /// Listens on 127.0.0.1 (any free port) and relays to 127.0.0.1:targetPort.
    explicit LoopbackRelay(int targetPort);
    ~LoopbackRelay();
    LoopbackRelay(const LoopbackRelay&) = delete;
    LoopbackRelay& operator=(const LoopbackRelay&) = delete;

    int port() const { return port_; }
    /// The network goes silent: the open connections carry nothing from now on (they are
    /// closed only when the relay ends); new ones are closed as soon as they arrive.
    void cut();
    /// The network is back: new connections are relayed again.
    void mend();

private:
    struct Pair {
        int client = -1, server = -1;
        bool live = true;
    };
    void run();

    int target_ = 0, port_ = 0, listener_ = -1;
    std::mutex mutex_;
    std::vector<Pair> pairs_;
    bool cut_ = false;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

} // namespace atrium::transport::test
