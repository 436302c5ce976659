#include "app/transport/SessionServer.h"

#include "app/transport/ConnectionAdmission.h"
#include "app/transport/LwsSupport.h"
#include "app/transport/StudentPageRoutes.h"
#include "session/ClientText.h"
#include "session/ContentIdentity.h"

#include <libwebsockets.h>

#include <ifaddrs.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <pthread.h>
#include <time.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <map>

namespace atrium::transport {

using namespace atrium::session;

namespace {
/// Whom a socket's peer counts against (addressGroup: the IPv4 address, or the IPv6 /64);
/// empty when unknown.
std::string peerAddress(int fd) {
    sockaddr_storage a{};
    socklen_t size = sizeof a;
    if (fd < 0 || getpeername(fd, reinterpret_cast<sockaddr*>(&a), &size) != 0) return {};
    return addressGroup(a);
}

/// A libwebsockets timer that knows its owner (standard layout: the list comes first).
struct ServerTimer {
    lws_sorted_usec_list_t sul{};
    SessionServer::Impl* owner = nullptr;
};
constexpr lws_usec_t kSweepUs = 250 * LWS_US_PER_MS;

/// Whether the request's Accept-Encoding names gzip (a q=0 refusal aside, which no browser sends).
bool acceptsGzip(lws* wsi) {
    char value[256] = {};
    if (lws_hdr_copy(wsi, value, sizeof value, WSI_TOKEN_HTTP_ACCEPT_ENCODING) <= 0) return false;
    const std::string v(value);
    return v.find("gzip") != std::string::npos && v.find("gzip;q=0") == std::string::npos;
}
} // namespace

struct SessionServer::Impl : HubOutput {
    explicit Impl(const AdmissionLimits& limits) : admission(limits) {}

    struct Connection {
        lws* wsi = nullptr;
        std::deque<std::shared_ptr<const std::string>> queue;
        std::string rx;
        bool closing = false, wantWrite = false;
        std::string reason;
    };

    mutable std::mutex mutex;
    std::unique_ptr<SessionHub> hub;
    std::map<int, Connection> connections;
    int nextId = 1;
    ServiceLoop loop;
    std::unique_ptr<RecordingWriter> recorder;
    std::function<void()> notify;
    std::function<void(const std::string&)> log;
    SessionClock clock;
    std::string packagePath, packageUrl;
    std::unique_ptr<StudentPageRoutes> routes;
    /// HTTP responses being written, a chunk per writable callback (service thread only).
    struct Transfer {
        std::string_view body;
        std::shared_ptr<const std::string> owner;
        std::size_t sent = 0;
    };
    std::map<const lws*, Transfer> transfers;
    ConnectionAdmission admission; ///< connections that have not joined (service thread)
    ServerTimer sweep;             ///< closes those past the hello timeout
    LogThrottle refusedLog;        ///< connections refused at accept
    std::size_t refusedSinceLog = 0;

    // ---- HubOutput: called with `mutex` held, on any thread ----
    void send(int id, std::shared_ptr<const std::string> text) override {
        const auto it = connections.find(id);
        if (it == connections.end() || it->second.closing) return;
        if (it->second.queue.size() >= kMaxQueued) {
            it->second.queue.clear();
            close(id, "too slow to follow: reconnect for a fresh snapshot");
            return;
        }
        it->second.queue.push_back(std::move(text));
        requestWrite(it->second);
    }
    void close(int id, const std::string& reason) override {
        const auto it = connections.find(id);
        if (it == connections.end() || it->second.closing) return;
        it->second.closing = true;
        it->second.reason = reason;
        requestWrite(it->second);
    }
    void requestWrite(Connection& c) {
        if (loop.onServiceThread()) {
            lws_callback_on_writable(c.wsi);
        } else {
            c.wantWrite = true;
            loop.requestWake();
        }
    }

    void say(const std::string& line) {
        if (log) log(line);
    }

    /// Logs a refusal at accept at most every few seconds, with how many there were.
    void refusedAtAccept(const std::string& why) {
        ++refusedSinceLog;
        std::size_t held = 0;
        if (!refusedLog.allow(clock.now(), held)) return;
        say("refused " + std::to_string(refusedSinceLog) + " connection(s) since the last such line: " + why);
        refusedSinceLog = 0;
    }
    /// Ends a connection that has not joined: a WebSocket is told why; HTTP is dropped.
    void dismiss(lws* wsi, int connection, const std::string& reason) {
        if (connection != 0 && connections.count(connection)) {
            close(connection, reason);
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, 2); // if the close cannot be written
        } else {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
        }
    }
    /// Answers an HTTP request with `body` (the CSP and headers that say what it is);
    /// false when the connection should be closed.
    bool respond(lws* wsi, unsigned status, std::string_view contentType, std::string_view cacheControl,
                 std::string_view body, std::shared_ptr<const std::string> owner = nullptr, bool gzipped = false);
    /// Writes the next chunk of a response; false to close.
    bool writeChunk(lws* wsi);
    static void onSweep(lws_sorted_usec_list_t* sul);
    static int callback(lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len);
};

bool SessionServer::Impl::respond(lws* wsi, unsigned status, std::string_view contentType,
                                  std::string_view cacheControl, std::string_view body,
                                  std::shared_ptr<const std::string> owner, bool gzipped) {
    unsigned char buffer[LWS_PRE + 1024];
    unsigned char* start = buffer + LWS_PRE;
    unsigned char* p = start;
    unsigned char* end = buffer + sizeof buffer - 1;
    const std::string type(contentType);
    const auto header = [&](const char* name, std::string_view value) {
        return lws_add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>(name),
                                           reinterpret_cast<const unsigned char*>(value.data()), int(value.size()), &p,
                                           end) == 0;
    };
    if (lws_add_http_common_headers(wsi, status, type.c_str(), body.size(), &p, end) != 0 ||
        !header("content-security-policy:", kContentSecurityPolicy) || !header("x-content-type-options:", "nosniff") ||
        !header("referrer-policy:", "no-referrer") || !header("cache-control:", cacheControl) ||
        (gzipped && (!header("content-encoding:", "gzip") || !header("vary:", "accept-encoding"))) ||
        lws_finalize_write_http_header(wsi, start, &p, end) != 0)
        return false;
    if (body.empty()) return lws_http_transaction_completed(wsi) == 0;
    transfers[wsi] = {body, std::move(owner), 0};
    lws_callback_on_writable(wsi);
    return true;
}

bool SessionServer::Impl::writeChunk(lws* wsi) {
    const auto it = transfers.find(wsi);
    if (it == transfers.end()) return true;
    Transfer& t = it->second;
    constexpr std::size_t kChunk = 16 * 1024;
    static thread_local unsigned char buffer[LWS_PRE + kChunk];
    const std::size_t n = std::min(kChunk, t.body.size() - t.sent);
    std::memcpy(buffer + LWS_PRE, t.body.data() + t.sent, n);
    const bool last = t.sent + n == t.body.size();
    if (lws_write(wsi, buffer + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != int(n)) return false;
    t.sent += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return true;
    }
    transfers.erase(it);
    return lws_http_transaction_completed(wsi) == 0;
}

void SessionServer::Impl::onSweep(lws_sorted_usec_list_t* sul) {
    Impl* self = reinterpret_cast<ServerTimer*>(sul)->owner;
    {
        std::lock_guard lock(self->mutex);
        const auto limit = std::to_string(int(std::lround(self->admission.limits().helloTimeout)));
        for (const auto& e : self->admission.expired(self->clock.now()))
            self->dismiss(static_cast<lws*>(const_cast<void*>(e.key)), e.connection, "no hello within " + limit + " s");
    }
    if (!self->loop.stopping()) lws_sul_schedule(self->loop.context(), 0, &self->sweep.sul, &Impl::onSweep, kSweepUs);
}

namespace {
lws_protocols kProtocols[] = {
    {"atrium-session", &SessionServer::Impl::callback, sizeof(int), 64 * 1024, 0, nullptr, 0},
    {nullptr, nullptr, 0, 0, 0, nullptr, 0},
};
// Ping a connection idle for 5 s; hang up on one silent for 20 s (a vanished student).
const lws_retry_bo_t kIdlePolicy = {nullptr, 0, 0, 5, 20, 0};
} // namespace

int SessionServer::Impl::callback(lws* wsi, lws_callback_reasons reason, void* user, void* in, std::size_t len) {
    lws_context* context = lws_get_context(wsi);
    auto* self = context ? static_cast<Impl*>(lws_context_user(context)) : nullptr;
    if (!self) return lws_callback_http_dummy(wsi, reason, user, in, len);
    int* id = static_cast<int*>(user);
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION: { // accepted; `in` is the new descriptor
        const int fd = int(reinterpret_cast<std::intptr_t>(in));
        const std::string address = peerAddress(fd);
        std::lock_guard lock(self->mutex);
        const auto decision = self->admission.admit(fd, address);
        if (decision.evict) {
            const lws* oldest = static_cast<const lws*>(decision.evict);
            int connection = 0;
            for (const auto& [cid, c] : self->connections)
                if (c.wsi == oldest) connection = cid;
            self->dismiss(const_cast<lws*>(oldest), connection, "too many connections waiting to join");
        }
        if (decision.verdict == ConnectionAdmission::Verdict::RefuseAddress) {
            self->refusedAtAccept(address + " already holds " + std::to_string(self->admission.limits().perAddress) +
                                  " connections that have not joined");
            return 1;
        }
        if (decision.verdict == ConnectionAdmission::Verdict::RefuseDescriptors) {
            self->refusedAtAccept("file descriptors are nearly exhausted");
            return 1;
        }
        return 0;
    }
    case LWS_CALLBACK_SERVER_NEW_CLIENT_INSTANTIATED: {
        std::lock_guard lock(self->mutex);
        self->admission.opened(wsi, peerAddress(lws_get_socket_fd(wsi)), self->clock.now());
        break;
    }
    case LWS_CALLBACK_WSI_DESTROY: {
        self->transfers.erase(wsi);
        std::lock_guard lock(self->mutex);
        self->admission.closed(wsi);
        break;
    }
    case LWS_CALLBACK_ESTABLISHED: {
        std::lock_guard lock(self->mutex);
        *id = self->nextId++;
        self->connections[*id].wsi = wsi;
        self->hub->opened(*id, self->clock.now());
        self->admission.upgraded(wsi, *id);
        return 0;
    }
    case LWS_CALLBACK_RECEIVE: {
        std::lock_guard lock(self->mutex);
        const auto it = self->connections.find(*id);
        if (it == self->connections.end()) return -1;
        Connection& c = it->second;
        if (lws_frame_is_binary(wsi)) { // the protocol is JSON text (RFC 6455 1003)
            self->say("connection " + std::to_string(*id) + ": closed: a binary frame (the session speaks text)");
            static const char why[] = "binary frames are not accepted";
            lws_close_reason(wsi, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE,
                             reinterpret_cast<unsigned char*>(const_cast<char*>(why)), sizeof why - 1);
            return -1;
        }
        // Keep at most one byte past the largest message any role may send: the hub
        // refuses it by its size, and nothing larger is ever held.
        const std::size_t cap = kDriverMessageLimits.maxBytes + 1;
        if (c.rx.size() < cap) c.rx.append(static_cast<const char*>(in), std::min(len, cap - c.rx.size()));
        if (!lws_is_final_fragment(wsi) || lws_remaining_packet_payload(wsi) != 0) return 0;
        const std::string text = std::move(c.rx);
        c.rx.clear();
        self->hub->received(*id, text, self->clock.now());
        if (self->hub->joined(*id)) self->admission.joined(wsi);
        return 0;
    }
    case LWS_CALLBACK_SERVER_WRITEABLE: {
        std::lock_guard lock(self->mutex);
        const auto it = self->connections.find(*id);
        if (it == self->connections.end()) return -1;
        Connection& c = it->second;
        if (!c.queue.empty()) {
            const auto text = std::move(c.queue.front());
            c.queue.pop_front();
            if (!writeText(wsi, *text)) return -1;
            if (!c.queue.empty() || c.closing) lws_callback_on_writable(wsi);
            return 0;
        }
        if (c.closing) {
            lws_close_reason(wsi, LWS_CLOSE_STATUS_NORMAL, reinterpret_cast<unsigned char*>(c.reason.data()),
                             std::min<std::size_t>(c.reason.size(), 120));
            return -1;
        }
        return 0;
    }
    case LWS_CALLBACK_CLOSED: {
        std::lock_guard lock(self->mutex);
        if (self->connections.erase(*id)) self->hub->closed(*id);
        return 0;
    }
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        std::lock_guard lock(self->mutex);
        for (auto& [cid, c] : self->connections)
            if (c.wantWrite) {
                c.wantWrite = false;
                lws_callback_on_writable(c.wsi);
            }
        return 0;
    }
    case LWS_CALLBACK_HTTP: {
        char* uri = nullptr;
        int uriLength = 0;
        if (lws_http_get_uri_and_method(wsi, &uri, &uriLength) != LWSHUMETH_GET)
            return self->respond(wsi, HTTP_STATUS_METHOD_NOT_ALLOWED, "text/plain", "no-store", "only GET\n") ? 0 : -1;
        if (len > kMaxRequestPathBytes)
            return self->respond(wsi, HTTP_STATUS_REQ_URI_TOO_LONG, "text/plain", "no-store", "path too long\n") ? 0 : -1;
        const std::string path = in ? std::string(static_cast<const char*>(in), len) : "";
        if (!self->packageUrl.empty() && path == self->packageUrl) {
            {
                std::lock_guard lock(self->mutex);
                self->admission.serving(wsi);
            }
            unsigned char headers[512];
            unsigned char* p = headers;
            const auto csp = kContentSecurityPolicy;
            if (lws_add_http_header_by_name(wsi, reinterpret_cast<const unsigned char*>("content-security-policy:"),
                                            reinterpret_cast<const unsigned char*>(csp.data()), int(csp.size()), &p,
                                            headers + sizeof headers) != 0)
                return -1;
            const int n = lws_serve_http_file(wsi, self->packagePath.c_str(), "application/octet-stream",
                                              reinterpret_cast<const char*>(headers), int(p - headers));
            if (n < 0 || (n > 0 && lws_http_transaction_completed(wsi))) return -1;
            return 0;
        }
        if (const PageResponse* r = self->routes->find(path)) {
            {
                std::lock_guard lock(self->mutex);
                self->admission.serving(wsi);
            }
            if (r->gzipped && acceptsGzip(wsi))
                return self->respond(wsi, HTTP_STATUS_OK, r->contentType, r->cacheControl, *r->gzipped, r->gzipped, true) ? 0
                                                                                                                          : -1;
            return self->respond(wsi, HTTP_STATUS_OK, r->contentType, r->cacheControl, r->body, r->owner) ? 0 : -1;
        }
        return self->respond(wsi, HTTP_STATUS_NOT_FOUND, "text/plain", "no-store", "not found\n") ? 0 : -1;
    }
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return self->writeChunk(wsi) ? 0 : -1;
    case LWS_CALLBACK_CLOSED_HTTP:
        self->transfers.erase(wsi);
        break;
    case LWS_CALLBACK_HTTP_FILE_COMPLETION:
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    default:
        break;
    }
    return lws_callback_http_dummy(wsi, reason, user, in, len);
}

namespace {
AdmissionLimits admissionLimits(const ServerOptions& o, const DescriptorBudget& budget) {
    AdmissionLimits l;
    l.helloTimeout = o.helloTimeout;
    l.perAddress = std::max<std::size_t>(1, o.maxWaitingPerAddress);
    // Strangers may hold at most half of the server's descriptors: the rest is for students.
    l.total = std::clamp<std::size_t>(o.maxWaiting, 1, std::size_t(std::max(1, budget.serverLimit / 2)));
    l.descriptorCeiling = budget.ceiling;
    return l;
}
} // namespace

SessionServer::SessionServer(ServerOptions options)
    : options_(std::move(options)), impl_(std::make_unique<Impl>(admissionLimits(options_, descriptorBudget()))) {
    initialiseSodium();
    routeLwsLog();
    code_ = options_.code.empty() ? makeJoinCode() : options_.code;
    secret_ = options_.lecturerSecret.empty() ? makeLecturerSecret() : options_.lecturerSecret;
    if (options_.package) {
        try {
            content_ = contentIdOf(*options_.package);
        } catch (const std::exception& e) {
            throw TransportError(e.what());
        }
        impl_->packagePath = options_.package->string();
        impl_->packageUrl = "/package/" + content_->hash;
    }
    impl_->routes = std::make_unique<StudentPageRoutes>(options_.studentWall, options_.studentWallMissing,
                                                         options_.studentNarratives);
    impl_->log = options_.log;
    HubOptions hub;
    hub.code = code_;
    hub.lecturer = std::make_shared<const LecturerKey>(LecturerKey::fromSecret(secret_));
    hub.content = content_;
    hub.log = [impl = impl_.get()](const std::string& line) {
        impl->say(line);
        if (impl->notify) impl->notify();
    };
    impl_->hub = std::make_unique<SessionHub>(std::move(hub), *impl_);
    sessionId_ = impl_->hub->sessionId();
    impl_->hub->setRosterChanged([impl = impl_.get()] {
        if (impl->notify) impl->notify();
    });
    impl_->hub->setBroadcastTap([impl = impl_.get()](double now, const std::string& text) {
        if (!impl->recorder) return;
        try {
            impl->recorder->append(now, text);
        } catch (const std::exception& e) {
            impl->say(std::string("recording stopped: ") + e.what());
            impl->recorder.reset();
        }
    });

    lws_context_creation_info info{};
    info.port = options_.port;
    info.iface = options_.interface.empty() ? nullptr : options_.interface.c_str();
    info.protocols = kProtocols;
    info.user = impl_.get();
    info.vhost_name = "atrium";
    info.retry_and_idle_policy = &kIdlePolicy;
    info.max_http_header_data = kMaxRequestHeaderBytes; // a request with larger headers is refused
    // libwebsockets stops accepting (rather than failing accept() in a loop) at this many
    // descriptors of its own; what is left of the process's limit is the reserve.
    const DescriptorBudget budget = descriptorBudget();
    info.fd_limit_per_thread = unsigned(budget.serverLimit);
    // libwebsockets' own timeouts (20 s by default) are kept: they also bound a package
    // download that stalls. A request that never comes is ended by the hello timeout.
    info.options = LWS_SERVER_OPTION_VALIDATE_UTF8 | LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
    const std::string cert = options_.tls ? options_.tls->certificate.string() : "";
    const std::string key = options_.tls ? options_.tls->privateKey.string() : "";
    if (options_.tls) {
        info.options |= LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT;
        info.ssl_cert_filepath = cert.c_str();
        info.ssl_private_key_filepath = key.c_str();
    }
    lws_context* context = lws_create_context(&info);
    if (!context)
        throw TransportError("cannot serve the session on port " + std::to_string(options_.port) +
                             (options_.tls ? " with the certificate " + cert : std::string()) +
                             " (is the port in use?)");
    lws_vhost* vhost = lws_get_vhost_by_name(context, "atrium");
    port_ = vhost ? lws_get_vhost_listen_port(vhost) : options_.port;
    std::lock_guard lock(impl_->mutex);
    impl_->sweep.owner = impl_.get();
    lws_sul_schedule(context, 0, &impl_->sweep.sul, &Impl::onSweep, kSweepUs);
    impl_->loop.start(context, impl_->mutex);
}

SessionServer::~SessionServer() {
    {
        std::lock_guard lock(impl_->mutex);
        impl_->hub->shutdown("session over");
        impl_->loop.wakeIfNeeded();
        if (impl_->recorder) {
            try {
                impl_->recorder->finish();
            } catch (const std::exception& e) {
                impl_->say(std::string("recording not saved: ") + e.what());
            }
        }
    }
    // Give the byes a moment to leave.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < deadline) {
        {
            std::lock_guard lock(impl_->mutex);
            if (impl_->connections.empty()) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    impl_->loop.stop();
}

std::string SessionServer::url(const std::string& host) const {
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return std::string(secure() ? "wss://" : "ws://") + h + ":" + std::to_string(port_);
}

std::string SessionServer::pageUrl(const std::string& host) const {
    const std::string h = host.find(':') != std::string::npos ? "[" + host + "]" : host;
    return std::string(secure() ? "https://" : "http://") + h + ":" + std::to_string(port_) + "/?code=" + code_;
}

double SessionServer::now() const { return impl_->clock.now(); }

bool SessionServer::drive(Message message) {
    std::lock_guard lock(impl_->mutex);
    const bool ok = impl_->hub->drive(std::move(message), impl_->clock.now());
    impl_->loop.wakeIfNeeded();
    return ok;
}

SessionState SessionServer::state() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->hub->state();
}

std::vector<Member> SessionServer::roster() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->hub->roster();
}

bool SessionServer::remoteDriving() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->hub->remoteDriving();
}

SessionHub::Counters SessionServer::counters() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->hub->counters();
}

double SessionServer::serviceCpuSeconds() const {
    clockid_t id;
    timespec ts{};
    if (pthread_getcpuclockid(impl_->loop.thread().native_handle(), &id) != 0 || clock_gettime(id, &ts) != 0) return 0.0;
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

std::filesystem::path SessionServer::startRecording(const std::filesystem::path& file) {
    std::lock_guard lock(impl_->mutex);
    impl_->recorder = std::make_unique<RecordingWriter>(file, sessionId_, impl_->hub->snapshot(), impl_->clock.now());
    return impl_->recorder->recovered();
}

std::uint64_t SessionServer::stopRecording() {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->recorder) return 0;
    auto recorder = std::move(impl_->recorder);
    recorder->finish();
    return recorder->messages();
}

bool SessionServer::recording() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->recorder != nullptr;
}

void SessionServer::setNotify(std::function<void()> notify) {
    std::lock_guard lock(impl_->mutex);
    impl_->notify = std::move(notify);
}

std::vector<std::string> localAddresses() {
    std::vector<std::string> out;
    ifaddrs* list = nullptr;
    if (getifaddrs(&list) == 0) {
        for (ifaddrs* a = list; a; a = a->ifa_next) {
            if (!a->ifa_addr || a->ifa_addr->sa_family != AF_INET) continue;
            char text[INET_ADDRSTRLEN] = {};
            inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(a->ifa_addr)->sin_addr, text, sizeof text);
            if (std::string(text).rfind("127.", 0) != 0) out.emplace_back(text);
        }
        freeifaddrs(list);
    }
    out.emplace_back("127.0.0.1");
    return out;
}

} // namespace atrium::transport
