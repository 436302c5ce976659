#include "session/ContentIdentity.h"

#include "session/LecturerAuth.h"

#include <sodium.h>

#include <fstream>
#include <stdexcept>
#include <vector>

namespace atrium::session {

std::optional<ContentId> contentIdOf(const std::filesystem::path& file,
                                     const std::function<bool(std::uint64_t, std::uint64_t)>& progress) {
    initialiseSodium();
    std::error_code ec;
    const std::uint64_t total = std::filesystem::file_size(file, ec);
    if (ec) throw std::runtime_error(file.string() + ": cannot read: " + ec.message());
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error(file.string() + ": cannot open");
    crypto_generichash_state state;
    crypto_generichash_init(&state, nullptr, 0, 32);
    std::vector<char> buffer(1 << 20);
    std::uint64_t done = 0;
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        const auto got = std::size_t(in.gcount());
        if (got == 0) break;
        crypto_generichash_update(&state, reinterpret_cast<const unsigned char*>(buffer.data()), got);
        done += got;
        if (progress && !progress(done, total)) return std::nullopt;
    }
    if (in.bad() || done != total) throw std::runtime_error(file.string() + ": read failed");
    std::uint8_t hash[32];
    crypto_generichash_final(&state, hash, sizeof hash);
    return ContentId{toHex(hash, sizeof hash), file.filename().string(), total};
}

} // namespace atrium::session
