#include "sim/heart/BakedBeat.h"

#include "io/AtomicFile.h"
#include "io/BinaryIo.h"
#include "io/MemoryBudget.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <sstream>


namespace atrium::heart {
namespace {

static_assert(std::endian::native == std::endian::little, "the baked-beat format is little-endian");

constexpr char kMagic[8] = {'A', 'T', 'R', 'F', 'L', 'O', 'W', '1'};
/// Bounds on what a file may declare, far beyond any heart, so that decoding and
/// playback stay finite: coordinates (mm), speed (m/s), value ranges, cycle (s).
constexpr float kMaxCoordinateMm = 1e6f, kMaxSpeed = 1e3f, kMaxValue = 1e9f;
constexpr double kMaxCycleSeconds = 60.0;
/// Largest file read back: ~18 frames of a million particles, far above any bake.
constexpr std::uintmax_t kMaxFileBytes = std::uintmax_t(4) << 30;

/// The hash of `n` bytes at `p` (io/BinaryIo.h): the file's checksum and the key's name.
std::uint64_t fnv1a(const void* p, std::size_t n) { return io::fnv1a(io::kFnvOffset, p, n); }

/// io::ByteReader whose failures are BakedBeatErrors naming the source and the byte.
class Reader : public io::ByteReader {
public:
    Reader(std::span<const std::byte> bytes, const std::string& source) : io::ByteReader(bytes), source_(source) {}
    template <class T>
    T get(const char* what) {
        try {
            return value<T>(what);
        } catch (const io::BinaryInputError& e) {
            throw BakedBeatError(source_ + ": " + e.what());
        }
    }
    std::span<const std::byte> take(std::size_t n, const char* what) {
        try {
            return bytes(n, what);
        } catch (const io::BinaryInputError& e) {
            throw BakedBeatError(source_ + ": " + e.what());
        }
    }
    std::size_t left() const { return remaining(); }
    [[noreturn]] void fail(const std::string& message) const {
        throw BakedBeatError(source_ + ": " + message + " (at byte " + std::to_string(position()) + ")");
    }

private:
    const std::string& source_;
};

std::uint16_t quantise(float v, float lo, float hi) {
    if (!(hi > lo)) return 0;
    const double t = std::clamp((double(v) - lo) / (double(hi) - lo), 0.0, 1.0);
    return std::uint16_t(std::lround(t * 65535.0));
}

float dequantise(std::uint16_t q, float lo, float hi) { return float(lo + (double(hi) - lo) * (q / 65535.0)); }

bool finite(float v) { return std::isfinite(v); }

} // namespace

BakedBeat::BakedBeat(std::string keyText, double cycle, double spacingMm, sph::Aabb box,
                     const std::vector<BloodFrame>& frames)
    : key(std::move(keyText)), cycleSeconds(cycle), particleSpacingMm(spacingMm), boxMm(box) {
    if (frames.size() < std::size_t(kMinFrames) || frames.size() > std::size_t(kMaxFrames))
        throw std::invalid_argument("baked beat: " + std::to_string(frames.size()) + " frames, expected " +
                                    std::to_string(kMinFrames) + " to " + std::to_string(kMaxFrames));
    if (!(cycle > 0.0) || !(cycle <= kMaxCycleSeconds))
        throw std::invalid_argument("baked beat: cycleSeconds must be in (0, 60]");
    if (!(spacingMm > 0.0) || !std::isfinite(spacingMm))
        throw std::invalid_argument("baked beat: particleSpacingMm must be > 0");
    for (int a = 0; a < 3; ++a)
        if (!(std::fabs(box.lo[a]) <= kMaxCoordinateMm) || !(std::fabs(box.hi[a]) <= kMaxCoordinateMm) ||
            !(box.hi[a] > box.lo[a]))
            throw std::invalid_argument("baked beat: the box must not be empty nor reach beyond 1 km");
    if (key.size() > kMaxKeyBytes) throw std::invalid_argument("baked beat: key longer than 64 KiB");

    // The ranges of the whole beat, so that every frame shares one quantisation.
    bool first = true;
    for (const BloodFrame& f : frames) {
        const std::size_t n = f.particles();
        if (f.positionMm.size() != 3 * n || f.velocity.size() != 3 * n || f.densityError.size() != n ||
            f.pressure.size() != n)
            throw std::invalid_argument("baked beat: a frame's arrays disagree in length");
        if (n > kMaxParticlesPerFrame) throw std::invalid_argument("baked beat: too many particles in a frame");
        for (float v : f.velocity) {
            if (!finite(v)) throw std::invalid_argument("baked beat: a velocity is not finite");
            speedMax_ = std::max(speedMax_, std::fabs(v));
        }
        for (std::size_t i = 0; i < n; ++i) {
            if (!finite(f.densityError[i]) || !finite(f.pressure[i]))
                throw std::invalid_argument("baked beat: a density or pressure is not finite");
            if (first) {
                densityError_ = {f.densityError[i], f.densityError[i]};
                pressure_ = {f.pressure[i], f.pressure[i]};
                first = false;
            }
            densityError_ = {std::min(densityError_.min, f.densityError[i]), std::max(densityError_.max, f.densityError[i])};
            pressure_ = {std::min(pressure_.min, f.pressure[i]), std::max(pressure_.max, f.pressure[i])};
        }
        for (float v : f.positionMm)
            if (!finite(v)) throw std::invalid_argument("baked beat: a position is not finite");
    }
    if (speedMax_ > kMaxSpeed) throw std::invalid_argument("baked beat: blood faster than 1000 m/s");
    for (const Range r : {densityError_, pressure_})
        if (std::fabs(r.min) > kMaxValue || std::fabs(r.max) > kMaxValue)
            throw std::invalid_argument("baked beat: a density or pressure beyond 1e9");
    frames_.reserve(frames.size());
    for (const BloodFrame& f : frames) {
        Frame q;
        q.particles = f.particles();
        q.data.resize(8 * q.particles);
        for (std::size_t i = 0; i < q.particles; ++i) {
            std::uint16_t* d = &q.data[8 * i];
            for (int a = 0; a < 3; ++a) {
                d[a] = quantise(f.positionMm[3 * i + std::size_t(a)], boxMm.lo[a], boxMm.hi[a]);
                d[3 + a] = quantise(f.velocity[3 * i + std::size_t(a)], -speedMax_, speedMax_);
            }
            d[6] = quantise(f.densityError[i], densityError_.min, densityError_.max);
            d[7] = quantise(f.pressure[i], pressure_.min, pressure_.max);
        }
        frames_.push_back(std::move(q));
    }
}

double BakedBeat::positionStepMm() const {
    double step = 0.0;
    for (int a = 0; a < 3; ++a) step = std::max(step, (double(boxMm.hi[a]) - boxMm.lo[a]) / 65535.0);
    return step;
}

void BakedBeat::decode(int k, BloodFrame& out) const {
    const Frame& f = frames_.at(std::size_t(k));
    const std::size_t n = f.particles;
    out.positionMm.resize(3 * n);
    out.velocity.resize(3 * n);
    out.densityError.resize(n);
    out.pressure.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t* d = &f.data[8 * i];
        for (int a = 0; a < 3; ++a) {
            out.positionMm[3 * i + std::size_t(a)] = dequantise(d[a], boxMm.lo[a], boxMm.hi[a]);
            out.velocity[3 * i + std::size_t(a)] = dequantise(d[3 + a], -speedMax_, speedMax_);
        }
        out.densityError[i] = dequantise(d[6], densityError_.min, densityError_.max);
        out.pressure[i] = dequantise(d[7], pressure_.min, pressure_.max);
    }
}

std::pair<int, double> BakedBeat::nearestFrame(double phase) const {
    const int count = framesPerBeat();
    const double wrapped = phase - std::floor(phase);
    const double x = wrapped * count;
    const double nearest = std::round(x);
    return {int(nearest) % count, (x - nearest) * cycleSeconds / count};
}

void BakedBeat::sampleAt(double phase, BloodFrame& out) const {
    const auto [k, dt] = nearestFrame(phase);
    decode(k, out);
    const float moveMm = float(dt * 1000.0); // m/s x s -> mm
    for (std::size_t i = 0; i < out.positionMm.size(); ++i) out.positionMm[i] += out.velocity[i] * moveMm;
}

std::string BakedBeat::serialize() const {
    std::string out;
    std::size_t bytes = 128 + key.size();
    for (const Frame& f : frames_) bytes += 4 + kBytesPerParticle * f.particles;
    out.reserve(bytes);
    io::ByteWriter w(out);
    w.bytes(kMagic, sizeof kMagic);
    w.value(kFormatVersion);
    w.value(std::uint32_t(frames_.size()));
    w.value(std::uint64_t(key.size()));
    w.bytes(key.data(), key.size());
    w.value(cycleSeconds);
    w.value(particleSpacingMm);
    for (int a = 0; a < 3; ++a) w.value(boxMm.lo[a]);
    for (int a = 0; a < 3; ++a) w.value(boxMm.hi[a]);
    w.value(speedMax_);
    w.value(densityError_.min);
    w.value(densityError_.max);
    w.value(pressure_.min);
    w.value(pressure_.max);
    for (const Frame& f : frames_) {
        w.value(std::uint32_t(f.particles));
        w.words<std::uint16_t>(f.data);
    }
    w.checksum();
    return out;
}

BakedBeat BakedBeat::parse(std::span<const std::byte> bytes, const std::string& source) {
    Reader in(bytes, source);
    const auto magic = in.take(sizeof kMagic, "magic");
    if (std::memcmp(magic.data(), kMagic, sizeof kMagic) != 0) in.fail("not a baked beat (no ATRFLOW1 magic)");
    const auto version = in.get<std::uint32_t>("version");
    if (version != kFormatVersion)
        in.fail("format version " + std::to_string(version) + ", this Atrium reads " + std::to_string(kFormatVersion));
    const auto frameCount = in.get<std::uint32_t>("frame count");
    if (frameCount < std::uint32_t(kMinFrames) || frameCount > std::uint32_t(kMaxFrames))
        in.fail("frame count " + std::to_string(frameCount) + " outside " + std::to_string(kMinFrames) + ".." +
                std::to_string(kMaxFrames));
    const auto keyBytes = in.get<std::uint64_t>("key length");
    if (keyBytes > kMaxKeyBytes) in.fail("key length " + std::to_string(keyBytes) + " above 64 KiB");
    const auto keyData = in.take(std::size_t(keyBytes), "key");

    BakedBeat beat;
    beat.key.assign(reinterpret_cast<const char*>(keyData.data()), keyData.size());
    beat.cycleSeconds = in.get<double>("cycleSeconds");
    if (!(beat.cycleSeconds > 0.0) || !(beat.cycleSeconds <= kMaxCycleSeconds))
        in.fail("cycleSeconds must be in (0, 60]");
    beat.particleSpacingMm = in.get<double>("particleSpacingMm");
    if (!(beat.particleSpacingMm > 0.0) || !std::isfinite(beat.particleSpacingMm))
        in.fail("particleSpacingMm must be > 0");
    float box[6];
    for (float& v : box) v = in.get<float>("box");
    beat.boxMm = {{box[0], box[1], box[2]}, {box[3], box[4], box[5]}};
    for (int a = 0; a < 3; ++a)
        if (!(std::fabs(beat.boxMm.lo[a]) <= kMaxCoordinateMm) || !(std::fabs(beat.boxMm.hi[a]) <= kMaxCoordinateMm) ||
            !(beat.boxMm.hi[a] > beat.boxMm.lo[a]))
            in.fail("the box is empty or beyond 1 km");
    beat.speedMax_ = in.get<float>("speedMax");
    beat.densityError_ = {in.get<float>("density error range"), in.get<float>("density error range")};
    beat.pressure_ = {in.get<float>("pressure range"), in.get<float>("pressure range")};
    if (!(beat.speedMax_ >= 0.f && beat.speedMax_ <= kMaxSpeed)) in.fail("speedMax must be in [0, 1000] m/s");
    for (const Range r : {beat.densityError_, beat.pressure_})
        if (!(std::fabs(r.min) <= kMaxValue) || !(std::fabs(r.max) <= kMaxValue) || r.max < r.min)
            in.fail("a value range is reversed or beyond 1e9");

    beat.frames_.resize(frameCount);
    for (std::uint32_t k = 0; k < frameCount; ++k) {
        const auto n = in.get<std::uint32_t>("particle count");
        // The count is checked against what is left before anything is allocated.
        if (n > kMaxParticlesPerFrame || std::size_t(n) * kBytesPerParticle > in.left())
            in.fail("frame " + std::to_string(k) + " claims " + std::to_string(n) + " particles, more than the " +
                    std::to_string(in.left()) + " bytes left hold");
        const auto data = in.take(std::size_t(n) * kBytesPerParticle, "particles");
        Frame& f = beat.frames_[k];
        f.particles = n;
        f.data.resize(8 * std::size_t(n));
        if (n > 0) std::memcpy(f.data.data(), data.data(), data.size()); // an empty frame has no buffer to copy to
    }
    const std::size_t body = bytes.size() - in.left();
    const auto checksum = in.get<std::uint64_t>("checksum");
    if (in.left() != 0) in.fail(std::to_string(in.left()) + " bytes after the checksum");
    if (checksum != fnv1a(reinterpret_cast<const char*>(bytes.data()), body))
        in.fail("checksum mismatch: the file was changed or damaged");
    return beat;
}

void BakedBeat::save(const std::filesystem::path& file) const {
    // Whole or not at all (temporary file, checked, synced, renamed); temporaries that
    // killed saves left beside it are removed first.
    try {
        if (file.has_parent_path()) io::removeStaleTemporaries(file.parent_path());
        io::writeFileAtomically(file, serialize());
    } catch (const io::WriteError& e) {
        throw BakedBeatError(e.what());
    }
}

BakedBeat BakedBeat::load(const std::filesystem::path& file) {
    std::error_code ec;
    const std::uintmax_t size = std::filesystem::file_size(file, ec);
    if (ec) throw BakedBeatError(file.string() + ": cannot read: " + ec.message());
    if (size > kMaxFileBytes) throw BakedBeatError(file.string() + ": " + std::to_string(size) + " bytes, above the 4 GiB limit");
    if (!io::fitsMemoryBudget(double(size)))
        throw BakedBeatError(file.string() + ": " + std::to_string(size) + " bytes " + io::overBudgetText(double(size)));
    std::vector<std::byte> data(static_cast<std::size_t>(size));
    std::ifstream in(file, std::ios::binary);
    if (!in || !in.read(reinterpret_cast<char*>(data.data()), std::streamsize(data.size())))
        throw BakedBeatError(file.string() + ": cannot read");
    return parse(data, file.string());
}

BloodFrame captureFrame(const HeartSimulation& simulation) {
    const sph::Solver& solver = simulation.solver();
    sph::HostParticles h;
    solver.read(sph::FieldAll, h);
    simulation.physiologicalPressure(h);
    const float rho0 = solver.restDensity();
    BloodFrame f;
    const std::size_t n = h.position.size();
    f.positionMm.resize(3 * n);
    f.velocity.resize(3 * n);
    f.densityError.resize(n);
    f.pressure.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        for (int a = 0; a < 3; ++a) {
            f.positionMm[3 * i + std::size_t(a)] = 1000.f * h.position[i][a];
            f.velocity[3 * i + std::size_t(a)] = h.velocity[i][a];
        }
        f.densityError[i] = i < h.density.size() ? h.density[i] / rho0 - 1.f : 0.f;
        f.pressure[i] = i < h.pressure.size() ? h.pressure[i] : 0.f;
    }
    return f;
}

BakedBeat bakeBeat(const MovingHeartMesh& heart, double cycleSeconds, const HeartAnatomy& anatomy,
                   const HeartSimulationSettings& simulation, const BakeSettings& settings, std::string key,
                   const std::function<bool(double)>& progress) {
    if (!(settings.settleBeats >= 0.0) || !std::isfinite(settings.settleBeats))
        throw std::invalid_argument("bake: settleBeats must be >= 0");
    if (settings.framesPerBeat < BakedBeat::kMinFrames || settings.framesPerBeat > BakedBeat::kMaxFrames)
        throw std::invalid_argument("bake: framesPerBeat must be in " + std::to_string(BakedBeat::kMinFrames) + ".." +
                                    std::to_string(BakedBeat::kMaxFrames));
    constexpr double kPreparation = 0.05;
    HeartSimulation sim(heart, cycleSeconds, anatomy, simulation,
                        [&](double f) { return !progress || progress(kPreparation * f); });
    // Record a whole beat that starts on a beat: the frames' phases are k / frames.
    const double start = std::ceil(settings.settleBeats);
    const double total = start + 1.0;
    const auto report = [&] {
        if (progress && !progress(kPreparation + (1.0 - kPreparation) * std::clamp(sim.beats() / total, 0.0, 1.0)))
            throw BakeCancelled();
    };
    std::uint64_t steps = 0;
    while (sim.filling() || sim.beats() < start) {
        sim.step();
        if (++steps % 16 == 0) report();
    }
    const double dtMax = sim.solver().scene().parameters.maxTimeStep;
    std::vector<BloodFrame> frames;
    frames.reserve(std::size_t(settings.framesPerBeat));
    for (int k = 0; k < settings.framesPerBeat; ++k) {
        // Step exactly onto the frame's moment of the beat.
        const double target = (start + double(k) / settings.framesPerBeat) * cycleSeconds;
        while (sim.heartTime() < target - 1e-9) {
            sim.step(float(std::min(dtMax, target - sim.heartTime())));
            if (++steps % 16 == 0) report();
        }
        frames.push_back(captureFrame(sim));
    }
    const sph::Aabb domain = sim.solver().scene().parameters.domain.value(); // HeartSimulation sets it
    const sph::Aabb boxMm{domain.lo * 1000.f, domain.hi * 1000.f};
    BakedBeat beat(std::move(key), cycleSeconds, simulation.particleSpacingMm, boxMm, frames);
    if (progress) progress(1.0);
    return beat;
}

std::string flowCacheKey(const std::string& heartKey, double cycleSeconds, const HeartSimulationSettings& s,
                         const BakeSettings& b) {
    std::ostringstream k;
    k << std::setprecision(17) << "atrium-flow " << BakedBeat::kFormatVersion << "\nheart " << heartKey
      << "\ncycleSeconds " << cycleSeconds << "\nspacingMm " << s.particleSpacingMm << "\nmaxParticles "
      << s.maxParticles << "\nfill " << int(s.fill) << "\nrelaxationSteps " << s.relaxationSteps << "\ninflowSpeed "
      << s.inflowSpeed << "\nvenousReturn " << s.venousReturn << " " << s.venousReturnMaxSpeed << "\nsuctionPa " << s.diastolicSuctionPa << "\nvalveTiming " << s.valveTiming
      << "\nisovolumicFraction " << s.isovolumicFraction << "\nsoundSpeed " << s.soundSpeed << "\nviscosity "
      << s.viscosity << "\nwallTravel " << s.wallTravelPerUpdate << "\nsettleBeats " << b.settleBeats
      << "\nframesPerBeat " << b.framesPerBeat << "\n";
    // Off by default; named only when on, so that the keys of earlier bakes stay.
    if (s.venousReturnRefill > 0.0) k << "venousReturnRefill " << s.venousReturnRefill << "\n";
    return k.str();
}

std::string bakedHeartOf(const BakedBeat& beat) {
    const std::string tag = "\nheart ";
    const auto at = beat.key.find(tag);
    if (at == std::string::npos) return {};
    const auto from = at + tag.size();
    return beat.key.substr(from, beat.key.find('\n', from) - from);
}

std::filesystem::path flowCacheFile(const std::filesystem::path& directory, const std::string& key) {
    return directory / ("flow-" + io::hex64(fnv1a(key.data(), key.size())) + ".atriumflow");
}

} // namespace atrium::heart
