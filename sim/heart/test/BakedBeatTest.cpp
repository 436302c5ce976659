// Baked beats: the file round-trips within its quantisation, damaged files are refused
// with the file named and nothing allocated beyond what they hold, playback moves the
// blood along its velocity, and a bake's frames are the live simulation's frames.
#include "sim/heart/BakedBeat.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"
#include "io/MemoryBudget.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/wait.h>
#include <unistd.h>

using namespace atrium;
using namespace atrium::heart;

namespace {

std::span<const std::byte> bytesOf(const std::string& s) { return std::as_bytes(std::span(s.data(), s.size())); }

/// `frames` frames of `n` particles with random values in plausible ranges.
std::vector<BloodFrame> randomFrames(int frames, std::size_t n, std::uint32_t seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> pos(-50.f, 80.f), vel(-3.f, 3.f), de(-0.05f, 0.08f), p(-1000.f, 9000.f);
    std::vector<BloodFrame> out(static_cast<std::size_t>(frames));
    for (BloodFrame& f : out) {
        const std::size_t count = n + std::size_t(rng() % 5); // counts differ from frame to frame
        for (std::size_t i = 0; i < count; ++i) {
            for (int a = 0; a < 3; ++a) {
                f.positionMm.push_back(pos(rng));
                f.velocity.push_back(vel(rng));
            }
            f.densityError.push_back(de(rng));
            f.pressure.push_back(p(rng));
        }
    }
    return out;
}

const sph::Aabb kBox{{-60.f, -60.f, -60.f}, {90.f, 90.f, 90.f}};

BakedBeat sampleBeat(int frames = 6, std::size_t n = 40) {
    return BakedBeat("test key", 0.8, 2.0, kBox, randomFrames(frames, n));
}

void expectWithin(const BloodFrame& a, const BloodFrame& b, const BakedBeat& beat) {
    ASSERT_EQ(a.particles(), b.particles());
    // Half a step of each quantisation, and float rounding on top.
    const double pos = 0.5 * beat.positionStepMm() + 1e-4, vel = 0.5 * beat.velocityStep() + 1e-6;
    for (std::size_t i = 0; i < a.positionMm.size(); ++i) {
        ASSERT_NEAR(a.positionMm[i], b.positionMm[i], pos) << i;
        ASSERT_NEAR(a.velocity[i], b.velocity[i], vel) << i;
    }
    for (std::size_t i = 0; i < a.particles(); ++i) {
        ASSERT_NEAR(a.densityError[i], b.densityError[i], 0.5 * beat.densityErrorStep() + 1e-7) << i;
        ASSERT_NEAR(a.pressure[i], b.pressure[i], 0.5 * beat.pressureStep() + 1e-3) << i;
    }
}

} // namespace

TEST(BakedBeat, RoundTripsWithinItsQuantisation) {
    const std::vector<BloodFrame> frames = randomFrames(5, 100);
    const BakedBeat beat("heart X, 15000 particles", 0.75, 2.1, kBox, frames);
    EXPECT_LT(beat.positionStepMm(), 0.003); // 150 mm over 16 bits
    const BakedBeat read = BakedBeat::parse(bytesOf(beat.serialize()), "memory");
    EXPECT_EQ(read.key, "heart X, 15000 particles");
    EXPECT_DOUBLE_EQ(read.cycleSeconds, 0.75);
    EXPECT_DOUBLE_EQ(read.particleSpacingMm, 2.1);
    ASSERT_EQ(read.framesPerBeat(), 5);
    BloodFrame decoded;
    for (int k = 0; k < 5; ++k) {
        read.decode(k, decoded);
        expectWithin(decoded, frames[std::size_t(k)], read);
    }
    // 16 bytes a particle and frame, plus a small header and 4 bytes a frame.
    std::size_t particles = 0;
    for (const BloodFrame& f : frames) particles += f.particles();
    EXPECT_LE(beat.serialize().size(), 16 * particles + 4 * 5 + 200);
}

TEST(BakedBeat, SavesAtomicallyAndLoadsBack) {
    const auto dir = std::filesystem::temp_directory_path() / ("atrium-baked-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    const BakedBeat beat = sampleBeat();
    beat.save(dir / "beat.atriumflow");
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1) << "no temporary file left";
    const BakedBeat read = BakedBeat::load(dir / "beat.atriumflow");
    EXPECT_EQ(read.serialize(), beat.serialize());
    try {
        BakedBeat::load(dir / "missing.atriumflow");
        ADD_FAILURE() << "a missing file loaded";
    } catch (const BakedBeatError& e) {
        EXPECT_NE(std::string(e.what()).find("missing.atriumflow"), std::string::npos) << e.what();
    }
    EXPECT_THROW(beat.save("/proc/atrium-cannot-write-here/beat.atriumflow"), BakedBeatError);
    std::filesystem::remove_all(dir);
}

TEST(BakedBeat, ASaveRemovesWhatKilledSavesLeftAndALoadRespectsTheMemoryLimit) {
    const auto dir = std::filesystem::temp_directory_path() / ("atrium-baked-stale-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0); // a pid that no longer runs: its save was killed before the rename
    const auto stale = dir / ("beat.tmp-" + std::to_string(child) + "-00ab.atriumflow");
    std::ofstream(stale) << "half a beat";
    const BakedBeat beat = sampleBeat();
    beat.save(dir / "beat.atriumflow");
    EXPECT_FALSE(std::filesystem::exists(stale));
    EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);

    // The whole file is read before it is parsed: its size is checked against the budget.
    io::setMemoryBudget(64, "--max-memory");
    try {
        BakedBeat::load(dir / "beat.atriumflow");
        ADD_FAILURE() << "a file above the memory limit was read";
    } catch (const BakedBeatError& e) {
        EXPECT_NE(std::string(e.what()).find("beat.atriumflow"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("--max-memory"), std::string::npos) << e.what();
    }
    io::setMemoryBudget(0);
    EXPECT_NO_THROW(BakedBeat::load(dir / "beat.atriumflow"));
    std::filesystem::remove_all(dir);
}

TEST(BakedBeat, RefusesDamagedFilesNamingThem) {
    const std::string good = sampleBeat(3, 10).serialize();
    // Every truncation.
    for (std::size_t n = 0; n < good.size(); ++n) {
        try {
            BakedBeat::parse(bytesOf(good.substr(0, n)), "beat.atriumflow");
            FAIL() << "a file cut at " << n << " bytes was read";
        } catch (const BakedBeatError& e) {
            ASSERT_EQ(std::string(e.what()).rfind("beat.atriumflow: ", 0), 0u) << e.what();
        }
    }
    // A changed byte in the particles.
    std::string changed = good;
    changed[good.size() - 20] ^= 0x10;
    EXPECT_THROW(BakedBeat::parse(bytesOf(changed), "x"), BakedBeatError);
    // A particle count far beyond the bytes present is refused before allocating.
    std::string huge = good;
    const std::size_t keyLength = 8;
    const std::size_t firstCount = 8 + 4 + 4 + 8 + keyLength + 8 + 8 + 24 + 20;
    const std::uint32_t claim = 60'000'000;
    std::memcpy(&huge[firstCount], &claim, 4);
    try {
        BakedBeat::parse(bytesOf(huge), "huge.atriumflow");
        FAIL() << "a huge particle count was accepted";
    } catch (const BakedBeatError& e) {
        EXPECT_NE(std::string(e.what()).find("claims"), std::string::npos) << e.what();
    }
    // Another format version.
    std::string version = good;
    version[8] = 9;
    EXPECT_THROW(BakedBeat::parse(bytesOf(version), "x"), BakedBeatError);
}

TEST(BakedBeat, RejectsFramesItCannotStore) {
    EXPECT_THROW(BakedBeat("k", 0.8, 2.0, kBox, randomFrames(1, 5)), std::invalid_argument);
    EXPECT_THROW(BakedBeat("k", 0.8, 2.0, sph::Aabb{{0, 0, 0}, {0, 1, 1}}, randomFrames(3, 5)), std::invalid_argument);
    std::vector<BloodFrame> nan = randomFrames(3, 5);
    nan[1].velocity[2] = std::nanf("");
    EXPECT_THROW(BakedBeat("k", 0.8, 2.0, kBox, nan), std::invalid_argument);
}

TEST(BakedBeat, PlaybackMovesTheNearestFrameAlongItsVelocity) {
    std::vector<BloodFrame> frames(4);
    for (int k = 0; k < 4; ++k) frames[std::size_t(k)] = {{float(k), 0.f, 0.f}, {2.f, 0.f, -1.f}, {0.f}, {0.f}};
    const BakedBeat beat("k", 0.8, 2.0, kBox, frames); // a frame every 0.2 s
    BloodFrame f;
    // Phase 0.3 is 0.24 s into the beat: nearest frame 1 (0.2 s), moved on by 0.04 s.
    beat.sampleAt(0.3, f);
    ASSERT_EQ(f.particles(), 1u);
    EXPECT_NEAR(f.positionMm[0], 1.f + 2000.f * 0.04f, 0.05);
    EXPECT_NEAR(f.positionMm[2], -1000.f * 0.04f, 0.05);
    // Phase 0.95: nearest is frame 0 of the next beat, moved back by 0.04 s.
    beat.sampleAt(0.95, f);
    EXPECT_NEAR(f.positionMm[0], 0.f - 2000.f * 0.04f, 0.05);
    EXPECT_EQ(beat.nearestFrame(2.3).first, 1) << "phases wrap";
}

TEST(BakedBeat, TheBakedFramesAreTheLiveSimulationsFrames) {
    // A coarse adult phantom and coarse blood, as in HeartSimulationTest.
    PhantomParameters p = HeartPhantom::preset("adult");
    p.voxelSizeMm = 2.0;
    p.phases = 8;
    const HeartPhantom phantom(p);
    const VolumeSeries series = phantom.generate();
    const float iso = suggestIsovalue(series.phases[0]);
    std::vector<sph::TriangleMesh> meshes;
    for (const Volume& v : series.phases) {
        ExtractionSettings es;
        es.isovalue = iso;
        meshes.push_back(extractSurface(v, es));
    }
    InterpolationSettings is;
    is.subframes = 12;
    const MovingHeartMesh heart = MovingHeartMesh::build(std::move(meshes), is);
    HeartSimulationSettings settings;
    settings.particleSpacingMm = 4.0;
    settings.relaxationSteps = 40;
    BakeSettings bake;
    bake.settleBeats = 0.0;
    bake.framesPerBeat = 6;
    const HeartAnatomy anatomy = HeartAnatomy::fromPhantom(phantom);
    const double cycle = phantom.cycleSeconds();
    double lastProgress = -1.0;
    bool monotone = true;
    const BakedBeat beat = bakeBeat(heart, cycle, anatomy, settings, bake, "coarse", [&](double f) {
        monotone = monotone && f >= lastProgress;
        lastProgress = f;
        return true;
    });
    EXPECT_TRUE(monotone);
    EXPECT_DOUBLE_EQ(lastProgress, 1.0);
    ASSERT_EQ(beat.framesPerBeat(), 6);
    EXPECT_DOUBLE_EQ(beat.cycleSeconds, cycle);

    // The live simulation, saved at the same moments of the beat.
    HeartSimulation live(heart, cycle, anatomy, settings);
    const double dtMax = live.solver().scene().parameters.maxTimeStep;
    BloodFrame decoded;
    for (int k = 0; k < 6; ++k) {
        const double target = double(k) / 6 * cycle;
        while (live.filling()) live.step(); // the top-up of the seeded blood, heart still
        while (live.heartTime() < target - 1e-9) live.step(float(std::min(dtMax, target - live.heartTime())));
        const BloodFrame saved = captureFrame(live);
        ASSERT_GT(saved.particles(), 100u);
        beat.decode(k, decoded);
        SCOPED_TRACE(k);
        expectWithin(decoded, saved, beat);
    }

    // Cancelling stops the bake.
    EXPECT_THROW(bakeBeat(heart, cycle, anatomy, settings, bake, "coarse", [](double f) { return f < 0.5; }),
                 std::exception);
}

TEST(BakedBeat, CacheKeysChangeWithEveryInput) {
    HeartSimulationSettings s;
    BakeSettings b;
    const std::string k0 = flowCacheKey("heart-1", 0.8, s, b);
    EXPECT_NE(k0, flowCacheKey("heart-2", 0.8, s, b));
    EXPECT_NE(k0, flowCacheKey("heart-1", 0.7, s, b));
    s.viscosity *= 2;
    EXPECT_NE(k0, flowCacheKey("heart-1", 0.8, s, b));
    EXPECT_NE(flowCacheFile("/c", k0), flowCacheFile("/c", flowCacheKey("heart-1", 0.8, s, b)));
    EXPECT_EQ(flowCacheFile("/c", k0).extension(), ".atriumflow");
    // The heart a beat was baked in is read back from its key.
    BakedBeat beat;
    beat.key = k0;
    EXPECT_EQ(bakedHeartOf(beat), "heart-1");
    beat.key = "baked elsewhere";
    EXPECT_EQ(bakedHeartOf(beat), "");
}
