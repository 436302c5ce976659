#pragma once
// Files written whole or not at all, and every write checked.
//
// AtomicFile hands out a temporary name beside the target ("<stem>.tmp-<pid>-<hex><ext>",
// same directory, same extension, so writers that look at the extension behave the
// same); the caller writes there with any writer, then commit() checks the file (it
// exists, holds at least the bytes the caller expects), flushes it to disk and renames
// it over the target in one step. A reader, or a process that is killed in the middle,
// thus sees the old file or the new one, never half of one. An AtomicFile destroyed
// without commit() removes its temporary file.
//
// A kill between the write and the rename leaves the temporary behind;
// removeStaleTemporaries() deletes those of processes that no longer run.

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

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

class AtomicFile {
public:
    /// Creates the target's directory if needed (throws WriteError naming it).
    explicit AtomicFile(std::filesystem::path target);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    const std::filesystem::path& target() const { return target_; }
    /// Where to write.
    const std::filesystem::path& temporary() const { return temp_; }
    /// Checks the temporary file (exists, at least `minimumBytes` long, and when
    /// `expectedEnding` is not empty, ends with it), syncs it and renames it to the
    /// target. Throws WriteError naming the target otherwise (the temporary is removed).
    void commit(std::uintmax_t minimumBytes = 1, std::string_view expectedEnding = {});

private:
    std::filesystem::path target_, temp_;
    bool committed_ = false;
};

/// Writes `bytes` to `file` through an AtomicFile. Throws WriteError.
void writeFileAtomically(const std::filesystem::path& file, std::string_view bytes);

/// Deletes, in `directory`, the temporaries AtomicFile leaves when a process is killed
/// before its rename: names "<stem>.tmp-<pid>-<hex><ext>" whose process is gone, or that
/// are older than a day. Returns how many it removed; never throws.
std::size_t removeStaleTemporaries(const std::filesystem::path& directory);

/// Deletes the stale temporaries of one file, beside it: AtomicFile's
/// ("<stem>.tmp-<pid>-<hex><ext>") and narrative/AtomicFile's (".<name>.tmp-<pid>-<hex>",
/// or ".<name>.tmp-<hex>" from before it named the process), whose process is gone or
/// that are older than a day (an hour for those without a process id). Called before a
/// file is written again or opened, so that a kill in the middle of a save leaves
/// nothing for long. Returns how many it removed; never throws.
std::size_t removeStaleTemporariesOf(const std::filesystem::path& file);

/// True for a name AtomicFile gives its temporaries.
bool isTemporaryName(const std::string& fileName);

} // namespace atrium::io
