#include "narrative/package/ContentPackage.h"

#include "narrative/NarrativeDocument.h"
#include "narrative/package/PackageError.h"
#include "io/AtomicFile.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <set>

namespace atrium::package {

namespace {

using narrative::Operation;
using narrative::Resource;

[[noreturn]] void bad(const std::string& where, const std::string& what) {
    throw PackageError(PackageError::Kind::BadFile, where + ": " + what);
}
[[noreturn]] void tampered(const std::string& where, const std::string& what) {
    throw PackageError(PackageError::Kind::Tampered, where + ": tampered: " + what);
}

/// Every media path the narratives document's overlays use.
std::set<std::string> overlayMedia(const narrative::NarrativeDocument& document) {
    std::set<std::string> media;
    for (const auto& n : document.narratives)
        for (const auto& node : n.nodes)
            for (const auto& overlay : node.overlays)
                if (!overlay.media.empty()) media.insert(overlay.media);
    return media;
}

bool reserved(std::string_view entry) {
    return entry == kManifestEntry || entry == PackageSignature::kEntry || entry == SealedKey::kEntry;
}

/// Reads a file from disk, refusing one larger than `maxSize`.
std::string readDiskFile(const std::filesystem::path& file, std::uint64_t maxSize) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(file, ec);
    if (ec) throw PackageError(PackageError::Kind::Io, file.string() + ": cannot read (" + ec.message() + ")");
    if (size > maxSize)
        bad(file.string(), "holds " + std::to_string(size) + " bytes, more than the " + std::to_string(maxSize) + " allowed");
    std::ifstream in(file, std::ios::binary);
    std::string bytes(size, '\0');
    if (!in.read(bytes.data(), std::streamsize(size))) throw PackageError(PackageError::Kind::Io, file.string() + ": cannot read");
    return bytes;
}

} // namespace

ContentPackage::ContentPackage(Manifest manifest) : manifest_(std::move(manifest)) {
    if (manifest_.title.empty()) manifest_.title = "Untitled lecture";
    manifest_.files.clear();
}

ContentPackage::ContentPackage(ContentPackage&&) noexcept = default;
ContentPackage& ContentPackage::operator=(ContentPackage&&) noexcept = default;
ContentPackage::~ContentPackage() = default;

ContentPackage ContentPackage::open(const std::filesystem::path& file, const PackageLimits& limits, const ProgressCallback& progress) {
    // A killed save of this package left its temporary beside it: gone now.
    io::removeStaleTemporariesOf(file);
    ContentPackage p;
    p.archive_ = std::make_unique<ArchiveReader>(file, limits);
    p.file_ = file;
    p.load(progress);
    return p;
}

ContentPackage ContentPackage::openBytes(std::string bytes, const std::string& name, const PackageLimits& limits) {
    ContentPackage p;
    p.archive_ = ArchiveReader::fromBytes(std::move(bytes), name, limits);
    p.load({});
    return p;
}

void ContentPackage::load(const ProgressCallback& progress) {
    const ArchiveReader& a = *archive_;
    const std::string& name = a.name();
    const std::uint64_t jsonLimit = a.limits().maxManifestSize;

    // The signature first: a tampered manifest is reported as tampered, not as malformed.
    if (a.find(PackageSignature::kEntry)) {
        signatureText_ = a.read(PackageSignature::kEntry, jsonLimit);
        const auto signature = PackageSignature::fromJson(signatureText_, name + ": " + PackageSignature::kEntry);
        if (!signature.verifies())
            tampered(name + ": " + PackageSignature::kEntry, "the signature does not match the list of entries it signs");
        std::map<std::string, const SignedEntry*> signedEntries;
        std::uint64_t total = 0;
        for (const auto& e : signature.entries) {
            signedEntries[e.name] = &e;
            total += e.size;
        }
        for (const auto& e : a.entries()) {
            if (e.name == PackageSignature::kEntry) continue;
            if (!signedEntries.count(e.name)) tampered(name + ": entry '" + e.name + "'", "it was added after signing");
        }
        // Hashing is the long part: progress (and a chance to cancel) every 4 MiB.
        std::uint64_t done = 0, reported = 0;
        auto report = [&] {
            if (progress && !progress(done, total))
                throw PackageError(PackageError::Kind::Cancelled, name + ": opening was cancelled");
            reported = done;
        };
        for (const auto& s : signature.entries) {
            const ArchiveEntry* e = a.find(s.name);
            const std::string where = name + ": entry '" + s.name + "'";
            if (!e) tampered(where, "it was removed after signing");
            if (e->size != s.size) tampered(where, "its contents changed after signing");
            Blake2b hash;
            a.stream(s.name, [&](const char* p, std::size_t n) {
                hash.update(p, n);
                done += n;
                if (done - reported >= (4u << 20)) report();
            });
            if (hash.finish() != s.hash) tampered(where, "its contents changed after signing");
            report();
        }
        signer_ = signature.publicKey;
    } else {
        // Unsigned: no hash to compare, but every entry is still read through once, so
        // that one longer or shorter than it declares, or corrupt, is refused now rather
        // than halfway through an extraction.
        a.checkContents(progress);
    }
    if (a.find(SealedKey::kEntry)) {
        lockText_ = a.read(SealedKey::kEntry, jsonLimit);
        lock_ = SealedKey::fromJson(lockText_, name + ": " + SealedKey::kEntry);
        if (!signer_) tampered(name + ": " + SealedKey::kEntry, "a locked package must be signed, and this one is not");
        if (lock_->publicKey != *signer_)
            tampered(name + ": " + SealedKey::kEntry, "the lock belongs to another key than the signature's");
    }

    if (!a.find(kManifestEntry)) bad(name, "entry 'manifest.json' is missing: this is not an Atrium content package");
    manifestText_ = a.read(kManifestEntry, jsonLimit);
    manifest_ = parseManifest(manifestText_, name + ": " + kManifestEntry);
    for (const auto& e : a.entries()) {
        if (reserved(e.name)) continue;
        if (!manifest_.findFile(e.name)) bad(name + ": entry '" + e.name + "'", "is not listed in manifest.json 'files'");
        files_.emplace(e.name, FromArchive{});
    }
    for (const auto& f : manifest_.files)
        if (!files_.count(f.entry)) bad(name + ": " + kManifestEntry, "lists file '" + f.entry + "', which the package lacks");
    if (auto why = checkReferences(manifest_)) bad(name + ": " + kManifestEntry, *why);
    if (!manifest_.narratives.empty()) {
        const std::string text = a.read(manifest_.narratives, jsonLimit);
        if (auto why = checkNarratives(text, name + ": entry '" + manifest_.narratives + "'"))
            throw PackageError(PackageError::Kind::BadFile, *why);
    }
}

// --- State -------------------------------------------------------------------------------

SignatureState ContentPackage::signatureState() const {
    if (!signer_) return SignatureState::Unsigned;
    return modified_ ? SignatureState::Modified : SignatureState::Signed;
}

std::optional<PublicKey> ContentPackage::lockOwner() const {
    if (!lock_) return std::nullopt;
    return lock_->publicKey;
}

bool ContentPackage::authorPresent() const { return key_ && (!lock_ || key_->publicKey() == lock_->publicKey); }

narrative::ContentGate ContentPackage::gate(std::chrono::year_month_day today) const {
    narrative::AccessState s;
    s.restrictions = manifest_.restrictions;
    s.locked = locked();
    s.authorPresent = authorPresent();
    s.today = today;
    return narrative::ContentGate(s);
}

std::optional<std::string> ContentPackage::checkNarratives(const std::string& text, const std::string& source) const {
    try {
        narrative::parseNarrativeDocument(text, source, [&](const std::string& media) { return files_.count(media) > 0; });
    } catch (const narrative::NarrativeDocumentError& e) {
        return std::string(e.what());
    }
    return std::nullopt;
}

std::optional<std::string> ContentPackage::checkReferences(const Manifest& m) const {
    for (const auto& [entry, who] : m.references())
        if (!files_.count(entry)) return who + " refers to '" + entry + "', which the package lacks";
    return std::nullopt;
}

// --- Edits -------------------------------------------------------------------------------

EditResult ContentPackage::edit(Operation op, const std::function<std::optional<std::string>(Manifest&)>& change) {
    if (auto why = gate().check(op)) return EditResult::refused(*why);
    Manifest next = manifest_;
    if (auto why = change(next)) return EditResult::refused(*why);
    if (auto why = checkReferences(next)) return EditResult::refused(*why);
    try {
        writeManifest(next); // the schema's bounds (lengths, counts) hold for every edit
    } catch (const PackageError& e) {
        return EditResult::refused(e.what());
    }
    manifest_ = std::move(next);
    modified_ = true;
    return EditResult::done();
}

EditResult ContentPackage::setTitle(std::string title) {
    return edit(Operation::EditContent, [&](Manifest& m) -> std::optional<std::string> {
        if (title.empty()) return "the title may not be empty";
        m.title = std::move(title);
        return std::nullopt;
    });
}

EditResult ContentPackage::setDescription(std::string description) {
    return edit(Operation::EditContent, [&](Manifest& m) -> std::optional<std::string> {
        m.description = std::move(description);
        return std::nullopt;
    });
}

EditResult ContentPackage::setAuthor(std::string author) {
    return edit(Operation::EditContent, [&](Manifest& m) -> std::optional<std::string> {
        m.author = std::move(author);
        return std::nullopt;
    });
}

EditResult ContentPackage::setHeart(HeartSpec heart) {
    return edit(Operation::EditContent, [&](Manifest& m) -> std::optional<std::string> {
        m.heart = std::move(heart);
        return std::nullopt;
    });
}

EditResult ContentPackage::setFlow(std::string entry) {
    return edit(Operation::EditContent, [&](Manifest& m) -> std::optional<std::string> {
        m.flow = std::move(entry);
        return std::nullopt;
    });
}

namespace {

std::optional<std::string> checkResource(const Manifest& m, const Resource& r, const std::string& replacing) {
    if (auto why = narrative::validate(r)) return why;
    for (const auto& other : m.resources)
        if (other.id == r.id && other.id != replacing) return "a resource with id '" + r.id + "' exists already";
    if (!r.category.empty()) {
        bool known = false;
        for (const auto& c : m.categories) known = known || c.name == r.category;
        if (!known) return "resource '" + r.id + "': category '" + r.category + "' does not exist";
    }
    return std::nullopt;
}

} // namespace

EditResult ContentPackage::addResource(Resource resource, std::optional<std::size_t> at) {
    return edit(Operation::EditResources, [&](Manifest& m) -> std::optional<std::string> {
        if (auto why = checkResource(m, resource, {})) return why;
        m.resources.insert(m.resources.begin() + std::ptrdiff_t(std::min(at.value_or(m.resources.size()), m.resources.size())),
                           std::move(resource));
        return std::nullopt;
    });
}

EditResult ContentPackage::replaceResource(const std::string& id, Resource resource) {
    return edit(Operation::EditResources, [&](Manifest& m) -> std::optional<std::string> {
        auto it = std::find_if(m.resources.begin(), m.resources.end(), [&](const Resource& r) { return r.id == id; });
        if (it == m.resources.end()) return "there is no resource '" + id + "'";
        if (auto why = checkResource(m, resource, id)) return why;
        *it = std::move(resource);
        return std::nullopt;
    });
}

EditResult ContentPackage::removeResource(const std::string& id) {
    return edit(Operation::EditResources, [&](Manifest& m) -> std::optional<std::string> {
        auto it = std::find_if(m.resources.begin(), m.resources.end(), [&](const Resource& r) { return r.id == id; });
        if (it == m.resources.end()) return "there is no resource '" + id + "'";
        m.resources.erase(it);
        return std::nullopt;
    });
}

EditResult ContentPackage::setCategories(std::vector<narrative::ResourceCategory> categories) {
    return edit(Operation::EditResources, [&](Manifest& m) -> std::optional<std::string> {
        std::set<std::string> names;
        for (const auto& c : categories) {
            if (c.name.empty()) return std::string("a category needs a name");
            if (!names.insert(c.name).second) return "category '" + c.name + "' is listed twice";
        }
        for (const auto& r : m.resources)
            if (!r.category.empty() && !names.count(r.category))
                return "resource '" + r.id + "' still uses category '" + r.category + "'";
        m.categories = std::move(categories);
        return std::nullopt;
    });
}

EditResult ContentPackage::setRestrictions(narrative::Restrictions restrictions) {
    return edit(Operation::EditRestrictions, [&](Manifest& m) -> std::optional<std::string> {
        if (restrictions.brandingRequired && m.branding.empty())
            return std::string("a required branding bar needs its text or image first");
        if (restrictions.maxResolution && (restrictions.maxResolution->width < 16 || restrictions.maxResolution->height < 16))
            return std::string("the largest resolution must be at least 16 x 16");
        m.restrictions = std::move(restrictions);
        return std::nullopt;
    });
}

EditResult ContentPackage::setBranding(narrative::Branding branding) {
    return edit(Operation::EditBranding, [&](Manifest& m) -> std::optional<std::string> {
        if (m.restrictions.brandingRequired && branding.empty())
            return std::string("the restrictions require a branding bar: it needs text or an image");
        m.branding = std::move(branding);
        return std::nullopt;
    });
}

EditResult ContentPackage::setNarrativesDocument(std::string text) {
    if (auto why = gate().check(Operation::EditNarratives)) return EditResult::refused(*why);
    if (!text.empty())
        if (auto why = checkNarratives(text, "the narratives document")) return EditResult::refused(*why);
    Manifest next = manifest_;
    std::erase_if(next.files, [](const PackagedFile& f) { return f.entry == kNarrativesEntry; });
    next.narratives.clear();
    if (!text.empty()) {
        next.narratives = kNarrativesEntry;
        next.files.push_back({kNarrativesEntry, "application/json"});
    }
    manifest_ = std::move(next);
    if (text.empty()) files_.erase(kNarrativesEntry);
    else files_[kNarrativesEntry] = std::move(text);
    modified_ = true;
    return EditResult::done();
}

std::string ContentPackage::narrativesDocument() const {
    if (manifest_.narratives.empty()) return {};
    return readFile(manifest_.narratives, archive_ ? archive_->limits().maxManifestSize : PackageLimits{}.maxManifestSize);
}

EditResult ContentPackage::addFile(const std::string& entry, const std::filesystem::path& source) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(source, ec)) return EditResult::refused(source.string() + ": no such file");
    return addSource(entry, source);
}

EditResult ContentPackage::addFileBytes(const std::string& entry, std::string bytes) { return addSource(entry, std::move(bytes)); }

EditResult ContentPackage::addSource(const std::string& entry, Source source) {
    if (auto why = gate().check(Operation::EditContent)) return EditResult::refused(*why);
    if (!isSafeEntryName(entry) || reserved(entry))
        return EditResult::refused("'" + entry + "' cannot name an entry (use letters, digits, '_', '.', '-' and '/')");
    if (entry == kNarrativesEntry) return EditResult::refused("the narratives document is set with setNarrativesDocument");
    // A name is a file or a folder, never both (no archive tool could extract it).
    for (std::size_t slash = entry.find('/'); slash != std::string::npos; slash = entry.find('/', slash + 1))
        if (files_.count(entry.substr(0, slash)))
            return EditResult::refused("'" + entry + "' cannot be added: '" + entry.substr(0, slash) + "' is a file");
    if (auto inside = files_.lower_bound(entry + "/"); inside != files_.end() && inside->first.rfind(entry + "/", 0) == 0)
        return EditResult::refused("'" + entry + "' cannot be added: the package holds files in a folder of that name");
    Manifest next = manifest_;
    if (!next.findFile(entry)) next.files.push_back({entry, mediaTypeFor(entry)});
    try {
        writeManifest(next);
    } catch (const PackageError& e) {
        return EditResult::refused(e.what());
    }
    manifest_ = std::move(next);
    files_[entry] = std::move(source);
    modified_ = true;
    return EditResult::done();
}

EditResult ContentPackage::removeFile(const std::string& entry) {
    if (auto why = gate().check(Operation::EditContent)) return EditResult::refused(*why);
    if (!files_.count(entry)) return EditResult::refused("the package holds no file '" + entry + "'");
    for (const auto& [e, who] : manifest_.references())
        if (e == entry) return EditResult::refused("'" + entry + "' is used by " + who);
    if (!manifest_.narratives.empty() &&
        overlayMedia(narrative::parseNarrativeDocument(narrativesDocument(), manifest_.narratives)).count(entry))
        return EditResult::refused("'" + entry + "' is used by an overlay of the narratives");
    std::erase_if(manifest_.files, [&](const PackagedFile& f) { return f.entry == entry; });
    files_.erase(entry);
    modified_ = true;
    return EditResult::done();
}

// --- The author ------------------------------------------------------------------------------

EditResult ContentPackage::unlock(std::string_view password) {
    if (!lock_) return EditResult::refused("the package is not locked");
    auto key = lock_->open(password);
    if (!key) return EditResult::refused("wrong password: the package stays locked");
    key_ = std::make_unique<SigningKey>(std::move(*key));
    return EditResult::done();
}

EditResult ContentPackage::lock(SigningKey key, std::string_view password, KdfCost cost) {
    if (auto why = gate().check(Operation::EditRestrictions)) return EditResult::refused(*why);
    if (password.empty()) return EditResult::refused("a lock needs a password that is not empty");
    if (signer_ && key.publicKey() != *signer_)
        return EditResult::refused("the package is signed by key " + fingerprint(*signer_) + "; key " +
                                   fingerprint(key.publicKey()) + " is not its author's and cannot lock it");
    lock_ = SealedKey::seal(key, password, cost);
    lockText_ = lock_->toJson();
    key_ = std::make_unique<SigningKey>(std::move(key));
    modified_ = true;
    return EditResult::done();
}

EditResult ContentPackage::removeLock() {
    if (!lock_) return EditResult::refused("the package is not locked");
    if (!authorPresent()) return EditResult::refused("only the author can remove the lock: unlock it with the password first");
    lock_.reset();
    lockText_.clear();
    modified_ = true;
    return EditResult::done();
}

EditResult ContentPackage::useSigningKey(SigningKey key) {
    if (lock_ && key.publicKey() != lock_->publicKey)
        return EditResult::refused("the package is locked by key " + fingerprint(lock_->publicKey) + "; key " +
                                   fingerprint(key.publicKey()) + " cannot sign it");
    // The author of a signed package is its signer: another key is not its author, and
    // may not lift its flags or sign it as its own.
    if (signer_ && key.publicKey() != *signer_)
        return EditResult::refused("the package is signed by key " + fingerprint(*signer_) + "; key " +
                                   fingerprint(key.publicKey()) + " is not its author's");
    key_ = std::make_unique<SigningKey>(std::move(key));
    return EditResult::done();
}

// --- Files ----------------------------------------------------------------------------------

bool ContentPackage::hasFile(std::string_view entry) const { return files_.count(std::string(entry)) > 0; }

std::string ContentPackage::readFile(std::string_view entry, std::uint64_t maxSize) const {
    auto it = files_.find(std::string(entry));
    if (it == files_.end()) bad(archive_ ? archive_->name() : "the package", "holds no file '" + std::string(entry) + "'");
    if (std::holds_alternative<FromArchive>(it->second)) return archive_->read(entry, maxSize);
    if (auto* path = std::get_if<std::filesystem::path>(&it->second)) return readDiskFile(*path, maxSize);
    const std::string& bytes = std::get<std::string>(it->second);
    if (bytes.size() > maxSize) bad(std::string(entry), "is larger than " + std::to_string(maxSize) + " bytes");
    return bytes;
}

std::filesystem::path ContentPackage::extractFile(std::string_view entry, const std::filesystem::path& folder) const {
    auto it = files_.find(std::string(entry));
    if (it == files_.end()) bad(archive_ ? archive_->name() : "the package", "holds no file '" + std::string(entry) + "'");
    if (std::holds_alternative<FromArchive>(it->second)) return archive_->extract(entry, folder);
    const auto target = prepareExtraction(folder, entry, "entry '" + std::string(entry) + "'");
    const std::string bytes = readFile(entry, PackageLimits{}.maxEntrySize);
    asPackageIo([&] { io::writeFileAtomically(target, bytes, {.createDirectory = false}); });
    return target;
}

Hash ContentPackage::hashOf(const std::string& entry, const Source& source) const {
    if (std::holds_alternative<FromArchive>(source)) return archive_->hash(entry);
    if (auto* bytes = std::get_if<std::string>(&source)) return package::hashOf(*bytes);
    const auto& path = std::get<std::filesystem::path>(source);
    std::ifstream in(path, std::ios::binary);
    if (!in) throw PackageError(PackageError::Kind::Io, path.string() + ": cannot read");
    Blake2b h;
    char buffer[1 << 16];
    while (in.read(buffer, sizeof buffer) || in.gcount() > 0) h.update(buffer, std::size_t(in.gcount()));
    if (in.bad()) throw PackageError(PackageError::Kind::Io, path.string() + ": cannot read");
    return h.finish();
}

std::uint64_t ContentPackage::sizeOf(const std::string& entry, const Source& source) const {
    if (std::holds_alternative<FromArchive>(source)) return archive_->find(entry)->size;
    if (auto* bytes = std::get_if<std::string>(&source)) return bytes->size();
    return std::filesystem::file_size(std::get<std::filesystem::path>(source));
}

// --- Saving ----------------------------------------------------------------------------------

void ContentPackage::save(const std::filesystem::path& file) {
    if (auto why = checkReferences(manifest_)) bad(file.string(), *why);
    const bool unchanged = !modified_ && !manifestText_.empty();
    const std::string manifestText = unchanged ? manifestText_ : writeManifest(manifest_);

    std::string signatureText;
    std::optional<PublicKey> signer;
    if (key_ && authorPresent()) {
        std::vector<SignedEntry> entries;
        entries.push_back({kManifestEntry, manifestText.size(), package::hashOf(manifestText)});
        if (lock_) entries.push_back({SealedKey::kEntry, lockText_.size(), package::hashOf(lockText_)});
        for (const auto& [entry, source] : files_) entries.push_back({entry, sizeOf(entry, source), hashOf(entry, source)});
        const auto signature = PackageSignature::create(std::move(entries), *key_);
        signatureText = signature.toJson();
        signer = signature.publicKey;
    } else if (unchanged && signer_) {
        signatureText = signatureText_;
        signer = signer_;
    } else if (lock_) {
        bad(file.string(), "a locked package can be saved after an edit only by its author (unlock it first)");
    }

    ArchiveWriter out(file);
    out.addBytes(kManifestEntry, manifestText);
    for (const auto& [entry, source] : files_) {
        if (std::holds_alternative<FromArchive>(source)) out.addFrom(entry, *archive_, entry);
        else if (auto* path = std::get_if<std::filesystem::path>(&source)) out.addFile(entry, *path);
        else out.addBytes(entry, std::get<std::string>(source));
    }
    if (lock_) out.addBytes(SealedKey::kEntry, lockText_);
    if (!signatureText.empty()) out.addBytes(PackageSignature::kEntry, signatureText);
    out.commit();

    // From now on the new file is the source of every entry.
    const PackageLimits limits = archive_ ? archive_->limits() : PackageLimits{};
    archive_ = std::make_unique<ArchiveReader>(file, limits);
    for (auto& [entry, source] : files_) source = FromArchive{};
    file_ = file;
    manifestText_ = manifestText;
    signatureText_ = signatureText;
    signer_ = signer;
    modified_ = false;
}

} // namespace atrium::package
