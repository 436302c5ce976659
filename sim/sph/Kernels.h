#pragma once
// SPH smoothing kernels of Müller, Charypar & Gross, "Particle-Based Fluid Simulation
// for Interactive Applications" (SCA 2003), as used in Poyart 2016, eqs. 2.7-2.10:
//   density   W_poly6(r)        = 315 / (64 pi h^9) (h^2 - r^2)^3
//   pressure  grad W_spiky(r)   = -45 / (pi h^6) (h - r)^2 r_hat      (r = x_i - x_j)
//   viscosity lap W_visc(r)     =  45 / (pi h^6) (h - r)
// All are zero for r >= h. The spiky gradient carries the minus sign (see the errata in
// shared/papers/README.md): with positive pressure the resulting force pushes i away
// from j. Host and device share this code so both backends evaluate the same maths.

#include "sim/sph/Vec3.h"

namespace atrium::sph {

/// Precomputed kernel constants for one kernel radius h (metres).
struct SphKernels {
    float h = 0.f;
    float h2 = 0.f;
    float poly6 = 0.f;     ///< 315 / (64 pi h^9)
    float spikyGrad = 0.f; ///< 45 / (pi h^6), magnitude of the gradient prefactor
    float viscLap = 0.f;   ///< 45 / (pi h^6)

    static SphKernels forRadius(float radius) {
        constexpr double pi = 3.14159265358979323846;
        const double hd = radius;
        SphKernels k;
        k.h = radius;
        k.h2 = radius * radius;
        k.poly6 = static_cast<float>(315.0 / (64.0 * pi * std::pow(hd, 9)));
        k.spikyGrad = static_cast<float>(45.0 / (pi * std::pow(hd, 6)));
        k.viscLap = k.spikyGrad;
        return k;
    }

    /// W_poly6 for squared distance r2 (1/m^3).
    ATRIUM_HD float poly6W(float r2) const {
        if (r2 >= h2) return 0.f;
        const float d = h2 - r2;
        return poly6 * d * d * d;
    }

    /// grad W_spiky at r = x_i - x_j with |r| = dist > 0 (1/m^4). Points from i to j.
    ATRIUM_HD Vec3 spikyGradient(Vec3 r, float dist) const {
        if (dist >= h || dist <= 0.f) return {};
        const float d = h - dist;
        return r * (-spikyGrad * d * d / dist);
    }

    /// Becker & Teschner (2007) artificial viscosity between approaching particles:
    /// m_j Pi_ij with Pi_ij = -nu min(v_ij . x_ij, 0) / (|x_ij|^2 + 0.01 h^2) and
    /// nu = 2 alpha h c0 / (rho_i + rho_j); the acceleration is -m_j Pi_ij grad W_ij.
    ATRIUM_HD float artificialViscosity(float vDotX, float r2, float alpha, float soundSpeed, float rhoSum,
                                         float mass) const {
        // A select, not a branch: on a GPU half the pairs of a warp separate.
        const float approach = vDotX < 0.f ? -vDotX : 0.f;
        const float nu = 2.f * alpha * h * soundSpeed / rhoSum;
        return mass * nu * approach / (r2 + 0.01f * h2);
    }

    /// Laplacian of W_visc at distance dist (1/m^5).
    ATRIUM_HD float viscosityLaplacian(float dist) const {
        return dist < h ? viscLap * (h - dist) : 0.f;
    }
};

/// Equation of state (Pa): Tait p = B((rho/rho0)^7 - 1) (Becker & Teschner 2007) or
/// linear p = k (rho - rho0), kept within [minPressure, maxPressure] (p_max: Poyart
/// 2016, eq. 2.12; minPressure 0 for no tension at free surfaces). A NaN density stays
/// NaN (blow-up check).
ATRIUM_HD float pressureFromDensity(float rho, bool tait, float restDensity, float stiffness, float minPressure,
                                    float maxPressure) {
    float p;
    if (tait) {
        const float ratio = rho / restDensity;
        const float r2 = ratio * ratio, r4 = r2 * r2;
        p = stiffness * (r4 * r2 * ratio - 1.f);
    } else {
        p = stiffness * (rho - restDensity);
    }
    if (p < minPressure) p = minPressure;
    return maxPressure < p ? maxPressure : p;
}

/// The density at which the equation of state gives pressure p (Pa), before its clamps:
/// Tait rho0 (1 + p / B)^(1/7), linear rho0 + p / k. An open boundary's buffer particles
/// carry the boundary's pressure with this density (OpenBoundaries.h).
ATRIUM_HD float densityFromPressure(float p, bool tait, float restDensity, float stiffness) {
    if (tait) {
        const float base = 1.f + p / stiffness;
        return restDensity * powf(base > 1e-3f ? base : 1e-3f, 1.f / 7.f);
    }
    return restDensity + p / stiffness;
}

} // namespace atrium::sph
