#include "app/pack/PackCommands.h"

#include "io/AtomicFile.h"
#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"
#include "narrative/package/PackageError.h"
#include "narrative/package/TrustStore.h"
#include "sim/heart/BakedBeat.h"
#include "sim/heart/HeartPipeline.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <termios.h>
#include <unistd.h>

namespace atrium::app {

namespace {

using namespace atrium::package;
namespace fs = std::filesystem;
using nlohmann::json;
using nlohmann::ordered_json;

enum Exit { kOk = 0, kUsage = 1, kBadFile = 2, kRefused = 3, kOther = 4 };

/// A command line error (exit 1).
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
/// An edit the gate refused or a wrong password (exit 3).
struct Refused : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/// The options of one command: positionals and --name [value] pairs, checked against
/// the names the command knows.
struct Options {
    std::vector<std::string> positional;
    std::map<std::string, std::string> values;
    std::set<std::string> flags;

    Options(const std::vector<std::string>& args, std::size_t positionals, const std::set<std::string>& valued,
            const std::set<std::string>& switches) {
        for (std::size_t i = 0; i < args.size(); ++i) {
            const std::string& a = args[i];
            if (a.rfind("--", 0) == 0) {
                const std::string name = a.substr(2);
                if (valued.count(name)) {
                    if (i + 1 >= args.size()) throw UsageError("--" + name + " needs a value");
                    values[name] = args[++i];
                } else if (switches.count(name)) {
                    flags.insert(name);
                } else {
                    throw UsageError("unknown option " + a);
                }
            } else {
                positional.push_back(a);
            }
        }
        if (positional.size() != positionals)
            throw UsageError("expects " + std::to_string(positionals) + " argument" + (positionals == 1 ? "" : "s") + ", got " +
                             std::to_string(positional.size()));
    }
    std::optional<std::string> value(const std::string& name) const {
        auto it = values.find(name);
        return it == values.end() ? std::nullopt : std::optional<std::string>(it->second);
    }
    bool has(const std::string& name) const { return flags.count(name) > 0; }
};

const std::set<std::string> kAuthOptions = {"key", "password-file"};

std::set<std::string> with(std::set<std::string> a, const std::set<std::string>& b) {
    a.insert(b.begin(), b.end());
    return a;
}

std::string readSmallFile(const fs::path& file, std::uint64_t limit) {
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (ec) throw PackageError(PackageError::Kind::Io, file.string() + ": cannot read (" + ec.message() + ")");
    if (size > limit) throw PackageError(PackageError::Kind::BadFile, file.string() + ": larger than " + std::to_string(limit) + " bytes");
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    if (!in && !in.eof()) throw PackageError(PackageError::Kind::Io, file.string() + ": cannot read");
    return s.str();
}

/// The password: --password-file's first line, $ATRIUM_PACK_PASSWORD, or the terminal.
std::optional<std::string> password(const Options& o, bool askTerminal) {
    if (auto file = o.value("password-file")) {
        std::string text = readSmallFile(*file, 4096);
        const auto end = text.find_first_of("\r\n");
        if (end != std::string::npos) text.resize(end);
        return text;
    }
    if (const char* env = std::getenv("ATRIUM_PACK_PASSWORD")) return std::string(env);
    if (!askTerminal || !::isatty(STDIN_FILENO)) return std::nullopt;
    std::cerr << "Password: " << std::flush;
    termios old{};
    ::tcgetattr(STDIN_FILENO, &old);
    termios quiet = old;
    quiet.c_lflag &= ~tcflag_t(ECHO);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &quiet);
    std::string line;
    std::getline(std::cin, line);
    ::tcsetattr(STDIN_FILENO, TCSANOW, &old);
    std::cerr << "\n";
    return line;
}

void check(const EditResult& r) {
    if (!r) throw Refused(r.error());
}

/// Makes the author present for an edit: with --key, or with the lock's password.
void authorise(ContentPackage& p, const Options& o) {
    if (auto keyFile = o.value("key")) {
        check(p.useSigningKey(SigningKey::load(*keyFile)));
        return;
    }
    if (!p.locked()) return;
    const auto pw = password(o, true);
    if (!pw) throw Refused(p.file().string() + " is locked by its author: give --password-file, $ATRIUM_PACK_PASSWORD or --key");
    check(p.unlock(*pw));
}

/// Opens a package, showing progress on stderr for large ones.
ContentPackage openPackage(const fs::path& file, std::ostream& err) {
    bool shown = false;
    auto progress = [&](std::uint64_t done, std::uint64_t total) {
        if (total < (64u << 20)) return true;
        err << "\rverifying " << file.filename().string() << ": " << (100 * done / total) << " %" << std::flush;
        shown = true;
        return true;
    };
    ContentPackage p = ContentPackage::open(file, {}, progress);
    if (shown) err << "\n";
    return p;
}

std::string describeSigner(const ContentPackage& p, const TrustStore& trust) {
    if (!p.signer()) return "unsigned";
    const std::string fp = fingerprint(*p.signer());
    if (const auto* a = trust.find(*p.signer())) return "signed by " + a->name + " (" + fp + ", trusted)";
    return "signed by an unknown author (" + fp + ")";
}

TrustStore trustStore(const Options& o) {
    return TrustStore::load(o.value("trusted").value_or(TrustStore::defaultPath().string()));
}

/// Whether the manifest's author name is vouched for: the signer is on the trust list
/// under that very name. Otherwise the name is only what the manifest claims.
bool authorVerified(const ContentPackage& p, const TrustStore& trust) {
    if (!p.signer() || p.manifest().author.empty()) return false;
    const auto* a = trust.find(*p.signer());
    return a && a->name == p.manifest().author;
}

std::optional<bool> yesNo(const Options& o, const std::string& name) {
    auto v = o.value(name);
    if (!v) return std::nullopt;
    if (*v == "yes" || *v == "true" || *v == "on") return true;
    if (*v == "no" || *v == "false" || *v == "off") return false;
    throw UsageError("--" + name + " expects yes or no, got '" + *v + "'");
}

/// A baked flow read and checked by the viewer's own reader (every size, the checksum),
/// so that a package never carries a flow the viewer would refuse as damaged.
heart::BakedBeat readFlow(const fs::path& file) {
    try {
        return heart::BakedBeat::load(file);
    } catch (const heart::BakedBeatError& e) {
        throw PackageError(PackageError::Kind::BadFile, e.what());
    }
}

/// The heart the package shows, as heart::heartIdentity names it: a phantom by its
/// parameters, a series by its entries' bytes in the manifest's order (extracted to a
/// temporary folder, as the viewer does).
std::string packageHeartIdentity(const ContentPackage& p) {
    const HeartSpec& h = p.manifest().heart;
    const heart::PipelineSettings settings = heart::PipelineSettings::forBlood();
    if (h.source == HeartSpec::Source::Phantom) return heart::heartIdentity(heart::HeartSource::fromPreset(h.preset), settings);
    struct Folder {
        fs::path path = fs::temp_directory_path() / ("atrium-pack-heart-" + std::to_string(::getpid()));
        Folder() {
            fs::remove_all(path); // a crashed run's
            fs::create_directories(path);
        }
        ~Folder() {
            std::error_code ec;
            fs::remove_all(path, ec);
        }
    } folder;
    for (std::size_t i = 0; i < h.entries.size(); ++i) {
        char name[32];
        std::snprintf(name, sizeof name, "phase_%03zu", i);
        const fs::path extracted = p.extractFile(h.entries[i], folder.path / "entries");
        fs::rename(extracted, folder.path / (name + extracted.extension().string()));
    }
    fs::remove_all(folder.path / "entries");
    const std::string series = folder.path.string();
    const std::optional<float> isovalue = h.isovalue ? std::optional<float>(float(*h.isovalue)) : std::nullopt;
    return heart::heartIdentity(h.source == HeartSpec::Source::Meshes ? heart::HeartSource::fromMeshes(series)
                                                                      : heart::HeartSource::fromVolumes(series, isovalue),
                                settings);
}

/// Refuses a flow that the viewer would not play with the package's heart: one baked in
/// another heart (docs/baked-flow.md).
void checkFlowFits(const ContentPackage& p, const heart::BakedBeat& beat, const std::string& flow) {
    const std::string bakedIn = heart::bakedHeartOf(beat);
    const std::string shown = packageHeartIdentity(p);
    if (bakedIn != shown)
        throw PackageError(PackageError::Kind::BadFile,
                           flow + ": baked in another heart (" + (bakedIn.empty() ? std::string("unnamed") : bakedIn) +
                               ") than the package's (" + shown + "); bake it with atrium-sim heart --bake on that heart");
}

std::string describeFlow(const heart::BakedBeat& beat) {
    std::size_t particles = 0;
    for (int k = 0; k < beat.framesPerBeat(); ++k) particles = std::max(particles, beat.particles(k));
    const std::string heart = heart::bakedHeartOf(beat);
    std::ostringstream s;
    s << beat.framesPerBeat() << " frames of up to " << particles << " particles over " << beat.cycleSeconds
      << " s, baked in " << (heart.empty() ? std::string("an unnamed heart") : heart);
    return s.str();
}

// --- Commands --------------------------------------------------------------------------

int keygen(const Options& o, std::ostream& out) {
    const auto file = o.value("out");
    if (!file) throw UsageError("keygen needs --out KEYFILE");
    if (fs::exists(*file) && !o.has("force"))
        throw PackageError(PackageError::Kind::Io, *file + ": exists already (give --force to replace it, and lose the old key)");
    const SigningKey key = SigningKey::generate();
    key.save(*file, o.value("author").value_or(""));
    out << "wrote " << *file << " (readable by you only)\nfingerprint " << fingerprint(key.publicKey()) << "\n";
    return kOk;
}

int create(const Options& o, std::ostream& out) {
    const fs::path target = o.positional[0];
    const auto manifestFile = o.value("manifest");
    if (!manifestFile) throw UsageError("create needs --manifest MANIFEST.json");
    const fs::path root = o.value("files").value_or(fs::path(*manifestFile).parent_path().string());
    Manifest m = parseManifest(readSmallFile(*manifestFile, PackageLimits{}.maxManifestSize), *manifestFile);
    if (!m.narratives.empty() && m.narratives != ContentPackage::kNarrativesEntry)
        throw PackageError(PackageError::Kind::BadFile, *manifestFile + ": /narratives: must be \"" +
                                                            std::string(ContentPackage::kNarrativesEntry) + "\"");
    // The flags bind a draft too: set them once everything else is in.
    const narrative::Restrictions restrictions = m.restrictions;
    const std::vector<PackagedFile> files = m.files;
    m.restrictions = {};
    ContentPackage p(m);
    for (const auto& f : files) {
        if (f.entry == m.narratives) continue;
        const fs::path source = root / f.entry;
        if (!fs::is_regular_file(source))
            throw PackageError(PackageError::Kind::BadFile, *manifestFile + ": file '" + f.entry + "' is not in " + root.string());
        check(p.addFile(f.entry, source));
    }
    if (!m.flow.empty()) checkFlowFits(p, readFlow(root / m.flow), *manifestFile + ": /flow: " + m.flow);
    if (!m.narratives.empty())
        check(p.setNarrativesDocument(readSmallFile(root / m.narratives, narrative::NarrativeDocument::kMaxFileBytes)));
    check(p.setRestrictions(restrictions));
    if (auto keyFile = o.value("key")) check(p.useSigningKey(SigningKey::load(*keyFile)));
    p.save(target);
    out << "wrote " << target.string() << ": " << m.resources.size() << " resources, " << files.size() << " files, "
        << (p.signer() ? "signed by " + fingerprint(*p.signer()) : std::string("unsigned")) << "\n";
    return kOk;
}

int addMedia(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0], source = o.positional[1];
    const std::string entry = o.value("as").value_or("media/" + source.filename().string());
    const TrustStore trust = trustStore(o); // read first: a bad list stops before any edit
    ContentPackage p = openPackage(file, err);
    authorise(p, o);
    check(p.addFile(entry, source));
    p.save(file);
    out << "added " << entry << " to " << file.string() << " (" << describeSigner(p, trust) << ")\n";
    return kOk;
}

int setFlow(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0];
    const bool remove = o.has("remove");
    if (remove == (o.positional.size() == 2)) throw UsageError("set-flow takes FLOW.atriumflow, or --remove");
    std::optional<heart::BakedBeat> beat;
    if (!remove) beat = readFlow(o.positional[1]);
    const TrustStore trust = trustStore(o);
    ContentPackage p = openPackage(file, err);
    authorise(p, o);
    const std::string old = p.manifest().flow;
    if (remove) {
        if (old.empty()) throw Refused(file.string() + " carries no baked flow");
        check(p.setFlow({}));
        check(p.removeFile(old));
        p.save(file);
        out << "removed the baked flow " << old << " from " << file.string() << " (" << describeSigner(p, trust) << ")\n";
        return kOk;
    }
    const fs::path source = o.positional[1];
    checkFlowFits(p, *beat, source.string());
    const std::string entry = o.value("as").value_or("flow/" + source.filename().string());
    check(p.addFile(entry, source));
    check(p.setFlow(entry));
    if (!old.empty() && old != entry) check(p.removeFile(old));
    p.save(file);
    out << "set the baked flow of " << file.string() << " to " << entry << ": " << describeFlow(*beat) << " ("
        << describeSigner(p, trust) << ")\n";
    return kOk;
}

int setRestrictions(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0];
    const TrustStore trust = trustStore(o);
    ContentPackage p = openPackage(file, err);
    narrative::Restrictions r = p.manifest().restrictions;
    if (auto v = yesNo(o, "branding-required")) r.brandingRequired = *v;
    if (auto v = yesNo(o, "narratives-locked")) r.narrativesLocked = *v;
    if (auto v = yesNo(o, "resources-locked")) r.resourcesLocked = *v;
    if (auto v = yesNo(o, "narrative-navigation-only")) r.narrativeNavigationOnly = *v;
    if (auto v = yesNo(o, "video-export-forbidden")) r.videoExportForbidden = *v;
    if (auto v = o.value("max-resolution")) {
        if (*v == "none") {
            r.maxResolution.reset();
        } else {
            const auto x = v->find('x');
            try {
                if (x == std::string::npos) throw std::invalid_argument("no x");
                r.maxResolution = narrative::Resolution{std::stoi(v->substr(0, x)), std::stoi(v->substr(x + 1))};
            } catch (const std::exception&) {
                throw UsageError("--max-resolution expects WIDTHxHEIGHT or none, got '" + *v + "'");
            }
        }
    }
    if (auto v = o.value("expires")) {
        if (*v == "none") r.expires.reset();
        else if (auto d = narrative::parseDate(*v)) r.expires = d;
        else throw UsageError("--expires expects YYYY-MM-DD or none, got '" + *v + "'");
    }
    if (r == p.manifest().restrictions) {
        out << "no change\n";
        return kOk;
    }
    authorise(p, o);
    check(p.setRestrictions(r));
    p.save(file);
    out << "restrictions of " << file.string() << " set (" << describeSigner(p, trust) << ")\n";
    return kOk;
}

int lock(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0];
    const auto keyFile = o.value("key");
    if (!keyFile) throw UsageError("lock needs --key KEYFILE (the author's signing key)");
    ContentPackage p = openPackage(file, err);
    if (p.locked()) throw Refused(file.string() + " is locked already; unlock it first to change its lock");
    const auto pw = password(o, true);
    if (!pw || pw->empty()) throw UsageError("lock needs a password: --password-file, $ATRIUM_PACK_PASSWORD or the terminal");
    check(p.lock(SigningKey::load(*keyFile), *pw));
    p.save(file);
    out << "locked and signed " << file.string() << " with key " << fingerprint(*p.signer()) << "\n";
    return kOk;
}

int unlock(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0];
    ContentPackage p = openPackage(file, err);
    if (!p.locked()) throw Refused(file.string() + " is not locked");
    authorise(p, o);
    check(p.removeLock());
    p.save(file);
    out << "removed the lock of " << file.string() << "; it stays signed by " << fingerprint(*p.signer()) << "\n";
    return kOk;
}

int sign(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0];
    ContentPackage p = openPackage(file, err);
    if (!o.value("key") && !p.locked()) throw UsageError("sign needs --key KEYFILE");
    authorise(p, o);
    p.save(file);
    out << "signed " << file.string() << " with key " << fingerprint(*p.signer()) << "\n";
    return kOk;
}

int verify(const Options& o, std::ostream& out, std::ostream& err) {
    const ContentPackage p = openPackage(o.positional[0], err);
    const TrustStore trust = trustStore(o);
    // Opening checked every entry (sizes, CRCs, manifest, references) signed or not.
    out << o.positional[0] << ": " << (p.signer() ? "intact, " : "contents intact, ") << describeSigner(p, trust) << "\n";
    if (const std::string& flow = p.manifest().flow; !flow.empty()) {
        // Its bytes are the signed ones; that the viewer can play it is checked here.
        const std::string source = fs::path(o.positional[0]).filename().string() + ": " + flow;
        const std::string bytes = p.readFile(flow, PackageLimits{}.maxEntrySize);
        heart::BakedBeat beat;
        try {
            beat = heart::BakedBeat::parse(std::as_bytes(std::span(bytes.data(), bytes.size())), source);
        } catch (const heart::BakedBeatError& e) {
            throw PackageError(PackageError::Kind::BadFile, e.what());
        }
        checkFlowFits(p, beat, source);
        out << "  flow: " << describeFlow(beat) << ", the package's heart\n";
    }
    if (!p.signer()) return kRefused;
    if (o.has("require-trusted") && !trust.find(*p.signer())) return kRefused;
    return kOk;
}

ordered_json describe(const ContentPackage& p, const TrustStore& trust, const std::string& file) {
    const Manifest& m = p.manifest();
    ordered_json j;
    j["file"] = file;
    j["title"] = m.title;
    j["author"] = m.author; // the manifest's claim
    j["authorVerified"] = authorVerified(p, trust);
    ordered_json heart;
    if (m.heart.source == HeartSpec::Source::Phantom) heart = {{"source", "phantom"}, {"preset", m.heart.preset}};
    else heart = {{"source", m.heart.source == HeartSpec::Source::Meshes ? "meshes" : "volumes"}, {"phases", m.heart.entries.size()}};
    j["heart"] = heart;
    j["narratives"] = ordered_json::array();
    if (!m.narratives.empty())
        for (const auto& n : narrative::parseNarrativeDocument(p.narrativesDocument(), m.narratives).narratives)
            j["narratives"].push_back({{"title", n.title}, {"nodes", n.nodes.size()}});
    j["resources"] = m.resources.size();
    j["categories"] = ordered_json::array();
    for (const auto& c : m.categories) j["categories"].push_back(c.name);
    ordered_json flags = restrictionsToJson(m.restrictions);
    for (const char* limit : {"maxResolution", "expires"})
        if (!flags.contains(limit)) flags[limit] = nullptr; // scripts find every flag, set or not
    j["restrictions"] = flags;
    j["expired"] = p.gate().expired();
    j["branding"] = {{"text", m.branding.text}, {"image", m.branding.image}};
    j["flow"] = m.flow.empty() ? ordered_json(nullptr) : ordered_json(m.flow);
    j["locked"] = p.locked();
    ordered_json signature;
    signature["state"] = p.signer() ? "signed" : "unsigned";
    if (p.signer()) {
        signature["fingerprint"] = fingerprint(*p.signer());
        const auto* a = trust.find(*p.signer());
        signature["trusted"] = a != nullptr;
        if (a) signature["trustedAs"] = a->name;
    }
    j["signature"] = signature;
    j["files"] = ordered_json::array();
    for (const auto& f : m.files) j["files"].push_back({{"entry", f.entry}, {"type", f.type}});
    return j;
}

int inspect(const Options& o, std::ostream& out, std::ostream& err) {
    const std::string file = o.positional[0];
    std::optional<ContentPackage> p;
    try {
        p.emplace(openPackage(file, err));
    } catch (const PackageError& e) {
        if (e.kind() != PackageError::Kind::Tampered || !o.has("json")) throw;
        ordered_json j;
        j["file"] = file;
        j["signature"] = {{"state", "tampered"}, {"error", e.what()}};
        out << j.dump(2) << "\n";
        err << "atrium-pack: " << e.what() << "\n";
        return kBadFile;
    }
    const TrustStore trust = trustStore(o);
    const ordered_json j = describe(*p, trust, file);
    if (o.has("json")) {
        out << j.dump(2) << "\n";
        return kOk;
    }
    const std::string& author = p->manifest().author;
    out << file << ": \"" << j["title"].get<std::string>() << "\"";
    if (!author.empty())
        out << (j["authorVerified"].get<bool>() ? " by " + author
                                                : ", its manifest says by " + author + " (a claim: no key trusted under that name signed it)");
    out << "\n";
    out << "  signature:    " << describeSigner(*p, trust) << "\n";
    out << "  locked:       " << (p->locked() ? "yes" : "no") << "\n";
    out << "  heart:        " << j["heart"].dump() << "\n";
    for (const auto& n : j["narratives"]) out << "  narrative:    " << n["title"].get<std::string>() << " (" << n["nodes"] << " nodes)\n";
    if (!p->manifest().flow.empty()) out << "  flow:         " << p->manifest().flow << "\n";
    out << "  resources:    " << j["resources"] << " in " << j["categories"].size() << " categories\n";
    out << "  restrictions: " << j["restrictions"].dump() << (j["expired"].get<bool>() ? " (expired)" : "") << "\n";
    out << "  files:        " << j["files"].size() << "\n";
    return kOk;
}

int extract(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path file = o.positional[0], folder = o.positional[1];
    ContentPackage p = openPackage(file, err);
    if (o.value("key") || o.value("password-file")) authorise(p, o);
    if (auto why = p.gate().check(narrative::Operation::OpenContent)) throw Refused(*why);
    fs::create_directories(folder);
    std::size_t count = 0;
    for (const auto& f : p.manifest().files) {
        p.extractFile(f.entry, folder);
        ++count;
    }
    // The manifest as the package holds it, so that `create --manifest DIR/manifest.json` rebuilds it.
    io::writeFileAtomically(folder / kManifestEntry, writeManifest(p.manifest()), {.createDirectory = false});
    out << "extracted " << count << " files and manifest.json to " << folder.string() << "\n";
    return kOk;
}

int trust(const Options& o, std::ostream& out, std::ostream& err) {
    const fs::path storeFile = o.value("trusted").value_or(TrustStore::defaultPath().string());
    if (storeFile.empty()) throw UsageError("no place for the trust list: give --trusted FILE");
    TrustStore store = TrustStore::load(storeFile);
    const ContentPackage p = openPackage(o.positional[0], err);
    if (!p.signer()) throw Refused(o.positional[0] + " is not signed: there is no author to trust");
    if (o.has("remove")) {
        out << (store.remove(*p.signer()) ? "no longer trusting " : "was not trusting ") << fingerprint(*p.signer()) << "\n";
    } else {
        const std::string name = o.value("name").value_or(p.manifest().author.empty() ? "unnamed author" : p.manifest().author);
        // A second key under a name already trusted is how a forger would pass as that
        // author: only on purpose.
        std::string others;
        for (const TrustedAuthor* a : store.findName(name))
            if (a->key != *p.signer()) others += (others.empty() ? "" : ", ") + fingerprint(a->key);
        if (!others.empty() && !o.has("another-key"))
            throw Refused("you already trust " + name + " with key " + others + "; " + o.positional[0] + " is signed by key " +
                          fingerprint(*p.signer()) + ", another key. Check it with " + name +
                          ", then give --another-key to trust both, or --name to trust it under another name");
        store.add(name, *p.signer());
        out << "trusting " << name << " (" << fingerprint(*p.signer()) << ")";
        if (!others.empty()) out << "; also trusted as " << name << ": " << others;
        out << "\n";
    }
    store.save(storeFile);
    return kOk;
}

} // namespace

std::string packUsage() {
    return R"(atrium-pack: build, lock, sign and check Atrium content packages (.atrium).

  atrium-pack keygen --out KEYFILE [--author NAME] [--force]
  atrium-pack create OUT.atrium --manifest MANIFEST.json [--files DIR] [--key KEYFILE]
  atrium-pack add-media FILE.atrium SOURCE [--as ENTRY] [AUTH] [--trusted FILE]
  atrium-pack set-flow FILE.atrium (FLOW.atriumflow [--as ENTRY] | --remove) [AUTH] [--trusted FILE]
  atrium-pack set-restrictions FILE.atrium [--branding-required yes|no] [--narratives-locked yes|no]
              [--resources-locked yes|no] [--narrative-navigation-only yes|no] [--video-export-forbidden yes|no]
              [--max-resolution WxH|none] [--expires YYYY-MM-DD|none] [AUTH] [--trusted FILE]
  atrium-pack lock FILE.atrium --key KEYFILE [--password-file FILE]
  atrium-pack unlock FILE.atrium [AUTH]
  atrium-pack sign FILE.atrium --key KEYFILE | [--password-file FILE]
  atrium-pack verify FILE.atrium [--trusted FILE] [--require-trusted]
  atrium-pack inspect FILE.atrium [--json] [--trusted FILE]
  atrium-pack extract FILE.atrium DIR [AUTH]
  atrium-pack trust FILE.atrium [--name NAME] [--another-key] [--remove] [--trusted FILE]

AUTH, for a locked package: --password-file FILE (its first line), $ATRIUM_PACK_PASSWORD,
the terminal, or --key KEYFILE (the author's key). The author of a signed package is its
signer: --key takes only the key that signed it. The trust list defaults to
$XDG_CONFIG_HOME/atrium/trusted-authors.json, which the viewer uses too.
Exit codes: 0 done, 1 bad command line, 2 bad or tampered file, 3 refused (locked,
restricted, wrong password, unsigned for verify), 4 other errors.
Manual: docs/atrium-pack.md.
)";
}

int packCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
    if (args.empty()) {
        err << packUsage();
        return kUsage;
    }
    const std::string command = args[0];
    const std::vector<std::string> rest(args.begin() + 1, args.end());
    try {
        if (command == "keygen") return keygen(Options(rest, 0, {"out", "author"}, {"force"}), out);
        if (command == "create") return create(Options(rest, 1, {"manifest", "files", "key"}, {}), out);
        if (command == "add-media") return addMedia(Options(rest, 2, with({"as", "trusted"}, kAuthOptions), {}), out, err);
        if (command == "set-flow") {
            const bool remove = std::find(rest.begin(), rest.end(), "--remove") != rest.end();
            return setFlow(Options(rest, remove ? 1 : 2, with({"as", "trusted"}, kAuthOptions), {"remove"}), out, err);
        }
        if (command == "set-restrictions")
            return setRestrictions(Options(rest, 1,
                                           with({"branding-required", "narratives-locked", "resources-locked",
                                                 "narrative-navigation-only", "video-export-forbidden", "max-resolution", "expires", "trusted"},
                                                kAuthOptions),
                                           {}),
                                   out, err);
        if (command == "lock") return lock(Options(rest, 1, kAuthOptions, {}), out, err);
        if (command == "unlock") return unlock(Options(rest, 1, kAuthOptions, {}), out, err);
        if (command == "sign") return sign(Options(rest, 1, kAuthOptions, {}), out, err);
        if (command == "verify") return verify(Options(rest, 1, {"trusted"}, {"require-trusted"}), out, err);
        if (command == "inspect") return inspect(Options(rest, 1, {"trusted"}, {"json"}), out, err);
        if (command == "extract") return extract(Options(rest, 2, kAuthOptions, {}), out, err);
        if (command == "trust") return trust(Options(rest, 1, {"name", "trusted"}, {"remove", "another-key"}), out, err);
        if (command == "--help" || command == "-h" || command == "help") {
            out << packUsage();
            return kOk;
        }
        throw UsageError("unknown command '" + command + "'");
    } catch (const UsageError& e) {
        err << "atrium-pack " << command << ": " << e.what() << "\n\n" << packUsage();
        return kUsage;
    } catch (const Refused& e) {
        err << "atrium-pack " << command << ": refused: " << e.what() << "\n";
        return kRefused;
    } catch (const PackageError& e) {
        err << "atrium-pack " << command << ": " << e.what() << "\n";
        switch (e.kind()) {
        case PackageError::Kind::BadFile:
        case PackageError::Kind::Tampered: return kBadFile;
        case PackageError::Kind::Refused: return kRefused;
        default: return kOther;
        }
    } catch (const narrative::NarrativeDocumentError& e) {
        err << "atrium-pack " << command << ": " << e.what() << "\n";
        return kBadFile;
    } catch (const std::exception& e) {
        err << "atrium-pack " << command << ": " << e.what() << "\n";
        return kOther;
    }
}

} // namespace atrium::app
