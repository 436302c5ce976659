// ContentPackage: save and open, signatures and tamper detection, locks, and the gate
// on every edit - on real package files.

#include "narrative/NarrativeDocument.h"
#include "narrative/package/ContentPackage.h"
#include "narrative/package/PackageError.h"
#include "PackageTestSupport.h"

#include <gtest/gtest.h>

#include <tuple>

using namespace atrium;
using namespace atrium::package;
using namespace atrium::package::test;
using nlohmann::json;

namespace {

constexpr const char* kPassword = "correct horse battery staple";

/// The sample lecture, signed and locked by `key`, with every restriction flag set.
std::filesystem::path lockedLecture(const ScratchFolder& dir, const SigningKey& key, const std::string& name = "lecture.atrium") {
    ContentPackage p = sampleDraft();
    narrative::Restrictions r;
    r.brandingRequired = r.narrativesLocked = r.resourcesLocked = r.narrativeNavigationOnly = r.videoExportForbidden = true;
    r.maxResolution = narrative::Resolution{1280, 720};
    EXPECT_TRUE(p.setRestrictions(r));
    SigningKey copy = SigningKey::load([&] {
        key.save(dir / "key.json");
        return dir / "key.json";
    }());
    EXPECT_TRUE(p.lock(std::move(copy), kPassword, KdfCost::minimal()));
    p.save(dir / name);
    return dir / name;
}

std::string tamperError(const std::filesystem::path& file) {
    return errorOf([&] { ContentPackage::open(file); }, PackageError::Kind::Tampered);
}

} // namespace

TEST(ContentPackage, SavesAndOpensAgain) {
    ScratchFolder dir;
    ContentPackage draft = sampleDraft();
    EXPECT_EQ(draft.signatureState(), SignatureState::Unsigned);
    draft.save(dir / "draft.atrium");
    const ContentPackage back = ContentPackage::open(dir / "draft.atrium");
    EXPECT_EQ(back.manifest(), draft.manifest());
    EXPECT_EQ(back.readFile("media/mitral.svg", 1 << 20), kSvg);
    EXPECT_EQ(json::parse(back.narrativesDocument())["format"], "atrium-narratives");
    EXPECT_EQ(back.signatureState(), SignatureState::Unsigned);
    EXPECT_FALSE(back.locked());
    EXPECT_EQ(back.manifest().findFile("media/logo.svg")->type, "image/svg+xml");
}

TEST(ContentPackage, SignedByTheAuthorAndUnchangedOnResave) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    key.save(dir / "author.key");
    ContentPackage draft = sampleDraft();
    ASSERT_TRUE(draft.useSigningKey(SigningKey::load(dir / "author.key")));
    draft.save(dir / "signed.atrium");
    ContentPackage p = ContentPackage::open(dir / "signed.atrium");
    EXPECT_EQ(p.signatureState(), SignatureState::Signed);
    EXPECT_EQ(p.signer(), key.publicKey());

    // Saved again without the key and without edits: the same signature, byte for byte.
    p.save(dir / "copy.atrium");
    EXPECT_EQ(readEntry(dir / "copy.atrium", "signature.json"), readEntry(dir / "signed.atrium", "signature.json"));
    EXPECT_EQ(ContentPackage::open(dir / "copy.atrium").signatureState(), SignatureState::Signed);

    // Edited without the author's key: saved unsigned, never with a stale signature.
    ASSERT_TRUE(p.setTitle("Someone else's lecture"));
    EXPECT_EQ(p.signatureState(), SignatureState::Modified);
    p.save(dir / "edited.atrium");
    EXPECT_EQ(ContentPackage::open(dir / "edited.atrium").signatureState(), SignatureState::Unsigned);
}

TEST(ContentPackage, DetectsAChangedByteInTheManifestMediaOrAFlag) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    const auto file = lockedLecture(dir, key);
    ASSERT_NO_THROW(ContentPackage::open(file));
    const std::string original = readAll(file);

    std::string manifest = readEntry(file, "manifest.json");
    manifest[manifest.find("The left heart")] = 't';
    putEntry(file, "manifest.json", manifest);
    EXPECT_NE(tamperError(file).find("entry 'manifest.json': tampered"), std::string::npos);

    writeAll(file, original);
    std::string media = readEntry(file, "media/mitral.svg");
    media[20] = char(media[20] ^ 1);
    putEntry(file, "media/mitral.svg", media);
    EXPECT_NE(tamperError(file).find("entry 'media/mitral.svg': tampered"), std::string::npos);

    writeAll(file, original);
    manifest = readEntry(file, "manifest.json");
    const auto flag = manifest.find("\"narrativesLocked\": true");
    ASSERT_NE(flag, std::string::npos);
    manifest.replace(flag, 24, "\"narrativesLocked\": false");
    putEntry(file, "manifest.json", manifest);
    EXPECT_NE(tamperError(file).find("manifest.json"), std::string::npos);
}

TEST(ContentPackage, DetectsAnEntryAddedOrRemoved) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    const auto file = lockedLecture(dir, key);
    const std::string original = readAll(file);

    putEntry(file, "media/extra.svg", kSvg);
    EXPECT_NE(tamperError(file).find("entry 'media/extra.svg': tampered: it was added after signing"), std::string::npos);

    writeAll(file, original);
    removeEntry(file, "media/logo.svg");
    EXPECT_NE(tamperError(file).find("entry 'media/logo.svg': tampered: it was removed after signing"), std::string::npos);

    writeAll(file, original);
    removeEntry(file, "signature.json");
    EXPECT_NE(tamperError(file).find("lock.json: tampered: a locked package must be signed"), std::string::npos);

    writeAll(file, original);
    std::string signature = readEntry(file, "signature.json");
    json s = json::parse(signature);
    s["entries"][0]["size"] = s["entries"][0]["size"].get<std::uint64_t>() + 1;
    putEntry(file, "signature.json", s.dump(2));
    EXPECT_NE(tamperError(file).find("the signature does not match"), std::string::npos);
}

TEST(ContentPackage, ResigningWithAnotherKeyDoesNotPassAsTheAuthor) {
    ScratchFolder dir;
    const SigningKey author = SigningKey::generate();
    const SigningKey other = SigningKey::generate();
    const auto file = lockedLecture(dir, author);

    // Re-sign the locked package's entries with another key, keeping the author's lock.
    const std::string original = readAll(file);
    {
        ArchiveReader r(file);
        std::vector<SignedEntry> entries;
        for (const auto& e : r.entries())
            if (e.name != "signature.json") entries.push_back({e.name, e.size, r.hash(e.name)});
        const std::string forged = PackageSignature::create(entries, other).toJson();
        putEntry(file, "signature.json", forged);
    }
    EXPECT_NE(tamperError(file).find("the lock belongs to another key"), std::string::npos);

    // Without the lock (an unlocked copy), the signature holds but names the other key.
    writeAll(file, original);
    removeEntry(file, "lock.json");
    {
        ArchiveReader r(file);
        std::vector<SignedEntry> entries;
        for (const auto& e : r.entries())
            if (e.name != "signature.json") entries.push_back({e.name, e.size, r.hash(e.name)});
        putEntry(file, "signature.json", PackageSignature::create(entries, other).toJson());
    }
    const ContentPackage p = ContentPackage::open(file);
    EXPECT_EQ(p.signer(), other.publicKey());
    EXPECT_NE(fingerprint(*p.signer()), fingerprint(author.publicKey()));
    EXPECT_FALSE(p.locked());
}

TEST(ContentPackage, AWrongPasswordChangesNothingAndTheRightOneResigns) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    const auto file = lockedLecture(dir, key);
    const std::string before = readAll(file);

    ContentPackage p = ContentPackage::open(file);
    ASSERT_TRUE(p.locked());
    EXPECT_FALSE(p.authorPresent());
    const Manifest manifest = p.manifest();
    const EditResult wrong = p.unlock("Correct horse battery staple");
    EXPECT_FALSE(wrong);
    EXPECT_NE(wrong.error().find("wrong password"), std::string::npos);
    EXPECT_FALSE(p.authorPresent());
    EXPECT_FALSE(p.setTitle("Mine now"));
    EXPECT_EQ(p.manifest(), manifest);
    EXPECT_FALSE(p.modified());
    p.save(file); // an unchanged, locked package may be saved by anyone: it stays the author's
    EXPECT_EQ(ContentPackage::open(file).signer(), key.publicKey());

    ASSERT_TRUE(p.unlock(kPassword));
    EXPECT_TRUE(p.authorPresent());
    ASSERT_TRUE(p.setTitle("The left heart, revised"));
    narrative::Resource r = p.manifest().resources[0];
    r.radius = 30;
    ASSERT_TRUE(p.replaceResource(r.id, r)) << "the author is not bound by the flags";
    p.save(file);
    EXPECT_NE(readAll(file), before);
    const ContentPackage again = ContentPackage::open(file);
    EXPECT_EQ(again.signatureState(), SignatureState::Signed);
    EXPECT_EQ(again.signer(), key.publicKey());
    EXPECT_TRUE(again.locked());
    EXPECT_EQ(again.manifest().title, "The left heart, revised");
    EXPECT_EQ(again.manifest().resources[0].radius, 30);

    ContentPackage q = ContentPackage::open(file);
    EXPECT_FALSE(q.useSigningKey(SigningKey::generate())) << "a locked package takes only its own key";
    EXPECT_FALSE(q.removeLock());
    ASSERT_TRUE(q.useSigningKey(SigningKey::load(dir / "key.json")));
    EXPECT_TRUE(q.authorPresent()) << "the author's key file is as good as the password";
}

TEST(ContentPackage, EveryFlagBlocksItsOperationThroughTheApi) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    ContentPackage p = ContentPackage::open(lockedLecture(dir, key));
    const Manifest before = p.manifest();
    const std::string narratives = p.narrativesDocument();
    const auto gate = p.gate();

    auto refusedFor = [](const EditResult& r, const char* why) {
        EXPECT_FALSE(r);
        EXPECT_NE(r.error().find(why), std::string::npos) << r.error();
    };
    refusedFor(p.setNarrativesDocument("{}"), "narratives");
    narrative::Resource r = before.resources[0];
    r.id = "new";
    refusedFor(p.addResource(r), "embedded resources");
    refusedFor(p.removeResource("mitral-text"), "embedded resources");
    refusedFor(p.setCategories({}), "embedded resources");
    refusedFor(p.setBranding({}), "branding bar");
    refusedFor(p.setRestrictions({}), "locked by its author");
    refusedFor(p.addFileBytes("media/new.svg", kSvg), "locked by its author");
    refusedFor(p.removeFile("media/logo.svg"), "locked by its author");
    refusedFor(p.setHeart(HeartSpec{}), "locked by its author");
    refusedFor(p.lock(SigningKey::generate(), "x", KdfCost::minimal()), "locked by its author");
    EXPECT_TRUE(gate.check(narrative::Operation::FreeNavigation));
    EXPECT_TRUE(gate.check(narrative::Operation::ExportVideo));
    EXPECT_TRUE(gate.checkSize(narrative::Operation::RenderImage, {1920, 1080}));
    EXPECT_FALSE(gate.checkSize(narrative::Operation::RenderImage, {1280, 720}));
    EXPECT_EQ(p.manifest(), before);
    EXPECT_EQ(p.narrativesDocument(), narratives);
    EXPECT_FALSE(p.modified());
}

TEST(ContentPackage, FlagsBindADraftUntilChanged) {
    ContentPackage p = sampleDraft();
    narrative::Restrictions r;
    r.resourcesLocked = true;
    ASSERT_TRUE(p.setRestrictions(r));
    EXPECT_FALSE(p.removeResource("mitral-text"));
    EXPECT_TRUE(p.setRestrictions({})) << "an unlocked draft's flags can be changed";
    EXPECT_TRUE(p.removeResource("mitral-text"));
}

TEST(ContentPackage, EditsThatWouldBreakThePackageAreRefused) {
    ContentPackage p = sampleDraft();
    narrative::Resource r = p.manifest().resources[1];
    r.id = "other-image";
    r.media = "media/none.svg";
    EXPECT_NE(p.addResource(r).error().find("refers to 'media/none.svg'"), std::string::npos);
    r.media = "media/mitral.svg";
    r.category = "Chambers";
    EXPECT_NE(p.addResource(r).error().find("category 'Chambers' does not exist"), std::string::npos);
    EXPECT_NE(p.removeFile("media/logo.svg").error().find("used by branding"), std::string::npos);
    EXPECT_NE(p.addFileBytes("../x.svg", kSvg).error().find("cannot name an entry"), std::string::npos);
    EXPECT_NE(p.addFileBytes("signature.json", "{}").error().find("cannot name an entry"), std::string::npos);
    EXPECT_FALSE(p.setTitle(std::string(300, 't')));
    EXPECT_FALSE(p.setCategories({{"Valves", {}}})) << "'Vessels' is still used";
    EXPECT_FALSE(p.setNarrativesDocument("{not json"));
}

TEST(ContentPackage, BadPackagesNameTheEntry) {
    ScratchFolder dir;
    sampleDraft().save(dir / "good.atrium");
    const std::string good = readAll(dir / "good.atrium");

    removeEntry(dir / "good.atrium", "media/mitral.svg");
    std::string message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("lists file 'media/mitral.svg', which the package lacks"), std::string::npos) << message;

    writeAll(dir / "good.atrium", good);
    putEntry(dir / "good.atrium", "media/stowaway.exe", "MZ");
    message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("entry 'media/stowaway.exe': is not listed"), std::string::npos) << message;

    writeAll(dir / "good.atrium", good);
    json m = json::parse(readEntry(dir / "good.atrium", "manifest.json"));
    m["version"] = 7;
    putEntry(dir / "good.atrium", "manifest.json", m.dump());
    message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("manifest.json: /version: schema version 7"), std::string::npos) << message;

    writeAll(dir / "good.atrium", good);
    putEntry(dir / "good.atrium", "narratives.json", "{\"broken\": ");
    message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("good.atrium: entry 'narratives.json': not valid JSON"), std::string::npos) << message;

    writeAll(dir / "good.atrium", good);
    removeEntry(dir / "good.atrium", "manifest.json");
    message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("'manifest.json' is missing"), std::string::npos) << message;

    // Cut short (issue 23: it was "not a zip archive"): said to be incomplete, whether
    // read from a file or from memory; bytes that never were a package are not.
    writeAll(dir / "good.atrium", good.substr(0, good.size() * 2 / 3));
    message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("good.atrium: incomplete"), std::string::npos) << message;
    message = errorOf([&] { ContentPackage::openBytes(good.substr(0, 100), "cut.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("cut.atrium: incomplete"), std::string::npos) << message;
    writeAll(dir / "good.atrium", "<html>not found</html>");
    message = errorOf([&] { ContentPackage::open(dir / "good.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(message.find("not a readable zip archive"), std::string::npos) << message;
}

TEST(ContentPackage, AFailedSaveLosesNothing) {
    ScratchFolder dir;
    ContentPackage p = sampleDraft();
    p.save(dir / "lecture.atrium");
    const std::string saved = readAll(dir / "lecture.atrium");
    writeAll(dir / "photo.svg", kSvg);
    ASSERT_TRUE(p.addFile("media/photo.svg", dir / "photo.svg"));
    std::filesystem::remove(dir / "photo.svg"); // its source vanishes before the save
    EXPECT_THROW(p.save(dir / "lecture.atrium"), PackageError);
    EXPECT_EQ(readAll(dir / "lecture.atrium"), saved);
    std::size_t files = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
    EXPECT_EQ(files, 1u) << "no temporary file is left behind";
}

TEST(ContentPackage, OpeningReportsProgressAndCanBeCancelled) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    const auto file = lockedLecture(dir, key);
    std::uint64_t last = 0, total = 0;
    ContentPackage::open(file, {}, [&](std::uint64_t done, std::uint64_t all) {
        EXPECT_GE(done, last);
        last = done;
        total = all;
        return true;
    });
    EXPECT_EQ(last, total);
    EXPECT_GT(total, 0u);
    errorOf([&] { ContentPackage::open(file, {}, [](auto, auto) { return false; }); }, PackageError::Kind::Cancelled);
}

TEST(PackageCrypto, KeysLocksAndSignatures) {
    ScratchFolder dir;
    const SigningKey key = SigningKey::generate();
    key.save(dir / "k.json", "Dr Example");
    EXPECT_EQ(std::filesystem::status(dir / "k.json").permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    EXPECT_EQ(SigningKey::load(dir / "k.json").publicKey(), key.publicKey());
    json k = json::parse(readAll(dir / "k.json"));
    k["publicKey"] = toBase64(SigningKey::generate().publicKey());
    writeAll(dir / "bad.json", k.dump());
    EXPECT_NE(errorOf([&] { SigningKey::load(dir / "bad.json"); }, PackageError::Kind::BadFile).find("does not belong"),
              std::string::npos);

    const SealedKey sealed = SealedKey::seal(key, "pw", KdfCost::minimal());
    EXPECT_FALSE(sealed.open("pW"));
    ASSERT_TRUE(sealed.open("pw"));
    EXPECT_EQ(sealed.open("pw")->publicKey(), key.publicKey());
    const SealedKey back = SealedKey::fromJson(sealed.toJson());
    EXPECT_TRUE(back.open("pw"));
    json greedy = json::parse(sealed.toJson());
    greedy["memlimit"] = std::uint64_t(64) << 30;
    EXPECT_NE(errorOf([&] { SealedKey::fromJson(greedy.dump()); }, PackageError::Kind::BadFile).find("memlimit"),
              std::string::npos);

    const auto fp = fingerprint(key.publicKey());
    EXPECT_EQ(fp.size(), 39u);
    EXPECT_EQ(fp[4], '-');
    EXPECT_EQ(fromBase64(toBase64(key.publicKey()))->size(), 32u);
    EXPECT_FALSE(fromBase64("not base64!"));
}

TEST(ContentPackage, NarrativesAreReadByTheirOwnReaderAndTheirMediaMustBeInside) {
    ContentPackage p = sampleDraft();
    narrative::NarrativeDocument document;
    document.narratives.resize(1);
    narrative::Node node;
    node.title = "Atrium";
    narrative::OverlayItem image;
    image.kind = narrative::OverlayKind::Image;
    image.media = "media/atrium.svg";
    node.overlays.push_back(image);
    narrative::insertNode(document.narratives[0], 0, node);
    const std::string withOverlay = narrative::toJson(document).dump(2);
    const EditResult missing = p.setNarrativesDocument(withOverlay);
    EXPECT_NE(missing.error().find("media/atrium.svg"), std::string::npos) << missing.error();
    ASSERT_TRUE(p.addFileBytes("media/atrium.svg", kSvg));
    ASSERT_TRUE(p.setNarrativesDocument(withOverlay)) << p.setNarrativesDocument(withOverlay).error();
    EXPECT_NE(p.removeFile("media/atrium.svg").error().find("overlay"), std::string::npos);
    const EditResult wrongVersion = p.setNarrativesDocument(R"({"format": "atrium-narratives", "version": 9, "narratives": []})");
    EXPECT_NE(wrongVersion.error().find("version"), std::string::npos) << wrongVersion.error();

    ScratchFolder dir;
    p.save(dir / "tour.atrium");
    EXPECT_EQ(ContentPackage::open(dir / "tour.atrium").narrativesDocument(), withOverlay);
}

TEST(ContentPackage, OnlyTheSignersKeyMakesItsAuthorPresent) {
    // Issue 21 item 4: any key used to lift the flags of an unlocked signed package and
    // re-sign it as the signer's own.
    ScratchFolder dir;
    const SigningKey author = SigningKey::generate();
    author.save(dir / "author.key");
    ContentPackage draft = sampleDraft();
    narrative::Restrictions r;
    r.videoExportForbidden = true;
    r.expires = narrative::parseDate("2020-01-01");
    ASSERT_TRUE(draft.setRestrictions(r));
    ASSERT_TRUE(draft.useSigningKey(SigningKey::load(dir / "author.key")));
    draft.save(dir / "signed.atrium");

    ContentPackage p = ContentPackage::open(dir / "signed.atrium");
    ASSERT_TRUE(p.gate().check(narrative::Operation::OpenContent)) << "expired for its audience";
    const EditResult attacker = p.useSigningKey(SigningKey::generate());
    EXPECT_FALSE(attacker);
    EXPECT_NE(attacker.error().find("is not its author's"), std::string::npos) << attacker.error();
    EXPECT_FALSE(p.authorPresent());
    EXPECT_TRUE(p.gate().check(narrative::Operation::ExportVideo)) << "the flags still bind";
    p.save(dir / "copy.atrium");
    EXPECT_EQ(ContentPackage::open(dir / "copy.atrium").signer(), author.publicKey()) << "not re-signed by another key";

    ASSERT_TRUE(p.useSigningKey(SigningKey::load(dir / "author.key")));
    EXPECT_TRUE(p.authorPresent());
    EXPECT_FALSE(p.gate().check(narrative::Operation::ExportVideo));

    // An unsigned draft has no author yet: any key may sign it.
    ContentPackage unsigned_ = sampleDraft();
    EXPECT_TRUE(unsigned_.useSigningKey(SigningKey::generate()));
}

namespace {

/// Rewrites the uncompressed size `entry` declares, in its local header and in the
/// central directory alike (so that the two agree, as a careful forger makes them).
void declareSize(const std::filesystem::path& file, const std::string& entry, std::uint32_t size) {
    std::string bytes = readAll(file);
    auto put32 = [&](std::size_t at, std::uint32_t v) {
        for (int i = 0; i < 4; ++i) bytes[at + std::size_t(i)] = char((v >> (8 * i)) & 0xff);
    };
    int patched = 0;
    for (const auto& [signature, nameAt, sizeAt] : {std::tuple{std::string("PK\x03\x04", 4), 30, 22},
                                                    std::tuple{std::string("PK\x01\x02", 4), 46, 24}})
        for (std::size_t at = bytes.find(signature); at != std::string::npos; at = bytes.find(signature, at + 4))
            if (bytes.compare(at + std::size_t(nameAt), entry.size(), entry) == 0) {
                put32(at + std::size_t(sizeAt), size);
                ++patched;
            }
    ASSERT_EQ(patched, 2) << entry;
    writeAll(file, bytes);
}

} // namespace

TEST(ContentPackage, ABrokenUnsignedPackageIsRefusedWhenOpenedNotHalfwayThroughExtraction) {
    // Issue 21 item 8: without a signature nobody read the entries through before use.
    ScratchFolder dir;
    ContentPackage draft = sampleDraft();
    ASSERT_TRUE(draft.addFileBytes("media/notes.txt", std::string(3000, 'n')));
    draft.save(dir / "draft.atrium");
    ASSERT_NO_THROW(ContentPackage::open(dir / "draft.atrium"));
    declareSize(dir / "draft.atrium", "media/notes.txt", 1000); // it holds 3000
    const std::string longer = errorOf([&] { ContentPackage::open(dir / "draft.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(longer.find("entry 'media/notes.txt'"), std::string::npos) << longer;

    // A name that is a file and a folder at once: refused as an edit, and in a file.
    ContentPackage twice = sampleDraft();
    ASSERT_TRUE(twice.addFileBytes("media/a", "file"));
    const EditResult inside = twice.addFileBytes("media/a/b", "inside it");
    EXPECT_FALSE(inside);
    EXPECT_NE(inside.error().find("'media/a' is a file"), std::string::npos) << inside.error();
    EXPECT_FALSE(twice.addFileBytes("media", "a file where a folder is"));
    twice.save(dir / "twice.atrium");
    putEntry(dir / "twice.atrium", "media/a/b", "inside it");
    const std::string both = errorOf([&] { ContentPackage::open(dir / "twice.atrium"); }, PackageError::Kind::BadFile);
    EXPECT_NE(both.find("entry 'media/a/b': lies in 'media/a', which is a file"), std::string::npos) << both;
}
