// A planted violation for tests/layers: sim/ may not reach up into widgets/.
#include "sim/sph/Solver.h"
#include "widgets/view/SceneView.h"
