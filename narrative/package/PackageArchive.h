#pragma once
// The zip container of a content package (libzip), safe against untrusted files.
//
// ArchiveReader checks the whole central directory before anything is read: entry
// count, names (relative, '/'-separated, no component starting with '.', so nothing
// can climb out of its folder), no symlinks or other special files, no duplicates, no
// name that is both a file and a folder, no encryption, each entry's and the total
// declared size, and the compression ratio (zip bombs). checkContents() then reads
// every entry once (sizes and CRCs), as a signature's hashing does. Reads stop at the declared size, so a lying header cannot make it
// allocate more. Extraction writes only below the folder it is given, each file
// atomically.
//
// ArchiveWriter builds a new archive in a temporary file beside the target and renames
// it into place once it is complete and flushed to disk: a failed save loses nothing.
// Neither class is thread-safe (one libzip handle each).

#include "narrative/package/PackageCrypto.h"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct zip;

namespace atrium::package {

/// Bounds on what a package may declare (checked before anything is allocated).
struct PackageLimits {
    std::size_t maxEntries = 4096;
    std::uint64_t maxEntrySize = std::uint64_t(1) << 30;      ///< 1 GiB (a lecture's video)
    std::uint64_t maxTotalSize = std::uint64_t(4) << 30;      ///< 4 GiB uncompressed in all
    std::uint64_t maxManifestSize = std::uint64_t(16) << 20;  ///< JSON entries: 16 MiB
    double maxCompressionRatio = 100.0;                       ///< uncompressed / compressed
    std::uint64_t ratioCheckedFrom = std::uint64_t(1) << 20;  ///< entries smaller than this may compress better
};

/// Whether `name` is a safe entry name: 1-255 bytes of [A-Za-z0-9_.-] in components
/// separated by single '/', no component starting with '.' (so no "..").
bool isSafeEntryName(std::string_view name);

/// folder/entry for a safe entry name, after checking that it stays below `folder` and
/// that no folder on the way is a symbolic link; creates the folders on the way.
/// Throws PackageError(BadFile) naming `where` otherwise.
std::filesystem::path prepareExtraction(const std::filesystem::path& folder, std::string_view entry, const std::string& where);

struct ArchiveEntry {
    std::string name;
    std::uint64_t size = 0;           ///< declared uncompressed size
    std::uint64_t compressedSize = 0;
    std::uint64_t index = 0;          ///< libzip's index
};

class ArchiveReader {
public:
    /// Opens and checks `file`; throws PackageError(BadFile) naming the file and entry.
    explicit ArchiveReader(const std::filesystem::path& file, const PackageLimits& limits = {});
    /// The same from bytes in memory (fuzzing, tests); `name` stands for the file in messages.
    static std::unique_ptr<ArchiveReader> fromBytes(std::string bytes, const std::string& name,
                                                    const PackageLimits& limits = {});
    ~ArchiveReader();
    ArchiveReader(const ArchiveReader&) = delete;
    ArchiveReader& operator=(const ArchiveReader&) = delete;

    const std::string& name() const { return name_; }
    const PackageLimits& limits() const { return limits_; }
    /// The file entries (directories left out), in archive order.
    const std::vector<ArchiveEntry>& entries() const { return entries_; }
    const ArchiveEntry* find(std::string_view entry) const;

    /// Streams the entry's bytes to `sink` in pieces. Throws PackageError(BadFile) when
    /// it is missing, corrupt (CRC) or longer than declared.
    void stream(std::string_view entry, const std::function<void(const char*, std::size_t)>& sink) const;
    /// The whole entry; refuses (BadFile) one declared larger than `maxSize`.
    std::string read(std::string_view entry, std::uint64_t maxSize) const;
    /// Reads every entry through once, so that one longer or shorter than it declares,
    /// or corrupt, is refused (BadFile, naming it) before anything is used.
    /// `progress(done, total)` is called every few MiB; it returns false to cancel
    /// (PackageError Cancelled).
    void checkContents(const std::function<bool(std::uint64_t done, std::uint64_t total)>& progress = {}) const;
    /// BLAKE2b-256 of the entry's bytes.
    Hash hash(std::string_view entry) const;
    /// Writes the entry to folder/entry (creating folders below `folder` only), atomically.
    /// Returns the file written.
    std::filesystem::path extract(std::string_view entry, const std::filesystem::path& folder) const;

    ::zip* handle() const { return zip_; }

private:
    ArchiveReader(std::string name, const PackageLimits& limits);
    void check();

    std::string name_;
    PackageLimits limits_;
    std::string bytes_; // fromBytes only: the archive's memory
    ::zip* zip_ = nullptr;
    std::vector<ArchiveEntry> entries_;
};

class ArchiveWriter {
public:
    /// Starts a new archive that commit() renames to `target`.
    explicit ArchiveWriter(const std::filesystem::path& target);
    /// Without commit(): discards the temporary file; `target` is untouched.
    ~ArchiveWriter();
    ArchiveWriter(const ArchiveWriter&) = delete;
    ArchiveWriter& operator=(const ArchiveWriter&) = delete;

    void addBytes(const std::string& entry, std::string bytes);
    void addFile(const std::string& entry, const std::filesystem::path& source);
    /// Copies `from`'s entry `sourceEntry` (the reader must stay open until commit()).
    void addFrom(const std::string& entry, const ArchiveReader& from, std::string_view sourceEntry);
    /// Writes, flushes and renames into place; throws PackageError(Io) naming the target.
    void commit();

private:
    void added(const std::string& entry, long long index);

    std::filesystem::path target_, temporary_;
    ::zip* zip_ = nullptr;
    std::vector<std::unique_ptr<std::string>> buffers_;
};

} // namespace atrium::package
