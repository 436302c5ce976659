// Volume series files: round trips through .vti/.nrrd/.mha/.mhd, pattern and directory
// series, DICOM series directories, the errors that name the file at fault, and the
// suggested isovalue.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/VolumeSeries.h"
#include "sim/heart/test/HeartTestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace atrium::heart;
using atrium::sph::Vec3;

namespace {

using atrium::heart::test::TempDir;

/// A small volume with distinct, non-round values and an odd origin and spacing.
Volume sampleVolume(float marker = 0.f, int nz = 4) {
    Volume v;
    v.nx = 7;
    v.ny = 5;
    v.nz = nz;
    v.origin = {-3.25f, 1.5f, 10.125f};
    v.spacing = {0.5f, 0.75f, 1.25f};
    v.values.resize(v.voxelCount());
    for (std::size_t n = 0; n < v.values.size(); ++n)
        v.values[n] = marker + std::sin(static_cast<float>(n) * 0.37f) * 123.456f + static_cast<float>(n) / 7.f;
    return v;
}

void expectSameVolume(const Volume& a, const Volume& b) {
    EXPECT_EQ(a.nx, b.nx);
    EXPECT_EQ(a.ny, b.ny);
    EXPECT_EQ(a.nz, b.nz);
    EXPECT_EQ(a.origin, b.origin);
    EXPECT_EQ(a.spacing, b.spacing);
    ASSERT_EQ(a.values.size(), b.values.size());
    EXPECT_TRUE(std::equal(a.values.begin(), a.values.end(), b.values.begin())) << "voxel values differ";
}

/// Runs f, expects a VolumeError whose message contains every needle; returns the message.
template <class F>
std::string expectVolumeError(F&& f, const std::vector<std::string>& needles) {
    try {
        f();
    } catch (const VolumeError& e) {
        const std::string message = e.what();
        for (const auto& needle : needles) EXPECT_NE(message.find(needle), std::string::npos)
            << "message '" << message << "' lacks '" << needle << "'";
        return message;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "expected VolumeError, got: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected VolumeError, nothing was thrown";
    return {};
}

void writeText(const fs::path& file, const std::string& text) {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << text;
}

void truncateTo(const fs::path& file, double fraction) {
    const auto size = fs::file_size(file);
    fs::resize_file(file, static_cast<std::uintmax_t>(static_cast<double>(size) * fraction));
}

VolumeSeries sampleSeries(int phases) {
    VolumeSeries s;
    s.cycleSeconds = 0.8;
    for (int k = 0; k < phases; ++k) s.phases.push_back(sampleVolume(1000.f * static_cast<float>(k)));
    return s;
}

} // namespace

// ---------------------------------------------------------------------------------------
// Single files

class VolumeRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(VolumeRoundTrip, KeepsValuesSpacingAndOrigin) {
    TempDir dir;
    const Volume v = sampleVolume(7.f);
    const fs::path file = dir / ("volume" + GetParam());
    writeVolume(v, file);
    ASSERT_TRUE(fs::is_regular_file(file));
    expectSameVolume(v, readVolume(file));
}

INSTANTIATE_TEST_SUITE_P(Formats, VolumeRoundTrip, ::testing::Values(".vti", ".nrrd", ".mha", ".mhd"),
                         [](const auto& test) { return test.param.substr(1); });

TEST(VolumeFiles, VtiIsCompressed) {
    TempDir dir;
    Volume v = sampleVolume();
    v.nx = v.ny = v.nz = 32;
    v.values.assign(v.voxelCount(), 42.f); // compresses to almost nothing
    writeVolume(v, dir / "flat.vti");
    EXPECT_LT(fs::file_size(dir / "flat.vti"), v.voxelCount() * sizeof(float) / 10);
    EXPECT_EQ(readVolume(dir / "flat.vti").values, v.values);
}

TEST(VolumeFiles, UnknownExtensionIsRefused) {
    TempDir dir;
    expectVolumeError([&] { writeVolume(sampleVolume(), dir / "volume.png"); }, {"volume.png", "extension"});
    writeText(dir / "volume.xyz", "data");
    expectVolumeError([&] { (void)readVolume(dir / "volume.xyz"); }, {"volume.xyz", "extension"});
    EXPECT_THROW((void)volumeFormatFor("noextension"), VolumeError);
    EXPECT_EQ(volumeFormatFor("A.VTI"), VolumeFormat::Vti);
    EXPECT_EQ(volumeFormatFor("a.mhd"), VolumeFormat::MetaImage);
}

TEST(VolumeFiles, MissingEmptyAndGarbageFilesNameTheFile) {
    TempDir dir;
    for (const std::string ext : {".vti", ".nrrd", ".mha"}) {
        SCOPED_TRACE(ext);
        expectVolumeError([&] { (void)readVolume(dir / ("absent" + ext)); }, {"absent" + ext, "does not exist"});
        writeText(dir / ("empty" + ext), "");
        expectVolumeError([&] { (void)readVolume(dir / ("empty" + ext)); }, {"empty" + ext, "empty"});
        writeText(dir / ("garbage" + ext), "this is not an image\n\x01\x02\x03");
        expectVolumeError([&] { (void)readVolume(dir / ("garbage" + ext)); }, {"garbage" + ext});
        writeVolume(sampleVolume(), dir / ("cut" + ext));
        truncateTo(dir / ("cut" + ext), 0.6);
        expectVolumeError([&] { (void)readVolume(dir / ("cut" + ext)); }, {"cut" + ext});
    }
    writeVolume(sampleVolume(), dir / "detached.mhd");
    for (const auto& entry : fs::directory_iterator(dir.path()))
        if (entry.path().extension() == ".raw") fs::remove(entry.path());
    expectVolumeError([&] { (void)readVolume(dir / "detached.mhd"); }, {"detached.mhd", "data file"});
}

TEST(VolumeFiles, InvalidVolumeIsNotWritten) {
    TempDir dir;
    Volume v = sampleVolume();
    v.values.pop_back();
    expectVolumeError([&] { writeVolume(v, dir / "bad.vti"); }, {"bad.vti"});
    v = sampleVolume();
    v.spacing.y = 0.f;
    expectVolumeError([&] { writeVolume(v, dir / "bad.nrrd"); }, {"bad.nrrd", "spacing"});
}

// ---------------------------------------------------------------------------------------
// Series

TEST(VolumeSeriesFiles, PatternRoundTripWithProgress) {
    for (const std::string ext : {".vti", ".nrrd", ".mha"}) {
        SCOPED_TRACE(ext);
        TempDir dir;
        const VolumeSeries series = sampleSeries(4);
        std::vector<double> progress;
        const auto files =
            writeVolumeSeries(series, dir / ("out/heart_%02d" + ext), [&](double f) { progress.push_back(f); });
        ASSERT_EQ(files.size(), 4u);
        EXPECT_EQ(files[3].filename().string(), "heart_03" + ext);
        EXPECT_EQ(progress, (std::vector<double>{0.25, 0.5, 0.75, 1.0}));

        progress.clear();
        SeriesReadOptions options;
        options.cycleSeconds = 0.8;
        options.progress = [&](double f) { progress.push_back(f); };
        const VolumeSeries back = readVolumeSeries(dir / ("out/heart_%02d" + ext), options);
        ASSERT_EQ(back.phases.size(), 4u);
        EXPECT_DOUBLE_EQ(back.cycleSeconds, 0.8);
        for (std::size_t k = 0; k < 4; ++k) expectSameVolume(series.phases[k], back.phases[k]);
        EXPECT_EQ(progress.back(), 1.0);
        EXPECT_TRUE(std::is_sorted(progress.begin(), progress.end()));
    }
}

TEST(VolumeSeriesFiles, DirectoryFormUsesNaturalOrder) {
    TempDir dir;
    const VolumeSeries series = sampleSeries(12);
    writeVolumeSeries(series, dir / "series/frame_%d.vti"); // frame_2 must come before frame_10
    writeText(dir.path() / "series" / "README.txt", "not a frame");
    const VolumeSeries back = readVolumeSeries((dir.path() / "series").string());
    ASSERT_EQ(back.phases.size(), 12u);
    for (std::size_t k = 0; k < 12; ++k) expectSameVolume(series.phases[k], back.phases[k]);
    // The same series through the pattern, and the shared frame resolver.
    EXPECT_EQ(readVolumeSeries(dir / "series/frame_%d.vti").phases.size(), 12u);
    const auto frames = resolveSeriesFrames((dir.path() / "series").string(), {".vti"});
    ASSERT_EQ(frames.size(), 12u);
    EXPECT_EQ(frames[2].filename(), "frame_2.vti");
    EXPECT_EQ(frames[10].filename(), "frame_10.vti");
}

TEST(VolumeSeriesFiles, MissingFrameNamesTheFile) {
    TempDir dir;
    writeVolumeSeries(sampleSeries(10), dir / "heart_%02d.vti");
    fs::remove(dir / "heart_03.vti");
    const std::string message = expectVolumeError([&] { (void)readVolumeSeries(dir / "heart_%02d.vti"); },
                                                  {"heart_03.vti", "missing frame", "of 10"});
    // The last frame missing is only visible with the expected count.
    writeVolumeSeries(sampleSeries(10), dir / "heart_%02d.vti");
    SeriesReadOptions options;
    options.expectedPhases = 11;
    expectVolumeError([&] { (void)readVolumeSeries(dir / "heart_%02d.vti", options); }, {"heart_10.vti", "missing"});
    options.expectedPhases = 10;
    EXPECT_EQ(readVolumeSeries(dir / "heart_%02d.vti", options).phases.size(), 10u);
    expectVolumeError([&] { (void)readVolumeSeries(dir / "other_%02d.vti"); }, {"other_%02d.vti", "no file"});
}

TEST(VolumeSeriesFiles, EmptyOrUnreadablePhaseNamesTheFile) {
    TempDir dir;
    writeVolumeSeries(sampleSeries(3), dir / "heart_%02d.nrrd");
    fs::resize_file(dir / "heart_01.nrrd", 0);
    expectVolumeError([&] { (void)readVolumeSeries(dir / "heart_%02d.nrrd"); }, {"heart_01.nrrd", "empty"});
    writeText(dir / "heart_01.nrrd", "NRRD0004\ntype: banana\n\n");
    expectVolumeError([&] { (void)readVolumeSeries(dir.path().string()); }, {"heart_01.nrrd"});
}

TEST(VolumeSeriesFiles, MismatchedSizesOrSpacingNameBothFiles) {
    TempDir dir;
    VolumeSeries series = sampleSeries(6);
    series.phases[4] = sampleVolume(0.f, 3);
    writeVolumeSeries(series, dir / "heart_%02d.vti");
    expectVolumeError([&] { (void)readVolumeSeries(dir / "heart_%02d.vti"); },
                      {"heart_04.vti", "7x5x3 voxels", "heart_00.vti has 7x5x4"});

    series = sampleSeries(3);
    series.phases[2].spacing.z = 2.f;
    writeVolumeSeries(series, dir / "spaced_%02d.mha");
    expectVolumeError([&] { (void)readVolumeSeries(dir / "spaced_%02d.mha"); }, {"spaced_02.mha", "spacing", "spaced_00.mha"});
}

TEST(VolumeSeriesFiles, UnknownOrMixedExtensions) {
    TempDir dir;
    writeText(dir / "heart_00.xyz", "x");
    writeText(dir / "heart_01.xyz", "x");
    expectVolumeError([&] { (void)readVolumeSeries(dir / "heart_%02d.xyz"); }, {"heart_00.xyz", "extension"});
    expectVolumeError([&] { writeVolumeSeries(sampleSeries(2), dir / "out_%d.png"); }, {"out_0.png", "extension"});

    TempDir mixed;
    writeVolume(sampleVolume(), mixed / "a.vti");
    writeVolume(sampleVolume(), mixed / "b.nrrd");
    expectVolumeError([&] { (void)readVolumeSeries(mixed.path().string()); }, {mixed.path().filename().string(), "several kinds"});

    TempDir empty;
    expectVolumeError([&] { (void)readVolumeSeries(empty.path().string()); }, {empty.path().filename().string(), "no volume files"});
    expectVolumeError([&] { (void)readVolumeSeries(empty / "absent"); }, {"absent", "does not exist"});
}

TEST(VolumeSeriesFiles, PatternFormatting) {
    EXPECT_EQ(formatSeriesPattern("a/b_%03d.vti", 7), "a/b_007.vti");
    EXPECT_EQ(formatSeriesPattern("100%%_%d.nrrd", 12), "100%_12.nrrd");
    EXPECT_EQ(formatSeriesPattern("p%i", 3), "p3");
    EXPECT_THROW((void)formatSeriesPattern("none.vti", 1), std::invalid_argument);
    EXPECT_THROW((void)formatSeriesPattern("two_%d_%d.vti", 1), std::invalid_argument);
    EXPECT_THROW((void)formatSeriesPattern("float_%f.vti", 1), std::invalid_argument);
    EXPECT_THROW((void)formatSeriesPattern("str_%s.vti", 1), std::invalid_argument);
}

TEST(VolumeSeriesFiles, PhantomSeriesRoundTrip) {
    TempDir dir;
    PhantomParameters p;
    p.phases = 3;
    p.voxelSizeMm = 3.0;
    const VolumeSeries series = HeartPhantom(p).generate();
    writeVolumeSeries(series, dir / "phantom_%02d.vti");
    SeriesReadOptions options;
    options.cycleSeconds = series.cycleSeconds;
    const VolumeSeries back = readVolumeSeries(dir / "phantom_%02d.vti", options);
    ASSERT_EQ(back.phases.size(), 3u);
    for (std::size_t k = 0; k < 3; ++k) expectSameVolume(series.phases[k], back.phases[k]);
}

// ---------------------------------------------------------------------------------------
// DICOM

namespace {

/// Writes one CT slice as explicit-VR little-endian DICOM (the subset VTK's reader uses).
class DicomSliceWriter {
public:
    void element(std::uint16_t group, std::uint16_t elem, const char* vr, std::string value) {
        const bool isUid = std::strcmp(vr, "UI") == 0;
        if (value.size() % 2) value += isUid ? '\0' : ' ';
        put16(group);
        put16(elem);
        out_.append(vr, 2);
        const bool longForm = !std::strcmp(vr, "OB") || !std::strcmp(vr, "OW") || !std::strcmp(vr, "SQ") ||
                              !std::strcmp(vr, "UN") || !std::strcmp(vr, "UT");
        if (longForm) {
            put16(0);
            put32(static_cast<std::uint32_t>(value.size()));
        } else {
            put16(static_cast<std::uint16_t>(value.size()));
        }
        out_ += value;
    }
    void us(std::uint16_t group, std::uint16_t elem, std::uint16_t v) {
        std::string bytes(2, '\0');
        bytes[0] = static_cast<char>(v & 0xff);
        bytes[1] = static_cast<char>(v >> 8);
        element(group, elem, "US", bytes);
    }
    std::string take() { return std::move(out_); }

private:
    void put16(std::uint16_t v) {
        out_ += static_cast<char>(v & 0xff);
        out_ += static_cast<char>(v >> 8);
    }
    void put32(std::uint32_t v) {
        for (int b = 0; b < 4; ++b) out_ += static_cast<char>((v >> (8 * b)) & 0xff);
    }
    std::string out_;
};

struct DicomSlice {
    int columns, rows, instance;
    Vec3 position;
    float columnSpacing, rowSpacing, thickness;
    std::vector<std::int16_t> stored; // row-major, first row first
    float intercept;
};

void writeDicomSlice(const fs::path& file, const DicomSlice& s) {
    const std::string uidRoot = "1.2.826.0.1.3680043.2.1125.77.";
    DicomSliceWriter meta;
    meta.element(0x0002, 0x0001, "OB", std::string("\0\1", 2));
    meta.element(0x0002, 0x0002, "UI", "1.2.840.10008.5.1.4.1.1.2");
    meta.element(0x0002, 0x0003, "UI", uidRoot + std::to_string(s.instance));
    meta.element(0x0002, 0x0010, "UI", "1.2.840.10008.1.2.1");
    const std::string metaBody = meta.take();
    DicomSliceWriter head;
    std::string length(4, '\0');
    for (int b = 0; b < 4; ++b) length[static_cast<std::size_t>(b)] = static_cast<char>((metaBody.size() >> (8 * b)) & 0xff);
    head.element(0x0002, 0x0000, "UL", length);

    const auto ds = [](double v) {
        std::string text = std::to_string(v);
        text.erase(text.find_last_not_of('0') + 1);
        if (text.back() == '.') text.pop_back();
        return text;
    };
    DicomSliceWriter data;
    data.element(0x0008, 0x0016, "UI", "1.2.840.10008.5.1.4.1.1.2");
    data.element(0x0008, 0x0018, "UI", uidRoot + std::to_string(s.instance));
    data.element(0x0008, 0x0060, "CS", "CT");
    data.element(0x0010, 0x0010, "PN", "Phantom^Atrium");
    data.element(0x0018, 0x0050, "DS", ds(s.thickness));
    data.element(0x0020, 0x000D, "UI", uidRoot + "1");
    data.element(0x0020, 0x000E, "UI", uidRoot + "2");
    data.element(0x0020, 0x0013, "IS", std::to_string(s.instance));
    data.element(0x0020, 0x0032, "DS", ds(s.position.x) + "\\" + ds(s.position.y) + "\\" + ds(s.position.z));
    data.element(0x0020, 0x0037, "DS", "1\\0\\0\\0\\1\\0");
    data.us(0x0028, 0x0002, 1);
    data.element(0x0028, 0x0004, "CS", "MONOCHROME2");
    data.us(0x0028, 0x0010, static_cast<std::uint16_t>(s.rows));
    data.us(0x0028, 0x0011, static_cast<std::uint16_t>(s.columns));
    data.element(0x0028, 0x0030, "DS", ds(s.rowSpacing) + "\\" + ds(s.columnSpacing));
    data.us(0x0028, 0x0100, 16);
    data.us(0x0028, 0x0101, 16);
    data.us(0x0028, 0x0102, 15);
    data.us(0x0028, 0x0103, 1);
    data.element(0x0028, 0x1052, "DS", ds(s.intercept));
    data.element(0x0028, 0x1053, "DS", "1");
    std::string pixels(s.stored.size() * 2, '\0');
    for (std::size_t n = 0; n < s.stored.size(); ++n) {
        const auto u = static_cast<std::uint16_t>(s.stored[n]);
        pixels[2 * n] = static_cast<char>(u & 0xff);
        pixels[2 * n + 1] = static_cast<char>(u >> 8);
    }
    data.element(0x7FE0, 0x0010, "OW", pixels);

    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out << std::string(128, '\0') << "DICM" << head.take() << metaBody << data.take();
}

/// HU value of column i, row j, slice k of test phase `phase`.
float dicomValue(int phase, int i, int j, int k) { return static_cast<float>(10 * i + 100 * j + 1000 * k - 500 + 7 * phase); }

/// One phase: 5 columns x 3 rows x 4 slices, files written in a shuffled order.
void writeDicomPhase(const fs::path& dir, int phase) {
    fs::create_directories(dir);
    constexpr int columns = 5, rows = 3, slices = 4;
    for (int k = 0; k < slices; ++k) {
        DicomSlice s{columns, rows, k + 1, {-10.f, 20.f, 50.f + 2.5f * static_cast<float>(k)}, 0.7f, 0.8f, 2.5f, {}, -1024.f};
        for (int j = 0; j < rows; ++j)
            for (int i = 0; i < columns; ++i)
                s.stored.push_back(static_cast<std::int16_t>(dicomValue(phase, i, j, k) + 1024.f));
        writeDicomSlice(dir / ("IM" + std::to_string((k * 3 + 1) % slices) + ".dcm"), s);
    }
}

void expectDicomPhase(const Volume& v, int phase) {
    ASSERT_EQ(v.nx, 5);
    ASSERT_EQ(v.ny, 3);
    ASSERT_EQ(v.nz, 4);
    EXPECT_NEAR(v.spacing.x, 0.7f, 1e-5f);
    EXPECT_NEAR(v.spacing.y, 0.8f, 1e-5f);
    EXPECT_NEAR(v.spacing.z, 2.5f, 1e-5f);
    EXPECT_NEAR(v.origin.x, -10.f, 1e-5f);
    EXPECT_NEAR(v.origin.y, 20.f, 1e-5f);
    EXPECT_NEAR(v.origin.z, 50.f, 1e-5f);
    for (int k = 0; k < v.nz; ++k)
        for (int j = 0; j < v.ny; ++j)
            for (int i = 0; i < v.nx; ++i) ASSERT_EQ(v.at(i, j, k), dicomValue(phase, i, j, k)) << i << ',' << j << ',' << k;
}

} // namespace

TEST(DicomSeries, ReadsSlicesInPositionOrderWithRescale) {
    TempDir dir;
    writeDicomPhase(dir.path() / "phase_0", 0);
    expectDicomPhase(readDicomVolume(dir.path() / "phase_0"), 0);
}

TEST(DicomSeries, OneDirectoryPerPhaseByListPatternOrParent) {
    TempDir dir;
    std::vector<fs::path> phases;
    for (int p = 0; p < 3; ++p) {
        phases.push_back(dir.path() / ("phase_" + std::to_string(p)));
        writeDicomPhase(phases.back(), p);
    }
    SeriesReadOptions options;
    options.cycleSeconds = 0.9;
    for (const VolumeSeries& series : {readDicomSeries(phases, options), readVolumeSeries(dir / "phase_%d", options),
                                       readVolumeSeries(dir.path().string(), options)}) {
        ASSERT_EQ(series.phases.size(), 3u);
        EXPECT_DOUBLE_EQ(series.cycleSeconds, 0.9);
        for (int p = 0; p < 3; ++p) expectDicomPhase(series.phases[static_cast<std::size_t>(p)], p);
    }
}

TEST(DicomSeries, EmptyGarbageOrMissingDirectoryGivesAClearError) {
    TempDir dir;
    fs::create_directories(dir.path() / "empty_phase");
    expectVolumeError([&] { (void)readDicomVolume(dir.path() / "empty_phase"); }, {"empty_phase", "empty DICOM directory"});

    fs::create_directories(dir.path() / "garbage_phase");
    writeText(dir.path() / "garbage_phase" / "IM0.dcm", std::string(300, 'x'));
    writeText(dir.path() / "garbage_phase" / "notes.txt", "hello");
    expectVolumeError([&] { (void)readDicomVolume(dir.path() / "garbage_phase"); }, {"garbage_phase", "no readable DICOM image"});

    expectVolumeError([&] { (void)readDicomVolume(dir.path() / "absent_phase"); }, {"absent_phase", "does not exist"});

    // In a series, the bad phase is the one named.
    writeDicomPhase(dir.path() / "series" / "p0", 0);
    fs::create_directories(dir.path() / "series" / "p1");
    expectVolumeError([&] { (void)readDicomSeries({dir.path() / "series" / "p0", dir.path() / "series" / "p1"}); },
                      {"p1", "empty DICOM directory"});
    expectVolumeError([&] { (void)readVolumeSeries((dir.path() / "series").string()); }, {"p1", "empty"});
}

// ---------------------------------------------------------------------------------------
// Isovalue

TEST(SuggestIsovalue, SeparatesBrightClassFromTwoDarkerOnes) {
    // 60 % background at 0, 25 % tissue at 100, 15 % blood at 300, noise 10.
    Volume v;
    v.nx = 100;
    v.ny = 100;
    v.nz = 10;
    v.values.resize(v.voxelCount());
    std::mt19937 rng(5);
    std::normal_distribution<float> noise(0.f, 10.f);
    for (std::size_t n = 0; n < v.values.size(); ++n) {
        const std::size_t bucket = n % 20;
        const float base = bucket < 12 ? 0.f : (bucket < 17 ? 100.f : 300.f);
        v.values[n] = base + noise(rng);
    }
    const float iso = suggestIsovalue(v);
    EXPECT_GT(iso, 150.f);
    EXPECT_LT(iso, 250.f);

    // Shifted to CT-like numbers (air -1000 as background), the threshold follows.
    for (auto& value : v.values) value = value < 50.f ? value - 1000.f : value;
    const float shifted = suggestIsovalue(v);
    EXPECT_GT(shifted, 130.f);
    EXPECT_LT(shifted, 270.f);

    Volume constant = v;
    std::fill(constant.values.begin(), constant.values.end(), 5.f);
    EXPECT_EQ(suggestIsovalue(constant), 5.f);
    EXPECT_THROW((void)suggestIsovalue(Volume{}), std::invalid_argument);
}
