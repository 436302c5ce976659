// The heart pipeline: phantom / volume series -> moving heart, its cache, and
// MovingHeartMesh serialisation. A coarse phantom (2 mm voxels, 6 phases) keeps it fast;
// the default 1 mm, 10-phase heart is timed by atrium-sim. Mesh series, the real meshes
// in ../shared and bad input: MeshSeriesTest.cpp.

#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshConversion.h"
#include "sim/heart/VolumeSeries.h"
#include "sim/heart/test/HeartPipelineTestSupport.h"
#include "sim/heart/test/HeartTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace heart = atrium::heart;
using atrium::sph::TriangleMesh;
using atrium::sph::Vec3;
using heart::HeartSource;
using heart::MovingHeartMesh;
using heart::PipelineReport;
using heart::PipelineSettings;

using atrium::heart::test::TempDir;
using atrium::heart::test::coarsePhantom;
using atrium::heart::test::coarsePhaseMeshes;
using atrium::heart::test::contains;
using atrium::heart::test::expectSameMesh;
using atrium::heart::test::kCoarseSubframes;
using atrium::heart::test::uncachedSettings;
using atrium::heart::test::writeText;

struct BuiltHeart {
    MovingHeartMesh moving;
    PipelineReport report;
};

/// The coarse phantom through the pipeline once for the whole test program.
const BuiltHeart& coarseHeart() {
    static const BuiltHeart built = [] {
        PipelineReport report;
        MovingHeartMesh moving = heart::loadHeart(HeartSource::fromPhantom(coarsePhantom()), uncachedSettings(), &report);
        return BuiltHeart{std::move(moving), std::move(report)};
    }();
    return built;
}

/// A tiny phantom (3 mm voxels, 3 phases) for the tests of the cache, which build it
/// several times.
heart::PhantomParameters tinyPhantom() {
    heart::PhantomParameters p = heart::HeartPhantom::preset("adult");
    p.voxelSizeMm = 3.0;
    p.phases = 3;
    return p;
}

void expectSameFrames(const MovingHeartMesh& a, const MovingHeartMesh& b) {
    ASSERT_EQ(a.phaseCount(), b.phaseCount());
    ASSERT_EQ(a.frameCount(), b.frameCount());
    EXPECT_EQ(a.sharedTopology(), b.sharedTopology());
    EXPECT_EQ(a.refined(), b.refined());
    EXPECT_EQ(a.maxSubframeDisplacement(), b.maxSubframeDisplacement());
    EXPECT_EQ(a.maxHalfwayMismatch(), b.maxHalfwayMismatch());
    std::vector<Vec3> va, vb;
    for (const int f : {0, 1, 5, a.frameCount() / 2 + 3, a.frameCount() - 1}) {
        a.verticesAt(f, va);
        b.verticesAt(f, vb);
        ASSERT_EQ(a.meshIndexAt(f), b.meshIndexAt(f)) << "frame " << f;
        ASSERT_EQ(a.topologyAt(f).triangles, b.topologyAt(f).triangles) << "frame " << f;
        ASSERT_EQ(va.size(), vb.size()) << "frame " << f;
        for (std::size_t i = 0; i < va.size(); ++i) {
            ASSERT_EQ(va[i].x, vb[i].x) << "frame " << f << " vertex " << i;
            ASSERT_EQ(va[i].y, vb[i].y) << "frame " << f << " vertex " << i;
            ASSERT_EQ(va[i].z, vb[i].z) << "frame " << f << " vertex " << i;
        }
    }
}

} // namespace

// ---------------------------------------------------------------------------------------
// Phantom -> moving heart

TEST(HeartPipeline, PhantomToMovingHeart) {
    const BuiltHeart& built = coarseHeart();
    const MovingHeartMesh& moving = built.moving;
    const PipelineReport& r = built.report;
    const heart::HeartPhantom phantom(coarsePhantom());

    ASSERT_EQ(moving.phaseCount(), 6);
    EXPECT_EQ(r.phases, 6);
    EXPECT_EQ(moving.subframesPerPhase(), kCoarseSubframes);
    EXPECT_FALSE(r.fromCache);
    EXPECT_EQ(r.cacheStatus, "disabled");
    EXPECT_NEAR(r.isovalue, 200.0, 2.0) << "the suggested isovalue is the blood/myocardium midpoint";
    EXPECT_NEAR(r.cycleSeconds, phantom.cycleSeconds(), 1e-12);
    EXPECT_FALSE(moving.sharedTopology()) << "every phase is extracted on its own";
    EXPECT_TRUE(moving.refined());
    std::cout << "coarse phantom: " << r.trianglesPerPhaseMin << ".." << r.trianglesPerPhaseMax
              << " triangles per phase, source " << r.secondsSource << " s, extraction " << r.secondsExtraction
              << " s, interpolation " << r.secondsInterpolation << " s, total " << r.secondsTotal << " s\n";

    // Closed, manifold, outward phase meshes: the extracted surfaces themselves.
    for (int k = 0; k < moving.phaseCount(); ++k) {
        const TriangleMesh& m = moving.phaseMesh(k);
        expectSameMesh(m, coarsePhaseMeshes()[std::size_t(k)], "phase " + std::to_string(k));
        EXPECT_EQ(heart::boundaryEdges(m).size(), 0u) << "phase " << k;
        EXPECT_EQ(heart::nonManifoldEdgeCount(m), 0u) << "phase " << k;
        EXPECT_EQ(heart::inconsistentlyOrientedEdgeCount(m), 0u) << "phase " << k;
        EXPECT_GT(m.enclosedVolume(), 0.0) << "phase " << k;
        EXPECT_GE(m.triangles.size(), r.trianglesPerPhaseMin);
        EXPECT_LE(m.triangles.size(), r.trianglesPerPhaseMax);
    }

    // Blood-pool volume over the cycle: the LV empties while the LA fills (by half the
    // stroke volume up to mitral opening), so the pool is largest at end diastole (phase
    // 0, or 1 at the end of isovolumic contraction, the LA fuller) and smallest at end
    // systole (phase 3, t = 1/2), and drops by about LV stroke - LA gain.
    ASSERT_EQ(r.bloodPoolVolumeMl.size(), 6u);
    std::cout << "blood-pool volume (ml):";
    for (const double v : r.bloodPoolVolumeMl) std::cout << " " << v;
    std::cout << "\n";
    const auto& v = r.bloodPoolVolumeMl;
    for (int k = 0; k < 6; ++k) EXPECT_NEAR(v[std::size_t(k)], heart::enclosedVolumeMl(moving.phaseMesh(k)), 1e-9);
    const auto maxIt = std::max_element(v.begin(), v.end());
    const auto minIt = std::min_element(v.begin(), v.end());
    const double ts = phantom.endSystolicPhase();
    ASSERT_NEAR(ts, 3.0 / 6.0, 1e-12);
    EXPECT_LE(maxIt - v.begin(), 1) << "largest pool at end diastole";
    EXPECT_EQ(minIt - v.begin(), 3) << "smallest pool at end systole";
    EXPECT_GT(v[0], phantom.lvVolumeMl(0.0)) << "the pool holds the LV and more";
    EXPECT_GT(v[1], v[2]) << "ejecting";
    EXPECT_GT(v[2], v[3]) << "ejecting";
    EXPECT_LT(v[3], v[4]) << "the atrium filling";
    EXPECT_LT(v[4], v[5]) << "the ventricle filling";
    const double lvStroke = phantom.lvVolumeMl(0.0) - phantom.lvVolumeMl(ts);
    const double laGain = phantom.laVolumeMl(ts) - phantom.laVolumeMl(0.0);
    const double drop = v[0] - v[3];
    std::cout << "pool drop " << drop << " ml; LV stroke " << lvStroke << " ml, LA gain " << laGain
              << " ml (analytic, untrimmed)\n";
    EXPECT_GT(drop, 0.6 * (lvStroke - laGain));
    EXPECT_LT(drop, 1.4 * (lvStroke - laGain));
    EXPECT_NEAR(lvStroke / phantom.lvVolumeMl(0.0), coarsePhantom().ejectionFraction, 1e-9);

    // Sub-frame motion below half of a 2 mm particle spacing.
    std::cout << "max sub-frame displacement " << r.maxSubframeDisplacementMm << " mm with " << kCoarseSubframes
              << " sub-frames (" << r.maxSubframeDisplacementMm * kCoarseSubframes / 8.0
              << " mm with 8); max half-way mismatch " << r.maxHalfwayMismatchMm << " mm\n";
    EXPECT_EQ(r.maxSubframeDisplacementMm, moving.maxSubframeDisplacement());
    EXPECT_GT(r.maxSubframeDisplacementMm, 0.0);
    EXPECT_LT(r.maxSubframeDisplacementMm, 1.0);
}

TEST(HeartPipeline, ProgressNamesItsStages) {
    TempDir dir;
    PipelineSettings s = uncachedSettings();
    s.cacheDirectory = dir.path();
    const heart::PhantomParameters p = tinyPhantom();
    std::vector<std::string> stages;
    bool inRange = true;
    const auto record = [&](const std::string& stage, double f) {
        inRange &= f >= 0.0 && f <= 1.0;
        if (stages.empty() || stages.back() != stage) stages.push_back(stage);
    };
    heart::loadHeart(HeartSource::fromPhantom(p), s, nullptr, record);
    EXPECT_TRUE(inRange);
    const std::vector<std::string> built{"generating phantom", "extracting surfaces", "interpolating", "writing cache"};
    EXPECT_EQ(stages, built);
    stages.clear();
    heart::loadHeart(HeartSource::fromPhantom(p), s, nullptr, record);
    EXPECT_EQ(stages, std::vector<std::string>{"loading cache"});
    EXPECT_TRUE(inRange);
}

// ---------------------------------------------------------------------------------------
// Cache

TEST(HeartPipeline, SecondLoadComesFromTheCacheWithIdenticalFrames) {
    TempDir dir;
    PipelineSettings s = uncachedSettings();
    s.cacheDirectory = dir.path() / "cache";
    const HeartSource source = HeartSource::fromPhantom(tinyPhantom());

    PipelineReport first;
    const MovingHeartMesh built = heart::loadHeart(source, s, &first);
    EXPECT_FALSE(first.fromCache);
    EXPECT_EQ(first.cacheStatus, "miss");
    ASSERT_TRUE(fs::is_regular_file(first.cacheFile)) << first.cacheStatus;
    EXPECT_EQ(first.cacheFile.parent_path(), s.cacheDirectory);
    EXPECT_EQ(first.cacheFile, heart::heartCacheFile(source, s));
    EXPECT_EQ(first.cacheFile.extension(), ".atriumheart");
    // The same heart as without a cache.
    expectSameFrames(built, heart::loadHeart(source, uncachedSettings()));

    PipelineReport second;
    const MovingHeartMesh cached = heart::loadHeart(source, s, &second);
    EXPECT_TRUE(second.fromCache);
    EXPECT_EQ(second.cacheStatus, "hit");
    EXPECT_EQ(second.cacheFile, first.cacheFile);
    expectSameFrames(built, cached);
    EXPECT_EQ(second.isovalue, first.isovalue);
    EXPECT_EQ(second.holesCapped, first.holesCapped);
    EXPECT_EQ(second.bloodPoolVolumeMl, first.bloodPoolVolumeMl);
    EXPECT_EQ(second.trianglesPerPhaseMin, first.trianglesPerPhaseMin);
    EXPECT_EQ(second.trianglesPerPhaseMax, first.trianglesPerPhaseMax);
    EXPECT_EQ(second.maxSubframeDisplacementMm, first.maxSubframeDisplacementMm);
    EXPECT_EQ(second.cycleSeconds, first.cycleSeconds);
    std::cout << "built in " << first.secondsTotal << " s, cache file " << fs::file_size(first.cacheFile)
              << " bytes, loaded in " << second.secondsTotal << " s\n";

    // Another parameter, another file: a miss.
    heart::PhantomParameters other = tinyPhantom();
    other.seed = 2;
    PipelineReport third;
    heart::loadHeart(HeartSource::fromPhantom(other), s, &third);
    EXPECT_FALSE(third.fromCache);
    EXPECT_NE(third.cacheFile, first.cacheFile);
    // So does another setting.
    PipelineSettings fewerSubframes = s;
    fewerSubframes.interpolation.subframes = 8;
    EXPECT_NE(heart::heartCacheFile(source, fewerSubframes), first.cacheFile);
    PipelineSettings otherNoise = s;
    otherNoise.noiseBoxMm = 3.0;
    EXPECT_NE(heart::heartCacheFile(source, otherNoise), first.cacheFile);
    HeartSource withIsovalue = source;
    withIsovalue.isovalue = 210.f;
    EXPECT_NE(heart::heartCacheFile(withIsovalue, s), first.cacheFile);
    // The preset name and the same parameters given explicitly are the same heart.
    EXPECT_EQ(heart::heartCacheFile(HeartSource::fromPreset("adult"), s),
              heart::heartCacheFile(HeartSource::fromPhantom(heart::HeartPhantom::preset("adult")), s));
    PipelineSettings off = s;
    off.cacheDirectory.clear();
    EXPECT_TRUE(heart::heartCacheFile(source, off).empty());
}

TEST(HeartPipeline, CorruptOrTruncatedCacheIsRebuilt) {
    TempDir dir;
    PipelineSettings s = uncachedSettings();
    s.cacheDirectory = dir.path();
    const heart::PhantomParameters p = tinyPhantom();
    const HeartSource source = HeartSource::fromPhantom(p);
    PipelineReport r;
    const MovingHeartMesh reference = heart::loadHeart(source, s, &r);
    const fs::path file = r.cacheFile;
    ASSERT_TRUE(fs::is_regular_file(file));
    std::string bytes;
    {
        std::ifstream in(file, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(bytes.size(), 1000u);

    struct Damage {
        std::string name;
        std::string contents;
        std::string expected; // in the cache status
    };
    std::vector<Damage> damages;
    damages.push_back({"truncated to half", bytes.substr(0, bytes.size() / 2), "checksum"});
    damages.push_back({"truncated to 10 bytes", bytes.substr(0, 10), "truncated"});
    damages.push_back({"empty", std::string(), "truncated"});
    std::string flipped = bytes;
    flipped[bytes.size() * 2 / 3] = char(flipped[bytes.size() * 2 / 3] ^ 0x10);
    damages.push_back({"one bit flipped", flipped, "checksum"});
    std::string magic = bytes;
    magic[0] = 'X';
    damages.push_back({"bad magic", magic, "magic"});
    std::string version = bytes;
    version[8] = char(version[8] + 1);
    damages.push_back({"other version", version, "version"});
    damages.push_back({"garbage", std::string(5000, 'A'), "magic"});

    for (const Damage& d : damages) {
        SCOPED_TRACE(d.name);
        writeText(file, d.contents);
        PipelineReport rebuilt;
        const MovingHeartMesh m = heart::loadHeart(source, s, &rebuilt);
        EXPECT_FALSE(rebuilt.fromCache);
        EXPECT_TRUE(contains(rebuilt.cacheStatus, "rebuilt")) << rebuilt.cacheStatus;
        EXPECT_TRUE(contains(rebuilt.cacheStatus, d.expected)) << rebuilt.cacheStatus;
        expectSameFrames(reference, m);
        // ... and rewritten: the next load is a hit.
        PipelineReport again;
        heart::loadHeart(source, s, &again);
        EXPECT_TRUE(again.fromCache) << again.cacheStatus;
    }
}

TEST(HeartPipeline, UnwritableCacheDirectoryStillLoads) {
    TempDir dir;
    const fs::path blocker = dir.path() / "not-a-directory";
    writeText(blocker, "x");
    PipelineSettings s = uncachedSettings();
    s.cacheDirectory = blocker / "cache";
    heart::PhantomParameters p = tinyPhantom();
    p.phases = 2;
    PipelineReport r;
    const MovingHeartMesh m = heart::loadHeart(HeartSource::fromPhantom(p), s, &r);
    EXPECT_EQ(m.phaseCount(), 2);
    EXPECT_FALSE(r.fromCache);
    EXPECT_TRUE(contains(r.cacheStatus, "not written")) << r.cacheStatus;
}

// ---------------------------------------------------------------------------------------
// MovingHeartMesh serialisation

TEST(MovingHeartMeshFile, RoundTripAndCorruptStreams) {
    const MovingHeartMesh moving = heart::loadHeart(HeartSource::fromPhantom(tinyPhantom()), uncachedSettings());
    std::ostringstream out(std::ios::binary);
    moving.save(out);
    const std::string bytes = out.str();
    std::istringstream in(bytes);
    const MovingHeartMesh loaded = MovingHeartMesh::load(in);
    expectSameFrames(moving, loaded);
    for (int k = 0; k < moving.phaseCount(); ++k) {
        expectSameMesh(moving.phaseMesh(k), loaded.phaseMesh(k), "phase " + std::to_string(k));
        EXPECT_EQ(moving.halfwayMismatch(k).mean, loaded.halfwayMismatch(k).mean);
        const auto fa = moving.forwardDisplacement(k), fb = loaded.forwardDisplacement(k);
        ASSERT_EQ(fa.size(), fb.size());
        EXPECT_TRUE(std::equal(fa.begin(), fa.end(), fb.begin(), [](Vec3 a, Vec3 b) {
            return a.x == b.x && a.y == b.y && a.z == b.z;
        }));
    }

    // Every truncation and a flipped bit anywhere are refused, never a crash.
    for (const std::size_t length : {std::size_t(0), std::size_t(7), std::size_t(20), std::size_t(40), bytes.size() / 3,
                                     bytes.size() - 9, bytes.size() - 1}) {
        std::istringstream cut(bytes.substr(0, length));
        EXPECT_THROW(MovingHeartMesh::load(cut), std::runtime_error) << "length " << length;
    }
    std::mt19937 rng(7);
    for (int trial = 0; trial < 20; ++trial) {
        std::string bad = bytes;
        const std::size_t at = std::uniform_int_distribution<std::size_t>(0, bad.size() - 1)(rng);
        bad[at] = char(bad[at] ^ (1 << (trial % 8)));
        std::istringstream damaged(bad);
        EXPECT_THROW(MovingHeartMesh::load(damaged), std::runtime_error) << "byte " << at;
    }
    // A huge count in the header fails on the missing data, not on allocation.
    std::string huge = bytes;
    const std::uint64_t count = std::uint64_t(1) << 31;
    std::memcpy(huge.data() + 24, &count, sizeof count);
    std::istringstream hugeIn(huge);
    EXPECT_THROW(MovingHeartMesh::load(hugeIn), std::runtime_error);
}

// ---------------------------------------------------------------------------------------
// Volume series on disk

TEST(HeartPipeline, VolumeSeriesOnDiskGivesTheSameMeshesAsThePhantom) {
    TempDir dir;
    const heart::HeartPhantom phantom(coarsePhantom());
    heart::writeVolumeSeries(phantom.generate(), dir / "heart_%02d.vti");
    PipelineReport r;
    const MovingHeartMesh fromFiles =
        heart::loadHeart(HeartSource::fromVolumes(dir / "heart_%02d.vti", {}, 0.9), uncachedSettings(), &r);
    EXPECT_EQ(r.cycleSeconds, 0.9);
    EXPECT_EQ(r.isovalue, coarseHeart().report.isovalue);
    ASSERT_EQ(fromFiles.phaseCount(), 6);
    for (int k = 0; k < 6; ++k)
        expectSameMesh(fromFiles.phaseMesh(k), coarseHeart().moving.phaseMesh(k), "phase " + std::to_string(k));
    expectSameFrames(fromFiles, coarseHeart().moving);

    // The directory form (of a tiny series, in .nrrd), and a cache keyed by the files:
    // touching one misses.
    TempDir tiny, cache;
    heart::writeVolumeSeries(heart::HeartPhantom(tinyPhantom()).generate(), tiny / "heart_%02d.nrrd");
    PipelineSettings s = uncachedSettings();
    s.cacheDirectory = cache.path();
    const HeartSource byDirectory = HeartSource::fromVolumes(tiny.path().string(), 200.f);
    PipelineReport a, b, c;
    EXPECT_EQ(heart::loadHeart(byDirectory, s, &a).phaseCount(), 3);
    heart::loadHeart(byDirectory, s, &b);
    EXPECT_FALSE(a.fromCache);
    EXPECT_TRUE(b.fromCache);
    EXPECT_EQ(b.isovalue, 200.0);
    const fs::path phase3 = tiny / "heart_02.nrrd";
    fs::last_write_time(phase3, fs::last_write_time(phase3) + std::chrono::seconds(5));
    EXPECT_NE(heart::heartCacheFile(byDirectory, s), a.cacheFile);
    heart::loadHeart(byDirectory, s, &c);
    EXPECT_FALSE(c.fromCache);
}
