#include "app/transport/SessionClient.h"

#include "app/transport/LwsSupport.h"
#include "session/ClientText.h"

#include <libwebsockets.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

namespace atrium::transport {

using namespace atrium::session;

/// A libwebsockets timer that knows its owner (standard layout: the list comes first).
struct Timer {
    lws_sorted_usec_list_t sul{};
    void* owner = nullptr;
    static Timer* of(lws_sorted_usec_list_t* sul) { return reinterpret_cast<Timer*>(sul); }
};

struct SessionClient::Impl {
    struct Connection {
        Timer retry; ///< the reconnect timer
        Impl* owner = nullptr;
        int index = 0;
        SessionFollower follower;
        lws* wsi = nullptr;     ///< the established connection (read under the mutex)
        /// The attempt under way, from connecting until libwebsockets destroys it (service
        /// thread only; libwebsockets writes it through `pwsi`). Its first end, whatever
        /// callback reports it, schedules the one retry.
        lws* attemptWsi = nullptr;
        double attemptStarted = 0.0; ///< client clock, seconds
        bool retryPending = false;
        std::deque<std::string> out;
        std::string rx;
        LinkState link = LinkState::Connecting;
        int attempt = 0;
        bool wantWrite = false, drop = false, wasJoined = false;
        std::optional<std::string> closing; ///< why we close this socket ourselves
        std::uint64_t bytes = 0;
        explicit Connection(FollowerOptions o) : follower(std::move(o)) {}
    };

    ClientOptions options;
    Url url;
    mutable std::mutex mutex;
    std::vector<std::unique_ptr<Connection>> connections;
    std::vector<ClientEvent> events;
    std::function<void()> notify;
    std::function<void(int, const PoseSample&, double)> poseArrived;
    Timer tick;
    ServiceLoop loop;
    SessionClock clock;
    std::minstd_rand jitter{std::random_device{}()};

    Connection& at(int i) const {
        if (i < 0 || std::size_t(i) >= connections.size()) throw std::out_of_range("no connection " + std::to_string(i));
        return *connections[std::size_t(i)];
    }
    void event(ClientEvent e) {
        if (events.size() >= 8192) events.erase(events.begin(), events.begin() + 4096); // nobody reads them
        events.push_back(std::move(e));
        if (notify) notify();
    }
    /// Moves what the follower queued to the socket's queue and asks to write.
    void flush(Connection& c) {
        for (std::string& text : c.follower.takeOutgoing()) c.out.push_back(std::move(text));
        if ((c.out.empty() && !c.drop) || !c.wsi) return;
        if (loop.onServiceThread()) {
            lws_callback_on_writable(c.wsi);
        } else {
            c.wantWrite = true;
            loop.requestWake();
        }
    }
    /// Starts an attempt; called on the service thread without the mutex (libwebsockets
    /// may report a failure from inside it, and the callbacks take the mutex).
    void connect(Connection& c);
    /// The attempt `wsi` ended (refused, timed out, closed, destroyed): retry, once.
    void ended(Connection& c, lws* wsi, const std::string& why);
    void scheduleReconnect(Connection& c, const std::string& reason);
    /// Seconds an attempt may wait for the server's answer before it is given up.
    double attemptLimit() const { return std::max(2.0, options.silenceLimit); }
    static int callback(lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len);
    static void onRetry(lws_sorted_usec_list_t* sul);
    static void onTick(lws_sorted_usec_list_t* sul);
};

namespace {
lws_protocols kClientProtocols[] = {
    {"atrium-session", &SessionClient::Impl::callback, 0, 64 * 1024, 0, nullptr, 0},
    {nullptr, nullptr, 0, 0, 0, nullptr, 0},
};
constexpr int kBackoffMs[] = {250, 500, 1000, 2000, 4000, 5000};
constexpr lws_usec_t kTickUs = 50 * LWS_US_PER_MS;
} // namespace

void SessionClient::Impl::connect(Connection& c) {
    {
        std::lock_guard lock(mutex);
        c.retryPending = false;
        if (loop.stopping() || c.link == LinkState::Refused) return;
        c.link = LinkState::Connecting;
        c.attemptStarted = clock.now();
    }
    lws_client_connect_info info{};
    info.context = loop.context();
    info.address = url.host.c_str();
    info.port = url.port;
    info.path = url.path.c_str();
    info.host = url.host.c_str();
    info.origin = url.host.c_str();
    info.protocol = "atrium-session";
    if (url.secure) {
        info.ssl_connection = LCCSCF_USE_SSL;
        if (options.allowSelfSigned)
            info.ssl_connection |= LCCSCF_ALLOW_SELFSIGNED | LCCSCF_SKIP_SERVER_CERT_HOSTNAME_CHECK;
    }
    info.opaque_user_data = &c;
    info.pwsi = &c.attemptWsi;
    if (lws_client_connect_via_info(&info)) return;
    std::lock_guard lock(mutex);
    c.attemptWsi = nullptr;
    if (!c.retryPending) scheduleReconnect(c, "cannot connect to " + options.url);
}

void SessionClient::Impl::ended(Connection& c, lws* wsi, const std::string& why) {
    if (wsi != c.attemptWsi) return; // an end already reported, by another callback
    c.attemptWsi = nullptr;
    std::lock_guard lock(mutex);
    c.closing.reset();
    scheduleReconnect(c, why);
}

void SessionClient::Impl::scheduleReconnect(Connection& c, const std::string& reason) {
    // The reason may be the server's own words (its bye): shown and logged, so escaped.
    const std::string why = escapeClientText(reason);
    c.wsi = nullptr;
    c.rx.clear();
    c.out.clear();
    c.drop = false;
    if (c.wasJoined) {
        c.wasJoined = false;
        c.follower.disconnected();
        event({ClientEvent::Kind::Disconnected, c.index, std::nullopt, why});
    }
    if (loop.stopping() || c.link == LinkState::Refused) return;
    if (!options.reconnect) {
        c.link = LinkState::Refused;
        event({ClientEvent::Kind::Refused, c.index, std::nullopt, why});
        return;
    }
    c.link = LinkState::Connecting;
    c.retryPending = true;
    const int base = kBackoffMs[std::min<std::size_t>(std::size_t(c.attempt), std::size(kBackoffMs) - 1)];
    ++c.attempt;
    const int delay = base + int(jitter() % unsigned(base / 5 + 1));
    lws_sul_schedule(loop.context(), 0, &c.retry.sul, &Impl::onRetry, lws_usec_t(delay) * LWS_US_PER_MS);
}

void SessionClient::Impl::onRetry(lws_sorted_usec_list_t* sul) {
    auto* c = static_cast<Connection*>(Timer::of(sul)->owner);
    c->owner->connect(*c);
}

void SessionClient::Impl::onTick(lws_sorted_usec_list_t* sul) {
    auto* self = static_cast<Impl*>(Timer::of(sul)->owner);
    {
        std::lock_guard lock(self->mutex);
        const double now = self->clock.now();
        for (auto& c : self->connections) {
            // An attempt the server never answers (a stopped process still accepts
            // connections into its backlog) is given up after the silence limit too.
            if (c->attemptWsi && !c->wsi && !c->closing && now - c->attemptStarted > self->attemptLimit()) {
                c->closing = "no answer from the server for " + std::to_string(int(self->attemptLimit())) + " s";
                if (self->options.log) self->options.log(*c->closing + ": trying again");
                lws_set_timeout(c->attemptWsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
                continue;
            }
            if (!c->wsi || c->closing) continue;
            if (c->follower.silent(now)) { // the network dropped without closing the socket
                c->closing = "no word from the server for " + std::to_string(int(self->options.silenceLimit)) + " s";
                if (self->options.log) self->options.log(*c->closing + ": reconnecting");
                lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
            } else if (c->link == LinkState::Joined) {
                c->follower.tick(now);
                self->flush(*c);
            }
        }
    }
    if (!self->loop.stopping()) lws_sul_schedule(self->loop.context(), 0, &self->tick.sul, &Impl::onTick, kTickUs);
}

int SessionClient::Impl::callback(lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len) {
    lws_context* context = lws_get_context(wsi);
    auto* self = context ? static_cast<Impl*>(lws_context_user(context)) : nullptr;
    auto* c = static_cast<Connection*>(lws_get_opaque_user_data(wsi));
    if (!self) return lws_callback_http_dummy(wsi, reason, user, in, len);
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED: {
        if (!c) return -1;
        std::lock_guard lock(self->mutex);
        c->wsi = wsi;
        c->follower.connected(self->clock.now());
        self->flush(*c);
        return 0;
    }
    case LWS_CALLBACK_CLIENT_RECEIVE: {
        if (!c) return -1;
        std::lock_guard lock(self->mutex);
        c->bytes += len;
        const std::size_t cap = kServerMessageLimits.maxBytes + 1;
        if (c->rx.size() < cap) c->rx.append(static_cast<const char*>(in), std::min(len, cap - c->rx.size()));
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) != 0) return 0;
        const std::string text = std::move(c->rx);
        c->rx.clear();
        c->follower.received(text, self->clock.now());
        if (c->follower.joined() && !c->wasJoined) {
            c->wasJoined = true;
            c->attempt = 0;
            c->link = LinkState::Joined;
            self->event({ClientEvent::Kind::Joined, c->index, std::nullopt, {}});
        }
        if (c->follower.farewell() && *c->follower.farewell() == "wrong join code") {
            c->link = LinkState::Refused;
            self->event({ClientEvent::Kind::Refused, c->index, std::nullopt, "wrong join code"});
        }
        self->flush(*c);
        return 0;
    }
    case LWS_CALLBACK_CLIENT_WRITEABLE: {
        if (!c) return -1;
        std::lock_guard lock(self->mutex);
        if (c->drop) return -1;
        if (c->out.empty()) return 0;
        const std::string text = std::move(c->out.front());
        c->out.pop_front();
        if (!writeText(wsi, text)) return -1;
        if (!c->out.empty()) lws_callback_on_writable(wsi);
        return 0;
    }
    // Every way an attempt can end: refused, timed out waiting for the upgrade (reported
    // as the close of an HTTP client), closed once established, or only destroyed.
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
    case LWS_CALLBACK_CLOSED_CLIENT_HTTP:
    case LWS_CALLBACK_CLIENT_CLOSED:
    case LWS_CALLBACK_WSI_DESTROY: {
        if (!c || wsi != c->attemptWsi) return 0;
        std::string why;
        {
            std::lock_guard lock(self->mutex);
            why = c->closing                                  ? *c->closing
                  : reason == LWS_CALLBACK_CLIENT_CONNECTION_ERROR ? std::string("cannot connect: ") + (in ? static_cast<const char*>(in) : "error")
                  : reason != LWS_CALLBACK_CLIENT_CLOSED      ? std::string("the server did not answer the upgrade")
                  : c->follower.farewell()                    ? *c->follower.farewell()
                                                              : "connection closed";
        }
        self->ended(*c, wsi, why);
        return 0;
    }
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        std::lock_guard lock(self->mutex);
        for (auto& conn : self->connections)
            if (conn->wantWrite && conn->wsi) {
                conn->wantWrite = false;
                lws_callback_on_writable(conn->wsi);
            }
        return 0;
    }
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

SessionClient::SessionClient(ClientOptions options) : impl_(std::make_unique<Impl>()) {
    routeLwsLog();
    std::string error;
    const auto url = parseUrl(options.url, &error);
    if (!url) throw std::invalid_argument(error);
    impl_->url = *url;
    impl_->options = std::move(options);
    const int n = std::max(1, impl_->options.connections);
    for (int i = 0; i < n; ++i) {
        FollowerOptions f{impl_->options.code, impl_->options.name, impl_->options.secret, impl_->options.buffer};
        f.silenceLimit = impl_->options.silenceLimit;
        if (n > 1) f.name += ' ' + std::to_string(i + 1);
        f.log = impl_->options.log;
        auto c = std::make_unique<Impl::Connection>(std::move(f));
        c->owner = impl_.get();
        c->retry.owner = c.get();
        c->index = i;
        c->follower.setApplied([impl = impl_.get(), i](const Message& m) {
            impl->event({ClientEvent::Kind::Applied, i, m, {}});
        });
        c->follower.setPoseArrived([impl = impl_.get(), i](const PoseSample& s, double lateness) {
            if (impl->poseArrived) impl->poseArrived(i, s, lateness);
        });
        impl_->connections.push_back(std::move(c));
    }

    lws_context_creation_info info{};
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = kClientProtocols;
    info.user = impl_.get();
    info.options = url->secure ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0;
    info.fd_limit_per_thread = std::uint32_t(n + 16);
    lws_context* context = lws_create_context(&info);
    if (!context) throw std::runtime_error("libwebsockets could not start a client");
    Impl* impl = impl_.get();
    std::lock_guard lock(impl->mutex);
    for (auto& c : impl->connections) // staggered a little, as students arrive
        lws_sul_schedule(context, 0, &c->retry.sul, &Impl::onRetry, lws_usec_t(c->index) * 2 * LWS_US_PER_MS);
    impl->tick.owner = impl;
    lws_sul_schedule(context, 0, &impl->tick.sul, &Impl::onTick, kTickUs);
    impl->loop.start(context, impl->mutex);
}

SessionClient::~SessionClient() {
    {
        std::lock_guard lock(impl_->mutex);
        for (auto& c : impl_->connections) {
            c->out.push_back(encode(msg::Leave{}));
            impl_->flush(*c);
        }
        impl_->loop.wakeIfNeeded();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20)); // let the leaves go
    impl_->loop.stop();
}

double SessionClient::now() const { return impl_->clock.now(); }
int SessionClient::connections() const { return int(impl_->connections.size()); }

#define ATRIUM_LOCKED(expr)                     \
    std::lock_guard lock(impl_->mutex);         \
    return expr

LinkState SessionClient::link(int i) const { ATRIUM_LOCKED(impl_->at(i).link); }
bool SessionClient::synced(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.synced()); }
SessionState SessionClient::state(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.state()); }
std::uint64_t SessionClient::sequence(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.sequence()); }
int SessionClient::memberId(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.memberId()); }
Role SessionClient::role(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.role()); }
bool SessionClient::maySteer(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.maySteer()); }
std::vector<Member> SessionClient::roster(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.roster()); }
double SessionClient::lecturerNow(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.lecturerNow(impl_->clock.now())); }
std::optional<narrative::CameraPose> SessionClient::pose(int i) { ATRIUM_LOCKED(impl_->at(i).follower.poseAt(impl_->clock.now())); }
double SessionClient::bufferDelay(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.poses().delay()); }
bool SessionClient::following(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.following()); }
std::uint64_t SessionClient::bytesReceived(int i) const { ATRIUM_LOCKED(impl_->at(i).bytes); }
SessionFollower::Counters SessionClient::counters(int i) const { ATRIUM_LOCKED(impl_->at(i).follower.counters()); }

#undef ATRIUM_LOCKED

bool SessionClient::setFollowing(bool following, int i) {
    std::lock_guard lock(impl_->mutex);
    Impl::Connection& c = impl_->at(i);
    const bool ok = c.follower.setFollowing(following);
    impl_->flush(c);
    impl_->loop.wakeIfNeeded();
    return ok;
}

bool SessionClient::drive(const Message& message, int i) {
    std::lock_guard lock(impl_->mutex);
    Impl::Connection& c = impl_->at(i);
    const bool ok = c.follower.drive(message);
    impl_->flush(c);
    impl_->loop.wakeIfNeeded();
    return ok;
}

std::vector<ClientEvent> SessionClient::takeEvents() {
    std::lock_guard lock(impl_->mutex);
    return std::exchange(impl_->events, {});
}

void SessionClient::setNotify(std::function<void()> notify) {
    std::lock_guard lock(impl_->mutex);
    impl_->notify = std::move(notify);
}

void SessionClient::setPoseArrived(std::function<void(int, const PoseSample&, double)> f) {
    std::lock_guard lock(impl_->mutex);
    impl_->poseArrived = std::move(f);
}

void SessionClient::dropConnection(int i) {
    std::lock_guard lock(impl_->mutex);
    Impl::Connection& c = impl_->at(i);
    c.drop = true;
    impl_->flush(c);
    impl_->loop.wakeIfNeeded();
}

} // namespace atrium::transport
