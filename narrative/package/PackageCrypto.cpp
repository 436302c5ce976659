#include "narrative/package/PackageCrypto.h"

#include "io/AtomicFile.h"
#include "narrative/package/JsonInput.h"
#include "narrative/package/PackageError.h"

#include <nlohmann/json.hpp>
#include <sodium.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace atrium::package {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

static_assert(sizeof(crypto_generichash_state) <= 384);
static_assert(crypto_sign_PUBLICKEYBYTES == 32 && crypto_sign_SECRETKEYBYTES == 64 && crypto_sign_BYTES == 64);
static_assert(crypto_pwhash_SALTBYTES == 16 && crypto_secretbox_NONCEBYTES == 24 && crypto_secretbox_KEYBYTES == 32);

void ensureSodium() {
    static const bool ready = sodium_init() >= 0;
    if (!ready) throw std::runtime_error("libsodium could not be initialised");
}

[[noreturn]] void bad(const std::string& where, const std::string& what) {
    throw PackageError(PackageError::Kind::BadFile, where + ": " + what);
}

/// Decodes base64 field `key` of `o` into exactly N bytes.
template <std::size_t N>
std::array<std::uint8_t, N> fixedBytes(const json& o, const char* key, const std::string& where) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string()) bad(where, std::string("'") + key + "' is missing or not a string");
    const auto bytes = fromBase64(it->get_ref<const std::string&>());
    if (!bytes || bytes->size() != N)
        bad(where, std::string("'") + key + "' must be base64 of " + std::to_string(N) + " bytes");
    std::array<std::uint8_t, N> out;
    std::copy(bytes->begin(), bytes->end(), out.begin());
    return out;
}

json parseObject(std::string_view text, const std::string& where, const char* format) {
    const json j = parseJsonObject(text, where);
    if (j.value("format", std::string()) != format) bad(where, std::string("'format' must be \"") + format + "\"");
    if (!j.contains("version") || j["version"] != 1) bad(where, "'version' must be 1 (the only version this Atrium reads)");
    return j;
}

} // namespace

std::string toBase64(std::span<const std::uint8_t> bytes) {
    ensureSodium();
    std::string out(sodium_base64_ENCODED_LEN(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
    sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(), sodium_base64_VARIANT_ORIGINAL);
    out.resize(std::strlen(out.c_str()));
    return out;
}

std::optional<std::vector<std::uint8_t>> fromBase64(std::string_view text) {
    ensureSodium();
    std::vector<std::uint8_t> out(text.size() / 4 * 3 + 3);
    std::size_t length = 0;
    const char* end = nullptr;
    if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &length, &end,
                          sodium_base64_VARIANT_ORIGINAL) != 0 ||
        end != text.data() + text.size())
        return std::nullopt;
    out.resize(length);
    return out;
}

std::string toHex(std::span<const std::uint8_t> bytes) {
    static const char* digits = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (auto b : bytes) {
        out += digits[b >> 4];
        out += digits[b & 15];
    }
    return out;
}

std::string fingerprint(const PublicKey& key) {
    const Hash h = hashOf(std::string_view(reinterpret_cast<const char*>(key.data()), key.size()));
    const std::string hex = toHex(std::span(h.data(), 16));
    std::string out;
    for (std::size_t i = 0; i < hex.size(); i += 4) {
        if (i) out += '-';
        out.append(hex, i, 4);
    }
    return out;
}

Blake2b::Blake2b() {
    ensureSodium();
    crypto_generichash_init(reinterpret_cast<crypto_generichash_state*>(state_), nullptr, 0, 32);
}

void Blake2b::update(const void* data, std::size_t size) {
    crypto_generichash_update(reinterpret_cast<crypto_generichash_state*>(state_), static_cast<const unsigned char*>(data), size);
}

Hash Blake2b::finish() {
    Hash h;
    crypto_generichash_final(reinterpret_cast<crypto_generichash_state*>(state_), h.data(), h.size());
    return h;
}

Hash hashOf(std::string_view bytes) {
    Blake2b b;
    b.update(bytes.data(), bytes.size());
    return b.finish();
}

// --- SigningKey -----------------------------------------------------------------

SigningKey::SigningKey() {
    ensureSodium();
    secret_ = static_cast<std::uint8_t*>(sodium_malloc(crypto_sign_SECRETKEYBYTES));
    if (!secret_) throw std::bad_alloc();
}

SigningKey::SigningKey(SigningKey&& other) noexcept : public_(other.public_), secret_(other.secret_) { other.secret_ = nullptr; }

SigningKey& SigningKey::operator=(SigningKey&& other) noexcept {
    if (this != &other) {
        if (secret_) sodium_free(secret_);
        public_ = other.public_;
        secret_ = other.secret_;
        other.secret_ = nullptr;
    }
    return *this;
}

SigningKey::~SigningKey() {
    if (secret_) sodium_free(secret_); // sodium_free wipes the memory
}

SigningKey SigningKey::generate() {
    SigningKey key;
    crypto_sign_keypair(key.public_.data(), key.secret_);
    return key;
}

std::span<const std::uint8_t> SigningKey::secret() const { return {secret_, crypto_sign_SECRETKEYBYTES}; }

SignatureBytes SigningKey::sign(std::string_view message) const {
    SignatureBytes s;
    crypto_sign_detached(s.data(), nullptr, reinterpret_cast<const unsigned char*>(message.data()), message.size(), secret_);
    return s;
}

SigningKey SigningKey::load(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw PackageError(PackageError::Kind::Io, file.string() + ": cannot read the key file");
    std::string text(4096, '\0');
    in.read(text.data(), std::streamsize(text.size()));
    text.resize(std::size_t(in.gcount()));
    if (in.peek() != std::char_traits<char>::eof()) bad(file.string(), "too large for a key file");
    const json j = parseObject(text, file.string(), "atrium-author-key");
    const auto pk = fixedBytes<32>(j, "publicKey", file.string());
    const auto sk = fixedBytes<64>(j, "secretKey", file.string());
    SigningKey key;
    std::copy(sk.begin(), sk.end(), key.secret_);
    std::uint8_t derived[32];
    crypto_sign_ed25519_sk_to_pk(derived, key.secret_);
    if (!std::equal(pk.begin(), pk.end(), derived)) bad(file.string(), "'publicKey' does not belong to 'secretKey'");
    key.public_ = pk;
    return key;
}

void SigningKey::save(const std::filesystem::path& file, const std::string& authorName) const {
    ordered_json j;
    j["format"] = "atrium-author-key";
    j["version"] = 1;
    if (!authorName.empty()) j["author"] = authorName;
    j["fingerprint"] = fingerprint(public_);
    j["publicKey"] = toBase64(public_);
    j["secretKey"] = toBase64(secret());
    std::string text = j.dump(2) + "\n";
    asPackageIo([&] { io::writeFileAtomically(file, text, {.mode = 0600, .createDirectory = false}); });
    sodium_memzero(text.data(), text.size());
}

// --- PackageSignature -------------------------------------------------------------

std::string PackageSignature::canonicalText(const std::vector<SignedEntry>& entries) {
    std::string text = "atrium-package-signature 1\n";
    for (const auto& e : entries) text += e.name + "\t" + std::to_string(e.size) + "\t" + toHex(e.hash) + "\n";
    return text;
}

PackageSignature PackageSignature::create(std::vector<SignedEntry> entries, const SigningKey& key) {
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    PackageSignature s;
    s.publicKey = key.publicKey();
    s.signature = key.sign(canonicalText(entries));
    s.entries = std::move(entries);
    return s;
}

bool PackageSignature::verifies() const {
    ensureSodium();
    const std::string text = canonicalText(entries);
    return crypto_sign_verify_detached(signature.data(), reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                                       publicKey.data()) == 0;
}

std::string PackageSignature::toJson() const {
    ordered_json j;
    j["format"] = "atrium-signature";
    j["version"] = 1;
    j["algorithm"] = "ed25519";
    j["hash"] = "blake2b-256";
    j["fingerprint"] = fingerprint(publicKey);
    j["publicKey"] = toBase64(publicKey);
    j["signature"] = toBase64(signature);
    j["entries"] = ordered_json::array();
    for (const auto& e : entries) j["entries"].push_back({{"name", e.name}, {"size", e.size}, {"blake2b", toHex(e.hash)}});
    return j.dump(2) + "\n";
}

PackageSignature PackageSignature::fromJson(std::string_view text, const std::string& where) {
    const json j = parseObject(text, where, "atrium-signature");
    if (j.value("algorithm", std::string()) != "ed25519" || j.value("hash", std::string()) != "blake2b-256")
        bad(where, "'algorithm' must be \"ed25519\" and 'hash' \"blake2b-256\"");
    PackageSignature s;
    s.publicKey = fixedBytes<32>(j, "publicKey", where);
    s.signature = fixedBytes<64>(j, "signature", where);
    const auto it = j.find("entries");
    if (it == j.end() || !it->is_array()) bad(where, "'entries' must be an array");
    for (std::size_t i = 0; i < it->size(); ++i) {
        const json& e = (*it)[i];
        const std::string at = "entries[" + std::to_string(i) + "]";
        if (!e.is_object() || !e.contains("name") || !e["name"].is_string() || !e.contains("size") ||
            !e["size"].is_number_unsigned() || !e.contains("blake2b") || !e["blake2b"].is_string())
            bad(where, at + " needs 'name' (string), 'size' (unsigned) and 'blake2b' (hex)");
        SignedEntry entry{e["name"].get<std::string>(), e["size"].get<std::uint64_t>(), {}};
        const std::string hex = e["blake2b"].get<std::string>();
        std::size_t length = 0;
        if (hex.size() != 64 ||
            sodium_hex2bin(entry.hash.data(), entry.hash.size(), hex.data(), hex.size(), nullptr, &length, nullptr) != 0 ||
            length != 32)
            bad(where, at + "/blake2b must be 64 hex digits");
        if (!s.entries.empty() && !(s.entries.back().name < entry.name))
            bad(where, at + " '" + entry.name + "' is out of order or repeated");
        s.entries.push_back(std::move(entry));
    }
    return s;
}

// --- SealedKey ----------------------------------------------------------------------

KdfCost KdfCost::interactive() { return {crypto_pwhash_OPSLIMIT_INTERACTIVE, crypto_pwhash_MEMLIMIT_INTERACTIVE}; }
KdfCost KdfCost::minimal() { return {crypto_pwhash_OPSLIMIT_MIN, crypto_pwhash_MEMLIMIT_MIN}; }

namespace {

/// The secretbox key from a password, in guarded memory (freed by the caller).
unsigned char* deriveKey(std::string_view password, const std::array<std::uint8_t, 16>& salt, std::uint64_t ops, std::size_t mem) {
    auto* key = static_cast<unsigned char*>(sodium_malloc(crypto_secretbox_KEYBYTES));
    if (!key) throw std::bad_alloc();
    if (crypto_pwhash(key, crypto_secretbox_KEYBYTES, password.data(), password.size(), salt.data(), ops, mem,
                      crypto_pwhash_ALG_ARGON2ID13) != 0) {
        sodium_free(key);
        throw PackageError(PackageError::Kind::Io, "not enough memory to derive the lock's key");
    }
    return key;
}

} // namespace

SealedKey SealedKey::seal(const SigningKey& key, std::string_view password, KdfCost cost) {
    ensureSodium();
    if (password.empty()) throw PackageError(PackageError::Kind::Refused, "a lock needs a password that is not empty");
    SealedKey s;
    s.publicKey = key.publicKey();
    s.opslimit = cost.opslimit;
    s.memlimit = cost.memlimit;
    randombytes_buf(s.salt.data(), s.salt.size());
    randombytes_buf(s.nonce.data(), s.nonce.size());
    unsigned char* k = deriveKey(password, s.salt, s.opslimit, s.memlimit);
    s.ciphertext.resize(crypto_secretbox_MACBYTES + crypto_sign_SECRETKEYBYTES);
    crypto_secretbox_easy(s.ciphertext.data(), key.secret().data(), key.secret().size(), s.nonce.data(), k);
    sodium_free(k);
    return s;
}

std::optional<SigningKey> SealedKey::open(std::string_view password) const {
    ensureSodium();
    if (ciphertext.size() != crypto_secretbox_MACBYTES + crypto_sign_SECRETKEYBYTES) return std::nullopt;
    unsigned char* k = deriveKey(password, salt, opslimit, memlimit);
    SigningKey key;
    const bool ok = crypto_secretbox_open_easy(key.secret_, ciphertext.data(), ciphertext.size(), nonce.data(), k) == 0;
    sodium_free(k);
    if (!ok) return std::nullopt;
    crypto_sign_ed25519_sk_to_pk(key.public_.data(), key.secret_);
    if (key.public_ != publicKey) return std::nullopt;
    return key;
}

std::string SealedKey::toJson() const {
    ordered_json j;
    j["format"] = "atrium-lock";
    j["version"] = 1;
    j["kdf"] = "argon2id13";
    j["opslimit"] = opslimit;
    j["memlimit"] = memlimit;
    j["cipher"] = "xsalsa20poly1305";
    j["fingerprint"] = fingerprint(publicKey);
    j["publicKey"] = toBase64(publicKey);
    j["salt"] = toBase64(salt);
    j["nonce"] = toBase64(nonce);
    j["sealedKey"] = toBase64(ciphertext);
    return j.dump(2) + "\n";
}

SealedKey SealedKey::fromJson(std::string_view text, const std::string& where) {
    const json j = parseObject(text, where, "atrium-lock");
    if (j.value("kdf", std::string()) != "argon2id13" || j.value("cipher", std::string()) != "xsalsa20poly1305")
        bad(where, "'kdf' must be \"argon2id13\" and 'cipher' \"xsalsa20poly1305\"");
    SealedKey s;
    s.publicKey = fixedBytes<32>(j, "publicKey", where);
    s.salt = fixedBytes<16>(j, "salt", where);
    s.nonce = fixedBytes<24>(j, "nonce", where);
    const auto sealed = fixedBytes<crypto_secretbox_MACBYTES + crypto_sign_SECRETKEYBYTES>(j, "sealedKey", where);
    s.ciphertext.assign(sealed.begin(), sealed.end());
    if (!j.contains("opslimit") || !j["opslimit"].is_number_unsigned() || !j.contains("memlimit") ||
        !j["memlimit"].is_number_unsigned())
        bad(where, "'opslimit' and 'memlimit' must be unsigned integers");
    s.opslimit = j["opslimit"].get<std::uint64_t>();
    s.memlimit = j["memlimit"].get<std::size_t>();
    if (s.opslimit < crypto_pwhash_OPSLIMIT_MIN || s.opslimit > kMaxOpslimit || s.memlimit < crypto_pwhash_MEMLIMIT_MIN ||
        s.memlimit > kMaxMemlimit)
        bad(where, "'opslimit' must lie in [1, " + std::to_string(kMaxOpslimit) + "] and 'memlimit' in [8 KiB, 1 GiB]");
    return s;
}

} // namespace atrium::package
