#include "session/SessionHub.h"

#include "session/ClientText.h"

#include <algorithm>

namespace atrium::session {

namespace {
constexpr int kMaxAuthFailures = 3;
bool drives(Role r) { return r == Role::Lecturer || r == Role::Presenter; }
} // namespace

SessionHub::SessionHub(HubOptions options, HubOutput& output) : options_(std::move(options)), out_(output) {
    if (options_.sessionId.empty()) options_.sessionId = makeSessionId();
    state_.content = options_.content;
}

void SessionHub::log(const std::string& line) const {
    if (options_.log) options_.log(line);
}

void SessionHub::opened(int connection, double) { connections_.try_emplace(connection); }

void SessionHub::closed(int connection) {
    const auto it = connections_.find(connection);
    if (it == connections_.end()) return;
    const int member = it->second.member;
    if (member != 0) pastMembers_[member] = it->second.name;
    connections_.erase(it);
    if (member == 0) return;
    if (state_.floor == member) { // the presenter left: the floor returns to the lecturer
        Message m = msg::Floor{0, std::nullopt};
        apply(m);
        broadcast(m, lastNow_);
    }
    notifyRoster();
}

void SessionHub::received(int connection, std::string_view text, double now) {
    auto it = connections_.find(connection);
    if (it == connections_.end()) it = connections_.try_emplace(connection).first;
    Connection& c = it->second;
    if (c.closing) return; // told to go: nothing more is read from it
    ++counters_.received;
    lastNow_ = std::max(lastNow_, now);
    const MessageLimits& limits = drives(c.role) ? kDriverMessageLimits : kStudentMessageLimits;
    if (text.size() > limits.maxBytes) // named before the rate, which it would also exceed
        return refuse(connection, c, "message of " + std::to_string(text.size()) + " bytes exceeds the limit of " +
                                          std::to_string(limits.maxBytes), now);
    if (!c.guard.admit(text.size(), now)) return refuse(connection, c, "over the rate limit", now);
    ParseResult parsed = parseMessage(text, limits);
    if (!parsed) return refuse(connection, c, parsed.error, now);
    handle(connection, c, std::move(*parsed.message), now);
}

void SessionHub::handle(int id, Connection& c, Message m, double now) {
    if (c.member == 0) {
        if (const auto* hello = std::get_if<msg::Hello>(&m)) return join(id, c, *hello, now);
        return refuse(id, c, std::string(typeName(m)) + " before hello", now);
    }
    if (const auto* ping = std::get_if<msg::Ping>(&m)) return sendTo(id, msg::Pong{ping->id, ping->t0, now});
    if (const auto* status = std::get_if<msg::Status>(&m)) {
        if (c.following != status->following) {
            c.following = status->following;
            notifyRoster();
        }
        return;
    }
    if (std::holds_alternative<msg::Resync>(m)) return sendTo(id, msg::Snapshot{seq_, state_});
    if (std::holds_alternative<msg::Leave>(m)) return close(id, c, "left");
    if (const auto* auth = std::get_if<msg::Auth>(&m)) {
        if (!options_.lecturer || !c.challenge) return refuse(id, c, "auth: this session takes no remote lecturer", now);
        if (options_.lecturer->verify(*c.challenge, options_.sessionId, c.member, auth->tag)) {
            c.challenge.reset(); // one answer per challenge
            c.role = Role::Lecturer;
            c.guard.setLimits(kDriverRates);
            log("connection " + std::to_string(id) + ": " + quoteClientText(c.name, kMaxNameBytes) + " authenticated as lecturer");
            sendTo(id, msg::AuthResult{true, "lecturer"});
            notifyRoster();
            return;
        }
        sendTo(id, msg::AuthResult{false, "wrong lecturer secret"});
        refuse(id, c, "auth: wrong lecturer secret", now);
        if (++c.authFailures >= kMaxAuthFailures) close(id, c, "too many failed authentications");
        return;
    }
    if (isDrive(m)) {
        if (!drives(c.role)) return refuse(id, c, std::string(typeName(m)) + ": only the lecturer drives", now);
        if (c.role == Role::Presenter &&
            (std::holds_alternative<msg::Floor>(m) || std::holds_alternative<msg::AttentionMode>(m)))
            return refuse(id, c, std::string(typeName(m)) + ": only the lecturer hands the floor or holds attention", now);
        if (auto error = apply(m)) return refuse(id, c, std::string(typeName(m)) + ": " + *error, now);
        c.drove = true;
        broadcast(m, now);
        return;
    }
    refuse(id, c, std::string(typeName(m)) + ": not a message a client sends", now);
}

void SessionHub::join(int id, Connection& c, const msg::Hello& hello, double now) {
    // Someone is guessing codes: turn every hello away until the guesses slow down.
    if (wrongCodes_.available(now) < 1.0) {
        log("connection " + std::to_string(id) + ": hello turned away: too many wrong join codes lately");
        ++counters_.dropped;
        sendTo(id, msg::Bye{"too many wrong join codes lately: try again in a few seconds"});
        return close(id, c, "too many wrong join codes");
    }
    if (!codesMatch(hello.code, options_.code)) {
        wrongCodes_.take(1.0, now);
        log("connection " + std::to_string(id) + ": wrong join code");
        ++counters_.dropped;
        sendTo(id, msg::Bye{"wrong join code"});
        return close(id, c, "wrong join code");
    }
    int member = 0;
    if (hello.resume && pastMembers_.count(*hello.resume)) { // the same student, back after a drop
        member = *hello.resume;
        pastMembers_.erase(member);
    } else {
        member = nextMember_++;
    }
    c.member = member;
    c.name = hello.name.empty() ? "student " + std::to_string(member) : hello.name;
    msg::Welcome welcome{member, options_.sessionId, now, state_.content, std::nullopt};
    if (options_.lecturer) {
        c.challenge = options_.lecturer->challenge();
        welcome.challenge = c.challenge;
    }
    sendTo(id, welcome);
    sendTo(id, msg::Snapshot{seq_, state_});
    notifyRoster();
}

void SessionHub::close(int id, Connection& c, const std::string& reason) {
    if (c.closing) return;
    c.closing = true;
    out_.close(id, reason);
}

void SessionHub::refuse(int id, Connection& c, const std::string& reason, double now) {
    ++counters_.dropped;
    // The reason may quote what the client sent (a type, a key): escaped like its name.
    log("connection " + std::to_string(id) + (c.name.empty() ? "" : " (" + quoteClientText(c.name, kMaxNameBytes) + ")") +
        ": dropped: " + escapeClientText(reason));
    if (c.guard.strike(now)) {
        ++counters_.closedForAbuse;
        sendTo(id, msg::Bye{"closed after repeated refused messages"});
        return close(id, c, "repeated refused messages");
    }
    sendTo(id, msg::Error{std::string(truncateUtf8(reason, 256))});
}

void SessionHub::sendTo(int id, const Message& m) { out_.send(id, std::make_shared<const std::string>(encode(m))); }

void SessionHub::broadcast(const Message& m, double now) {
    ++counters_.broadcasts;
    auto text = std::make_shared<const std::string>(encode(m));
    for (const auto& [id, c] : connections_)
        if (c.member != 0) out_.send(id, text);
    if (tap_) tap_(now, *text);
}

bool SessionHub::drive(Message m, double now) {
    lastNow_ = std::max(lastNow_, now);
    if (!isDrive(m)) {
        log("drive: " + std::string(typeName(m)) + " is not a drive message");
        return false;
    }
    if (auto error = apply(m)) {
        log("drive: " + std::string(typeName(m)) + ": " + *error);
        return false;
    }
    broadcast(m, now);
    return true;
}

std::optional<std::string> SessionHub::apply(Message& m) {
    if (auto* pose = std::get_if<msg::Pose>(&m)) {
        if (state_.pose && !(pose->sample.t > state_.pose->t)) return "out of order (not newer than the last pose)";
        state_.pose = pose->sample;
        return std::nullopt; // poses are not numbered: the newest wins
    }
    if (auto* f = std::get_if<msg::Floor>(&m)) {
        if (f->holder && !byMember(*f->holder)) return "no connected member " + std::to_string(*f->holder);
        if (state_.floor) setRole(*state_.floor, Role::Student);
        if (f->holder) setRole(*f->holder, Role::Presenter);
    }
    applyToState(state_, m);
    setSequence(m, ++seq_);
    if (std::holds_alternative<msg::Floor>(m)) notifyRoster();
    return std::nullopt;
}

SessionHub::Connection* SessionHub::byMember(int member) {
    for (auto& [id, c] : connections_)
        if (c.member == member) return &c;
    return nullptr;
}

void SessionHub::setRole(int member, Role role) {
    Connection* c = byMember(member);
    if (!c || c->role == Role::Lecturer) return; // a lecturer stays one
    c->role = role;
    c->guard.setLimits(role == Role::Presenter ? kDriverRates : kFollowerRates);
}

std::vector<Member> SessionHub::roster() const {
    std::vector<Member> members;
    for (const auto& [id, c] : connections_)
        if (c.member != 0) members.push_back({c.member, c.name, c.role, c.following});
    std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) { return a.id < b.id; });
    return members;
}

bool SessionHub::remoteDriving() const {
    return std::any_of(connections_.begin(), connections_.end(),
                       [](const auto& e) { return e.second.drove && !e.second.closing && drives(e.second.role); });
}

bool SessionHub::joined(int connection) const {
    const auto it = connections_.find(connection);
    return it != connections_.end() && it->second.member != 0;
}

std::size_t SessionHub::joinedCount() const {
    return std::size_t(std::count_if(connections_.begin(), connections_.end(), [](const auto& e) { return e.second.member != 0; }));
}

void SessionHub::notifyRoster() {
    if (rosterChanged_) rosterChanged_();
    // Remote lecturers see the roster too (students do not see each other's names).
    bool anyLecturer = false;
    for (const auto& [id, c] : connections_) anyLecturer |= c.role == Role::Lecturer;
    if (!anyLecturer) return;
    msg::Roster roster{this->roster()};
    if (roster.members.size() > 1000) roster.members.resize(1000);
    auto text = std::make_shared<const std::string>(encode(roster));
    for (const auto& [id, c] : connections_)
        if (c.role == Role::Lecturer) out_.send(id, text);
}

void SessionHub::shutdown(const std::string& reason) {
    auto text = std::make_shared<const std::string>(encode(msg::Bye{reason}));
    for (auto& [id, c] : connections_) {
        out_.send(id, text);
        close(id, c, reason);
    }
}

} // namespace atrium::session
