#pragma once
// Files written whole or not at all, and every write checked: the one implementation
// that every writer of documents, packages, keys, caches, meshes and snapshots uses.
//
// AtomicFile creates a temporary file beside the target, exclusively (O_EXCL, no link
// followed) and with the target's permissions, named "<stem>.tmp-<pid>-<hex><ext>" (same
// directory, same extension, so writers that look at the extension behave the same).
// The caller writes there, through write() or with any writer that takes a file name;
// commit() then checks the file (it holds at least the bytes expected), flushes it to
// disk, renames it over the target in one step and flushes the directory. A reader, or a
// process that is killed in the middle, thus sees the old file or the new one, never
// half of one. A failed write or an AtomicFile destroyed without commit() leaves the old
// file as it was and no temporary behind.
//
// A kill between the write and the rename leaves the temporary behind; the next
// AtomicFile of the same target removes it (removeStaleTemporariesOf), and
// removeStaleTemporaries() sweeps a whole directory. Both recognise the names this
// writer gives and those that narrative/AtomicFile gave before the two were merged
// (".<name>.tmp-<pid>-<hex>", e.g. a content package's ".k.atrium.tmp-*").

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace atrium::io {

/// A file could not be written whole (disk full, no permission, a writer's error).
/// what() starts with the file's path and says why.
class WriteError : public std::runtime_error {
public:
    WriteError(const std::filesystem::path& file, const std::string& why);
    const std::filesystem::path& file() const noexcept { return file_; }
    /// The reason alone, without the path.
    const std::string& why() const noexcept { return why_; }

private:
    std::filesystem::path file_;
    std::string why_;
};

/// How a file is written.
struct WriteOptions {
    /// Permissions of the new file (e.g. 0600 for keys); the umask applies.
    mode_t mode = 0644;
    /// Whether a missing directory of the target is created (a run's output folder, a
    /// cache) or is an error (a document saved where the user chose).
    bool createDirectory = true;
};

class AtomicFile {
public:
    /// Creates the target's directory if asked and needed, removes the stale
    /// temporaries of the target and creates the temporary. Throws WriteError naming
    /// the target.
    explicit AtomicFile(std::filesystem::path target, WriteOptions options = {});
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    const std::filesystem::path& target() const { return target_; }
    /// Where a writer that takes a file name writes.
    const std::filesystem::path& temporary() const { return temp_; }
    /// Appends `size` bytes to the temporary. Throws WriteError (the temporary is removed).
    void write(const char* data, std::size_t size);
    void write(std::string_view bytes) { write(bytes.data(), bytes.size()); }
    /// Checks the temporary file (exists, holds at least `minimumBytes` and everything
    /// given to write(), and when `expectedEnding` is not empty, ends with it), syncs it
    /// and renames it to the target. Throws WriteError naming the target otherwise (the
    /// temporary is removed, the target left as it was).
    void commit(std::uintmax_t minimumBytes = 1, std::string_view expectedEnding = {});

private:
    [[noreturn]] void fail(const std::string& why);
    std::filesystem::path target_, temp_;
    int fd_ = -1;                 ///< open while write() is used
    std::uintmax_t written_ = 0;  ///< bytes given to write()
    bool committed_ = false;
};

/// Writes `bytes` to `file` through an AtomicFile. Throws WriteError.
void writeFileAtomically(const std::filesystem::path& file, std::string_view bytes, WriteOptions options = {});

/// For writers that must own the temporary themselves (libzip, a recording that grows
/// for an hour): creates an empty temporary beside `file`, exclusively, as AtomicFile
/// does (stale ones of `file` removed first), and returns its name. The caller removes
/// it on failure, or hands it to commitTemporary(). Throws WriteError.
std::filesystem::path createTemporaryBeside(const std::filesystem::path& file, mode_t mode = 0644);

/// fsync()s `temporary`, renames it over `target` and fsync()s the target's directory.
/// Removes `temporary` and throws WriteError naming `target` on failure.
void commitTemporary(const std::filesystem::path& temporary, const std::filesystem::path& target);

/// Deletes, in `directory`, the temporaries AtomicFile leaves when a process is killed
/// before its rename: names "<stem>.tmp-<pid>-<hex><ext>" (or the older
/// ".<name>.tmp-<pid>-<hex>") whose process is gone, or that are older than a day.
/// Returns how many it removed; never throws.
std::size_t removeStaleTemporaries(const std::filesystem::path& directory);

/// Deletes the stale temporaries of one file, beside it: "<stem>.tmp-<pid>-<hex><ext>",
/// and the older ".<name>.tmp-<pid>-<hex>" or ".<name>.tmp-<hex>" (from before the
/// temporaries named their process), whose process is gone or that are older than a
/// day (an hour for those without a process id). Called before a file is written again
/// or opened, so that a kill in the middle of a save leaves nothing for long. Returns
/// how many it removed; never throws.
std::size_t removeStaleTemporariesOf(const std::filesystem::path& file);

/// True for a name AtomicFile gives its temporaries.
bool isTemporaryName(const std::string& fileName);

} // namespace atrium::io
