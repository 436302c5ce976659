#include "narrative/package/PackageArchive.h"

#include "io/AtomicFile.h"
#include "narrative/package/PackageError.h"

#include <zip.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string_view>
#include <sys/stat.h>
#include <utility>

namespace atrium::package {

namespace {

[[noreturn]] void bad(const std::string& where, const std::string& what) {
    throw PackageError(PackageError::Kind::BadFile, where + ": " + what);
}

std::string zipMessage(zip_error_t* error) { return zip_error_strerror(error); }

/// Why libzip could not open an archive whose first bytes are `head`. A zip archive
/// ends with its directory; one that begins as a zip (a local file header, "PK\3\4")
/// but has no readable directory was cut short, as by an interrupted download or copy.
std::string unopenableReason(std::string_view head, int zipError, const std::string& message) {
    if ((zipError == ZIP_ER_NOZIP || zipError == ZIP_ER_INCONS) && head.substr(0, 4) == std::string_view("PK\3\4", 4))
        return "incomplete: it begins as a package but its end is missing (a download or copy cut short?); "
               "fetch or copy it again";
    return "not a readable zip archive (" + message + ")";
}

bool isNameChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
}

/// Entries that are already compressed gain nothing from deflate.
bool storeUncompressed(std::string_view entry) {
    for (const char* ext : {".png", ".jpg", ".jpeg", ".gif", ".webp", ".mp4", ".webm", ".mkv", ".mp3", ".ogg", ".zip"})
        if (entry.size() >= std::string_view(ext).size() && entry.substr(entry.size() - std::string_view(ext).size()) == ext)
            return true;
    return false;
}

/// Entry times are fixed so that the same content gives the same bytes:
/// $SOURCE_DATE_EPOCH when set, else 2026-01-01 00:00 UTC.
time_t entryTime() {
    if (const char* e = std::getenv("SOURCE_DATE_EPOCH")) {
        char* end = nullptr;
        const long long t = std::strtoll(e, &end, 10);
        if (end && *end == '\0' && t > 315532800) return time_t(t);
    }
    return time_t(1767225600);
}

struct ZipFile {
    zip_file_t* f;
    ~ZipFile() {
        if (f) zip_fclose(f);
    }
};

} // namespace

bool isSafeEntryName(std::string_view name) {
    if (name.empty() || name.size() > 255) return false;
    bool componentStart = true;
    for (char c : name) {
        if (c == '/') {
            if (componentStart) return false; // leading '/' or "//"
            componentStart = true;
            continue;
        }
        if (!isNameChar(c) || (componentStart && c == '.')) return false;
        componentStart = false;
    }
    return !componentStart; // no trailing '/'
}

ArchiveReader::ArchiveReader(std::string name, const PackageLimits& limits) : name_(std::move(name)), limits_(limits) {}

ArchiveReader::ArchiveReader(const std::filesystem::path& file, const PackageLimits& limits)
    : ArchiveReader(file.string(), limits) {
    std::error_code ec;
    if (std::filesystem::is_symlink(file, ec)) bad(name_, "is a symbolic link; open the file it points to");
    if (!std::filesystem::is_regular_file(file, ec)) throw PackageError(PackageError::Kind::Io, name_ + ": no such file");
    // ZIP_CHECKCONS compares local and central headers. It also refuses a name that
    // appears twice (ZIP_ER_EXISTS); then the archive is opened without it so that
    // check() can say which name.
    int error = 0;
    for (const int flags : {ZIP_RDONLY | ZIP_CHECKCONS, ZIP_RDONLY}) {
        zip_ = zip_open(file.c_str(), flags, &error);
        if (zip_ || error != ZIP_ER_EXISTS) break;
    }
    if (!zip_) {
        zip_error_t e;
        zip_error_init_with_code(&e, error);
        const std::string message = zipMessage(&e);
        zip_error_fini(&e);
        char head[4] = {};
        std::ifstream in(file, std::ios::binary);
        in.read(head, sizeof head);
        bad(name_, unopenableReason({head, std::size_t(std::max<std::streamsize>(in.gcount(), 0))}, error, message));
    }
    check();
}

std::unique_ptr<ArchiveReader> ArchiveReader::fromBytes(std::string bytes, const std::string& name, const PackageLimits& limits) {
    std::unique_ptr<ArchiveReader> r(new ArchiveReader(name, limits));
    r->bytes_ = std::move(bytes);
    zip_error_t e;
    zip_error_init(&e);
    for (const int flags : {ZIP_RDONLY | ZIP_CHECKCONS, ZIP_RDONLY}) {
        zip_error_fini(&e);
        zip_error_init(&e);
        zip_source_t* src = zip_source_buffer_create(r->bytes_.data(), r->bytes_.size(), 0, &e);
        if (!src) break;
        r->zip_ = zip_open_from_source(src, flags, &e);
        if (r->zip_) break;
        zip_source_free(src);
        if (zip_error_code_zip(&e) != ZIP_ER_EXISTS) break;
    }
    if (!r->zip_) {
        const std::string message = zipMessage(&e);
        const int code = zip_error_code_zip(&e);
        zip_error_fini(&e);
        bad(name, unopenableReason(r->bytes_, code, message));
    }
    zip_error_fini(&e);
    r->check();
    return r;
}

ArchiveReader::~ArchiveReader() {
    if (zip_) zip_discard(zip_);
}

void ArchiveReader::check() {
    const zip_int64_t count = zip_get_num_entries(zip_, 0);
    if (count < 0) bad(name_, "cannot list its entries");
    if (std::uint64_t(count) > limits_.maxEntries)
        bad(name_, "holds " + std::to_string(count) + " entries, more than the " + std::to_string(limits_.maxEntries) + " allowed");
    std::set<std::string> names;
    std::uint64_t total = 0;
    for (zip_uint64_t i = 0; i < zip_uint64_t(count); ++i) {
        zip_stat_t st;
        zip_stat_init(&st);
        if (zip_stat_index(zip_, i, ZIP_FL_ENC_RAW, &st) != 0 || !(st.valid & ZIP_STAT_NAME) || !st.name)
            bad(name_, "entry " + std::to_string(i) + " cannot be read");
        std::string entry = st.name;
        const std::string where = name_ + ": entry '" + entry + "'";
        if (entry.find('\0') != std::string::npos) bad(where, "has a NUL byte in its name");
        const bool directory = !entry.empty() && entry.back() == '/';
        if (!isSafeEntryName(directory ? std::string_view(entry).substr(0, entry.size() - 1) : std::string_view(entry)))
            throw PackageError(PackageError::Kind::BadFile,
                               where + ": unsafe name (an absolute path, '..', a hidden component or an odd character); "
                                       "entries may not leave the package's folder");
        zip_uint8_t system = 0;
        zip_uint32_t attributes = 0;
        if (zip_file_get_external_attributes(zip_, i, 0, &system, &attributes) == 0 && system == ZIP_OPSYS_UNIX) {
            const unsigned type = (attributes >> 16) & S_IFMT;
            if (type == S_IFLNK) bad(where, "is a symbolic link, which packages may not hold");
            if (type != 0 && type != S_IFREG && type != S_IFDIR) bad(where, "is a special file, which packages may not hold");
        }
        if (!names.insert(directory ? entry.substr(0, entry.size() - 1) : entry).second)
            bad(where, "appears twice in the archive");
        if (directory) continue;
        if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE) bad(where, "is encrypted");
        if ((st.valid & ZIP_STAT_COMP_METHOD) && !zip_compression_method_supported(st.comp_method, 0))
            bad(where, "uses an unsupported compression method");
        if (!(st.valid & ZIP_STAT_SIZE) || !(st.valid & ZIP_STAT_COMP_SIZE)) bad(where, "has no declared size");
        if (st.size > limits_.maxEntrySize)
            bad(where, "declares " + std::to_string(st.size) + " bytes, more than the " +
                           std::to_string(limits_.maxEntrySize) + " allowed for one entry");
        total += st.size;
        if (total > limits_.maxTotalSize)
            bad(where, "brings the package past " + std::to_string(limits_.maxTotalSize) + " bytes uncompressed");
        if (st.size >= limits_.ratioCheckedFrom && double(st.size) > limits_.maxCompressionRatio * double(std::max<zip_uint64_t>(st.comp_size, 1)))
            bad(where, "compresses " + std::to_string(st.comp_size) + " bytes to " + std::to_string(st.size) +
                           ", beyond the ratio allowed (a zip bomb?)");
        entries_.push_back({std::move(entry), st.size, st.comp_size, i});
    }
    // A name cannot be a file and a folder at once: "media/a" beside "media/a/b" could
    // never be extracted (nor read back by any tool), whichever comes first.
    std::set<std::string_view> files;
    for (const auto& e : entries_) files.insert(e.name);
    for (const std::string& path : names)
        for (std::size_t slash = path.find('/'); slash != std::string::npos; slash = path.find('/', slash + 1))
            if (const std::string folder = path.substr(0, slash); files.count(folder))
                bad(name_ + ": entry '" + path + "'", "lies in '" + folder + "', which is a file: a name cannot be both a file and a folder");
}

const ArchiveEntry* ArchiveReader::find(std::string_view entry) const {
    for (const auto& e : entries_)
        if (e.name == entry) return &e;
    return nullptr;
}

void ArchiveReader::stream(std::string_view entry, const std::function<void(const char*, std::size_t)>& sink) const {
    const ArchiveEntry* e = find(entry);
    const std::string where = name_ + ": entry '" + std::string(entry) + "'";
    if (!e) bad(where, "is missing");
    ZipFile f{zip_fopen_index(zip_, e->index, 0)};
    if (!f.f) bad(where, std::string("cannot be opened (") + zip_strerror(zip_) + ")");
    char buffer[1 << 16];
    std::uint64_t total = 0;
    for (;;) {
        const zip_int64_t n = zip_fread(f.f, buffer, sizeof buffer);
        if (n < 0) bad(where, std::string("is corrupt (") + zip_file_strerror(f.f) + ")");
        if (n == 0) break;
        total += std::uint64_t(n);
        if (total > e->size) bad(where, "holds more bytes than it declares");
        sink(buffer, std::size_t(n));
    }
    if (total != e->size) bad(where, "holds fewer bytes than it declares");
}

std::string ArchiveReader::read(std::string_view entry, std::uint64_t maxSize) const {
    const ArchiveEntry* e = find(entry);
    if (!e) bad(name_ + ": entry '" + std::string(entry) + "'", "is missing");
    if (e->size > maxSize)
        bad(name_ + ": entry '" + std::string(entry) + "'",
            "declares " + std::to_string(e->size) + " bytes, more than the " + std::to_string(maxSize) + " allowed");
    std::string out;
    out.reserve(std::size_t(e->size));
    stream(entry, [&](const char* p, std::size_t n) { out.append(p, n); });
    return out;
}

void ArchiveReader::checkContents(const std::function<bool(std::uint64_t, std::uint64_t)>& progress) const {
    std::uint64_t total = 0, done = 0, reported = 0;
    for (const auto& e : entries_) total += e.size;
    auto report = [&] {
        if (progress && !progress(done, total)) throw PackageError(PackageError::Kind::Cancelled, name_ + ": opening was cancelled");
        reported = done;
    };
    for (const auto& e : entries_) {
        stream(e.name, [&](const char*, std::size_t n) {
            done += n;
            if (done - reported >= (4u << 20)) report();
        });
        report();
    }
}

Hash ArchiveReader::hash(std::string_view entry) const {
    Blake2b h;
    stream(entry, [&](const char* p, std::size_t n) { h.update(p, n); });
    return h.finish();
}

std::filesystem::path ArchiveReader::extract(std::string_view entry, const std::filesystem::path& folder) const {
    const auto target = prepareExtraction(folder, entry, name_ + ": entry '" + std::string(entry) + "'");
    asPackageIo([&] {
        io::AtomicFile out(target, {.createDirectory = false});
        stream(entry, [&](const char* p, std::size_t n) { out.write(p, n); });
        out.commit(0); // an empty entry is a whole file too
    });
    return target;
}

std::filesystem::path prepareExtraction(const std::filesystem::path& folder, std::string_view entry, const std::string& where) {
    if (!isSafeEntryName(entry)) bad(where, "unsafe name");
    const auto root = std::filesystem::weakly_canonical(folder);
    const auto target = (root / std::string(entry)).lexically_normal();
    const auto rel = target.lexically_relative(root);
    if (rel.empty() || *rel.begin() == "..") bad(where, "would be written outside " + root.string());
    // Folder by folder from the root: one that links elsewhere would lead outside.
    std::filesystem::create_directories(root);
    auto p = root;
    for (const auto& component : rel) {
        p /= component;
        if (std::filesystem::is_symlink(p)) bad(where, p.string() + " is a symbolic link");
        if (p != target && !std::filesystem::exists(p)) std::filesystem::create_directory(p);
    }
    return target;
}

// --- ArchiveWriter ------------------------------------------------------------------

ArchiveWriter::ArchiveWriter(const std::filesystem::path& target) : target_(target) {
    temporary_ = asPackageIo([&] { return io::createTemporaryBeside(target_); });
    int error = 0;
    zip_ = zip_open(temporary_.c_str(), ZIP_TRUNCATE, &error);
    if (!zip_) {
        std::filesystem::remove(temporary_);
        zip_error_t e;
        zip_error_init_with_code(&e, error);
        const std::string message = zipMessage(&e);
        zip_error_fini(&e);
        throw PackageError(PackageError::Kind::Io, target_.string() + ": cannot start writing (" + message + ")");
    }
}

ArchiveWriter::~ArchiveWriter() {
    if (zip_) zip_discard(zip_);
    if (!temporary_.empty()) {
        std::error_code ec;
        std::filesystem::remove(temporary_, ec);
    }
}

void ArchiveWriter::added(const std::string& entry, long long index) {
    if (index < 0)
        throw PackageError(PackageError::Kind::Io, target_.string() + ": cannot add entry '" + entry + "' (" + zip_strerror(zip_) + ")");
    zip_set_file_compression(zip_, zip_uint64_t(index), storeUncompressed(entry) ? ZIP_CM_STORE : ZIP_CM_DEFLATE, 9);
    zip_file_set_mtime(zip_, zip_uint64_t(index), entryTime(), 0);
    // Plain files, readable by all: no permissions or types travel from the author's disk.
    zip_file_set_external_attributes(zip_, zip_uint64_t(index), 0, ZIP_OPSYS_UNIX, (S_IFREG | 0644) << 16);
}

void ArchiveWriter::addBytes(const std::string& entry, std::string bytes) {
    if (!isSafeEntryName(entry)) throw PackageError(PackageError::Kind::BadFile, "entry name '" + entry + "' is not safe");
    buffers_.push_back(std::make_unique<std::string>(std::move(bytes)));
    zip_source_t* src = zip_source_buffer(zip_, buffers_.back()->data(), buffers_.back()->size(), 0);
    const zip_int64_t index = src ? zip_file_add(zip_, entry.c_str(), src, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0 && src) zip_source_free(src);
    added(entry, index);
}

void ArchiveWriter::addFile(const std::string& entry, const std::filesystem::path& source) {
    if (!isSafeEntryName(entry)) throw PackageError(PackageError::Kind::BadFile, "entry name '" + entry + "' is not safe");
    zip_source_t* src = zip_source_file(zip_, source.c_str(), 0, -1);
    const zip_int64_t index = src ? zip_file_add(zip_, entry.c_str(), src, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0 && src) zip_source_free(src);
    added(entry, index);
}

void ArchiveWriter::addFrom(const std::string& entry, const ArchiveReader& from, std::string_view sourceEntry) {
    const ArchiveEntry* e = from.find(sourceEntry);
    if (!e) bad(from.name() + ": entry '" + std::string(sourceEntry) + "'", "is missing");
    zip_source_t* src = zip_source_zip(zip_, from.handle(), e->index, 0, 0, -1);
    const zip_int64_t index = src ? zip_file_add(zip_, entry.c_str(), src, ZIP_FL_ENC_UTF_8) : -1;
    if (index < 0 && src) zip_source_free(src);
    added(entry, index);
}

void ArchiveWriter::commit() {
    if (zip_close(zip_) != 0) {
        const std::string message = zip_strerror(zip_);
        throw PackageError(PackageError::Kind::Io, target_.string() + ": cannot write (" + message + ")");
    }
    zip_ = nullptr;
    buffers_.clear();
    const auto temporary = std::exchange(temporary_, {});
    asPackageIo([&] { io::commitTemporary(temporary, target_); });
}

} // namespace atrium::package
