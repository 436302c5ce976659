#pragma once
// Writing files so that nothing on disk is lost: the bytes go to a temporary file
// beside the target, created exclusively, which is flushed to disk (fsync) and then
// renamed over it; the folder is synced too. A failure leaves the old file as it was
// and no temporary behind, and throws std::runtime_error naming the file and why.
// Used by every writer of documents and packages (narratives, content packages, keys).

#include <filesystem>
#include <string_view>
#include <sys/types.h>

namespace atrium::narrative {

/// A file written in pieces and renamed into place by commit(); destroyed without
/// commit(), it leaves nothing behind.
class AtomicFileWriter {
public:
    explicit AtomicFileWriter(const std::filesystem::path& file, mode_t mode = 0644);
    ~AtomicFileWriter();
    AtomicFileWriter(const AtomicFileWriter&) = delete;
    AtomicFileWriter& operator=(const AtomicFileWriter&) = delete;

    void write(const char* data, std::size_t size);
    void commit();

private:
    [[noreturn]] void fail(const char* what, int error);
    std::filesystem::path file_, temporary_;
    int fd_ = -1;
};

/// Writes `bytes` to `file` atomically with permissions `mode` (e.g. 0600 for keys).
void writeFileAtomically(const std::filesystem::path& file, std::string_view bytes, mode_t mode = 0644);

/// A temporary file name beside `file` ("dir/.name.tmp-<pid>-<hex>"), created empty with
/// O_EXCL so that no other process or link owns it. The stale temporaries of `file`
/// (a killed save's: io::removeStaleTemporariesOf) are removed first.
std::filesystem::path createTemporaryBeside(const std::filesystem::path& file, mode_t mode = 0644);

/// fsync()s `file`, renames it to `target` and fsync()s target's folder. Removes
/// `file` and throws on failure.
void commitTemporary(const std::filesystem::path& file, const std::filesystem::path& target);

} // namespace atrium::narrative
