#pragma once
// Helpers for the package tests: a scratch folder, a sample lecture, and direct libzip
// edits of a package file (the changes an attacker or a broken disk would make).

#include "narrative/package/ContentPackage.h"

#include <zip.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

namespace atrium::package::test {

/// A fresh folder under the system's temporary folder, removed afterwards.
class ScratchFolder {
public:
    ScratchFolder() {
        std::random_device rd;
        path_ = std::filesystem::temp_directory_path() / ("atrium-package-test-" + std::to_string(rd()) + std::to_string(rd()));
        std::filesystem::create_directories(path_);
    }
    ~ScratchFolder() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

private:
    std::filesystem::path path_;
};

inline std::string readAll(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeAll(const std::filesystem::path& file, const std::string& bytes) {
    std::ofstream(file, std::ios::binary) << bytes;
}

/// A small lecture: two categories, three resources (text, image, web link), a
/// branding bar with a logo, a narratives document, every flag off.
inline Manifest sampleManifest() {
    Manifest m;
    m.title = "The left heart";
    m.author = "Test author";
    m.created = "2026-11-24";
    m.categories = {{"Valves", {176, 58, 46}}, {"Vessels", {40, 90, 180}}};
    narrative::Resource text;
    text.id = "mitral-text";
    text.name = "Mitral valve";
    text.kind = narrative::ResourceKind::Text;
    text.text = "Two leaflets between the left atrium and ventricle.";
    text.category = "Valves";
    text.target = {10, 0, 5};
    text.centre = {40, -30, 10};
    text.radius = 25;
    narrative::Resource image = text;
    image.id = "mitral-image";
    image.kind = narrative::ResourceKind::Image;
    image.text.clear();
    image.media = "media/mitral.svg";
    narrative::Resource link = text;
    link.id = "aorta-link";
    link.name = "Aorta";
    link.kind = narrative::ResourceKind::WebLink;
    link.text.clear();
    link.url = "https://en.wikipedia.org/wiki/Aorta";
    link.category = "Vessels";
    m.resources = {text, image, link};
    m.branding = {"Atrium test college", "media/logo.svg", ""};
    return m;
}

inline const char* kSvg = "<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'><rect width='10' height='10'/></svg>";

/// sampleManifest() with its two files and a narratives document, as a draft.
inline ContentPackage sampleDraft() {
    ContentPackage p(sampleManifest());
    EXPECT_TRUE(p.addFileBytes("media/mitral.svg", kSvg));
    EXPECT_TRUE(p.addFileBytes("media/logo.svg", kSvg));
    EXPECT_TRUE(p.setNarrativesDocument(R"({"format":"atrium-narratives","version":1,"narratives":[]})"));
    return p;
}

/// Edits a zip file in place with libzip: replaces (or adds) `entry` with `bytes`.
inline void putEntry(const std::filesystem::path& zipFile, const std::string& entry, const std::string& bytes) {
    int error = 0;
    zip_t* z = zip_open(zipFile.c_str(), 0, &error);
    ASSERT_NE(z, nullptr);
    auto* copy = new std::string(bytes); // libzip reads it at zip_close
    zip_source_t* src = zip_source_buffer(z, copy->data(), copy->size(), 0);
    ASSERT_GE(zip_file_add(z, entry.c_str(), src, ZIP_FL_OVERWRITE | ZIP_FL_ENC_UTF_8), 0) << zip_strerror(z);
    ASSERT_EQ(zip_close(z), 0);
    delete copy;
}

inline void removeEntry(const std::filesystem::path& zipFile, const std::string& entry) {
    int error = 0;
    zip_t* z = zip_open(zipFile.c_str(), 0, &error);
    ASSERT_NE(z, nullptr);
    const zip_int64_t i = zip_name_locate(z, entry.c_str(), 0);
    ASSERT_GE(i, 0);
    ASSERT_EQ(zip_delete(z, zip_uint64_t(i)), 0);
    ASSERT_EQ(zip_close(z), 0);
}

inline std::string readEntry(const std::filesystem::path& zipFile, const std::string& entry) {
    ArchiveReader r(zipFile);
    return r.read(entry, 1 << 24);
}

/// The message of the PackageError `f` throws, checking its kind; "" when none is thrown.
template <typename F>
std::string errorOf(F&& f, PackageError::Kind kind) {
    try {
        f();
    } catch (const PackageError& e) {
        EXPECT_EQ(int(e.kind()), int(kind)) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no PackageError thrown";
    return {};
}

} // namespace atrium::package::test
