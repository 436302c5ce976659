// Writes the seed corpus of package_fuzz into a folder: a draft and a signed, locked
// package, their entries stored uncompressed so that the zip's headers, names, sizes
// and attributes lie plainly in the bytes the replay mutates (a mutation inside an
// entry's data is caught by its CRC; the manifest's parser has its own target,
// manifest_fuzz). Generated at test time, so the seeds always follow the format.
//
// usage: package_corpus_writer FOLDER

#include "narrative/package/ContentPackage.h"
#include "narrative/package/PackageArchive.h"

#include <zip.h>

#include <filesystem>
#include <iostream>
#include <string>

using namespace atrium;
using namespace atrium::package;

namespace {

/// Rewrites `file` with every entry stored (no compression), in the same order.
void storeUncompressed(const std::filesystem::path& file) {
    int error = 0;
    zip_t* z = zip_open(file.c_str(), 0, &error);
    if (!z) throw std::runtime_error("cannot reopen " + file.string());
    for (zip_int64_t i = 0; i < zip_get_num_entries(z, 0); ++i) zip_set_file_compression(z, zip_uint64_t(i), ZIP_CM_STORE, 0);
    if (zip_close(z) != 0) throw std::runtime_error("cannot rewrite " + file.string());
}

Manifest lecture() {
    Manifest m;
    m.title = "Seed";
    m.categories = {{"Valves", {200, 40, 40}}};
    narrative::Resource r;
    r.id = "mitral";
    r.name = "Mitral valve";
    r.kind = narrative::ResourceKind::Image;
    r.media = "media/m.svg";
    r.category = "Valves";
    r.target = {1, 2, 3};
    r.centre = {4, 5, 6};
    r.radius = 7;
    m.resources = {r};
    m.branding = {"Seed college", "", ""};
    return m;
}

} // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::cerr << "usage: package_corpus_writer FOLDER\n";
        return 1;
    }
    const std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    const char* svg = "<svg xmlns='http://www.w3.org/2000/svg' width='4' height='4'/>";

    ContentPackage draft(lecture());
    (void)draft.addFileBytes("media/m.svg", svg);
    (void)draft.setNarrativesDocument(R"({"format":"atrium-narratives","version":1,"narratives":[]})");
    draft.save(dir / "draft.atrium");

    ContentPackage locked(lecture());
    (void)locked.addFileBytes("media/m.svg", svg);
    narrative::Restrictions flags;
    flags.narrativesLocked = flags.resourcesLocked = flags.brandingRequired = true;
    flags.maxResolution = narrative::Resolution{1280, 720};
    (void)locked.setRestrictions(flags);
    (void)locked.lock(SigningKey::generate(), "seed", KdfCost::minimal());
    locked.save(dir / "locked.atrium");

    for (const char* name : {"draft.atrium", "locked.atrium"}) storeUncompressed(dir / name);
    // Stored entries keep their hashes, so the locked seed still verifies.
    ContentPackage::open(dir / "locked.atrium");
    std::cout << "wrote the package corpus to " << dir << "\n";
    return 0;
}
