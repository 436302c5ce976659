// A planted violation for tests/layers: the solver's backend seam is internal to sim/sph/.
#include "sim/sph/Backend.h"
