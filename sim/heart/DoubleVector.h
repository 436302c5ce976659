#pragma once
// Small double-precision 3-vectors for the surface work of sim/heart (extraction, hole
// capping): the mesh's float vertices are widened before plane fits and angles.

#include "sim/sph/Vec3.h"

#include <cmath>
#include <sstream>
#include <string>

namespace atrium::heart::surface {

struct D3 {
    double x = 0, y = 0, z = 0;
    double operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
};
inline D3 toD3(const sph::Vec3& v) { return {v.x, v.y, v.z}; }
inline D3 operator+(D3 a, D3 b) { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
inline D3 operator-(D3 a, D3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline D3 operator*(double s, D3 a) { return {s * a.x, s * a.y, s * a.z}; }
inline double dot(D3 a, D3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline D3 cross(D3 a, D3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
inline double norm(D3 a) { return std::sqrt(dot(a, a)); }

inline std::string formatPoint(D3 p) {
    std::ostringstream s;
    s.precision(4);
    s << '(' << p.x << ", " << p.y << ", " << p.z << ')';
    return s.str();
}

} // namespace atrium::heart::surface
