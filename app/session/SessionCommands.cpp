#include "app/session/SessionCommands.h"

#include "app/session/NarrativeLecturer.h"
#include "app/session/StudentNarratives.h"
#include "app/session/StudentWallSource.h"
#include "app/transport/SelfSignedCertificate.h"
#include "app/transport/SessionClient.h"
#include "app/transport/SessionServer.h"
#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"
#include "narrative/package/PackageError.h"
#include "session/Recording.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace atrium::app {

namespace {

using namespace atrium::session;
using namespace std::chrono_literals;
using nlohmann::json;
namespace fs = std::filesystem;

enum Exit { kOk = 0, kUsage = 1, kBadFile = 2, kRefused = 3, kOther = 4 };

struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct BadFile : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct Unreachable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// --name value pairs, switches and positionals, checked against what a command takes.
class Arguments {
public:
    Arguments(const std::vector<std::string>& args, std::size_t positionals, const std::set<std::string>& valued,
              const std::set<std::string>& switches) {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a.rfind("--", 0) != 0) {
                positional_.push_back(a);
                continue;
            }
            const std::string name = a.substr(2);
            if (valued.count(name)) {
                if (i + 1 >= args.size()) throw UsageError(a + " needs a value");
                values_[name] = args[++i];
            } else if (switches.count(name)) {
                switches_.insert(name);
            } else {
                throw UsageError("unknown option " + a);
            }
        }
        if (positional_.size() != positionals)
            throw UsageError("expects " + std::to_string(positionals) + " argument(s), got " + std::to_string(positional_.size()));
    }
    const std::string& at(std::size_t i) const { return positional_.at(i); }
    std::optional<std::string> value(const std::string& name) const {
        const auto it = values_.find(name);
        return it == values_.end() ? std::nullopt : std::optional(it->second);
    }
    std::string required(const std::string& name) const {
        if (auto v = value(name)) return *v;
        throw UsageError("--" + name + " is required");
    }
    bool has(const std::string& name) const { return switches_.count(name) > 0; }
    double number(const std::string& name, double fallback, double min, double max) const {
        const auto v = value(name);
        if (!v) return fallback;
        double x = 0;
        try {
            std::size_t used = 0;
            x = std::stod(*v, &used);
            if (used != v->size()) throw std::invalid_argument(*v);
        } catch (const std::exception&) {
            throw UsageError("--" + name + " needs a number, got \"" + *v + "\"");
        }
        if (!(x >= min && x <= max)) {
            std::ostringstream range; // 1, not 1.0
            range << "[" << min << ", " << max << "]";
            throw UsageError("--" + name + " must be in " + range.str() + ", got " + *v);
        }
        return x;
    }

private:
    std::vector<std::string> positional_;
    std::map<std::string, std::string> values_;
    std::set<std::string> switches_;
};

std::atomic<bool> gInterrupted{false};
void onSignal(int) { gInterrupted = true; }
void catchSignals() {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
}

/// Runs `frame(dt)` at 60 Hz until `seconds` have passed (0: until interrupted) or it returns false.
void runAt60Hz(double seconds, const std::function<bool(double)>& frame) {
    const auto start = std::chrono::steady_clock::now();
    auto last = start, next = start;
    while (!gInterrupted) {
        const auto now = std::chrono::steady_clock::now();
        if (seconds > 0 && std::chrono::duration<double>(now - start).count() >= seconds) break;
        if (!frame(std::chrono::duration<double>(now - last).count())) break;
        last = now;
        next += std::chrono::microseconds(16667);
        if (next < now) next = now;
        std::this_thread::sleep_until(next);
    }
}

/// The package's narrative `number` (1 = the first, as `atrium --narrative K`), read
/// through the package (its signature checked).
std::pair<narrative::Narrative, std::string> packageNarrative(const fs::path& file, int number) {
    try {
        const package::ContentPackage p = package::ContentPackage::open(file);
        const std::string text = p.narrativesDocument();
        if (text.empty()) throw BadFile(file.string() + ": the package holds no narratives to play");
        const auto doc = narrative::parseNarrativeDocument(text, file.string() + ":" + package::ContentPackage::kNarrativesEntry);
        if (number < 1 || std::size_t(number) > doc.narratives.size())
            throw UsageError("--narrative " + std::to_string(number) + ": the package has " +
                             std::to_string(doc.narratives.size()) + " narrative(s), numbered from 1");
        return {doc.narratives[std::size_t(number - 1)], p.manifest().title};
    } catch (const package::PackageError& e) {
        throw BadFile(e.what());
    } catch (const narrative::NarrativeDocumentError& e) {
        throw BadFile(e.what());
    }
}

transport::ServerOptions serverOptions(const Arguments& a, const fs::path& package, std::ostream& err,
                                       std::string* fingerprint) {
    transport::ServerOptions o;
    o.port = int(a.number("port", 0, 0, 65535));
    o.code = a.value("code").value_or("");
    for (char c : o.code)
        if (!std::isupper(static_cast<unsigned char>(c)) && !std::isdigit(static_cast<unsigned char>(c)))
            throw UsageError("--code: 4 to 12 capital letters and digits");
    if (!o.code.empty() && (o.code.size() < 4 || o.code.size() > 12)) throw UsageError("--code: 4 to 12 capital letters and digits");
    o.package = package;
    if (a.value("tls-cert") || a.value("tls-key")) {
        if (a.has("self-signed")) throw UsageError("give either --self-signed or --tls-cert and --tls-key");
        o.tls = transport::TlsFiles{a.required("tls-cert"), a.required("tls-key")};
    }
    if (a.has("self-signed")) {
        const transport::SelfSigned cert = transport::makeClassroomCertificate();
        o.tls = cert.files;
        *fingerprint = cert.fingerprint;
    }
    o.log = [&err](const std::string& line) { err << "atrium-session: " << line << "\n"; };
    return o;
}

json contentJson(const std::optional<ContentId>& c) {
    if (!c) return nullptr;
    return {{"hash", c->hash}, {"name", c->name}, {"bytes", c->bytes}};
}

// ---- serve -----------------------------------------------------------------------------

int serve(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const Arguments a(args, 1, {"port", "narrative", "code", "seconds", "record", "tls-cert", "tls-key"}, {"loop", "self-signed"});
    const fs::path file = a.at(0);
    const int number = int(a.number("narrative", 1, 1, 4096));
    const double seconds = a.number("seconds", 0, 0, 1e7);
    auto [tour, title] = packageNarrative(file, number);
    std::string fingerprint;
    transport::ServerOptions options = serverOptions(a, file, err, &fingerprint);
    try {
        // From the cache only: a lecture server starts in a second, never after minutes of
        // processing a heart (atrium or atrium-sim heart fills the cache once).
        const package::ContentPackage lecture = package::ContentPackage::open(file);
        const auto wall = studentWallOfLecture(lecture.manifest(), true);
        if (const std::string text = lecture.narrativesDocument(); !text.empty())
            options.studentNarratives = std::make_shared<const std::string>(studentNarrativesJson(
                narrative::parseNarrativeDocument(text, file.string() + ":" + package::ContentPackage::kNarrativesEntry)));
        options.studentWall = wall.encoding;
        options.studentWallMissing = wall.missing;
        if (wall.encoding)
            err << "atrium-session: the student page's heart wall: " << wall.encoding->size() << " bytes (heart cache: "
                << wall.cacheStatus << ")\n";
        else
            err << "atrium-session: the student page shows no heart wall: " << wall.missing << "\n";
    } catch (const package::PackageError& e) {
        throw BadFile(e.what());
    } catch (const narrative::NarrativeDocumentError& e) {
        throw BadFile(e.what());
    }
    transport::SessionServer server(std::move(options));
    if (auto record = a.value("record"))
        if (const auto kept = server.startRecording(*record); !kept.empty())
            std::cerr << "an unfinished recording at " << *record << " was kept as " << kept.string() << "\n";
    const auto hosts = transport::localAddresses();
    json urls = json::array(), pages = json::array();
    for (const auto& h : hosts) urls.push_back(server.url(h)), pages.push_back(server.pageUrl(h));
    out << json{{"url", server.url(hosts.front())}, {"urls", urls}, {"page", server.pageUrl(hosts.front())},
                {"pages", pages}, {"code", server.code()},
                {"secret", server.lecturerSecret()}, {"port", server.port()}, {"session", server.sessionId()},
                {"content", contentJson(server.content())}, {"title", title}, {"narrative", number},
                {"narrativeTitle", tour.title},
                {"fingerprint", fingerprint.empty() ? json(nullptr) : json(fingerprint)}}
               .dump()
        << std::endl;
    catchSignals();
    NarrativeLecturer lecturer(server, std::move(tour), number - 1, a.has("loop"));
    lecturer.start();
    runAt60Hz(seconds, [&](double dt) {
        lecturer.step(dt);
        return true;
    });
    if (server.recording()) err << "atrium-session: recorded " << server.stopRecording() << " messages\n";
    return kOk;
}

// ---- follow ----------------------------------------------------------------------------

transport::ClientOptions clientOptions(const Arguments& a, const std::string& url, std::ostream& err) {
    transport::ClientOptions o;
    o.url = url;
    o.code = a.required("code");
    o.name = a.value("name").value_or("atrium-session");
    o.secret = a.value("secret");
    o.allowSelfSigned = a.has("self-signed");
    o.log = [&err](const std::string& line) { err << "atrium-session: " << line << "\n"; };
    return o;
}

int follow(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const Arguments a(args, 1, {"code", "name", "secret", "seconds"}, {"once", "poses", "self-signed"});
    const double seconds = a.number("seconds", 0, 0, 1e7);
    std::unique_ptr<transport::SessionClient> client;
    try {
        client = std::make_unique<transport::SessionClient>(clientOptions(a, a.at(0), err));
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    std::mutex printing;
    if (a.has("poses"))
        client->setPoseArrived([&](int, const PoseSample& s, double lateness) {
            std::lock_guard lock(printing);
            out << json{{"pose", toJson(Message(msg::Pose{s}))}, {"latency_ms", lateness * 1e3}}.dump() << "\n";
        });
    catchSignals();
    const auto start = std::chrono::steady_clock::now();
    int exit = kOk;
    while (!gInterrupted) {
        for (const transport::ClientEvent& e : client->takeEvents()) {
            std::lock_guard lock(printing);
            using Kind = transport::ClientEvent::Kind;
            if (e.kind == Kind::Applied) out << json{{"message", toJson(*e.message)}}.dump() << "\n";
            if (e.kind == Kind::Joined) out << json{{"event", "joined"}, {"member", client->memberId()}}.dump() << "\n";
            if (e.kind == Kind::Disconnected) out << json{{"event", "disconnected"}, {"reason", e.reason}}.dump() << "\n";
            if (e.kind == Kind::Refused) {
                err << "atrium-session: refused: " << e.reason << "\n";
                exit = kRefused;
            }
        }
        out << std::flush;
        if (exit != kOk) break;
        if (a.has("once") && client->synced()) {
            out << json{{"state", toJson(client->state())}, {"sequence", client->sequence()}}.dump() << std::endl;
            break;
        }
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (seconds > 0 && elapsed >= seconds) {
            if (a.has("once") || !client->synced()) {
                err << "atrium-session: could not join " << a.at(0) << " within " << seconds << " s\n";
                exit = kRefused;
            }
            break;
        }
        std::this_thread::sleep_for(20ms);
    }
    return exit;
}

// ---- replay ----------------------------------------------------------------------------

int replay(const std::vector<std::string>& args, std::ostream& out, std::ostream&) {
    const Arguments a(args, 1, {"at", "every"}, {});
    std::optional<SessionReplay> r;
    try {
        r.emplace(Recording::read(a.at(0)));
    } catch (const RecordingError& e) {
        throw BadFile(e.what());
    }
    std::size_t poses = 0;
    for (const auto& m : r->recording().messages) poses += std::holds_alternative<msg::Pose>(m.message);
    out << json{{"session", r->recording().session}, {"content", contentJson(r->recording().content)},
                {"start", r->start()}, {"end", r->end()}, {"duration", r->end() - r->start()},
                {"messages", r->recording().messages.size()}, {"poses", poses}}
               .dump()
        << "\n";
    if (a.value("at")) {
        const double t = a.number("at", 0, 0, 1e9);
        out << json{{"at", t}, {"state", toJson(r->stateAt(t))}}.dump() << "\n";
    }
    if (a.value("every")) {
        const double dt = a.number("every", 1, 1e-3, 1e6);
        for (double t = r->start(); t <= r->end() + 1e-9; t += dt)
            if (const auto p = r->poseAt(t))
                out << json{{"t", t}, {"pose", toJson(Message(msg::Pose{{t, *p}}))}}.dump() << "\n";
    }
    return kOk;
}

// ---- loadtest --------------------------------------------------------------------------

double percentile(std::vector<double> v, double p) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    const std::size_t i = std::min(v.size() - 1, std::size_t(std::ceil(p * double(v.size()))) - (p > 0 ? 1 : 0));
    return v[i];
}

int loadtest(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    const bool local = std::find(args.begin(), args.end(), "--local") != args.end();
    const Arguments a(args, local ? 0 : 1, {"code", "students", "seconds", "package", "warmup", "name"},
                      {"json", "self-signed", "local"});
    const int students = int(a.number("students", 20, 1, 5000));
    const double seconds = a.number("seconds", 10, 0.5, 3600);
    const double warmup = a.number("warmup", 1, 0, 60);
    catchSignals();

    // --local: a server in this process whose lecturer keeps the camera moving, circling
    // the heart at 60 Hz (the worst case: a pose every frame), so that the server's own
    // CPU can be measured too.
    std::unique_ptr<transport::SessionServer> server;
    std::optional<PoseSampler> sampler;
    std::string url, code;
    if (local) {
        transport::ServerOptions o;
        if (auto p = a.value("package")) o.package = *p;
        o.log = [&err](const std::string& line) { err << "atrium-session: " << line << "\n"; };
        // The class comes from this one address: as many may wait to join as there are students.
        o.maxWaitingPerAddress = std::size_t(students);
        o.maxWaiting = std::max<std::size_t>(o.maxWaiting, std::size_t(students));
        try {
            server = std::make_unique<transport::SessionServer>(o);
        } catch (const transport::TransportError& e) {
            throw BadFile(e.what());
        }
        server->drive(msg::Narrative{0, {0, 0.0, server->now(), true, true, {}}});
        sampler.emplace();
        url = server->url("127.0.0.1");
        code = server->code();
    } else {
        url = a.at(0);
        code = a.required("code");
    }
    auto frames = [&](double duration, const std::function<bool()>& done) {
        runAt60Hz(duration, [&](double) {
            if (server) {
                const double t = server->now(), angle = 2 * 3.141592653589793 * t / 8.0;
                const narrative::CameraPose pose = narrative::CameraPose::lookAt(
                    {150 * std::cos(angle), 150 * std::sin(angle), 30 * std::sin(angle * 3)}, {0, 0, 0});
                for (const PoseSample& s : sampler->update(pose, t)) server->drive(msg::Pose{s});
            }
            return !done();
        });
    };

    struct Samples {
        std::mutex mutex;
        std::vector<double> latency;
        bool recording = false;
    } samples;
    transport::ClientOptions o;
    o.url = url;
    o.code = code;
    o.name = a.value("name").value_or("load");
    o.connections = students;
    o.allowSelfSigned = a.has("self-signed");
    std::unique_ptr<transport::SessionClient> client;
    try {
        client = std::make_unique<transport::SessionClient>(o);
    } catch (const std::invalid_argument& e) {
        throw UsageError(e.what());
    }
    client->setPoseArrived([&](int, const PoseSample&, double lateness) {
        std::lock_guard lock(samples.mutex);
        if (samples.recording) samples.latency.push_back(lateness);
    });

    // Joining: each student's time from start to synced (snapshot and clock in).
    const auto start = std::chrono::steady_clock::now();
    std::vector<double> joinMs(std::size_t(students), -1.0);
    int joined = 0;
    frames(30.0, [&] {
        for (int i = 0; i < students; ++i)
            if (joinMs[std::size_t(i)] < 0 && client->synced(i)) {
                joinMs[std::size_t(i)] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                ++joined;
            }
        if (client->link() == transport::LinkState::Refused) return true;
        return joined == students;
    });
    if (client->link() == transport::LinkState::Refused) {
        err << "atrium-session: refused by " << url << " (wrong join code?)\n";
        return kRefused;
    }
    if (joined < students) {
        err << "atrium-session: only " << joined << " of " << students << " students joined " << url << " within 30 s\n";
        return kRefused;
    }
    frames(warmup, [] { return false; });

    // Measuring.
    std::vector<std::uint64_t> bytesBefore;
    for (int i = 0; i < students; ++i) bytesBefore.push_back(client->bytesReceived(i));
    const double cpuBefore = server ? server->serviceCpuSeconds() : 0.0;
    {
        std::lock_guard lock(samples.mutex);
        samples.recording = true;
    }
    const auto measureStart = std::chrono::steady_clock::now();
    frames(seconds, [] { return false; });
    const double measured = std::chrono::duration<double>(std::chrono::steady_clock::now() - measureStart).count();
    {
        std::lock_guard lock(samples.mutex);
        samples.recording = false;
    }
    const double cpu = server ? server->serviceCpuSeconds() - cpuBefore : 0.0;
    std::vector<double> rates;
    std::uint64_t dropped = 0, resyncs = 0;
    for (int i = 0; i < students; ++i) {
        rates.push_back(double(client->bytesReceived(i) - bytesBefore[std::size_t(i)]) / measured);
        dropped += client->counters(i).dropped;
        resyncs += client->counters(i).resyncs;
    }

    // A late joiner: from connecting to the same state as the class.
    double lateMs = -1;
    {
        transport::ClientOptions l = o;
        l.connections = 1;
        l.name = "late";
        const auto lateStart = std::chrono::steady_clock::now();
        transport::SessionClient late(l);
        frames(10.0, [&] {
            if (late.synced() && late.sequence() == client->sequence(0) && late.state().narrative == client->state(0).narrative) {
                lateMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - lateStart).count();
                return true;
            }
            return false;
        });
    }

    std::vector<double> latencyMs;
    {
        std::lock_guard lock(samples.mutex);
        for (double x : samples.latency) latencyMs.push_back(x * 1e3);
    }
    double meanRate = 0;
    for (double r : rates) meanRate += r / double(rates.size());
    json result = {{"students", students},
                   {"seconds", measured},
                   {"url", url},
                   {"poses_received", latencyMs.size()},
                   {"latency_ms", {{"p50", percentile(latencyMs, 0.5)}, {"p99", percentile(latencyMs, 0.99)},
                                   {"max", latencyMs.empty() ? 0.0 : *std::max_element(latencyMs.begin(), latencyMs.end())}}},
                   {"bytes_per_s_per_student", {{"mean", meanRate}, {"max", *std::max_element(rates.begin(), rates.end())}}},
                   {"dropped", dropped},
                   {"resyncs", resyncs},
                   {"join_ms", {{"p50", percentile(joinMs, 0.5)}, {"max", *std::max_element(joinMs.begin(), joinMs.end())}}},
                   {"late_join_ms", lateMs}};
    if (server) {
        result["server_cpu_fraction"] = cpu / measured;
        result["server_cpu_us_per_student_per_s"] = cpu / measured / students * 1e6;
    }
    if (a.has("json")) {
        out << result.dump() << std::endl;
    } else {
        out << students << " students, " << measured << " s: latency p50 " << result["latency_ms"]["p50"].get<double>()
            << " ms, p99 " << result["latency_ms"]["p99"].get<double>() << " ms, max "
            << result["latency_ms"]["max"].get<double>() << " ms; " << meanRate / 1024.0 << " KiB/s per student; "
            << dropped << " dropped; late join " << lateMs << " ms\n";
    }
    return kOk;
}

} // namespace

std::string sessionUsage() {
    return "usage:\n"
           "  atrium-session serve FILE.atrium [--port P] [--narrative K (1 = the first)] [--loop] [--code C] [--seconds S]\n"
           "                       [--record FILE] [--self-signed | --tls-cert PEM --tls-key PEM]\n"
           "  atrium-session follow URL --code C [--name N] [--secret S] [--seconds S] [--once] [--poses] [--self-signed]\n"
           "  atrium-session replay RECORDING [--at T] [--every DT]\n"
           "  atrium-session loadtest (URL --code C | --local [--package FILE.atrium]) [--students N] [--seconds S]\n"
           "                          [--warmup W] [--json]\n";
}

int sessionCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        (args.empty() ? err : out) << sessionUsage();
        return args.empty() ? kUsage : kOk;
    }
    const std::string command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    try {
        if (command == "serve") return serve(rest, out, err);
        if (command == "follow") return follow(rest, out, err);
        if (command == "replay") return replay(rest, out, err);
        if (command == "loadtest") return loadtest(rest, out, err);
        throw UsageError("unknown command \"" + command + "\"");
    } catch (const UsageError& e) {
        err << "atrium-session " << command << ": " << e.what() << "\n" << sessionUsage();
        return kUsage;
    } catch (const BadFile& e) {
        err << "atrium-session " << command << ": " << e.what() << "\n";
        return kBadFile;
    } catch (const transport::TransportError& e) {
        err << "atrium-session " << command << ": " << e.what() << "\n";
        return kOther;
    } catch (const std::exception& e) {
        err << "atrium-session " << command << ": " << e.what() << "\n";
        return kOther;
    }
}

} // namespace atrium::app
