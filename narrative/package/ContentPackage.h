#pragma once
// A content package (.atrium): one redistributable file holding a lecture - its heart,
// narratives, embedded resources, media, branding and restriction flags - signed by
// its author and optionally locked. Format: docs/content-format.md.
//
// ContentPackage is the document every editor works on: the viewer, atrium-pack and
// the tests alike. Its state can only change through the methods below, and each asks
// narrative::ContentGate first: an edit that the lock or a flag forbids returns the
// gate's message and changes nothing.
//
// Opening verifies everything before anything is shown: the zip's safety and limits
// (ArchiveReader), the manifest against its schema, every file the manifest lists or
// refers to, and - when the package is signed - the signature over every entry's
// name, size and BLAKE2b hash. A signature that does not match is reported as
// tampered, naming the entry, and the package is refused (not opened with restrictions
// in force: a tampered lecture is not the lecture its author signed).
//
// The author is present when the lock was opened with the password (unlock) or the
// author's key was given (useSigningKey): the author of a signed package is its signer,
// so only the key that signed it (for a locked package, the lock's own key) counts.
// Saving then signs again; without the author's key an edited package is saved
// unsigned, and an unchanged one keeps its signature byte for byte.

#include "narrative/Restrictions.h"
#include "narrative/package/Manifest.h"
#include "narrative/package/PackageArchive.h"
#include "narrative/package/PackageCrypto.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>

namespace atrium::package {

/// The outcome of an edit: done, or refused with a message (and nothing changed).
class [[nodiscard]] EditResult {
public:
    static EditResult done() { return EditResult(); }
    static EditResult refused(std::string why) {
        EditResult r;
        r.error_ = std::move(why);
        return r;
    }
    bool ok() const { return error_.empty(); }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return error_; }

private:
    std::string error_;
};

enum class SignatureState {
    Unsigned, ///< a draft, or saved without the author's key after an edit
    Signed,   ///< signed, nothing changed since it was opened or saved
    Modified, ///< was signed, edited since: saving signs again with the author's key, or drops the signature
};

/// Reports progress of long work (hashing a large package); returns false to cancel.
using ProgressCallback = std::function<bool(std::uint64_t done, std::uint64_t total)>;

class ContentPackage {
public:
    /// The narratives document's entry when the package holds one.
    static constexpr const char* kNarrativesEntry = "narratives.json";

    /// A new, unsigned, unlocked draft with `manifest`; its `files` are left out until
    /// they are added with addFile (a reference to a file not added is refused on save).
    explicit ContentPackage(Manifest manifest = {});
    /// Opens and verifies a package. Throws PackageError: BadFile (not a valid package;
    /// the message names the entry or field), Tampered (the message names the entry),
    /// Io, or Cancelled when `progress` returned false.
    static ContentPackage open(const std::filesystem::path& file, const PackageLimits& limits = {},
                               const ProgressCallback& progress = {});
    /// The same from bytes in memory (fuzzing); `name` stands for the file in messages.
    static ContentPackage openBytes(std::string bytes, const std::string& name, const PackageLimits& limits = {});

    ContentPackage(ContentPackage&&) noexcept;
    ContentPackage& operator=(ContentPackage&&) noexcept;
    ~ContentPackage();

    const Manifest& manifest() const { return manifest_; }
    /// The file it was opened from or last saved to (empty for a new draft).
    const std::filesystem::path& file() const { return file_; }

    // --- Signature, lock, gate ---------------------------------------------------------
    SignatureState signatureState() const;
    /// The key that signed it as opened or last saved (nullopt when unsigned).
    const std::optional<PublicKey>& signer() const { return signer_; }
    bool locked() const { return lock_.has_value(); }
    /// The key that locked it (nullopt when not locked).
    std::optional<PublicKey> lockOwner() const;
    bool authorPresent() const;
    /// The gate for this package now (today's date unless given).
    narrative::ContentGate gate(std::chrono::year_month_day today = narrative::todayUtc()) const;
    /// Whether the content has been edited since it was opened or saved.
    bool modified() const { return modified_; }

    // --- Edits (each asks the gate) -------------------------------------------------------
    EditResult setTitle(std::string title);
    EditResult setDescription(std::string description);
    EditResult setAuthor(std::string author);
    /// The heart; a series' entries must be files of the package.
    EditResult setHeart(HeartSpec heart);
    /// The baked flow (docs/baked-flow.md): `entry` must be a file of the package (add it
    /// first); empty drops the reference (the file stays until removeFile). The package
    /// cannot read a flow (narrative/ knows no physics): atrium-pack and the viewer check
    /// it with the baked-beat reader.
    EditResult setFlow(std::string entry);
    /// Adds a resource at index `at` (default: the end).
    EditResult addResource(narrative::Resource resource, std::optional<std::size_t> at = std::nullopt);
    /// Replaces the resource whose id is `id` (the new one may have another id).
    EditResult replaceResource(const std::string& id, narrative::Resource resource);
    EditResult removeResource(const std::string& id);
    EditResult setCategories(std::vector<narrative::ResourceCategory> categories);
    EditResult setRestrictions(narrative::Restrictions restrictions);
    EditResult setBranding(narrative::Branding branding);
    /// The narratives document (issue 12's JSON, narrative/NarrativeDocument.h), stored as
    /// it is in kNarrativesEntry; it must read, and its overlays' media must be files of
    /// the package (add them first). Empty text removes it.
    EditResult setNarrativesDocument(std::string text);
    /// The narratives document's text, or empty when the package has none.
    std::string narrativesDocument() const;
    /// Adds or replaces a file from disk or from bytes, under a safe entry name.
    EditResult addFile(const std::string& entry, const std::filesystem::path& source);
    EditResult addFileBytes(const std::string& entry, std::string bytes);
    /// Removes a file no resource, heart, branding or narrative refers to.
    EditResult removeFile(const std::string& entry);

    // --- The author --------------------------------------------------------------------------
    /// Opens the lock with the author's password: the author is then present. A wrong
    /// password is refused and changes nothing.
    EditResult unlock(std::string_view password);
    /// Locks the package with `key` under `password` (the author stays present in this
    /// session, so that saving signs). A package that is locked already needs its author;
    /// a signed one takes only its signer's key.
    EditResult lock(SigningKey key, std::string_view password, KdfCost cost = KdfCost::interactive());
    /// Removes the lock (the author must be present); the package stays signed on save.
    EditResult removeLock();
    /// Gives the author's key for signing on save, which makes the author present. A
    /// signed package takes only its signer's key (a locked one: the lock's own key);
    /// any key may sign an unsigned draft.
    EditResult useSigningKey(SigningKey key);

    // --- Files ---------------------------------------------------------------------------------
    bool hasFile(std::string_view entry) const;
    /// A file's bytes; refuses (PackageError BadFile) one larger than `maxSize`.
    std::string readFile(std::string_view entry, std::uint64_t maxSize) const;
    /// Writes a file below `folder` (never outside it) and returns its path.
    std::filesystem::path extractFile(std::string_view entry, const std::filesystem::path& folder) const;

    // --- Saving ----------------------------------------------------------------------------------
    /// Writes the package to `file` atomically (the old file is replaced only once the new
    /// one is complete on disk). Signs with the author's key when present. Throws
    /// PackageError (Io; BadFile when the manifest refers to a file it lacks).
    void save(const std::filesystem::path& file);

private:
    struct FromArchive {};
    using Source = std::variant<FromArchive, std::filesystem::path, std::string>;

    ContentPackage(const ContentPackage&) = delete;
    void load(const ProgressCallback& progress);
    /// Asks the gate, applies `change` to a copy of the manifest and keeps it when the
    /// change, the references and the schema's bounds all hold.
    EditResult edit(narrative::Operation op, const std::function<std::optional<std::string>(Manifest&)>& change);
    EditResult addSource(const std::string& entry, Source source);
    std::optional<std::string> checkReferences(const Manifest& m) const;
    /// Why `text` is not a narratives document whose overlay media are all files of the
    /// package (issue 12's reader, naming `source` and the JSON pointer), or nullopt.
    std::optional<std::string> checkNarratives(const std::string& text, const std::string& source) const;
    Hash hashOf(const std::string& entry, const Source& source) const;
    std::uint64_t sizeOf(const std::string& entry, const Source& source) const;

    Manifest manifest_;
    std::filesystem::path file_;
    std::unique_ptr<ArchiveReader> archive_;
    std::map<std::string, Source> files_; ///< every entry besides manifest, signature and lock
    std::optional<SealedKey> lock_;
    std::optional<PublicKey> signer_;
    std::unique_ptr<SigningKey> key_; ///< the author's key when present
    // The entries as read or last written, so that an unchanged package is saved byte for byte.
    std::string manifestText_, signatureText_, lockText_;
    bool modified_ = false;
};

} // namespace atrium::package
