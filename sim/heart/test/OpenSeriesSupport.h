#pragma once
// Open mesh series made from what the project has, shaped like fitted real data: a
// ventricle open at its base, one boundary loop per valve annulus.

#include "sim/heart/HeartPhantom.h"
#include "sim/heart/HeartPipeline.h"
#include "sim/heart/MeshConversion.h"
#include "sim/heart/SurfaceExtraction.h"
#include "sim/heart/VolumeSeries.h"

#include <vtkClipPolyData.h>
#include <vtkCellArray.h>
#include <vtkDelaunay2D.h>
#include <vtkPoints.h>
#include <vtkNew.h>
#include <vtkPlane.h>
#include <vtkPolyData.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <vector>

namespace atrium::heart::test {

/// The phantom's ventricle cut out at its valves (phantomSurfaces, HeartPipeline.h).
inline std::vector<sph::TriangleMesh> phantomVentricleCutOut(const PhantomParameters& p) {
    return phantomSurfaces(p, true);
}

} // namespace atrium::heart::test

namespace atrium::heart::test {

/// A left ventricle's myocardium of one phase (closed, millimetres: epicardium and
/// endocardium joined at the base) made into a beating, open series of its cavity:
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
    sph::Vec3 mitral, aortic;   ///< near the centres of the openings
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
    // The base: the ventricle cut across a little below its base cap (the densest slab
    // of vertices near the top, above which its outflow tract rises), and closed by a
    // flat lid with two circular openings in it: the larger, the "mitral", on one side,
    // the smaller, the "aortic", on the other.
    const auto along = [&](sph::Vec3 v) { return dot(v - mean, axis); };
    float capU = hi;
    std::size_t densest = 0;
    for (float u0 = hi - 0.4f * length; u0 < hi; u0 += 1.f) {
        const auto inSlab = std::size_t(std::count_if(closed.vertices.begin(), closed.vertices.end(), [&](sph::Vec3 v) {
            return along(v) >= u0 && along(v) < u0 + 5.f;
        }));
        if (inSlab > densest) {
            densest = inSlab;
            capU = u0 + 2.5f;
        }
    }
    const float cutU = capU - 8.f;
    vtkNew<vtkPlane> plane;
    const sph::Vec3 o = mean + axis * cutU;
    plane->SetOrigin(o.x, o.y, o.z);
    plane->SetNormal(axis.x, axis.y, axis.z); // keeps what lies below the cut
    vtkNew<vtkClipPolyData> clip;
    clip->SetInputData(toPolyData(closed));
    clip->SetClipFunction(plane);
    clip->SetInsideOut(true);
    clip->Update();
    sph::TriangleMesh open = toTriangleMesh(clip->GetOutput());
    {
        // The mesh is the myocardium: its epicardium and endocardium meet at the base.
        // Cut below the base they come apart; the endocardium is the piece nearer the
        // axis, and the cavity inside it is the ventricle.
        const Components pieces = connectedComponents(open);
        std::vector<double> spread(pieces.count, 0.0), count(pieces.count, 0.0);
        for (std::size_t t = 0; t < open.triangles.size(); ++t) {
            const sph::Vec3 v = open.vertices[open.triangles[t][0]] - mean;
            spread[pieces.triangleComponent[t]] += double(::atrium::sph::length(v - axis * dot(v, axis)));
            count[pieces.triangleComponent[t]] += 1.0;
        }
        std::uint32_t largest = 0; // the endocardium
        for (std::uint32_t piece = 0; piece < pieces.count; ++piece)
            if (count[piece] > 0.05 * double(open.triangles.size()) &&
                (count[largest] <= 0.05 * double(open.triangles.size()) || spread[piece] / count[piece] < spread[largest] / count[largest]))
                largest = piece;
        std::vector<std::array<std::uint32_t, 3>> kept;
        for (std::size_t t = 0; t < open.triangles.size(); ++t)
            if (pieces.triangleComponent[t] == largest) kept.push_back(open.triangles[t]);
        open.triangles = std::move(kept);
    }
    compactVertices(open);
    std::vector<std::vector<std::uint32_t>> loops = boundaryLoops(open);
    std::sort(loops.begin(), loops.end(), [](const auto& x, const auto& y) { return x.size() > y.size(); });
    const std::vector<std::uint32_t> rim = loops.at(0);
    sph::Vec3 centre;
    for (std::uint32_t i : rim) centre += open.vertices[i];
    centre *= 1.f / float(rim.size());
    const sph::Vec3 e1 = side, e2 = cross(axis, side);
    float inner = 1e30f;
    for (std::uint32_t i : rim) inner = std::min(inner, ::atrium::sph::length(open.vertices[i] - centre));
    // The lid, triangulated in its plane (Delaunay, the holes as constraints).
    vtkNew<vtkPoints> points;
    vtkNew<vtkCellArray> boundaries;
    const auto planar = [&](sph::Vec3 p) { return std::array<double, 2>{dot(p - centre, e1), dot(p - centre, e2)}; };
    double turn = 0.0; // the rim's orientation in (e1, e2)
    for (std::size_t i = 0; i < rim.size(); ++i) {
        const auto p = planar(open.vertices[rim[i]]), q = planar(open.vertices[rim[(i + 1) % rim.size()]]);
        turn += p[0] * q[1] - p[1] * q[0];
        points->InsertNextPoint(p[0], p[1], 0.0);
    }
    std::vector<vtkIdType> outer(rim.size());
    for (std::size_t i = 0; i < rim.size(); ++i) outer[i] = vtkIdType(turn > 0 ? i : rim.size() - 1 - i); // counter-clockwise
    boundaries->InsertNextCell(vtkIdType(outer.size()), outer.data());
    struct Hole {
        float offset, radius;
        int points;
    };
    std::vector<sph::Vec3> lidPoints;
    for (const Hole& h : {Hole{0.45f, 0.50f, 56}, Hole{-0.55f, 0.38f, 44}}) {
        std::vector<vtkIdType> ids;
        for (int k = 0; k < h.points; ++k) {
            const double a = -2.0 * std::numbers::pi * k / h.points; // clockwise: a hole
            const double x = h.offset * inner + h.radius * inner * std::cos(a), y = h.radius * inner * std::sin(a);
            ids.push_back(points->InsertNextPoint(x, y, 0.0));
            lidPoints.push_back(centre + e1 * float(x) + e2 * float(y));
        }
        boundaries->InsertNextCell(vtkIdType(ids.size()), ids.data());
    }
    vtkNew<vtkPolyData> input, constraints;
    input->SetPoints(points);
    constraints->SetPoints(points);
    constraints->SetPolys(boundaries);
    vtkNew<vtkDelaunay2D> delaunay;
    delaunay->SetInputData(input);
    delaunay->SetSourceData(constraints);
    delaunay->Update();
    vtkPolyData* lid = delaunay->GetOutput();
    const auto firstLid = std::uint32_t(open.vertices.size());
    open.vertices.insert(open.vertices.end(), lidPoints.begin(), lidPoints.end());
    const auto vertexOf = [&](vtkIdType id) {
        return std::size_t(id) < rim.size() ? rim[std::size_t(id)] : firstLid + std::uint32_t(std::size_t(id) - rim.size());
    };
    std::vector<std::array<std::uint32_t, 3>> lidTriangles;
    vtkIdType npts = 0;
    const vtkIdType* pts = nullptr;
    lid->GetPolys()->InitTraversal();
    while (lid->GetPolys()->GetNextCell(npts, pts))
        if (npts == 3) lidTriangles.push_back({std::uint32_t(vertexOf(pts[0])), std::uint32_t(vertexOf(pts[1])), std::uint32_t(vertexOf(pts[2]))});
    // Wound against the ventricle's own triangles along the rim.
    bool same = false;
    for (const auto& t : lidTriangles)
        for (int k = 0; k < 3; ++k)
            if (t[std::size_t(k)] == rim[0] && t[std::size_t((k + 1) % 3)] == rim[1]) same = true;
    for (auto& t : lidTriangles) {
        if (same) std::swap(t[1], t[2]);
        open.triangles.push_back(t);
    }
    const sph::Vec3 base = centre;
    out.baseCentre = base;
    out.axis = axis;
    out.mitral = centre + e1 * (0.45f * inner);
    out.aortic = centre - e1 * (0.55f * inner);
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
        // Closed by a fan over each opening from its centre (any loop closes so).
        for (const std::vector<std::uint32_t>& loop : boundaryLoops(m)) {
            sph::Vec3 sum;
            for (std::uint32_t i : loop) sum += m.vertices[i];
            m.vertices.push_back(sum * (1.f / float(loop.size())));
            const auto fan = std::uint32_t(m.vertices.size() - 1);
            for (std::size_t i = 0; i < loop.size(); ++i) m.triangles.push_back({fan, loop[(i + 1) % loop.size()], loop[i]});
        }
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
