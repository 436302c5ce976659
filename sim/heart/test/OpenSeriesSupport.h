#pragma once
// Open mesh series made from what the project has, shaped like fitted real data: a
// ventricle open at its base, one boundary loop per valve annulus.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"

#include <vtkClipPolyData.h>
#include <vtkNew.h>
#include <vtkPlane.h>
#include <vtkPolyData.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace atrium::heart::test {

/// The phantom's blood-pool surface per phase (extracted as the pipeline does) with its
/// atrium and aorta cut away just above the valve plane (z = `cutMm`): the left
/// ventricle open at the mitral (larger) and aortic openings.
inline std::vector<sph::TriangleMesh> phantomVentricleCutOut(const PhantomParameters& p, double cutMm = 2.0) {
    const HeartPhantom phantom(p);
    const VolumeSeries series = phantom.generate();
    const float iso = suggestIsovalue(series.phases[0]);
    std::vector<sph::TriangleMesh> out;
    for (const Volume& v : series.phases) {
        ExtractionSettings es;
        es.isovalue = iso;
        es.noiseBoxMm = 2.0;
        const sph::TriangleMesh whole = extractSurface(v, es);
        vtkNew<vtkPlane> plane;
        plane->SetOrigin(0.0, 0.0, cutMm);
        plane->SetNormal(0.0, 0.0, -1.0); // keeps z < cutMm
        vtkNew<vtkClipPolyData> clip;
        clip->SetInputData(toPolyData(whole));
        clip->SetClipFunction(plane);
        clip->Update();
        sph::TriangleMesh m = toTriangleMesh(clip->GetOutput());
        compactVertices(m);
        out.push_back(std::move(m));
    }
    return out;
}

} // namespace atrium::heart::test

namespace atrium::heart::test {

/// A left ventricle of one phase (closed, millimetres) made into a beating, open series:
/// its long axis is the principal axis of its vertices, its base the wider end. Two
/// openings are cut out of the base (the larger, the "mitral", on one side of the axis,
/// the smaller, the "aortic", on the other), then every phase contracts it - the apex
/// rises and the wall moves in towards the axis, the base ring held still as in the
/// phantom - so that its volume (openings closed flat) falls to `1 - ejectionFraction`
/// of the first phase's at 0.35 of the cycle and returns by 1. Fixed topology: every
/// phase has the same vertices and triangles.
struct ContractedVentricle {
    std::vector<sph::TriangleMesh> phases;
    sph::Vec3 baseCentre, axis; ///< axis: from the apex to the base
};

inline ContractedVentricle contractVentricle(const sph::TriangleMesh& closed, int phases, double ejectionFraction) {
    ContractedVentricle out;
    const std::size_t n = closed.vertices.size();
    // Principal axes of the vertices (power iteration on the covariance).
    sph::Vec3 mean;
    for (const sph::Vec3& v : closed.vertices) mean += v;
    mean *= 1.f / float(n);
    double c[3][3] = {};
    for (const sph::Vec3& v : closed.vertices) {
        const sph::Vec3 d = v - mean;
        const double a[3] = {d.x, d.y, d.z};
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 3; ++j) c[i][j] += a[i] * a[j];
    }
    const auto principal = [&](sph::Vec3 start, const std::vector<sph::Vec3>& exclude) {
        sph::Vec3 x = start;
        for (int it = 0; it < 200; ++it) {
            for (const sph::Vec3& e : exclude) x -= e * dot(x, e);
            const double a[3] = {x.x, x.y, x.z};
            sph::Vec3 y{float(c[0][0] * a[0] + c[0][1] * a[1] + c[0][2] * a[2]),
                        float(c[1][0] * a[0] + c[1][1] * a[1] + c[1][2] * a[2]),
                        float(c[2][0] * a[0] + c[2][1] * a[1] + c[2][2] * a[2])};
            for (const sph::Vec3& e : exclude) y -= e * dot(y, e);
            x = normalized(y);
        }
        return x;
    };
    sph::Vec3 axis = principal({0.3f, 0.5f, 0.8f}, {});
    const sph::Vec3 side = principal({0.7f, -0.2f, 0.1f}, {axis});
    // The base is the wider end: compare the spread across the axis at both ends.
    float lo = 1e30f, hi = -1e30f;
    for (const sph::Vec3& v : closed.vertices) {
        lo = std::min(lo, dot(v - mean, axis));
        hi = std::max(hi, dot(v - mean, axis));
    }
    double wideHi = 0.0, wideLo = 0.0;
    for (const sph::Vec3& v : closed.vertices) {
        const float u = dot(v - mean, axis);
        const double r = double(length((v - mean) - axis * u));
        if (u > hi - 0.1f * (hi - lo)) wideHi = std::max(wideHi, r);
        if (u < lo + 0.1f * (hi - lo)) wideLo = std::max(wideLo, r);
    }
    if (wideLo > wideHi) {
        axis = -axis;
        std::swap(lo, hi);
        lo = -lo;
        hi = -hi;
    }
    const float length = hi - lo;
    const sph::Vec3 base = mean + axis * hi;
    out.baseCentre = base;
    out.axis = axis;
    // Base radius: the widest the ventricle is near its base.
    float ring = 0.f;
    for (const sph::Vec3& v : closed.vertices) {
        const float u = dot(v - base, axis);
        if (u > -0.15f * length) ring = std::max(ring, ::atrium::sph::length((v - base) - axis * u));
    }
    // The openings: triangles near the base whose centres lie within a radius of a
    // point on either side of the axis.
    sph::TriangleMesh open = closed;
    const sph::Vec3 mitral = base + side * (0.38f * ring), aortic = base - side * (0.45f * ring);
    const float rMitral = 0.42f * ring, rAortic = 0.32f * ring;
    std::erase_if(open.triangles, [&](const std::array<std::uint32_t, 3>& t) {
        const sph::Vec3 m = (open.vertices[t[0]] + open.vertices[t[1]] + open.vertices[t[2]]) * (1.f / 3.f);
        const float u = dot(m - base, axis);
        if (u < -0.12f * length) return false;
        const sph::Vec3 across = (m - base) - axis * u;
        return ::atrium::sph::length(across - (mitral - base)) < rMitral ||
               ::atrium::sph::length(across - (aortic - base)) < rAortic;
    });
    // The contraction by an amount a in [0, 1]: radial shrink 1 - 0.45 a away from the
    // base ring (none within the top fifth), the apex rising by 0.2 a of the length.
    const auto pose = [&](double a, sph::TriangleMesh& m) {
        m = open;
        for (sph::Vec3& v : m.vertices) {
            const float u = dot(v - base, axis); // <= 0 below the base
            const float depth = std::clamp(-u / (0.2f * length), 0.f, 1.f);
            const sph::Vec3 across = (v - base) - axis * u;
            const float radial = 1.f - float(0.45 * a) * depth * depth * (3.f - 2.f * depth);
            v = base + axis * (u * float(1.0 - 0.2 * a)) + across * radial;
        }
    };
    const auto volume = [&](double a) {
        sph::TriangleMesh m;
        pose(a, m);
        capHoles(m, 1e3);
        return std::fabs(m.enclosedVolume());
    };
    // The amount at end systole that gives the ejection fraction asked for.
    const double v0 = volume(0.0), target = (1.0 - ejectionFraction) * v0;
    double aLo = 0.0, aHi = 2.0;
    for (int it = 0; it < 40; ++it) {
        const double mid = 0.5 * (aLo + aHi);
        (volume(mid) > target ? aLo : aHi) = mid;
    }
    const double amount = 0.5 * (aLo + aHi);
    for (int k = 0; k < phases; ++k) {
        const double t = double(k) / phases;
        double f = 0.0; // contraction: systole to 0.35, hold to 0.45, relaxation to 1
        if (t < 0.35) f = 0.5 * (1.0 - std::cos(std::numbers::pi * t / 0.35));
        else if (t < 0.45) f = 1.0;
        else f = 0.5 * (1.0 + std::cos(std::numbers::pi * (t - 0.45) / 0.55));
        sph::TriangleMesh m;
        pose(amount * f, m);
        out.phases.push_back(std::move(m));
    }
    return out;
}

} // namespace atrium::heart::test
