// Fuzz target for the content package reader (narrative/package/ContentPackage.h):
// the zip container, its limits and entry names, the signature, the lock and the
// manifest together.
//
// Contract checked: ContentPackage::openBytes either opens the package or throws
// PackageError (BadFile or Tampered) naming the source; any other exception, a crash, a
// sanitizer report or an allocation beyond the limits is a bug. A package that opens
// must let every file be read within the limits.

#include "narrative/package/ContentPackage.h"
#include "narrative/package/PackageError.h"

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace {

struct FuzzFailure : std::logic_error {
    using std::logic_error::logic_error;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace atrium::package;
    PackageLimits limits; // small, so that a lying header cannot make a run slow
    limits.maxEntries = 64;
    limits.maxEntrySize = 1 << 20;
    limits.maxTotalSize = 4 << 20;
    limits.maxManifestSize = 1 << 20;
    limits.ratioCheckedFrom = 4096;
    try {
        const ContentPackage p = ContentPackage::openBytes(std::string(reinterpret_cast<const char*>(data), size), "fuzz.atrium", limits);
        for (const auto& f : p.manifest().files) p.readFile(f.entry, limits.maxEntrySize);
        (void)p.narrativesDocument();
        (void)p.gate().check(atrium::narrative::Operation::EditResources);
    } catch (const PackageError& e) {
        const auto kind = e.kind();
        if ((kind != PackageError::Kind::BadFile && kind != PackageError::Kind::Tampered) ||
            std::string_view(e.what()).rfind("fuzz.atrium", 0) != 0)
            throw FuzzFailure(std::string("PackageError of the wrong kind or without the source name: ") + e.what());
    }
    return 0;
}
