#include "sim/heart/VolumeCodecs.h"

#include "sim/heart/VolumeSeries.h"
#include "sim/heart/VtkMessageLog.h"

#include "sim/heart/IsolatedVtkReaders.h"
#include "sim/heart/MeshFileReaders.h"
#include "sim/heart/VtkMessageRouting.h"
#include "io/AtomicFile.h"
#include "io/MemoryBudget.h"

#include <vtkAlgorithm.h>
#include <vtkCommand.h>
#include <vtkExecutive.h>
#include <vtkDICOMImageReader.h>
#include <vtkDataArray.h>
#include <vtkFloatArray.h>
#include <vtkImageData.h>
#include <vtkMetaImageReader.h>
#include <vtkMetaImageWriter.h>
#include <vtkNew.h>
#include <vtkNrrdReader.h>
#include <vtkPointData.h>
#include <vtkSmartPointer.h>
#include <vtkXMLImageDataReader.h>
#include <vtkXMLImageDataWriter.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <system_error>

namespace atrium::heart {

namespace fs = std::filesystem;

namespace detail {

const std::vector<std::string>& volumeExtensions() {
    static const std::vector<std::string> list{".vti", ".nrrd", ".mha", ".mhd"};
    return list;
}

std::string joined(const std::vector<std::string>& items) {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
    return out;
}

std::string dimensionsText(const Volume& v) {
    return std::to_string(v.nx) + "x" + std::to_string(v.ny) + "x" + std::to_string(v.nz);
}

std::string vecText(sph::Vec3 v) {
    std::ostringstream out;
    out << v.x << " x " << v.y << " x " << v.z;
    return out.str();
}

} // namespace detail

using detail::dimensionsText;
using detail::joined;
using detail::vecText;
using detail::volumeExtensions;

namespace {

/// vtkDICOMImageReader keeps the sorted slice list protected; this exposes it.
class DicomDirectoryReader : public vtkDICOMImageReader {
public:
    static DicomDirectoryReader* New() {
        auto* reader = new DicomDirectoryReader;
        reader->InitializeObjectBase();
        return reader;
    }
    vtkTypeMacro(DicomDirectoryReader, vtkDICOMImageReader)
    using vtkDICOMImageReader::GetDICOMFileName;
    using vtkDICOMImageReader::GetNumberOfDICOMFileNames;
};

std::string lowerExtension(const fs::path& file) {
    std::string ext = file.extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
    return ext;
}

/// The first bytes of a file (at most n).
std::string fileHead(const fs::path& file, std::size_t n) {
    std::ifstream in(file, std::ios::binary);
    std::string head(n, '\0');
    in.read(head.data(), static_cast<std::streamsize>(n));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(in.gcount(), 0)));
    return head;
}

void requireReadableFile(const fs::path& file) {
    if (const std::string why = unreadableFileReason(file, "volume"); !why.empty()) throw VolumeError(file, why);
}

/// Refuses a volume whose voxels (as floats, plus the file's samples while converting)
/// would not fit the memory budget.
void requireVoxelBudget(const fs::path& file, const Volume& v, std::size_t sampleBytes) {
    const double bytes = double(v.nx) * double(v.ny) * double(v.nz) * double(sizeof(float) + sampleBytes);
    if (!io::fitsMemoryBudget(bytes))
        throw VolumeError(file, "declares " + dimensionsText(v) + " voxels and " + io::overBudgetText(bytes));
}

/// Copies an image's single-component scalars into a Volume.
Volume toVolume(vtkImageData* image, const fs::path& file, bool flipRows) {
    if (!image) throw VolumeError(file, "the reader produced no image");
    int extent[6];
    image->GetExtent(extent);
    Volume v;
    for (int a = 0; a < 3; ++a) {
        const long long n = static_cast<long long>(extent[2 * a + 1]) - extent[2 * a] + 1;
        if (n <= 0) throw VolumeError(file, "the image holds no voxels");
        if (n > (1 << 30)) throw VolumeError(file, "the image is " + std::to_string(n) + " voxels wide");
        (a == 0 ? v.nx : a == 1 ? v.ny : v.nz) = static_cast<int>(n);
    }
    double origin[3], spacing[3];
    image->GetOrigin(origin);
    image->GetSpacing(spacing);
    v.spacing = {static_cast<float>(spacing[0]), static_cast<float>(spacing[1]), static_cast<float>(spacing[2])};
    v.origin = {static_cast<float>(origin[0] + extent[0] * spacing[0]),
                static_cast<float>(origin[1] + extent[2] * spacing[1]),
                static_cast<float>(origin[2] + extent[4] * spacing[2])};
    if (!(v.spacing.x > 0.f && v.spacing.y > 0.f && v.spacing.z > 0.f) || !sph::isFinite(v.spacing))
        throw VolumeError(file, "invalid voxel spacing " + vecText(v.spacing));

    vtkDataArray* array = image->GetPointData()->GetScalars();
    if (!array && image->GetPointData()->GetNumberOfArrays() > 0) array = image->GetPointData()->GetArray(0);
    if (!array) throw VolumeError(file, "the image holds no intensity array");
    if (array->GetNumberOfComponents() != 1)
        throw VolumeError(file, "expected one intensity per voxel, found " +
                                    std::to_string(array->GetNumberOfComponents()) + " components");
    const auto count = static_cast<vtkIdType>(v.voxelCount());
    if (array->GetNumberOfTuples() != count)
        throw VolumeError(file, "holds " + std::to_string(array->GetNumberOfTuples()) + " values for " +
                                    dimensionsText(v) + " voxels");
    v.values.resize(v.voxelCount());
    if (auto* floats = vtkFloatArray::SafeDownCast(array)) {
        std::memcpy(v.values.data(), floats->GetPointer(0), v.values.size() * sizeof(float));
    } else {
        for (vtkIdType n = 0; n < count; ++n) v.values[static_cast<std::size_t>(n)] =
            static_cast<float>(array->GetComponent(n, 0));
    }
    if (flipRows) {
        const std::size_t row = static_cast<std::size_t>(v.nx);
        for (int k = 0; k < v.nz; ++k)
            for (int j = 0; j < v.ny / 2; ++j)
                std::swap_ranges(v.values.begin() + static_cast<std::ptrdiff_t>(v.index(0, j, k)),
                                 v.values.begin() + static_cast<std::ptrdiff_t>(v.index(0, j, k) + row),
                                 v.values.begin() + static_cast<std::ptrdiff_t>(v.index(0, v.ny - 1 - j, k)));
    }
    return v;
}

void requireValidVolume(const Volume& v, const fs::path& file) {
    if (v.nx <= 0 || v.ny <= 0 || v.nz <= 0)
        throw VolumeError(file, "cannot write a volume with " + dimensionsText(v) + " voxels");
    if (v.values.size() != v.voxelCount())
        throw VolumeError(file, "cannot write: " + std::to_string(v.values.size()) + " values for " +
                                    dimensionsText(v) + " voxels");
    if (!(v.spacing.x > 0.f && v.spacing.y > 0.f && v.spacing.z > 0.f) || !sph::isFinite(v.spacing) ||
        !sph::isFinite(v.origin))
        throw VolumeError(file, "cannot write: invalid spacing " + vecText(v.spacing) + " or origin");
}

/// A vtkImageData viewing the volume's values (no copy; VTK must not free them).
vtkSmartPointer<vtkImageData> toImage(const Volume& v) {
    auto image = vtkSmartPointer<vtkImageData>::New();
    image->SetDimensions(v.nx, v.ny, v.nz);
    image->SetOrigin(v.origin.x, v.origin.y, v.origin.z);
    image->SetSpacing(v.spacing.x, v.spacing.y, v.spacing.z);
    vtkNew<vtkFloatArray> array;
    array->SetName("intensity");
    array->SetNumberOfComponents(1);
    array->SetArray(const_cast<float*>(v.values.data()), static_cast<vtkIdType>(v.values.size()), 1);
    image->GetPointData()->SetScalars(array);
    return image;
}

// ---------------------------------------------------------------------------------------
// Format-specific reading and writing.

Volume readVti(const fs::path& file) {
    const std::string head = fileHead(file, 512);
    if (head.find("<?xml") == std::string::npos && head.find("<VTKFile") == std::string::npos)
        throw VolumeError(file, "not a VTK XML image file (.vti): no XML header");
    try {
        checkVtkXmlFile(file, "ImageData");
    } catch (const std::runtime_error& e) {
        throw VolumeError(file, e.what());
    }
    return readVolumeIsolated(file, [&] {
        vtkNew<VtkMessageLog> log;
        vtkNew<vtkXMLImageDataReader> reader;
        log->watch(reader);
        reader->SetReaderErrorObserver(log);
        reader->SetParserErrorObserver(log);
        reader->SetFileName(file.string().c_str());
        reader->Update();
        if (log->failed()) throw VolumeError(file, "unreadable VTK image file: " + log->firstError());
        return toVolume(reader->GetOutput(), file, false);
    });
}

// Sample types of raw NRRD/MetaImage data.
enum class SampleType { Int8, UInt8, Int16, UInt16, Int32, UInt32, Int64, UInt64, Float32, Float64, Unknown };

std::size_t sampleBytes(SampleType t) {
    switch (t) {
    case SampleType::Int8: case SampleType::UInt8: return 1;
    case SampleType::Int16: case SampleType::UInt16: return 2;
    case SampleType::Int32: case SampleType::UInt32: case SampleType::Float32: return 4;
    case SampleType::Int64: case SampleType::UInt64: case SampleType::Float64: return 8;
    case SampleType::Unknown: break;
    }
    return 0;
}

SampleType nrrdSampleType(std::string name) {
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    static const std::map<std::string, SampleType> names{
        {"signed char", SampleType::Int8}, {"int8", SampleType::Int8}, {"int8_t", SampleType::Int8},
        {"uchar", SampleType::UInt8}, {"unsigned char", SampleType::UInt8}, {"uint8", SampleType::UInt8},
        {"uint8_t", SampleType::UInt8}, {"short", SampleType::Int16}, {"short int", SampleType::Int16},
        {"signed short", SampleType::Int16}, {"signed short int", SampleType::Int16}, {"int16", SampleType::Int16},
        {"int16_t", SampleType::Int16}, {"ushort", SampleType::UInt16}, {"unsigned short", SampleType::UInt16},
        {"unsigned short int", SampleType::UInt16}, {"uint16", SampleType::UInt16}, {"uint16_t", SampleType::UInt16},
        {"int", SampleType::Int32}, {"signed int", SampleType::Int32}, {"int32", SampleType::Int32},
        {"int32_t", SampleType::Int32}, {"uint", SampleType::UInt32}, {"unsigned int", SampleType::UInt32},
        {"uint32", SampleType::UInt32}, {"uint32_t", SampleType::UInt32}, {"longlong", SampleType::Int64},
        {"long long", SampleType::Int64}, {"long long int", SampleType::Int64}, {"signed long long", SampleType::Int64},
        {"signed long long int", SampleType::Int64}, {"int64", SampleType::Int64}, {"int64_t", SampleType::Int64},
        {"ulonglong", SampleType::UInt64}, {"unsigned long long", SampleType::UInt64},
        {"unsigned long long int", SampleType::UInt64}, {"uint64", SampleType::UInt64}, {"uint64_t", SampleType::UInt64},
        {"float", SampleType::Float32}, {"double", SampleType::Float64}};
    const auto it = names.find(name);
    return it == names.end() ? SampleType::Unknown : it->second;
}

SampleType metaSampleType(const std::string& name) {
    static const std::map<std::string, SampleType> names{
        {"MET_CHAR", SampleType::Int8},     {"MET_UCHAR", SampleType::UInt8},    {"MET_SHORT", SampleType::Int16},
        {"MET_USHORT", SampleType::UInt16}, {"MET_INT", SampleType::Int32},      {"MET_UINT", SampleType::UInt32},
        {"MET_LONG", SampleType::Int32},    {"MET_ULONG", SampleType::UInt32},   {"MET_LONG_LONG", SampleType::Int64},
        {"MET_ULONG_LONG", SampleType::UInt64}, {"MET_FLOAT", SampleType::Float32}, {"MET_DOUBLE", SampleType::Float64}};
    const auto it = names.find(name);
    return it == names.end() ? SampleType::Unknown : it->second;
}

template <class T>
float sampleAt(const char* bytes, bool swap) {
    std::array<char, sizeof(T)> raw;
    std::memcpy(raw.data(), bytes, sizeof(T));
    if (swap) std::reverse(raw.begin(), raw.end());
    T value;
    std::memcpy(&value, raw.data(), sizeof(T));
    return static_cast<float>(value);
}

void convertSamples(const std::vector<char>& bytes, SampleType type, bool swap, std::vector<float>& out) {
    const std::size_t size = sampleBytes(type);
    for (std::size_t n = 0; n < out.size(); ++n) {
        const char* b = bytes.data() + n * size;
        switch (type) {
        case SampleType::Int8: out[n] = sampleAt<std::int8_t>(b, swap); break;
        case SampleType::UInt8: out[n] = sampleAt<std::uint8_t>(b, swap); break;
        case SampleType::Int16: out[n] = sampleAt<std::int16_t>(b, swap); break;
        case SampleType::UInt16: out[n] = sampleAt<std::uint16_t>(b, swap); break;
        case SampleType::Int32: out[n] = sampleAt<std::int32_t>(b, swap); break;
        case SampleType::UInt32: out[n] = sampleAt<std::uint32_t>(b, swap); break;
        case SampleType::Int64: out[n] = sampleAt<std::int64_t>(b, swap); break;
        case SampleType::UInt64: out[n] = sampleAt<std::uint64_t>(b, swap); break;
        case SampleType::Float32: out[n] = sampleAt<float>(b, swap); break;
        case SampleType::Float64: out[n] = sampleAt<double>(b, swap); break;
        case SampleType::Unknown: break;
        }
    }
}

/// The first `end` bytes of a header must be text: a control byte (a NUL, say) made
/// VTK's readers loop forever.
void requireTextHeader(const fs::path& file, const std::string& header, std::size_t end, const char* format) {
    end = std::min(end, header.size());
    for (std::size_t i = 0; i < end; ++i) {
        const auto c = static_cast<unsigned char>(header[i]);
        if (c < 0x20 && c != '\n' && c != '\r' && c != '\t')
            throw VolumeError(file, std::string("the ") + format + " header holds a control character (byte " +
                                        std::to_string(i) + "): not a text header");
    }
}

std::string trimmed(std::string text) {
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos) return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

/// Numbers in a text such as "(0.5,0,0) (0,0.75,0)" or "1 2 3", in order.
std::vector<double> numbersIn(const std::string& text) {
    std::vector<double> numbers;
    std::string cleaned = text;
    for (char& c : cleaned)
        if (c == '(' || c == ')' || c == ',') c = ' ';
    std::istringstream in(cleaned);
    std::string token;
    while (in >> token) {
        char* end = nullptr;
        const double value = std::strtod(token.c_str(), &end);
        if (end && *end == '\0') numbers.push_back(value);
    }
    return numbers;
}

struct NrrdHeader {
    std::vector<long long> sizes;
    int dimension = 0;
    SampleType type = SampleType::Unknown;
    std::string typeName, encoding = "raw", dataFile;
    bool bigEndian = false;
    std::vector<double> spacing;          // per axis, from "spacings" or "space directions"
    std::vector<double> origin;           // "space origin"
    long long byteSkip = 0, lineSkip = 0;
    std::size_t headerBytes = 0;          // where attached data starts
};

NrrdHeader parseNrrdHeader(const fs::path& file) {
    std::string text = fileHead(file, 1 << 20);
    if (text.compare(0, 4, "NRRD") != 0) throw VolumeError(file, "not a NRRD file: it does not start with \"NRRD\"");
    NrrdHeader h;
    std::size_t pos = 0;
    bool first = true, ended = false;
    while (pos < text.size()) {
        const auto eol = text.find('\n', pos);
        if (eol == std::string::npos) break;
        std::string line = text.substr(pos, eol - pos);
        pos = eol + 1;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (first) {
            first = false;
            continue; // the magic line
        }
        if (line.empty()) {
            ended = true;
            break;
        }
        if (line[0] == '#') continue;
        const auto colon = line.find(": ");
        if (colon == std::string::npos || line.find(":=") < colon) continue; // key/value pairs
        const std::string field = line.substr(0, colon);
        const std::string value = trimmed(line.substr(colon + 2));
        if (field == "dimension") h.dimension = std::atoi(value.c_str());
        else if (field == "sizes") {
            for (const double n : numbersIn(value))
                h.sizes.push_back(n >= 0.0 && n <= double(1 << 30) && n == std::floor(n) ? static_cast<long long>(n) : -1);
        } else if (field == "type") {
            h.typeName = value;
            h.type = nrrdSampleType(value);
        } else if (field == "encoding") {
            h.encoding = value;
            std::transform(h.encoding.begin(), h.encoding.end(), h.encoding.begin(),
                           [](unsigned char c) { return std::tolower(c); });
        } else if (field == "endian") h.bigEndian = value == "big";
        else if (field == "spacings") h.spacing = numbersIn(value);
        else if (field == "space directions") {
            std::vector<double> norms;
            std::istringstream in(value);
            std::string vector;
            while (in >> vector) {
                if (vector == "none") continue;
                const auto components = numbersIn(vector);
                double sum = 0;
                for (const double c : components) sum += c * c;
                norms.push_back(std::sqrt(sum));
            }
            h.spacing = norms;
        } else if (field == "space origin") h.origin = numbersIn(value);
        else if (field == "data file" || field == "datafile") h.dataFile = value;
        else if (field == "byte skip" || field == "byteskip") h.byteSkip = std::atoll(value.c_str());
        else if (field == "line skip" || field == "lineskip") h.lineSkip = std::atoll(value.c_str());
    }
    if (!ended && h.dataFile.empty()) throw VolumeError(file, "NRRD header has no blank line before the data");
    h.headerBytes = pos;
    // The header is text: a control byte in it makes vtkNrrdReader loop forever.
    requireTextHeader(file, text, pos, "NRRD");
    if (!h.typeName.empty() && h.type == SampleType::Unknown)
        throw VolumeError(file, "unsupported NRRD sample type '" + h.typeName + "'");
    if (h.dimension != 3 || h.sizes.size() != 3)
        throw VolumeError(file, "expected a 3D scalar NRRD image (dimension: 3), found dimension " +
                                    std::to_string(h.dimension) + " with " + std::to_string(h.sizes.size()) + " sizes");
    for (const long long n : h.sizes)
        if (n <= 0 || n > (1 << 20)) throw VolumeError(file, "invalid NRRD sizes");
    if (h.type == SampleType::Unknown) throw VolumeError(file, "unsupported NRRD sample type '" + h.typeName + "'");
    return h;
}

Volume readNrrd(const fs::path& file) {
    const NrrdHeader h = parseNrrdHeader(file);
    Volume v;
    v.nx = static_cast<int>(h.sizes[0]);
    v.ny = static_cast<int>(h.sizes[1]);
    v.nz = static_cast<int>(h.sizes[2]);
    if (h.spacing.size() >= 3)
        v.spacing = {static_cast<float>(h.spacing[0]), static_cast<float>(h.spacing[1]), static_cast<float>(h.spacing[2])};
    if (h.origin.size() >= 3)
        v.origin = {static_cast<float>(h.origin[0]), static_cast<float>(h.origin[1]), static_cast<float>(h.origin[2])};
    if (!(v.spacing.x > 0.f && v.spacing.y > 0.f && v.spacing.z > 0.f) || !sph::isFinite(v.spacing))
        throw VolumeError(file, "invalid voxel spacing " + vecText(v.spacing));
    requireVoxelBudget(file, v, sampleBytes(h.type));

    const bool detached = !h.dataFile.empty();
    const bool simpleDetached = detached && h.dataFile.find(' ') == std::string::npos && h.dataFile != "LIST";
    if (h.encoding == "raw" && h.lineSkip == 0 && (!detached || simpleDetached)) {
        // Raw samples: read them directly (vtkNrrdReader would take an x size <= 9 for
        // vector components).
        const fs::path dataPath = detached ? file.parent_path() / h.dataFile : file;
        std::error_code ec;
        const auto fileBytes = fs::file_size(dataPath, ec);
        if (ec) throw VolumeError(file, "its data file " + dataPath.string() + " does not exist");
        const std::size_t need = v.voxelCount() * sampleBytes(h.type);
        std::size_t offset = detached ? 0 : h.headerBytes;
        if (h.byteSkip == -1) offset = fileBytes >= need ? static_cast<std::size_t>(fileBytes) - need : 0;
        else offset += static_cast<std::size_t>(std::max<long long>(h.byteSkip, 0));
        if (fileBytes < offset + need)
            throw VolumeError(file, "truncated: " + std::to_string(fileBytes > offset ? fileBytes - offset : 0) +
                                        " bytes of image data for " + dimensionsText(v) + " voxels of " + h.typeName +
                                        " (" + std::to_string(need) + " bytes)");
        v.values.resize(v.voxelCount());
        std::ifstream in(dataPath, std::ios::binary);
        in.seekg(static_cast<std::streamoff>(offset));
        std::vector<char> bytes(need);
        in.read(bytes.data(), static_cast<std::streamsize>(need));
        if (!in) throw VolumeError(file, "cannot read the image data");
        const bool swap = h.bigEndian != (std::endian::native == std::endian::big) && sampleBytes(h.type) > 1;
        convertSamples(bytes, h.type, swap, v.values);
        return v;
    }

    // Other encodings (gzip, ascii, file lists): VTK reads the samples, the geometry
    // comes from the header parsed above. gzip stores at most ~1032 bytes in one.
    {
        std::error_code ec;
        const fs::path dataPath = detached && simpleDetached ? file.parent_path() / h.dataFile : file;
        const auto fileBytes = fs::file_size(dataPath, ec);
        if (ec) throw VolumeError(file, "its data file " + dataPath.string() + " does not exist");
        const double stored = double(v.voxelCount()) * double(sampleBytes(h.type));
        const double ratio = h.encoding == "raw" ? 1.0 : (h.encoding == "ascii" || h.encoding == "text" || h.encoding == "txt") ? 0.5 : 1100.0;
        if (!detached || simpleDetached)
            if (stored > double(fileBytes) * ratio)
                throw VolumeError(file, "truncated or corrupt: " + dimensionsText(v) + " voxels of " + h.typeName + " (" +
                                            std::to_string(std::uint64_t(stored)) + " bytes) cannot be stored in " +
                                            std::to_string(fileBytes) + " bytes of " + h.encoding + " data");
    }
    return readVolumeIsolated(file, [&] {
        Volume out = v;
        out.values.resize(out.voxelCount());
        vtkNew<VtkMessageLog> log;
        vtkNew<vtkNrrdReader> reader;
        log->watch(reader);
        reader->SetFileName(file.string().c_str());
        reader->Update();
        if (log->failed()) throw VolumeError(file, "unreadable NRRD file: " + log->firstError());
        vtkImageData* image = reader->GetOutput();
        vtkDataArray* array = image ? image->GetPointData()->GetScalars() : nullptr;
        const auto count = static_cast<vtkIdType>(out.voxelCount());
        if (!array || array->GetNumberOfComponents() < 1 || array->GetNumberOfTuples() * array->GetNumberOfComponents() != count)
            throw VolumeError(file, "the NRRD data do not hold " + dimensionsText(out) + " samples");
        const int components = array->GetNumberOfComponents();
        for (vtkIdType n = 0; n < count; ++n)
            out.values[static_cast<std::size_t>(n)] =
                static_cast<float>(array->GetComponent(n / components, static_cast<int>(n % components)));
        return out;
    });
}

/// Checks a MetaImage header and the size of its data before metaio reads them (metaio
/// reports truncated data on stderr only and returns what it got).
void checkMetaImage(const fs::path& file) {
    const std::string head = fileHead(file, 1 << 16);
    std::map<std::string, std::string> fields;
    std::size_t pos = 0, dataStart = std::string::npos;
    while (pos < head.size()) {
        const auto eol = head.find('\n', pos);
        const std::string line = head.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
        pos = eol == std::string::npos ? head.size() : eol + 1;
        const auto eq = line.find('=');
        if (eq == std::string::npos) continue;
        const std::string key = trimmed(line.substr(0, eq));
        fields[key] = trimmed(line.substr(eq + 1));
        if (key == "ElementDataFile") {
            dataStart = pos;
            break;
        }
    }
    if (!fields.count("NDims") || dataStart == std::string::npos)
        throw VolumeError(file, "not a MetaImage file: no NDims/ElementDataFile header");
    requireTextHeader(file, head, dataStart, "MetaImage");
    const std::string dataName = fields["ElementDataFile"];
    const std::vector<double> dims = numbersIn(fields["DimSize"]);
    if (std::atoi(fields["NDims"].c_str()) != 3 || dims.size() != 3)
        throw VolumeError(file, "expected a 3D MetaImage (NDims = 3), found NDims = " + fields["NDims"]);
    double voxels = 1.0;
    for (const double n : dims) {
        if (!(n >= 1.0 && n <= double(1 << 30) && n == std::floor(n)))
            throw VolumeError(file, "invalid MetaImage DimSize '" + fields["DimSize"] + "'");
        voxels *= n;
    }
    const SampleType type = metaSampleType(fields["ElementType"]);
    const int channels = fields.count("ElementNumberOfChannels") ? std::atoi(fields["ElementNumberOfChannels"].c_str()) : 1;
    if (channels < 1 || channels > 16)
        throw VolumeError(file, "invalid ElementNumberOfChannels '" + fields["ElementNumberOfChannels"] + "'");
    const double stored = voxels * double(sampleBytes(type)) * channels;
    if (!io::fitsMemoryBudget(stored + 4.0 * voxels))
        throw VolumeError(file, "declares " + fields["DimSize"] + " voxels and " + io::overBudgetText(stored + 4.0 * voxels));
    double need = 0.0;
    const bool compressed = fields["CompressedData"] == "True" || fields["CompressedData"] == "true";
    if (compressed) {
        // zlib stores at most ~1032 bytes in one.
        need = fields.count("CompressedDataSize") ? std::atof(fields["CompressedDataSize"].c_str()) : stored / 1100.0;
        need = std::max(need, stored / 1100.0);
    } else {
        need = stored;
    }
    std::error_code ec;
    std::uintmax_t available = 0;
    if (dataName == "LOCAL") {
        available = fs::file_size(file, ec) - dataStart;
    } else if (dataName.find('%') == std::string::npos && dataName.rfind("LIST", 0) != 0) {
        const fs::path data = file.parent_path() / dataName;
        if (!fs::is_regular_file(data, ec)) throw VolumeError(file, "its data file " + data.string() + " does not exist");
        available = fs::file_size(data, ec);
    } else {
        return; // file lists and patterns: left to metaio
    }
    if (double(available) < need)
        throw VolumeError(file, "truncated: " + std::to_string(available) + " of " + std::to_string(std::uint64_t(need)) +
                                    " bytes of image data");
}

Volume readMetaImage(const fs::path& file) {
    checkMetaImage(file);
    return readVolumeIsolated(file, [&] {
        vtkNew<VtkMessageLog> log;
        vtkNew<vtkMetaImageReader> reader;
        log->watch(reader);
        reader->SetFileName(file.string().c_str());
        reader->Update();
        if (log->failed()) throw VolumeError(file, "unreadable MetaImage file: " + log->firstError());
        return toVolume(reader->GetOutput(), file, false);
    });
}

void writeVti(const Volume& v, const fs::path& file, const fs::path& writeTo) {
    auto image = toImage(v);
    vtkNew<VtkMessageLog> log;
    vtkNew<vtkXMLImageDataWriter> writer;
    log->watch(writer);
    writer->SetInputData(image);
    writer->SetFileName(writeTo.string().c_str());
    writer->SetDataModeToAppended();
    writer->EncodeAppendedDataOff();
    // LZ4: CT-like noise makes float voxels nearly incompressible for any lossless codec
    // (zlib saves ~7 % on the noisy phantom at ~40x the time of LZ4), while the flat
    // regions of noise-free volumes still shrink a lot. ParaView reads LZ4 blocks.
    writer->SetCompressorTypeToLZ4();
    if (writer->Write() != 1 || log->failed())
        throw VolumeError(file, "cannot write the VTK image file: " +
                                    (log->failed() ? log->firstError() : std::string("writer failed")));
}

void writeNrrd(const Volume& v, const fs::path& file, const fs::path& writeTo) {
    std::ofstream out(writeTo, std::ios::binary | std::ios::trunc);
    if (!out) throw VolumeError(file, "cannot open the file for writing");
    std::ostringstream header;
    header.precision(std::numeric_limits<float>::max_digits10);
    header << "NRRD0004\n"
           << "# Atrium volume (mm). Complete NRRD file format specification at:\n"
           << "# http://teem.sourceforge.net/nrrd/format.html\n"
           << "type: float\n"
           << "dimension: 3\n"
           << "space: 3D-right-handed\n"
           << "sizes: " << v.nx << ' ' << v.ny << ' ' << v.nz << '\n'
           << "space directions: (" << v.spacing.x << ",0,0) (0," << v.spacing.y << ",0) (0,0," << v.spacing.z
           << ")\n"
           << "kinds: domain domain domain\n"
           << "endian: " << (std::endian::native == std::endian::little ? "little" : "big") << '\n'
           << "encoding: raw\n"
           << "space origin: (" << v.origin.x << ',' << v.origin.y << ',' << v.origin.z << ")\n"
           << "space units: \"mm\" \"mm\" \"mm\"\n"
           << '\n';
    const std::string text = header.str();
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.write(reinterpret_cast<const char*>(v.values.data()),
              static_cast<std::streamsize>(v.values.size() * sizeof(float)));
    out.flush();
    if (!out) throw VolumeError(file, "write failed (disk full or not writable?)");
}

void writeMetaImage(const Volume& v, const fs::path& file, const fs::path& writeTo) {
    auto image = toImage(v);
    vtkNew<VtkMessageLog> log;
    vtkNew<vtkMetaImageWriter> writer;
    log->watch(writer);
    writer->SetInputData(image);
    writer->SetFileName(writeTo.string().c_str());
    if (lowerExtension(file) == ".mhd") {
        fs::path raw = file;
        raw.replace_extension(".raw");
        writer->SetRAWFileName(raw.string().c_str());
    }
    // Uncompressed: metaio's zlib pass costs ~0.25 s per 128^3 phase for ~7 % on noisy data.
    writer->SetCompression(false);
    writer->Write();
    std::error_code ec;
    if (log->failed() || !fs::is_regular_file(writeTo, ec) || fs::file_size(writeTo, ec) == 0)
        throw VolumeError(file, "cannot write the MetaImage file" +
                                    (log->failed() ? ": " + log->firstError() : std::string{}));
}

} // namespace

// ---------------------------------------------------------------------------------------

VolumeFormat volumeFormatFor(const fs::path& file) {
    const std::string ext = lowerExtension(file);
    if (ext == ".vti") return VolumeFormat::Vti;
    if (ext == ".nrrd") return VolumeFormat::Nrrd;
    if (ext == ".mha" || ext == ".mhd") return VolumeFormat::MetaImage;
    throw VolumeError(file, "unknown volume extension '" + file.extension().string() + "' (expected one of " +
                                joined(volumeExtensions()) + ")");
}

void writeVolume(const Volume& volume, const fs::path& file) {
    const VtkFileContext context(file);
    const VolumeFormat format = volumeFormatFor(file);
    requireValidVolume(volume, file);
    // Through a temporary file, checked and renamed into place: a full disk or a kill
    // never leaves half a volume under the final name.
    try {
        io::AtomicFile atomic(file);
        switch (format) {
        case VolumeFormat::Vti: writeVti(volume, file, atomic.temporary()); break;
        case VolumeFormat::Nrrd: writeNrrd(volume, file, atomic.temporary()); break;
        case VolumeFormat::MetaImage: writeMetaImage(volume, file, atomic.temporary()); break;
        }
        atomic.commit(format == VolumeFormat::Nrrd ? volume.values.size() * sizeof(float) : 1,
                      format == VolumeFormat::Vti ? "</VTKFile>\n" : "");
    } catch (const io::WriteError& e) {
        throw VolumeError(file, e.why());
    }
}

Volume readVolume(const fs::path& file) {
    const VtkFileContext context(file);
    const VolumeFormat format = volumeFormatFor(file);
    requireReadableFile(file);
    switch (format) {
    case VolumeFormat::Vti: return readVti(file);
    case VolumeFormat::Nrrd: return readNrrd(file);
    case VolumeFormat::MetaImage: return readMetaImage(file);
    }
    throw VolumeError(file, "unsupported format");
}

Volume readDicomVolume(const fs::path& directory) {
    const VtkFileContext context(directory);
    std::error_code ec;
    if (!fs::exists(directory, ec)) throw VolumeError(directory, "DICOM directory does not exist");
    if (!fs::is_directory(directory, ec)) throw VolumeError(directory, "expected a DICOM series directory");
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(directory, ec))
        if (entry.is_regular_file(ec)) ++files;
    if (ec) throw VolumeError(directory, "cannot list the DICOM directory: " + ec.message());
    if (files == 0) throw VolumeError(directory, "empty DICOM directory: it holds no files");

    // VTK's DICOM reader runs in a child process: a corrupt slice cannot crash Atrium.
    return readVolumeIsolated(directory, [&] {
        vtkNew<VtkMessageLog> log;
        vtkNew<DicomDirectoryReader> reader;
        log->watch(reader);
        reader->SetDirectoryName(directory.string().c_str());
        reader->UpdateInformation();
        if (reader->GetNumberOfDICOMFileNames() == 0)
            throw VolumeError(directory, "no readable DICOM image among its " + std::to_string(files) + " files");
        reader->Update();
        if (log->failed()) throw VolumeError(directory, "unreadable DICOM series: " + log->firstError());
        Volume v = toVolume(reader->GetOutput(), directory, true);
        // VTK's DICOM helper puts the first Pixel Spacing value (0028,0030), which DICOM
        // defines as the spacing between rows (along y), on x. Swap them back.
        std::swap(v.spacing.x, v.spacing.y);

        // Origin: Image Position (Patient) of the first slice along the slice normal. The
        // reader keeps only the last header it parsed, so read the end slices' headers alone.
        struct SliceHeader {
            sph::Vec3 position, normal;
            bool ok = false;
        };
        const auto header = [](const char* file) {
            vtkNew<VtkMessageLog> headerLog;
            vtkNew<vtkDICOMImageReader> single;
            headerLog->watch(single);
            single->SetFileName(file);
            single->UpdateInformation();
            SliceHeader h;
            const float* p = single->GetImagePositionPatient();
            const float* o = single->GetImageOrientationPatient();
            if (headerLog->failed() || !p || !o) return h;
            h.position = {p[0], p[1], p[2]};
            h.normal = sph::cross({o[0], o[1], o[2]}, {o[3], o[4], o[5]});
            if (sph::lengthSquared(h.normal) < 1e-6f) h.normal = {0.f, 0.f, 1.f};
            h.ok = true;
            return h;
        };
        const int slices = reader->GetNumberOfDICOMFileNames();
        const SliceHeader first = header(reader->GetDICOMFileName(0));
        const SliceHeader last = header(reader->GetDICOMFileName(slices - 1));
        if (first.ok) v.origin = first.position;
        if (first.ok && last.ok && slices > 1 &&
            sph::dot(last.position - first.position, first.normal) < 0.f) {
            // Sorted against the normal: put slice k at origin + k * spacing along +normal.
            const std::size_t sliceSize = static_cast<std::size_t>(v.nx) * static_cast<std::size_t>(v.ny);
            for (int k = 0; k < v.nz / 2; ++k)
                std::swap_ranges(v.values.begin() + static_cast<std::ptrdiff_t>(v.index(0, 0, k)),
                                 v.values.begin() + static_cast<std::ptrdiff_t>(v.index(0, 0, k) + sliceSize),
                                 v.values.begin() + static_cast<std::ptrdiff_t>(v.index(0, 0, v.nz - 1 - k)));
            v.origin = last.position;
        }
        return v;
    });
}

} // namespace atrium::heart
