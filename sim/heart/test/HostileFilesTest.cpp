// Regression tests of issue 11 for the heart's readers: files that crashed, hung,
// exhausted memory or were accepted with bad data before. Each is refused with a
// MeshError / VolumeError that names the file and what is wrong. The inputs are the
// regression seeds of the fuzz corpora (tests/fuzz/corpus/<format>/regression-*).

#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshSeries.h"
#include "sim/heart/VolumeSeries.h"
#include "sim/heart/VtkMessageRouting.h"
#include "io/MemoryBudget.h"

#include "HeartTestSupport.h"

#include <gtest/gtest.h>

#include <vtkNew.h>
#include <vtkPolyData.h>
#include <vtkXMLPolyDataWriter.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace atrium;
using atrium::heart::MeshError;
using atrium::heart::VolumeError;
using atrium::heart::test::TempDir;
namespace fs = std::filesystem;

namespace {

const fs::path kCorpus = fs::path(ATRIUM_FUZZ_CORPUS_DIR);

template <class Error, class F>
std::string errorOf(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    ADD_FAILURE() << "no error thrown";
    return {};
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string meshError(const fs::path& file) {
    return errorOf<MeshError>([&] { heart::readMesh(file); });
}

void write(const fs::path& file, const std::string& text) { std::ofstream(file, std::ios::binary) << text; }

std::string slurp(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace

TEST(HostileFiles, TruncatedPlyIsRefusedNotACrash) {
    for (const char* name : {"regression-truncated-ascii.ply", "regression-truncated-binary.ply"}) {
        const fs::path file = kCorpus / "ply" / name;
        const std::string what = meshError(file);
        EXPECT_TRUE(has(what, file.string() + ": truncated")) << what;
    }
}

TEST(HostileFiles, ObjVertexThatIsNotANumberIsRefusedLikePlyAndStl) {
    const std::string what = meshError(kCorpus / "obj" / "regression-nan-vertex.obj");
    EXPECT_TRUE(has(what, "regression-nan-vertex.obj: line 1: vertex 1 is not finite")) << what;
    TempDir dir;
    write(dir.path() / "nan.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
                                  "property float z\nelement face 1\nproperty list uchar int vertex_indices\nend_header\n"
                                  "0 0 0\nnan 1 0\n0 1 0\n3 0 1 2\n");
    EXPECT_TRUE(has(meshError(dir.path() / "nan.ply"), "vertex 1 is not finite")) << meshError(dir.path() / "nan.ply");
}

TEST(HostileFiles, IndexPastTheEndIsRefusedNamingTheCell) {
    const std::string vtk = meshError(kCorpus / "vtk" / "regression-index-past-end.vtk");
    EXPECT_TRUE(has(vtk, "regression-index-past-end.vtk: polygon 3 uses point 7, but the file has 4 points")) << vtk;
    const std::string obj = meshError(kCorpus / "obj" / "regression-index-past-end.obj");
    EXPECT_TRUE(has(obj, "line 8: face 4 uses vertex 9, but the file has 4 vertices")) << obj;
    // VTK's XML reader does not check connectivity; Atrium does, before it triangulates.
    TempDir dir;
    std::string vtp = slurp(kCorpus / "vtp" / "tetra-ascii.vtp");
    const std::string polys = "          0 2 1 0 1 3\n          0 3 2 1 2 3\n";
    ASSERT_TRUE(has(vtp, polys)) << "the seed changed";
    vtp.replace(vtp.find(polys), polys.size(), "          0 2 1 0 1 3\n          0 3 2 1 2 9\n");
    write(dir.path() / "bad.vtp", vtp);
    const std::string xml = meshError(dir.path() / "bad.vtp");
    EXPECT_TRUE(has(xml, "bad.vtp: polygon 3 uses point 9, but the file has 4 points")) << xml;
}

TEST(HostileFiles, SmallHeaderDeclaringGigabytesIsRefusedBeforeAllocating) {
    // 220 bytes declaring 10^9 polygons: VTK allocated 16 GB for it.
    const std::string vtk = meshError(kCorpus / "vtk" / "regression-polygons-1e9.vtk");
    EXPECT_TRUE(has(vtk, "POLYGONS declares 4000000000 values")) << vtk;

    const fs::path vti = kCorpus / "vti" / "regression-whole-extent-100000.vti";
    const std::string image = errorOf<VolumeError>([&] { heart::readVolume(vti); });
    EXPECT_TRUE(has(image, vti.string() + ": ")) << image;
    EXPECT_TRUE(has(image, "declares 1000000000000000 voxels")) << image;

    io::setMemoryBudget(1ull << 30, "--max-memory");
    const fs::path nrrd = kCorpus / "nrrd" / "regression-sizes-2000-cubed.nrrd";
    const std::string volume = errorOf<VolumeError>([&] { heart::readVolume(nrrd); });
    EXPECT_TRUE(has(volume, "declares 2000x2000x2000 voxels and needs about 59.6 GiB")) << volume;
    EXPECT_TRUE(has(volume, "memory limit of 1.0 GiB (--max-memory)")) << volume;
    const fs::path mha = kCorpus / "mha" / "regression-dims-huge.mha";
    const std::string meta = errorOf<VolumeError>([&] { heart::readVolume(mha); });
    EXPECT_TRUE(has(meta, "declares 100000 100000 100000 voxels and needs about")) << meta;
    io::setMemoryBudget(0);
}

TEST(HostileFiles, DeclaredPointsBeyondWhatTheFileHoldsAreRefused) {
    TempDir dir;
    std::string vtp = slurp(kCorpus / "vtp" / "tetra-appended.vtp");
    const std::string points = "NumberOfPoints=\"4\"";
    ASSERT_TRUE(has(vtp, points));
    vtp.replace(vtp.find(points), points.size(), "NumberOfPoints=\"400000000000\"");
    write(dir.path() / "huge.vtp", vtp);
    const std::string what = meshError(dir.path() / "huge.vtp");
    EXPECT_TRUE(has(what, "huge.vtp: truncated or corrupt: it declares 400000000000 points")) << what;
}

TEST(HostileFiles, EveryCorpusSeedOfAFormatIsReadOrRefusedNamingTheFile) {
    // The valid seeds read; the regression seeds are refused (the fuzz replays check
    // their mutations).
    for (const char* format : {"ply", "obj", "stl", "vtk", "vtp", "vtu"})
        for (const auto& entry : fs::directory_iterator(kCorpus / format)) {
            SCOPED_TRACE(entry.path().string());
            const bool regression = entry.path().filename().string().rfind("regression-", 0) == 0;
            if (regression) {
                EXPECT_TRUE(has(meshError(entry.path()), entry.path().string() + ": "));
            } else {
                const sph::TriangleMesh mesh = heart::readMesh(entry.path());
                EXPECT_GE(mesh.triangles.size(), 4u);
                EXPECT_GT(mesh.enclosedVolume(), 0.0);
            }
        }
}

TEST(HostileFiles, HeaderThatMadeVtksNrrdReaderLoopForeverIsRefused) {
    // A NUL byte in a gzip NRRD's header comment made vtkNrrdReader spin (found by the
    // fuzz replay). Refused before VTK sees it; a reader that still hangs is stopped.
    const fs::path nrrd = kCorpus / "nrrd" / "regression-nul-in-header-gzip.nrrd";
    const auto start = std::chrono::steady_clock::now();
    const std::string what = errorOf<VolumeError>([&] { heart::readVolume(nrrd); });
    EXPECT_TRUE(has(what, nrrd.string() + ": the NRRD header holds a control character (byte 34)")) << what;
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
}

// ---------------------------------------------------------------------------------------
// Implausible hearts: wrong units and degenerate meshes are named before the blood.

namespace {

heart::PipelineSettings noCache() {
    heart::PipelineSettings s;
    s.cacheDirectory.clear();
    s.interpolation.subframes = 2;
    return s;
}

std::string pipelineError(const heart::HeartSource& source) {
    return errorOf<MeshError>([&] { heart::loadHeart(source, noCache()); });
}

} // namespace

TEST(ImplausibleHearts, AMeshInMetresIsRefusedWithTheScaleThatFits) {
    TempDir dir;
    // A heart-sized sphere (radius 40 mm) written in metres: 0.08 "mm" across.
    heart::writeMesh(sph::TriangleMesh::icosphere({0, 0, 0}, 0.04f, 3), dir.path() / "lv_metres.stl");
    const std::string what = pipelineError(heart::HeartSource::fromMeshes((dir.path() / "lv_metres.stl").string()));
    EXPECT_TRUE(has(what, "lv_metres.stl: is 0.08 mm across, and a heart is 10 to 500 mm: is it in metres? use --units m "
                          "(or --scale 1000)"))
        << what;
    heart::HeartSource scaled = heart::HeartSource::fromMeshes((dir.path() / "lv_metres.stl").string());
    scaled.scale = heart::unitScale("m");
    heart::PipelineReport report;
    EXPECT_NO_THROW(heart::loadHeart(scaled, noCache(), &report));
    EXPECT_NEAR(report.bloodPoolVolumeMl.front(), 4.0 / 3.0 * 3.14159 * 64.0, 20.0); // 268 ml, a coarse sphere
}

TEST(ImplausibleHearts, CoordinatesOf1e30AreRefusedAsTooLarge) {
    TempDir dir;
    heart::writeMesh(sph::TriangleMesh::icosphere({0, 0, 0}, 1e30f, 1), dir.path() / "huge.ply");
    const std::string what = pipelineError(heart::HeartSource::fromMeshes((dir.path() / "huge.ply").string()));
    EXPECT_TRUE(has(what, "huge.ply: is 2e+30 mm across")) << what;
    EXPECT_TRUE(has(what, "use --scale 5e-29 to make it 100 mm across")) << what;
}

TEST(ImplausibleHearts, AMeshThatEnclosesNoVolumeIsNamed) {
    // A "tetrahedron" whose four points lie in one plane: closed, but flat. (A single
    // triangle or collinear points gave "particleSpacingMm must be > 0", naming no file.)
    TempDir dir;
    write(dir.path() / "flat.obj", "v 0 0 0\nv 50 0 0\nv 50 50 0\nv 0 50 0\nf 1 2 3\nf 1 4 2\nf 1 3 4\nf 2 4 3\n");
    const std::string what = errorOf<MeshError>(
        [&] { heart::loadHeart(heart::HeartSource::fromMeshes((dir.path() / "flat.obj").string()), noCache()); });
    EXPECT_TRUE(has(what, "flat.obj: encloses no volume (4 triangles, a flat or open surface)")) << what;
    const std::string single = errorOf<MeshError>([&] {
        write(dir.path() / "one.obj", "v 0 0 0\nv 50 0 0\nv 0 50 0\nf 1 2 3\n");
        heart::loadHeart(heart::HeartSource::fromMeshes((dir.path() / "one.obj").string()), noCache());
    });
    EXPECT_TRUE(has(single, "one.obj: ")) << single;
    std::cout << "  " << single << "\n";
}

TEST(ImplausibleHearts, UnitsAreNamed) {
    EXPECT_EQ(heart::unitScale("mm"), 1.0);
    EXPECT_EQ(heart::unitScale("cm"), 10.0);
    EXPECT_EQ(heart::unitScale("m"), 1000.0);
    EXPECT_EQ(heart::unitScale("um"), 0.001);
    EXPECT_THROW(heart::unitScale("inch"), std::invalid_argument);
}

TEST(VtkMessages, UnobservedVtkErrorsNameTheUsersFile) {
    // VTK's raw "ERROR: In vtkXMLWriter.cxx ..." lines become the program's own, naming
    // the file the thread works on.
    std::vector<std::string> lines;
    heart::routeVtkMessages("atrium-test", [&](const std::string& line) { lines.push_back(line); });
    {
        const heart::VtkFileContext context("/data/out/particles_00000010.vtp");
        vtkNew<vtkPolyData> empty;
        vtkNew<vtkXMLPolyDataWriter> writer; // nobody observes it
        writer->SetInputData(empty);
        writer->SetFileName("/nonexistent-directory/particles_00000010.vtp");
        writer->Write();
    }
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines.front().rfind("atrium-test: VTK error (/data/out/particles_00000010.vtp): ", 0), 0u) << lines.front();
    EXPECT_EQ(lines.front().find("vtkXMLWriter.cxx"), std::string::npos) << "VTK's own source file is left out";
    heart::routeVtkMessages("atrium-test", {}); // back to stderr
}
