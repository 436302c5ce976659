#include "session/LecturerAuth.h"

#include <sodium.h>

#include <cstring>
#include <stdexcept>
#include <vector>

namespace atrium::session {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"; // 31 characters, no look-alikes
constexpr std::string_view kDomain = "atrium-session-v1 lecturer";

std::string randomFromAlphabet(std::size_t length) {
    initialiseSodium();
    std::string s(length, ' ');
    for (char& c : s) c = kAlphabet[randombytes_uniform(sizeof kAlphabet - 1)];
    return s;
}

std::vector<std::uint8_t> fromHex(std::string_view hex) {
    std::vector<std::uint8_t> out(hex.size() / 2);
    std::size_t len = 0;
    if (hex.size() % 2 != 0 ||
        sodium_hex2bin(out.data(), out.size(), hex.data(), hex.size(), nullptr, &len, nullptr) != 0 || len != out.size())
        return {};
    return out;
}

} // namespace

void initialiseSodium() {
    if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

std::string makeJoinCode(std::size_t length) { return randomFromAlphabet(length); }
std::string makeLecturerSecret() { return randomFromAlphabet(20); }

std::string makeSessionId() {
    initialiseSodium();
    std::uint8_t id[8];
    randombytes_buf(id, sizeof id);
    return toHex(id, sizeof id);
}

bool codesMatch(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || sodium_memcmp(a.data(), b.data(), a.size()) == 0);
}

std::string toHex(const std::uint8_t* bytes, std::size_t size) {
    std::string hex(size * 2 + 1, '\0');
    sodium_bin2hex(hex.data(), hex.size(), bytes, size);
    hex.pop_back();
    return hex;
}

/// 32 bytes in libsodium's guarded memory (locked, wiped when freed).
struct LecturerKey::Secret {
    std::uint8_t* bytes;
    Secret() : bytes(static_cast<std::uint8_t*>(sodium_malloc(crypto_auth_hmacsha256_KEYBYTES))) {
        if (!bytes) throw std::runtime_error("no memory for the lecturer key");
    }
    ~Secret() { sodium_free(bytes); }
    Secret(const Secret&) = delete;
    Secret& operator=(const Secret&) = delete;
};

LecturerKey::LecturerKey(LecturerKey&&) noexcept = default;
LecturerKey& LecturerKey::operator=(LecturerKey&&) noexcept = default;
LecturerKey::~LecturerKey() = default;

static void stretch(std::uint8_t* out, std::string_view secret, const std::uint8_t* salt, unsigned ops, std::size_t mem) {
    if (crypto_pwhash(out, crypto_auth_hmacsha256_KEYBYTES, secret.data(), secret.size(), salt, ops, mem,
                      crypto_pwhash_ALG_ARGON2ID13) != 0)
        throw std::runtime_error("stretching the lecturer secret failed (out of memory)");
}

LecturerKey LecturerKey::fromSecret(std::string_view secret) {
    initialiseSodium();
    LecturerKey k;
    k.key_ = std::make_unique<Secret>();
    std::uint8_t salt[crypto_pwhash_SALTBYTES];
    randombytes_buf(salt, sizeof salt);
    k.salt_ = toHex(salt, sizeof salt);
    k.ops_ = crypto_pwhash_OPSLIMIT_INTERACTIVE;
    k.mem_ = crypto_pwhash_MEMLIMIT_INTERACTIVE;
    stretch(k.key_->bytes, secret, salt, k.ops_, k.mem_);
    return k;
}

LecturerKey LecturerKey::forChallenge(std::string_view secret, const Challenge& c) {
    initialiseSodium();
    const auto salt = fromHex(c.salt);
    if (salt.size() != crypto_pwhash_SALTBYTES || c.ops < crypto_pwhash_OPSLIMIT_MIN || c.mem < crypto_pwhash_MEMLIMIT_MIN)
        throw std::runtime_error("the server's challenge has a bad salt or limits");
    LecturerKey k;
    k.key_ = std::make_unique<Secret>();
    k.salt_ = c.salt;
    k.ops_ = c.ops;
    k.mem_ = c.mem;
    stretch(k.key_->bytes, secret, salt.data(), c.ops, c.mem);
    return k;
}

Challenge LecturerKey::challenge() const {
    std::uint8_t nonce[32];
    randombytes_buf(nonce, sizeof nonce);
    return {toHex(nonce, sizeof nonce), salt_, ops_, mem_};
}

namespace {
/// What the answer authenticates: the domain, the session, the connection and the nonce.
std::string macInput(const Challenge& c, std::string_view session, int connection) {
    return std::string(kDomain) + '\n' + std::string(session) + '\n' + std::to_string(connection) + '\n' + c.nonce;
}
} // namespace

std::string LecturerKey::answer(const Challenge& c, std::string_view session, int connection) const {
    const std::string input = macInput(c, session, connection);
    std::uint8_t tag[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256(tag, reinterpret_cast<const unsigned char*>(input.data()), input.size(), key_->bytes);
    return toHex(tag, sizeof tag);
}

bool LecturerKey::verify(const Challenge& c, std::string_view session, int connection, std::string_view tag) const {
    const auto given = fromHex(tag);
    if (given.size() != crypto_auth_hmacsha256_BYTES || c.salt != salt_) return false;
    const std::string input = macInput(c, session, connection);
    return crypto_auth_hmacsha256_verify(given.data(), reinterpret_cast<const unsigned char*>(input.data()), input.size(),
                                         key_->bytes) == 0;
}

} // namespace atrium::session
