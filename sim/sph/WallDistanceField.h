#pragma once
// Signed distance field of a closed (moving) triangle mesh, sampled on a regular grid
// around it, for O(1) particle-wall collision ("collision with margin", Poyart 2016,
// 3.5.2.2) in both backends. Convention: phi < 0 inside the mesh (the fluid side),
// phi > 0 outside, in metres. Near thin features, where a trilinear field cannot
// represent two close walls, an exact closest-point query over the triangles listed for
// that cell replaces the interpolated value.
//
// Everything a particle query needs is in WallFieldView: plain pointers, sizes and
// ATRIUM_HD inline functions, so the CPU backend calls it directly and the CUDA backend
// copies each array to the device, rebinds the pointers and calls the same code.

#include "sim/sph/TriangleMesh.h"
#include "sim/sph/Vec3.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace atrium::sph {

enum class WallHit : int {
    None = 0,   ///< farther than the margin inside: untouched
    Pushed = 1, ///< moved back to distance `margin` inside, velocity reflected
    Leaked = 2, ///< outside the wall beyond the field's band: the caller removes it
};

/// Which feature of a triangle holds the closest point (Bærentzen & Aanæs 2005 pick the
/// pseudo-normal from it). Edge e joins corners e and (e + 1) % 3.
enum class TriangleFeature : int {
    Face = 0,
    Vertex0 = 1, Vertex1 = 2, Vertex2 = 3,
    Edge01 = 4, Edge12 = 5, Edge20 = 6,
};

/// Closest point of a triangle to a query point, with its barycentric weights
/// (point = w0 a + w1 b + w2 c) and the feature it lies on.
struct TriangleClosestPoint {
    Vec3 point;
    float w0 = 1.f, w1 = 0.f, w2 = 0.f;
    TriangleFeature feature = TriangleFeature::Face;
};

/// Closest point on segment [a, b] to p (helper of closestPointOnTriangle).
ATRIUM_HD float closestParameterOnSegment(Vec3 p, Vec3 a, Vec3 b) {
    const Vec3 ab = b - a;
    const float len2 = dot(ab, ab);
    if (!(len2 > 0.f)) return 0.f;
    const float t = dot(p - a, ab) / len2;
    return t < 0.f ? 0.f : (t > 1.f ? 1.f : t);
}

/// Exact closest point on triangle (a, b, c) to p by Voronoi regions (Ericson, Real-Time
/// Collision Detection, 5.1.5). Degenerate (zero-area) triangles fall back to their
/// closest edge, so the result is always finite for finite input.
ATRIUM_HD TriangleClosestPoint closestPointOnTriangle(Vec3 p, Vec3 a, Vec3 b, Vec3 c) {
    const Vec3 ab = b - a, ac = c - a, ap = p - a;
    const float d1 = dot(ab, ap), d2 = dot(ac, ap);
    if (d1 <= 0.f && d2 <= 0.f) return {a, 1.f, 0.f, 0.f, TriangleFeature::Vertex0};
    const Vec3 bp = p - b;
    const float d3 = dot(ab, bp), d4 = dot(ac, bp);
    if (d3 >= 0.f && d4 <= d3) return {b, 0.f, 1.f, 0.f, TriangleFeature::Vertex1};
    const float vc = d1 * d4 - d3 * d2;
    if (vc <= 0.f && d1 >= 0.f && d3 <= 0.f) {
        const float den = d1 - d3; // |ab|^2
        const float v = den > 0.f ? d1 / den : 0.f;
        return {a + ab * v, 1.f - v, v, 0.f, TriangleFeature::Edge01};
    }
    const Vec3 cp = p - c;
    const float d5 = dot(ab, cp), d6 = dot(ac, cp);
    if (d6 >= 0.f && d5 <= d6) return {c, 0.f, 0.f, 1.f, TriangleFeature::Vertex2};
    const float vb = d5 * d2 - d1 * d6;
    if (vb <= 0.f && d2 >= 0.f && d6 <= 0.f) {
        const float den = d2 - d6; // |ac|^2
        const float w = den > 0.f ? d2 / den : 0.f;
        return {a + ac * w, 1.f - w, 0.f, w, TriangleFeature::Edge20};
    }
    const float va = d3 * d6 - d5 * d4;
    if (va <= 0.f && (d4 - d3) >= 0.f && (d5 - d6) >= 0.f) {
        const float den = (d4 - d3) + (d5 - d6); // |bc|^2
        const float w = den > 0.f ? (d4 - d3) / den : 0.f;
        return {b + (c - b) * w, 0.f, 1.f - w, w, TriangleFeature::Edge12};
    }
    const float denom = va + vb + vc;
    if (denom > 0.f) {
        const float v = vb / denom, w = vc / denom;
        return {a + ab * v + ac * w, 1.f - v - w, v, w, TriangleFeature::Face};
    }
    // Degenerate triangle: the closest of its three edges.
    const float t0 = closestParameterOnSegment(p, a, b);
    const float t1 = closestParameterOnSegment(p, b, c);
    const float t2 = closestParameterOnSegment(p, c, a);
    const Vec3 q0 = a + (b - a) * t0, q1 = b + (c - b) * t1, q2 = c + (a - c) * t2;
    const float e0 = lengthSquared(p - q0), e1 = lengthSquared(p - q1), e2 = lengthSquared(p - q2);
    if (e0 <= e1 && e0 <= e2) return {q0, 1.f - t0, t0, 0.f, TriangleFeature::Edge01};
    if (e1 <= e2) return {q1, 0.f, 1.f - t1, t1, TriangleFeature::Edge12};
    return {q2, t2, 0.f, 1.f - t2, TriangleFeature::Edge20};
}

/// Exact query result against one triangle of the wall mesh.
struct WallClosest {
    float distance = 0.f; ///< unsigned distance |p - point| (m)
    float sign = 1.f;     ///< +1 outside, -1 inside (from the pseudo-normal)
    Vec3 point;           ///< closest point on the mesh
    Vec3 pseudoNormal;    ///< unit angle-weighted pseudo-normal of the closest feature
    Vec3 velocity;        ///< wall velocity at `point` (barycentric in vertex velocities)
};

/// Raw, device-copyable view of a WallDistanceField: plain pointers (host or device
/// memory) and sizes, no ownership, trivially copyable. The CUDA backend copies each
/// array below (element type and count given per member) and rebinds the pointers.
///
/// Grid: nodes at origin + (i, j, k) * cellSize for 0 <= i < nx (likewise j, k); node
/// index i + nx * (j + ny * k). Cells are the (nx-1)(ny-1)(nz-1) boxes between nodes,
/// cell index i + (nx-1) * (j + (ny-1) * k).
struct WallFieldView {
    Vec3 origin;              ///< position of node (0, 0, 0) (m)
    float cellSize = 0.f;     ///< node spacing (m)
    float invCellSize = 0.f;  ///< 1 / cellSize
    int nx = 0, ny = 0, nz = 0; ///< node counts per axis (each >= 2 once built)
    float band = 0.f;         ///< narrow-band half-width (m); |phi| <= band everywhere

    // --- per node: nodeCount = nx * ny * nz elements each
    const float* phi = nullptr;         ///< signed distance (m): exact in the band, else +-band
    const Vec3* wallVelocity = nullptr; ///< wall velocity at the closest point (m/s); 0 off band
    std::uint32_t nodeCount = 0;

    // --- thin cells (CSR): cellTriangleStart has cellCount + 1 elements; cell c is
    // "thin" iff cellTriangleStart[c + 1] > cellTriangleStart[c], and then
    // cellTriangles[cellTriangleStart[c] .. cellTriangleStart[c+1]) are the triangle
    // indices to search exactly, nearest first: by the distance of their ball
    // (triangleBalls) from the cell's centre, |centre - c_t| - r_t, ties by index.
    // cellTriangles has cellTriangleCount elements (may be 0, pointer then may be null).
    const std::uint32_t* cellTriangleStart = nullptr;
    const std::uint32_t* cellTriangles = nullptr;
    std::uint32_t cellCount = 0;
    std::uint32_t cellTriangleCount = 0;

    // --- mesh, vertexCount elements each
    const Vec3* vertices = nullptr;         ///< positions (m)
    const Vec3* vertexNormals = nullptr;    ///< unit angle-weighted pseudo-normals
    const Vec3* vertexVelocities = nullptr; ///< m/s (zeros when none were given)
    std::uint32_t vertexCount = 0;
    // --- mesh, per triangle
    const std::uint32_t* triangles = nullptr; ///< 3 * triangleCount vertex indices (CCW from outside)
    const Vec3* faceNormals = nullptr;        ///< triangleCount unit outward normals
    const Vec3* edgeNormals = nullptr;        ///< 3 * triangleCount: edge e of triangle t at 3t + e
                                              ///< (edge e joins corners e, e+1), unit
    /// 4 * triangleCount: a ball around triangle t (centre x, y, z, radius; m), whose
    /// distance bounds the triangle's from below, so exact queries skip far triangles.
    const float* triangleBalls = nullptr;
    std::uint32_t triangleCount = 0;

    /// Seconds from the pose the field was built for to the moment of the query: sample()
    /// advances the wall by its own velocity over that time (to first order, phi -= t
    /// v_wall . n), so a moving wall keeps moving between rebuilds. 0: the pose itself.
    float poseAge = 0.f;

    /// Centre of cell `cell`.
    ATRIUM_HD Vec3 cellCentre(std::uint32_t cell) const {
        const std::uint32_t cxn = std::uint32_t(nx - 1), cyn = std::uint32_t(ny - 1);
        const std::uint32_t i = cell % cxn, j = (cell / cxn) % cyn, k = cell / (cxn * cyn);
        return origin + Vec3{float(i) + 0.5f, float(j) + 0.5f, float(k) + 0.5f} * cellSize;
    }

    /// Whether the list entry of triangle t (in cell centre `centre`'s list) and all
    /// after it are farther than `reach` from every point of the cell: their balls'
    /// distance from the centre, less half the cell's diagonal, exceeds it.
    ATRIUM_HD bool listBeyond(Vec3 centre, std::uint32_t t, float reach) const {
        const float* ball = triangleBalls + 4 * t;
        const float dx = centre.x - ball[0], dy = centre.y - ball[1], dz = centre.z - ball[2];
        const float r = reach + 0.8660254f * cellSize + ball[3];
        return dx * dx + dy * dy + dz * dz > r * r;
    }

    /// True once bound to a built field (sample() of an unbound view is meaningless).
    ATRIUM_HD bool valid() const { return phi != nullptr && nx >= 2 && ny >= 2 && nz >= 2; }

    /// Exact distance, sign and wall velocity of p against triangle t.
    ATRIUM_HD WallClosest closestOnTriangle(Vec3 p, std::uint32_t t) const {
        const std::uint32_t ia = triangles[3 * t], ib = triangles[3 * t + 1], ic = triangles[3 * t + 2];
        const TriangleClosestPoint cp = closestPointOnTriangle(p, vertices[ia], vertices[ib], vertices[ic]);
        WallClosest r;
        r.point = cp.point;
        switch (cp.feature) {
        case TriangleFeature::Face: r.pseudoNormal = faceNormals[t]; break;
        case TriangleFeature::Vertex0: r.pseudoNormal = vertexNormals[ia]; break;
        case TriangleFeature::Vertex1: r.pseudoNormal = vertexNormals[ib]; break;
        case TriangleFeature::Vertex2: r.pseudoNormal = vertexNormals[ic]; break;
        case TriangleFeature::Edge01: r.pseudoNormal = edgeNormals[3 * t]; break;
        case TriangleFeature::Edge12: r.pseudoNormal = edgeNormals[3 * t + 1]; break;
        case TriangleFeature::Edge20: r.pseudoNormal = edgeNormals[3 * t + 2]; break;
        }
        const Vec3 d = p - cp.point;
        r.distance = length(d);
        r.sign = dot(d, r.pseudoNormal) < 0.f ? -1.f : 1.f;
        r.velocity = vertexVelocities[ia] * cp.w0 + vertexVelocities[ib] * cp.w1 + vertexVelocities[ic] * cp.w2;
        return r;
    }

    /// Inside (-1) or outside (+1) for a point p of thin cell `cell` at distance d from
    /// the mesh, taken from the cell's corner nodes, whose signs come from crossing
    /// parity (the build's step 2), not from the pseudo-normal of the closest feature:
    /// a moving wall turns slivers over, and a turned sliver (or an edge or vertex
    /// next to one) closest to p has a pseudo-normal that points the wrong way - it
    /// put points several millimetres inside the heart's blood "outside", and the
    /// collision then threw them a margin past a wall that was not there.
    ///  1. A corner node n whose ball of radius |phi_n| meets p's ball of radius d
    ///     (|p - x_n| < d + |phi_n|): both balls are free of the surface, so p has n's
    ///     sign. This decides every point but those close to the wall.
    ///  2. Otherwise, the parity of the crossings of segment [p, x_n] with the cell's
    ///     triangles (every triangle that meets the cell is listed), n the corner
    ///     farthest from the surface (an end on or next to a face would make the
    ///     crossing there a matter of rounding). Each crossing is a plane-side and three line-edge
    ///     orientation tests in double; an edge's test is evaluated in one orientation
    ///     (lower vertex index first) for both triangles sharing it, with a zero counted
    ///     on a fixed side, so a segment through a shared edge crosses exactly once.
    /// Only where every corner lies on the surface is the pseudo-normal's sign kept.
    ATRIUM_HD float thinCellSign(Vec3 p, std::uint32_t cell, float d, float pseudoNormalSign) const {
        const std::uint32_t cxn = std::uint32_t(nx - 1), cyn = std::uint32_t(ny - 1);
        const std::uint32_t i = cell % cxn, j = (cell / cxn) % cyn, k = cell / (cxn * cyn);
        const std::uint32_t sy = std::uint32_t(nx), sz = std::uint32_t(nx) * std::uint32_t(ny);
        const std::uint32_t n0 = i + sy * j + sz * k;
        int farthest = -1;
        float farthestPhi = 0.f;
        Vec3 farthestX;
        for (int c = 0; c < 8; ++c) {
            const std::uint32_t di = std::uint32_t(c & 1), dj = std::uint32_t((c >> 1) & 1), dk = std::uint32_t(c >> 2);
            const float phiN = phi[n0 + di + sy * dj + sz * dk];
            if (phiN == 0.f) continue;
            const Vec3 x = origin + Vec3{float(i + di), float(j + dj), float(k + dk)} * cellSize;
            const float dist = length(p - x);
            // Float margin: distances are exact to ~1e-6 of a cell.
            if (dist < d + fabsf(phiN) - 1e-4f * cellSize) return phiN < 0.f ? -1.f : 1.f;
            if (fabsf(phiN) > farthestPhi) {
                farthestPhi = fabsf(phiN);
                farthest = c;
                farthestX = x;
            }
        }
        if (farthest < 0) return pseudoNormalSign;
        const std::uint32_t c = std::uint32_t(farthest);
        const float phiN = phi[n0 + (c & 1u) + sy * ((c >> 1) & 1u) + sz * (c >> 2)];
        bool odd = false;
        const std::uint32_t begin = cellTriangleStart[cell], end = cellTriangleStart[cell + 1];
        // Only triangles that meet the cell can cross the segment: the list's first ones.
        const Vec3 centre = cellCentre(cell);
        const float slack = 1e-4f * cellSize;
        for (std::uint32_t e = begin; e < end && !listBeyond(centre, cellTriangles[e], slack); ++e)
            odd ^= segmentCrossesTriangle(p, farthestX, cellTriangles[e]);
        return (phiN < 0.f) != odd ? -1.f : 1.f;
    }

    /// Whether segment [p, q] crosses triangle t (see thinCellSign()).
    ATRIUM_HD bool segmentCrossesTriangle(Vec3 p, Vec3 q, std::uint32_t t) const {
        const std::uint32_t v[3] = {triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2]};
        const double px = p.x, py = p.y, pz = p.z;
        const double qx = q.x - px, qy = q.y - py, qz = q.z - pz;
        double rel[3][3];
        for (int m = 0; m < 3; ++m) {
            const Vec3 x = vertices[v[m]];
            rel[m][0] = double(x.x) - px, rel[m][1] = double(x.y) - py, rel[m][2] = double(x.z) - pz;
        }
        // p and q on opposite sides of the triangle's plane (orientation of the triangle
        // seen from p, and from q: det(a - q, b - q, c - q)).
        const auto det3 = [](const double* a, const double* b, const double* c) {
            return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
                   a[2] * (b[0] * c[1] - b[1] * c[0]);
        };
        double fromQ[3][3];
        for (int m = 0; m < 3; ++m)
            fromQ[m][0] = rel[m][0] - qx, fromQ[m][1] = rel[m][1] - qy, fromQ[m][2] = rel[m][2] - qz;
        const double sp = det3(rel[0], rel[1], rel[2]), sq = det3(fromQ[0], fromQ[1], fromQ[2]);
        if ((sp > 0.0) == (sq > 0.0)) return false;
        // The line pq passes through the triangle: the three edges see it on one side.
        const double dq[3] = {qx, qy, qz};
        int side = 0;
        for (int e = 0; e < 3; ++e) {
            const int a = e, b = (e + 1) % 3;
            const bool forward = v[a] < v[b];
            const double s = forward ? det3(rel[a], rel[b], dq) : det3(rel[b], rel[a], dq);
            const int canonical = s >= 0.0 ? 1 : -1;
            const int here = forward ? canonical : -canonical;
            if (e == 0) side = here;
            else if (here != side) return false;
        }
        return true;
    }

    /// Exact query over the triangle list of thin cell `cell` (the triangles that can
    /// hold the closest point of any point of the cell). Ties go to the earlier list entry.
    ATRIUM_HD float sampleExact(Vec3 p, std::uint32_t cell, Vec3& outwardNormal, Vec3& velocity) const {
        const std::uint32_t begin = cellTriangleStart[cell], end = cellTriangleStart[cell + 1];
        std::uint32_t best = cellTriangles[begin];
        // Slack on the ball test, well above its float error: a triangle skipped is
        // farther than the best so far, so the result is that of the full scan.
        const float slack = 1e-4f * cellSize;
        float bestD2 = 3.4e38f, reach = 3.4e38f; // reach: a little beyond sqrt(bestD2)
        const Vec3 centre = cellCentre(cell);
        for (std::uint32_t k = begin; k < end; ++k) {
            const std::uint32_t t = cellTriangles[k];
            if (listBeyond(centre, t, reach)) break; // the list runs nearest first
            const float* ball = triangleBalls + 4 * t;
            const float bx = p.x - ball[0], by = p.y - ball[1], bz = p.z - ball[2], r = reach + ball[3];
            if (bx * bx + by * by + bz * bz > r * r) continue;
            const std::uint32_t ia = triangles[3 * t], ib = triangles[3 * t + 1], ic = triangles[3 * t + 2];
            const float d2 = lengthSquared(p - closestPointOnTriangle(p, vertices[ia], vertices[ib], vertices[ic]).point);
            if (d2 < bestD2) {
                bestD2 = d2;
                best = t;
                reach = sqrtf(d2) + slack;
            }
        }
        const WallClosest c = closestOnTriangle(p, best);
        velocity = c.velocity;
        const float sign = thinCellSign(p, cell, c.distance, c.sign);
        // Outward: away from the surface outside, towards it inside. On the surface the
        // direction is undefined, so the pseudo-normal (already outward, unit) is used.
        const float tiny = 1e-6f * cellSize;
        outwardNormal = c.distance > tiny ? (p - c.point) * (sign / c.distance) : c.pseudoNormal;
        const float phiExact = sign * c.distance;
        return phiExact > band ? band : (phiExact < -band ? -band : phiExact);
    }

    /// Signed distance at p (m, < 0 inside), the unit outward normal (normalised
    /// gradient of the trilinear interpolation, or the exact closest-point direction in
    /// thin cells; zero where undefined, e.g. in the flat far field) and the wall
    /// velocity (m/s), with the wall advanced by poseAge. Outside the grid: +band, zero
    /// normal, zero velocity.
    ATRIUM_HD float sample(Vec3 p, Vec3& outwardNormal, Vec3& wallVelocityOut) const {
        const float atPose = sampleAtPose(p, outwardNormal, wallVelocityOut);
        if (poseAge == 0.f) return atPose;
        const float moved = atPose - poseAge * dot(wallVelocityOut, outwardNormal);
        return moved > band ? band : (moved < -band ? -band : moved);
    }

    /// sample() at the pose the field was built for (poseAge ignored).
    ATRIUM_HD float sampleAtPose(Vec3 p, Vec3& outwardNormal, Vec3& wallVelocityOut) const {
        outwardNormal = Vec3{};
        wallVelocityOut = Vec3{};
        const float gx = (p.x - origin.x) * invCellSize;
        const float gy = (p.y - origin.y) * invCellSize;
        const float gz = (p.z - origin.z) * invCellSize;
        // Written so that NaN coordinates count as outside.
        if (!(gx >= 0.f && gy >= 0.f && gz >= 0.f && gx <= float(nx - 1) && gy <= float(ny - 1) &&
              gz <= float(nz - 1)))
            return band;
        int i = int(gx), j = int(gy), k = int(gz);
        i = i > nx - 2 ? nx - 2 : i;
        j = j > ny - 2 ? ny - 2 : j;
        k = k > nz - 2 ? nz - 2 : k;
        const std::uint32_t cell = std::uint32_t(i) + std::uint32_t(nx - 1) * (std::uint32_t(j) + std::uint32_t(ny - 1) * std::uint32_t(k));
        if (cellTriangleStart[cell + 1] > cellTriangleStart[cell])
            return sampleExact(p, cell, outwardNormal, wallVelocityOut);

        const float tx = gx - float(i), ty = gy - float(j), tz = gz - float(k);
        const std::uint32_t sx = 1, sy = std::uint32_t(nx), sz = std::uint32_t(nx) * std::uint32_t(ny);
        const std::uint32_t n0 = std::uint32_t(i) + sy * std::uint32_t(j) + sz * std::uint32_t(k);
        const float c000 = phi[n0], c100 = phi[n0 + sx], c010 = phi[n0 + sy], c110 = phi[n0 + sx + sy];
        const float c001 = phi[n0 + sz], c101 = phi[n0 + sx + sz], c011 = phi[n0 + sy + sz],
                    c111 = phi[n0 + sx + sy + sz];
        const float ux = 1.f - tx, uy = 1.f - ty, uz = 1.f - tz;
        const float w000 = ux * uy * uz, w100 = tx * uy * uz, w010 = ux * ty * uz, w110 = tx * ty * uz;
        const float w001 = ux * uy * tz, w101 = tx * uy * tz, w011 = ux * ty * tz, w111 = tx * ty * tz;
        const float value = c000 * w000 + c100 * w100 + c010 * w010 + c110 * w110 + c001 * w001 +
                            c101 * w101 + c011 * w011 + c111 * w111;
        // Analytic gradient of the trilinear interpolant (in grid units; only the
        // direction is used).
        const Vec3 grad{
            uy * uz * (c100 - c000) + ty * uz * (c110 - c010) + uy * tz * (c101 - c001) + ty * tz * (c111 - c011),
            ux * uz * (c010 - c000) + tx * uz * (c110 - c100) + ux * tz * (c011 - c001) + tx * tz * (c111 - c101),
            ux * uy * (c001 - c000) + tx * uy * (c101 - c100) + ux * ty * (c011 - c010) + tx * ty * (c111 - c110)};
        outwardNormal = normalized(grad);
        const Vec3* v = wallVelocity;
        wallVelocityOut = v[n0] * w000 + v[n0 + sx] * w100 + v[n0 + sy] * w010 + v[n0 + sx + sy] * w110 +
                          v[n0 + sz] * w001 + v[n0 + sx + sz] * w101 + v[n0 + sy + sz] * w011 +
                          v[n0 + sx + sy + sz] * w111;
        return value;
    }

    /// Signed distance only.
    ATRIUM_HD float signedDistance(Vec3 p) const {
        Vec3 n, v;
        return sample(p, n, v);
    }
};

/// Collision with margin (Poyart 2016, 3.5.2.2): keeps a particle at least `margin`
/// inside the wall. With phi, n, v_w = wall.sample(position):
///  - phi >= band (outside the field or far outside the wall): Leaked, nothing changed;
///  - phi > -margin: position -= (phi + margin) n; the velocity relative to the wall,
///    u = velocity - v_w, loses its outward normal part un = u.n > 0 as
///    u -= (1 + restitution) un n; velocity = u + v_w; Pushed. (A point outside the
///    wall with no defined normal is Leaked; one inside is left alone.)
///  - otherwise: None.
/// `margin` must be below band - 2 cells for the push to use exact distances (the
/// default band of WallDistanceField::Settings ensures this when given the margin).
ATRIUM_HD WallHit collideWithWall(const WallFieldView& wall, float margin, float restitution, Vec3& position,
                                  Vec3& velocity) {
    Vec3 n, vw;
    const float phi = wall.sample(position, n, vw);
    if (!(phi < wall.band)) return WallHit::Leaked;
    if (!(phi > -margin) || phi <= -wall.band) return WallHit::None;
    if (n.x == 0.f && n.y == 0.f && n.z == 0.f) return phi > 0.f ? WallHit::Leaked : WallHit::None;
    position -= n * (phi + margin);
    Vec3 u = velocity - vw;
    const float un = dot(u, n);
    if (un > 0.f) u -= n * ((1.f + restitution) * un);
    velocity = u + vw;
    return WallHit::Pushed;
}

/// Signed distance field of a closed, consistently outward-wound triangle mesh on a
/// regular grid, rebuilt in place for every pose of a moving wall (or restored from a
/// Snapshot of an earlier build).
///
/// Sources: collision with margin, Poyart 2016 section 3.5.2.2 (the closest-point query
/// that VTK's cell locator answered there is precomputed here); signs of the nodes from
/// crossing parity along grid lines (scan conversion), and from them those of exact
/// thin-cell queries (the angle-weighted pseudo-normals of Bærentzen & Aanæs 2005,
/// "Signed distance computation using the angle weighted pseudonormal", IEEE TVCG
/// 11(3), remain the contact direction on the surface only); a grid SDF
/// sampled with its gradient as contact normal, as in Jia 2017 (4.2, 4.4, after
/// Macklin et al. 2014).
///
/// Build:
///  1. Narrow band (|phi| < band): each node keeps the minimum of (squared exact
///     distance, triangle index) over all triangles closer than `band` (64-bit atomic
///     min: sort-free, deterministic, independent of the thread count; ties go to the
///     lower triangle index). A triangle only evaluates the nodes where it can be the
///     closest one (its characteristic region, Mauch 2003): when the face normals around
///     its three vertices lie within ~45 degrees of its own and each vertex is a closed,
///     consistently wound manifold fan of non-sliver triangles, that region lies in the
///     tilted prism |h| <= band, s_e <= tan(theta) |h| (h: height above the triangle's
///     plane, s_e: in-plane distance past edge e, theta: bound on those normals' angle,
///     plus float margins) - typically a few nodes for a triangle of a cell or less;
///     other triangles evaluate every node within band of their plane, edge lines and
///     bounding ball (skipping nodes whose best is already closer than a plane or ball
///     lower bound). Every triangle that attains a node's distance to the mesh is
///     evaluated there, so the result is that of evaluating all triangles everywhere
///     (bit for bit in the tests; in principle a float near-tie, within rounding, with a
///     triangle that is not closest could resolve differently). The wall velocity is
///     interpolated with the closest point's barycentric weights.
///  2. Signs, every node: the parity of the mesh's crossings along the node's x grid
///     line before it (the line starts outside, on the grid border); off-band nodes get
///     +-band. A crossing is an exact 2D point-in-triangle test in (y, z) with symbolic
///     perturbation, so a line through a shared edge or vertex crosses exactly once.
///     For a closed mesh this is inside/outside exactly, pockets and nested shells
///     included, and it stays right where the wall folds slightly - slivers a moving
///     wall turns over - where the pseudo-normal of the closest feature cancels or
///     points the wrong way. The queries of thin cells (3.) take their signs from
///     these node signs too (WallFieldView::thinCellSign()), not from pseudo-normals.
///  3. Thin cells: a cell is thin when two of its 8 corner nodes lie in the band and the
///     face normals of their closest triangles satisfy n_a . n_b < thinNormalDot (default
///     0: the corners see walls facing more than 90 degrees apart, e.g. both sides of a
///     slab or septum thinner than about two cells, or a fold). There the trilinear
///     interpolant of two walls can miss the region between them entirely, so queries
///     in the cell search exactly the triangles within min_corner |phi| + sqrt(3) cell of
///     the cell (a bound on the distance from any point of the cell to the mesh), stored
///     as a CSR list, nearest first (a query stops at the first triangle whose bounding
///     ball lies beyond its best). Smooth walls and 90-degree box edges are not flagged.
///
/// Rebuilding reuses every allocation (node arrays only grow); the mesh topology (edge
/// adjacency, vertex incidence, which vertices are regular fans) is recomputed only
/// when the triangle list changes. All passes run in parallel (oneTBB).
class WallDistanceField {
public:
    struct Settings {
        float cellSize = 0.f;      ///< node spacing (m), > 0
        float band = 0.f;          ///< band half-width (m), >= 2 cells; 0: auto = max(3 cells, margin + 2 cells)
        int paddingCells = 3;      ///< grid nodes beyond the mesh bounds on each side, >= 1
        float margin = 0.f;        ///< collision margin the field is used with (only sets the auto band)
        /// Thin-cell threshold (see class comment). < -1 disables the exact path; > 1
        /// makes every cell with a corner in the band exact (slow; for validation).
        float thinNormalDot = 0.f;
    };

    WallDistanceField() = default;

    /// (Re)builds the field for `mesh` with optional per-vertex velocities (m/s, one per
    /// vertex; null: a static wall). Throws std::invalid_argument for an empty mesh,
    /// out-of-range triangle indices, non-finite vertices or velocities, a velocity
    /// count that differs from the vertex count, a non-positive cell size, a band below
    /// 2 cells, paddingCells < 1, or a grid beyond 2^26 (~64M) nodes. On a throw the
    /// previous field is left unchanged.
    void build(const TriangleMesh& mesh, const std::vector<Vec3>* vertexVelocities, const Settings& settings);

    /// A built field in compact form, for keeping many poses of a periodic wall (the
    /// beating heart's, see heart::HeartSimulation): the mesh and its vertex velocities,
    /// distances and velocities of the band nodes only, one sign bit for every other
    /// node and the thin cells' triangle lists - about a third of the field's memory.
    /// restore() gives back the field it was taken from bit for bit (the view's arrays),
    /// in a fraction of build()'s time.
    struct Snapshot {
        TriangleMesh mesh;                   ///< the wall (m)
        std::vector<Vec3> vertexVelocities;  ///< m/s, one per vertex
        std::vector<Vec3> vertexNormals;     ///< kept: they cost an acos per corner
        Settings settings;
        Vec3 origin;
        float band = 0.f; ///< the band used (settings.band may be 0: automatic)
        int nx = 0, ny = 0, nz = 0;
        std::vector<std::uint64_t> inside;   ///< bit n: node n has phi < 0 (off-band nodes: -band)
        std::vector<std::uint64_t> inBand;   ///< bit n: node n is in the band
        std::vector<float> bandPhi;          ///< per band node, in node order (m)
        std::vector<Vec3> bandVelocity;      ///< per band node, in node order (m/s)
        std::vector<std::uint32_t> thinCells; ///< ascending
        std::vector<std::uint32_t> thinStart; ///< thinCells.size() + 1 offsets into the lists below
        /// The thin cells' triangle lists: 16-bit indices when the mesh has fewer than
        /// 65536 triangles (they are the largest part of a heart's snapshot), else 32-bit.
        std::vector<std::uint16_t> cellTriangles16;
        std::vector<std::uint32_t> cellTriangles32;
        std::size_t thinCellCount = 0;       ///< thinCellCount() of the field
        /// Memory held (bytes).
        std::size_t bytes() const;
    };
    /// The field as it stands (throws std::logic_error before the first build()).
    Snapshot snapshot() const;
    /// Makes this field the one `snapshot` was taken from, as if built again from its
    /// mesh (the next build() reuses allocations as usual). lastBuildTimes() is left as is.
    void restore(const Snapshot& snapshot);

    /// Pointers into this object's host arrays; valid until the next build() or
    /// destruction. Must not be used (valid() is false) before the first build().
    WallFieldView view() const;

    float band() const { return band_; }
    float cellSize() const { return cellSize_; }
    /// The grid's extent (node (0,0,0) to node (nx-1, ny-1, nz-1)).
    Aabb bounds() const;
    /// Signed distance at p (host convenience for view().signedDistance(p)).
    float signedDistance(Vec3 p) const;
    /// Host memory held, scratch arrays included (bytes).
    std::size_t bytes() const;
    bool empty() const { return phi_.empty(); }
    /// Cells answered by the exact closest-point path after the last build.
    std::size_t thinCellCount() const { return thinCells_; }
    /// Wall-clock time of the last build's stages (ms), for benchmarks.
    struct BuildTimes {
        double meshMs = 0.0;  ///< validation, mesh copy, topology and normals
        double bandMs = 0.0;  ///< closest triangles of the band nodes (scatterBand)
        double signMs = 0.0;  ///< distances, velocities and crossing-parity signs
        double thinMs = 0.0;  ///< thin cells and their triangle lists
    };
    const BuildTimes& lastBuildTimes() const { return times_; }
    const Settings& settings() const { return settings_; }

private:
    /// nodeCount_, cellCount_ from the grid's dimensions, and the arrays grown to them.
    void sizeGrid();
    void updateTopology(const TriangleMesh& mesh);
    /// Face, edge and vertex normals, and with `all` what build() needs besides (corner
    /// angles, slivers, cones); without, the vertex normals are left as they are.
    void computeNormals(bool all = true);
    void scatterBand();
    void resolveNodes();
    void buildThinCells();
    /// Writes cellTriangleStart_ for thin cells `thin` (ascending) whose lists start at
    /// listStart (thin.size() + 1 offsets).
    void writeCellStarts(const std::vector<std::uint32_t>& thin, const std::uint32_t* listStart);

    Settings settings_;
    Vec3 origin_;
    float cellSize_ = 0.f;
    float band_ = 0.f;
    int nx_ = 0, ny_ = 0, nz_ = 0;
    Aabb meshBounds_;
    std::size_t thinCells_ = 0;
    BuildTimes times_;
    std::size_t nodeCount_ = 0, cellCount_ = 0; // the node arrays may be longer (grow only)

    // Field (in the view).
    std::vector<float> phi_;
    std::vector<Vec3> nodeVelocity_;
    std::vector<std::uint32_t> cellTriangleStart_;
    std::vector<std::uint32_t> cellTriangles_;
    // Mesh copy (in the view).
    std::vector<Vec3> vertices_;
    std::vector<Vec3> vertexNormals_;
    std::vector<Vec3> vertexVelocities_;
    std::vector<std::uint32_t> triangles_;
    std::vector<Vec3> faceNormals_;
    std::vector<float> triangleBalls_; // 4 per triangle, see WallFieldView::triangleBalls
    std::vector<Vec3> edgeNormals_;
    // Topology cache: triangle across each edge (3 per triangle, ~0u if none or
    // non-manifold) and vertex -> (triangle * 3 + corner) incidence in CSR form.
    std::vector<std::uint32_t> edgeNeighbour_;
    std::vector<std::uint32_t> vertexCornerStart_;
    std::vector<std::uint32_t> vertexCorners_;
    // 1: the vertex's triangles form one closed, consistently wound manifold fan (the
    // precondition of the tilted-prism scatter region, see scatterBand()).
    std::vector<std::uint8_t> vertexRegular_;
    bool topologyValid_ = false;
    std::size_t cellStartDirtyEnd_ = 0; // cellTriangleStart_ is zero from here on
    // Scratch reused between builds.
    std::vector<std::uint64_t> nodeKey_;  // (squared distance bits << 32) | triangle
    std::vector<std::uint8_t> nodeBand_;  // 1: node in the band
    std::vector<std::uint8_t> cellThin_;
    std::vector<float> cornerAngle_;      // 3 per triangle
    std::vector<std::uint8_t> triangleSliver_; // 1: zero-area or sliver (normal not trusted)
    std::vector<float> triangleConeCos_;  // cos of the widest face normal around the triangle's vertices from its own; -1: irregular
    std::vector<std::uint32_t> thinList_;    // thin cells, ascending
    std::vector<std::uint32_t> thinOffset_;  // chunk offsets, then list starts per thin cell
    std::vector<std::uint32_t> bucketStart_; // triangles by block of cells (CSR)
    std::vector<std::uint32_t> bucketTris_;
    std::vector<std::uint32_t> rowTriangleStart_; // triangles by x grid line (CSR), for the signs
    std::vector<std::uint32_t> rowTriangles_;
};

} // namespace atrium::sph
