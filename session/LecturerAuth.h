#pragma once
// Who may drive a live session, with libsodium.
//
// Students join with a short join code; it lets them follow, never drive. Driving from
// another machine (a lecturer whose app is not the server, e.g. in front of a headless
// `atrium-session serve`) needs the lecturer secret, which the join code does not give:
//  - the server stretches the secret once with Argon2id (crypto_pwhash, a fresh random
//    salt, interactive limits) into a 32-byte key held in locked memory and wiped when
//    done; neither the secret nor a plain hash of it is stored or sent anywhere;
//  - each connection gets a fresh random nonce in its welcome; the lecturer's app
//    stretches the secret with the same salt and answers with HMAC-SHA-256(key,
//    domain || session id || connection id || nonce); the server checks it in constant
//    time. A recorded answer is useless on any other connection or session.
// OpenSpace, the closest peer, keeps its host password as std::hash.

#include "session/Protocol.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace atrium::session {

/// Starts libsodium once (thread-safe); throws std::runtime_error if it cannot.
void initialiseSodium();

/// A random join code of `length` characters from an alphabet without look-alikes
/// (no 0/O, 1/I/L): 6 characters give about 30 bits.
std::string makeJoinCode(std::size_t length = 6);
/// A random lecturer secret: 20 characters of the same alphabet (about 100 bits).
std::string makeLecturerSecret();
/// A random session id: 16 hex digits.
std::string makeSessionId();
/// Constant-time comparison of two codes (false for different lengths).
bool codesMatch(std::string_view a, std::string_view b);

/// `bytes` as lower-case hex, and back (nullopt for bad hex).
std::string toHex(const std::uint8_t* bytes, std::size_t size);

/// The stretched lecturer secret: on the server, and on the lecturer's side to answer.
class LecturerKey {
public:
    /// The server's key: the secret stretched with a fresh salt and interactive limits.
    static LecturerKey fromSecret(std::string_view secret);
    /// The lecturer's key for a server's challenge (its salt and limits, bounded by the
    /// schema). Throws std::runtime_error when libsodium cannot (out of memory).
    static LecturerKey forChallenge(std::string_view secret, const Challenge& challenge);

    LecturerKey(LecturerKey&&) noexcept;
    LecturerKey& operator=(LecturerKey&&) noexcept;
    ~LecturerKey();

    /// A challenge for one connection: a fresh nonce with this key's salt and limits.
    Challenge challenge() const;
    /// The answer to `challenge` on connection `connection` of session `session` (hex).
    std::string answer(const Challenge& challenge, std::string_view session, int connection) const;
    /// True when `tag` is that answer (constant time).
    bool verify(const Challenge& challenge, std::string_view session, int connection, std::string_view tag) const;

private:
    LecturerKey() = default;
    struct Secret;
    std::unique_ptr<Secret> key_;
    std::string salt_; ///< hex
    unsigned ops_ = 0;
    std::size_t mem_ = 0;
};

} // namespace atrium::session
