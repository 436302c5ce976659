#pragma once
// FNV-1a 64, the checksum and key hash of the heart's binary files (the heart cache,
// baked beats) and of a wall's anchors: io/BinaryIo.h holds it; these are its names
// in atrium::heart.

#include "io/BinaryIo.h"

namespace atrium::heart {

using io::fnv1a;
using io::hex64;
using io::kFnvOffset;

} // namespace atrium::heart
