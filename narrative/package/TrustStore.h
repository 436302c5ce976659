#pragma once
// The authors a user trusts, by public key. A package signed by a key on this list
// shows its author's name; one signed by any other key is labelled "unknown author"
// with its fingerprint, whatever name its manifest claims - so re-signing someone's
// lecture with another key never passes as theirs. Shared by the viewer and
// atrium-pack: $XDG_CONFIG_HOME/atrium/trusted-authors.json (or ~/.config/...).

#include "narrative/package/PackageCrypto.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace atrium::package {

struct TrustedAuthor {
    std::string name;
    PublicKey key{};
};

class TrustStore {
public:
    /// $XDG_CONFIG_HOME/atrium/trusted-authors.json, else $HOME/.config/atrium/..., else empty.
    static std::filesystem::path defaultPath();
    /// Reads the list; a missing file is an empty list. Throws PackageError(BadFile)
    /// naming the file and entry for a malformed one.
    static TrustStore load(const std::filesystem::path& file);
    /// Writes the list atomically (creating its folder; a bare file name is in the
    /// current folder).
    void save(const std::filesystem::path& file) const;

    const std::vector<TrustedAuthor>& authors() const { return authors_; }
    const TrustedAuthor* find(const PublicKey& key) const;
    /// The keys trusted under `name` (an author may have several; each was added on purpose).
    std::vector<const TrustedAuthor*> findName(std::string_view name) const;
    /// Adds the key, or renames it when it is there already.
    void add(std::string name, const PublicKey& key);
    bool remove(const PublicKey& key);

private:
    std::vector<TrustedAuthor> authors_;
};

} // namespace atrium::package
