#pragma once
// Scenes sized by particle count for `atrium-sim bench`.

#include "sim/sph/Scene.h"

#include <cstddef>
#include <string>

namespace atrium::app {

/// A 3D dam break: a column a x a x 2a of about `particles` particles at 1 cm spacing
/// in a tank 4a x a x 2.5a.
sph::Scene damBreakScene(std::size_t particles);

/// Blood in a closed beating chamber: a sphere of 20k triangles (the size of a
/// decimated heart mesh) pulsing at 75 bpm with 10 % radius change, 60 % filled with
/// about `particles` particles at 2 mm spacing (15k particles are 120 ml, a left
/// ventricle). A moving-wall scene without the heart pipeline; the heart itself is
/// benchmarked through sim/heart's HeartSimulation (`atrium-sim bench --scene heart`).
sph::Scene pulsingSphereScene(std::size_t particles);

/// Looks a generated benchmark scene up by name ("dam-break" or "pulsing-sphere");
/// throws std::invalid_argument naming the unknown scene.
sph::Scene benchmarkScene(const std::string& name, std::size_t particles);

} // namespace atrium::app
