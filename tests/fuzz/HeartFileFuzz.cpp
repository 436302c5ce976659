// Fuzz target for the heart's mesh and volume readers, one executable per format: the
// input becomes a file with the extension ATRIUM_FUZZ_EXTENSION (".ply", ".obj", ".stl",
// ".vtk", ".vtp", ".vtu", ".vti", ".mha", ".nrrd") and goes through the reader the
// pipeline uses (readMesh with cleaning, or readVolume).
//
// Contract checked: the reader returns a mesh or volume, or throws MeshError /
// VolumeError whose message starts with the file's path; any other exception, a crash, a
// hang or a sanitizer report is a bug. A mesh that is read has finite vertices and
// triangles whose indices are in range. The memory budget is 256 MiB, so a header that
// declares more must be refused before anything is allocated.

#include "sim/heart/MeshSeries.h"
#include "sim/heart/VolumeSeries.h"
#include "io/MemoryBudget.h"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <cstdlib>
#include <string>

#include <unistd.h>

#ifndef ATRIUM_FUZZ_EXTENSION
#error "ATRIUM_FUZZ_EXTENSION must name the format's extension"
#endif

namespace {

struct FuzzFailure : std::logic_error {
    using std::logic_error::logic_error;
};

const std::filesystem::path& inputFile() {
    static const std::filesystem::path file = [] {
        atrium::io::setMemoryBudget(256ull << 20, "the fuzz target's limit");
        ::setenv("ATRIUM_READER_TIME_LIMIT", "10", 1); // a reader that hangs fails in 10 s, not 60

        const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                          ("atrium-fuzz-" + std::to_string(::getpid()));
        std::filesystem::create_directories(dir);
        return dir / (std::string("input") + ATRIUM_FUZZ_EXTENSION);
    }();
    return file;
}

template <class Error, class Read>
void expectReadOrError(Read&& read) {
    const std::string name = inputFile().string();
    try {
        read();
    } catch (const Error& e) {
        if (std::string(e.what()).rfind(name + ": ", 0) != 0)
            throw FuzzFailure(std::string("an error that does not name the file: ") + e.what());
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace atrium;
    const std::filesystem::path& file = inputFile();
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
    }
    const std::string extension = ATRIUM_FUZZ_EXTENSION;
    if (extension == ".vti" || extension == ".mha" || extension == ".nrrd") {
        expectReadOrError<heart::VolumeError>([&] {
            const heart::Volume v = heart::readVolume(file);
            if (v.values.size() != v.voxelCount() || v.voxelCount() == 0)
                throw FuzzFailure("a volume whose values do not match its size");
        });
    } else {
        expectReadOrError<heart::MeshError>([&] {
            const sph::TriangleMesh mesh = heart::readMesh(file);
            for (const sph::Vec3& p : mesh.vertices)
                if (!sph::isFinite(p)) throw FuzzFailure("a mesh with a non-finite vertex");
            for (const auto& t : mesh.triangles)
                for (const std::uint32_t i : t)
                    if (i >= mesh.vertices.size()) throw FuzzFailure("a triangle index out of range");
        });
    }
    return 0;
}
