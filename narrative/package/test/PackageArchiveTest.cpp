// The zip container against untrusted files: zip-slip, symlinks, duplicates, bombs,
// corruption, limits; and atomic writing. Every case is a real zip file on disk.

#include "narrative/package/PackageArchive.h"
#include "narrative/package/PackageError.h"
#include "PackageTestSupport.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

using namespace atrium::package;
using namespace atrium::package::test;

namespace {

/// Writes a zip with libzip directly, bypassing ArchiveWriter's own checks, so that the
/// reader meets what a hostile author could make. `symlink` marks that entry as a link.
void rawZip(const std::filesystem::path& file, const std::vector<std::pair<std::string, std::string>>& entries,
            const std::string& symlink = {}) {
    int error = 0;
    zip_t* z = zip_open(file.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &error);
    ASSERT_NE(z, nullptr);
    std::vector<std::unique_ptr<std::string>> keep;
    for (const auto& [name, bytes] : entries) {
        keep.push_back(std::make_unique<std::string>(bytes));
        zip_source_t* src = zip_source_buffer(z, keep.back()->data(), keep.back()->size(), 0);
        const zip_int64_t i = zip_file_add(z, name.c_str(), src, ZIP_FL_ENC_UTF_8);
        ASSERT_GE(i, 0) << name << ": " << zip_strerror(z);
        if (name == symlink) zip_file_set_external_attributes(z, zip_uint64_t(i), 0, ZIP_OPSYS_UNIX, (S_IFLNK | 0777) << 16);
    }
    ASSERT_EQ(zip_close(z), 0);
}

std::string openError(const std::filesystem::path& file, const PackageLimits& limits = {}) {
    return errorOf([&] { ArchiveReader r(file, limits); }, PackageError::Kind::BadFile);
}

} // namespace

TEST(PackageArchive, SafeEntryNames) {
    for (const char* ok : {"manifest.json", "media/mitral.svg", "heart/phase_00.vtp", "a/b/c-d_e.f"})
        EXPECT_TRUE(isSafeEntryName(ok)) << ok;
    for (const char* bad : {"", "/etc/passwd", "../x", "media/../../x", "media/./x", ".hidden", "a//b", "a/", "a\\b",
                            "C:/x", "media/ x", "caf\xc3\xa9.png", "a\nb"})
        EXPECT_FALSE(isSafeEntryName(bad)) << bad;
    EXPECT_FALSE(isSafeEntryName(std::string(256, 'a')));
}

TEST(PackageArchive, RefusesEntriesThatWouldLeaveTheirFolder) {
    ScratchFolder dir;
    for (const char* evil : {"../evil.txt", "/tmp/evil.txt", "media/../../evil.txt", ".config/autostart"}) {
        rawZip(dir / "slip.zip", {{"manifest.json", "{}"}, {evil, "x"}});
        const std::string message = openError(dir / "slip.zip");
        EXPECT_NE(message.find(std::string("entry '") + evil + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("unsafe name"), std::string::npos) << message;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.path().parent_path() / "evil.txt"));
}

TEST(PackageArchive, RefusesSymlinks) {
    ScratchFolder dir;
    rawZip(dir / "link.zip", {{"manifest.json", "{}"}, {"media/passwd", "/etc/passwd"}}, "media/passwd");
    EXPECT_NE(openError(dir / "link.zip").find("'media/passwd': is a symbolic link"), std::string::npos);
}

TEST(PackageArchive, RefusesDuplicateNames) {
    ScratchFolder dir;
    rawZip(dir / "dup.zip", {{"media/a.txt", "first"}, {"media/b.txt", "second"}});
    // The same name twice: rename b to a in the local and central headers (its CRC stays right).
    std::string bytes = readAll(dir / "dup.zip");
    for (auto at = bytes.find("media/b.txt"); at != std::string::npos; at = bytes.find("media/b.txt")) bytes[at + 6] = 'a';
    writeAll(dir / "dup.zip", bytes);
    EXPECT_NE(openError(dir / "dup.zip").find("'media/a.txt': appears twice"), std::string::npos);
}

TEST(PackageArchive, RefusesZipBombsAndOversizeBeforeReading) {
    ScratchFolder dir;
    rawZip(dir / "bomb.zip", {{"media/zeros.bin", std::string(8 << 20, '\0')}});
    EXPECT_LT(std::filesystem::file_size(dir / "bomb.zip"), 64u << 10) << "8 MiB of zeros should deflate to a few KiB";
    EXPECT_NE(openError(dir / "bomb.zip").find("zip bomb"), std::string::npos);

    PackageLimits small;
    small.maxCompressionRatio = 1e9;
    small.maxEntrySize = 1 << 20;
    EXPECT_NE(openError(dir / "bomb.zip", small).find("more than the 1048576 allowed for one entry"), std::string::npos);
    small.maxEntrySize = 16 << 20;
    small.maxTotalSize = 4 << 20;
    EXPECT_NE(openError(dir / "bomb.zip", small).find("past 4194304 bytes"), std::string::npos);

    rawZip(dir / "many.zip", {{"a", "1"}, {"b", "2"}, {"c", "3"}});
    PackageLimits few;
    few.maxEntries = 2;
    EXPECT_NE(openError(dir / "many.zip", few).find("holds 3 entries"), std::string::npos);

    ArchiveReader ok(dir / "many.zip");
    EXPECT_NE(errorOf([&] { ok.read("a", 0); }, PackageError::Kind::BadFile).find("more than the 0 allowed"), std::string::npos);
}

TEST(PackageArchive, CorruptArchivesAndEntriesAreNamed) {
    ScratchFolder dir;
    rawZip(dir / "good.zip", {{"manifest.json", std::string(4000, 'm') + "end"}});
    const std::string bytes = readAll(dir / "good.zip");

    writeAll(dir / "cut.zip", bytes.substr(0, bytes.size() / 2));
    EXPECT_NE(openError(dir / "cut.zip").find("cut.zip: incomplete"), std::string::npos) << openError(dir / "cut.zip");

    writeAll(dir / "noise.zip", "this is not a zip file at all");
    EXPECT_NE(openError(dir / "noise.zip").find("not a readable zip archive"), std::string::npos);

    // A flipped byte inside the compressed data: the directory is fine, the entry is not.
    std::string flipped = bytes;
    flipped[60] = char(flipped[60] ^ 0x55);
    writeAll(dir / "flipped.zip", flipped);
    ArchiveReader r(dir / "flipped.zip");
    const std::string message = errorOf([&] { r.read("manifest.json", 1 << 20); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("entry 'manifest.json'"), std::string::npos) << message;
}

TEST(PackageArchive, ExtractionStaysInItsFolder) {
    ScratchFolder dir;
    rawZip(dir / "ok.zip", {{"media/deep/a.txt", "alpha"}});
    ArchiveReader r(dir / "ok.zip");
    const auto out = r.extract("media/deep/a.txt", dir / "out");
    EXPECT_EQ(out, std::filesystem::weakly_canonical(dir / "out/media/deep/a.txt"));
    EXPECT_EQ(readAll(out), "alpha");

    // A folder on the way that is a link to elsewhere is refused, and nothing is written there.
    std::filesystem::create_directories(dir / "elsewhere");
    std::filesystem::create_directories(dir / "out2");
    std::filesystem::create_directory_symlink(dir / "elsewhere", dir / "out2/media");
    EXPECT_NE(errorOf([&] { r.extract("media/deep/a.txt", dir / "out2"); }, PackageError::Kind::BadFile).find("symbolic link"),
              std::string::npos);
    EXPECT_TRUE(std::filesystem::is_empty(dir / "elsewhere"));
    EXPECT_THROW(r.extract("../a.txt", dir / "out"), PackageError);
}

TEST(PackageArchive, WriterReplacesTheTargetOnlyWhenComplete) {
    ScratchFolder dir;
    writeAll(dir / "lecture.atrium", "the old file");
    {
        ArchiveWriter w(dir / "lecture.atrium");
        w.addBytes("manifest.json", "{}");
        w.addFile("media/missing.png", dir / "no-such-file.png");
        EXPECT_THROW(w.commit(), PackageError);
    }
    EXPECT_EQ(readAll(dir / "lecture.atrium"), "the old file");
    {
        ArchiveWriter w(dir / "lecture.atrium");
        w.addBytes("manifest.json", "{}");
        // Destroyed without commit: nothing changes.
    }
    EXPECT_EQ(readAll(dir / "lecture.atrium"), "the old file");
    {
        ArchiveWriter w(dir / "lecture.atrium");
        w.addBytes("manifest.json", "{\"a\": 1}");
        w.addBytes("media/photo.png", std::string(1000, 'p'));
        w.commit();
    }
    ArchiveReader r(dir / "lecture.atrium");
    EXPECT_EQ(r.read("manifest.json", 100), "{\"a\": 1}");
    EXPECT_EQ(r.find("media/photo.png")->compressedSize, 1000u) << "pictures are stored, not deflated";
    // No temporary file is left beside it.
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 1u);
    EXPECT_THROW(ArchiveWriter(dir / "no/such/folder/x.atrium"), PackageError);
}

TEST(PackageArchive, SameContentGivesTheSameBytes) {
    ScratchFolder dir;
    for (const char* name : {"a.atrium", "b.atrium"}) {
        ArchiveWriter w(dir / name);
        w.addBytes("manifest.json", "{}");
        w.addBytes("media/x.svg", kSvg);
        w.commit();
    }
    EXPECT_EQ(readAll(dir / "a.atrium"), readAll(dir / "b.atrium"));
}
