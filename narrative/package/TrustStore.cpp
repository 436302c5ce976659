#include "narrative/package/TrustStore.h"

#include "io/AtomicFile.h"
#include "narrative/package/JsonInput.h"
#include "narrative/package/PackageError.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace atrium::package {

std::filesystem::path TrustStore::defaultPath() {
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg == '/')
        return std::filesystem::path(xdg) / "atrium" / "trusted-authors.json";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::filesystem::path(home) / ".config" / "atrium" / "trusted-authors.json";
    return {};
}

TrustStore TrustStore::load(const std::filesystem::path& file) {
    TrustStore store;
    std::error_code ec;
    if (file.empty() || !std::filesystem::exists(file, ec)) return store;
    const std::string where = file.string();
    if (std::filesystem::file_size(file, ec) > (1u << 20)) throw PackageError(PackageError::Kind::BadFile, where + ": larger than 1 MiB");
    std::ifstream in(file, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    const nlohmann::json j = parseJsonObject(text.str(), where);
    if (j.value("format", "") != "atrium-trusted-authors" || !j.contains("authors") || !j["authors"].is_array())
        throw PackageError(PackageError::Kind::BadFile, where + ": not a list of trusted authors");
    for (std::size_t i = 0; i < j["authors"].size(); ++i) {
        const auto& a = j["authors"][i];
        const std::string at = where + ": /authors/" + std::to_string(i);
        if (!a.is_object() || !a.contains("publicKey") || !a["publicKey"].is_string())
            throw PackageError(PackageError::Kind::BadFile, at + ": needs 'publicKey'");
        const auto key = fromBase64(a["publicKey"].get<std::string>());
        if (!key || key->size() != 32) throw PackageError(PackageError::Kind::BadFile, at + "/publicKey: must be base64 of 32 bytes");
        TrustedAuthor author;
        std::copy(key->begin(), key->end(), author.key.begin());
        author.name = a.value("name", std::string());
        store.authors_.push_back(std::move(author));
    }
    return store;
}

void TrustStore::save(const std::filesystem::path& file) const {
    nlohmann::ordered_json j;
    j["format"] = "atrium-trusted-authors";
    j["version"] = 1;
    j["authors"] = nlohmann::ordered_json::array();
    for (const auto& a : authors_)
        j["authors"].push_back({{"name", a.name}, {"fingerprint", fingerprint(a.key)}, {"publicKey", toBase64(a.key)}});
    // The folder of the trust store is created on its first save.
    asPackageIo([&] { io::writeFileAtomically(file, j.dump(2) + "\n"); });
}

const TrustedAuthor* TrustStore::find(const PublicKey& key) const {
    for (const auto& a : authors_)
        if (a.key == key) return &a;
    return nullptr;
}

std::vector<const TrustedAuthor*> TrustStore::findName(std::string_view name) const {
    std::vector<const TrustedAuthor*> found;
    for (const auto& a : authors_)
        if (a.name == name) found.push_back(&a);
    return found;
}

void TrustStore::add(std::string name, const PublicKey& key) {
    for (auto& a : authors_)
        if (a.key == key) {
            a.name = std::move(name);
            return;
        }
    authors_.push_back({std::move(name), key});
}

bool TrustStore::remove(const PublicKey& key) {
    const auto before = authors_.size();
    std::erase_if(authors_, [&](const TrustedAuthor& a) { return a.key == key; });
    return authors_.size() != before;
}

} // namespace atrium::package
