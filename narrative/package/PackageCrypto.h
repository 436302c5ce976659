#pragma once
// The cryptography of content packages, all of it libsodium's:
//  - BLAKE2b-256 hashes of entries (crypto_generichash);
//  - the author's Ed25519 key pair (crypto_sign), its secret half kept in guarded
//    memory (sodium_malloc) and written to a key file readable by its owner only;
//  - the package signature: Ed25519 over a canonical list of every entry's name, size
//    and hash, so that any changed, added or removed byte or entry is detected;
//  - the lock: the author's secret key sealed under a key derived from a password
//    (Argon2id, crypto_pwhash) with XSalsa20-Poly1305 (crypto_secretbox).
// Formats: docs/content-format.md.

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::package {

using PublicKey = std::array<std::uint8_t, 32>;
using Hash = std::array<std::uint8_t, 32>;
using SignatureBytes = std::array<std::uint8_t, 64>;

std::string toBase64(std::span<const std::uint8_t> bytes);
/// Decodes standard base64; nullopt for anything else.
std::optional<std::vector<std::uint8_t>> fromBase64(std::string_view text);
std::string toHex(std::span<const std::uint8_t> bytes);

/// What a person compares to recognise an author: the first 16 bytes of the BLAKE2b-256
/// hash of the public key, as 8 groups of 4 hex digits ("3f2a-9c01-...").
std::string fingerprint(const PublicKey& key);

/// BLAKE2b-256, fed in pieces.
class Blake2b {
public:
    Blake2b();
    void update(const void* data, std::size_t size);
    Hash finish();

private:
    alignas(64) unsigned char state_[384];
};

Hash hashOf(std::string_view bytes);

/// An author's Ed25519 key pair. Move-only; the secret key lives in guarded memory
/// that is wiped when the key is destroyed.
class SigningKey {
public:
    static SigningKey generate();
    /// Reads a key file written by save(); throws PackageError naming the file.
    static SigningKey load(const std::filesystem::path& file);
    /// Writes the key file atomically, readable by its owner only (0600). The author's
    /// name is kept in it for people; it has no role in verification.
    void save(const std::filesystem::path& file, const std::string& authorName = {}) const;

    SigningKey(SigningKey&& other) noexcept;
    SigningKey& operator=(SigningKey&& other) noexcept;
    SigningKey(const SigningKey&) = delete;
    SigningKey& operator=(const SigningKey&) = delete;
    ~SigningKey();

    const PublicKey& publicKey() const { return public_; }
    SignatureBytes sign(std::string_view message) const;
    /// The 64-byte libsodium secret key (seed and public key).
    std::span<const std::uint8_t> secret() const;

private:
    friend struct SealedKey;
    SigningKey();
    PublicKey public_{};
    std::uint8_t* secret_ = nullptr; // sodium_malloc'd, 64 bytes
};

/// One entry as signed: its name, size and hash.
struct SignedEntry {
    std::string name;
    std::uint64_t size = 0;
    Hash hash{};
    bool operator==(const SignedEntry&) const = default;
};

/// signature.json: who signed, over which entries.
struct PackageSignature {
    static constexpr const char* kEntry = "signature.json";

    PublicKey publicKey{};
    SignatureBytes signature{};
    std::vector<SignedEntry> entries; ///< sorted by name

    /// The text that is signed: a header line, then "name\tsize\thash" per entry sorted
    /// by name (bytewise), each line ending in '\n'.
    static std::string canonicalText(const std::vector<SignedEntry>& sortedEntries);
    /// Sorts `entries` and signs them.
    static PackageSignature create(std::vector<SignedEntry> entries, const SigningKey& key);
    /// Whether the signature is the key's over the entries as listed.
    bool verifies() const;

    std::string toJson() const;
    /// Throws PackageError(BadFile) naming `where` and the field.
    static PackageSignature fromJson(std::string_view text, const std::string& where = kEntry);
};

/// How hard the password is stretched (crypto_pwhash's opslimit and memlimit).
struct KdfCost {
    std::uint64_t opslimit;
    std::size_t memlimit; ///< bytes
    /// libsodium's "interactive" cost (2 passes, 64 MiB): about 0.1-0.5 s.
    static KdfCost interactive();
    /// The least libsodium allows: for tests only.
    static KdfCost minimal();
};

/// lock.json: the author's secret key sealed under the author's password.
struct SealedKey {
    static constexpr const char* kEntry = "lock.json";
    /// A package may not ask more of the machine that opens it than this.
    static constexpr std::uint64_t kMaxOpslimit = 16;
    static constexpr std::size_t kMaxMemlimit = std::size_t(1) << 30;

    PublicKey publicKey{};
    std::array<std::uint8_t, 16> salt{};
    std::array<std::uint8_t, 24> nonce{};
    std::vector<std::uint8_t> ciphertext;
    std::uint64_t opslimit = 0;
    std::size_t memlimit = 0;

    static SealedKey seal(const SigningKey& key, std::string_view password, KdfCost cost = KdfCost::interactive());
    /// The key, or nullopt for a wrong password (or a key that does not match publicKey).
    std::optional<SigningKey> open(std::string_view password) const;

    std::string toJson() const;
    /// Throws PackageError(BadFile) naming `where` and the field (also for a cost
    /// beyond kMaxOpslimit / kMaxMemlimit).
    static SealedKey fromJson(std::string_view text, const std::string& where = kEntry);
};

} // namespace atrium::package
