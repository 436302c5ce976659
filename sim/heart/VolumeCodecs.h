#pragma once
// Internal to sim/heart: what the series functions (VolumeSeries.cpp) share with the
// single-volume readers and writers (VolumeCodecs.cpp: VTI, NRRD, MetaImage, DICOM),
// whose public entry points (readVolume, writeVolume, readDicomVolume,
// volumeFormatFor) VolumeSeries.h declares.

#include "sim/heart/VolumeSeries.h"

#include <string>
#include <vector>

namespace atrium::heart::detail {

/// The volume file extensions, lower case: ".vti", ".nrrd", ".mha", ".mhd".
const std::vector<std::string>& volumeExtensions();
/// "a, b, c".
std::string joined(const std::vector<std::string>& items);
/// "NXxNYxNZ".
std::string dimensionsText(const Volume& v);
/// "x x y x z".
std::string vecText(sph::Vec3 v);

} // namespace atrium::heart::detail
