#pragma once
// Small 3-vector of floats shared by host and device code. Units are whatever the
// caller uses (the solver works in SI: metres, seconds).

#include <cmath>

#if defined(__CUDACC__)
#define ATRIUM_HD __host__ __device__ __forceinline__
#else
#define ATRIUM_HD inline
#endif

namespace atrium::sph {

struct Vec3 {
    float x = 0.f, y = 0.f, z = 0.f;

    ATRIUM_HD constexpr Vec3() = default;
    ATRIUM_HD constexpr Vec3(float x_, float y_, float z_) : x(x_), y(y_), z(z_) {}

    ATRIUM_HD constexpr float operator[](int i) const { return i == 0 ? x : (i == 1 ? y : z); }
    ATRIUM_HD constexpr Vec3 operator+(Vec3 o) const { return {x + o.x, y + o.y, z + o.z}; }
    ATRIUM_HD constexpr Vec3 operator-(Vec3 o) const { return {x - o.x, y - o.y, z - o.z}; }
    ATRIUM_HD constexpr Vec3 operator-() const { return {-x, -y, -z}; }
    ATRIUM_HD constexpr Vec3 operator*(float s) const { return {x * s, y * s, z * s}; }
    ATRIUM_HD constexpr Vec3 operator/(float s) const { return {x / s, y / s, z / s}; }
    ATRIUM_HD constexpr Vec3& operator+=(Vec3 o) { x += o.x; y += o.y; z += o.z; return *this; }
    ATRIUM_HD constexpr Vec3& operator-=(Vec3 o) { x -= o.x; y -= o.y; z -= o.z; return *this; }
    ATRIUM_HD constexpr Vec3& operator*=(float s) { x *= s; y *= s; z *= s; return *this; }
    ATRIUM_HD constexpr bool operator==(const Vec3&) const = default;
};

ATRIUM_HD constexpr Vec3 operator*(float s, Vec3 v) { return v * s; }
ATRIUM_HD constexpr float dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
ATRIUM_HD constexpr Vec3 cross(Vec3 a, Vec3 b) {
    return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
ATRIUM_HD constexpr float lengthSquared(Vec3 a) { return dot(a, a); }
ATRIUM_HD float length(Vec3 a) { return sqrtf(dot(a, a)); }
ATRIUM_HD Vec3 normalized(Vec3 a) {
    const float l = length(a);
    return l > 0.f ? a / l : Vec3{};
}
ATRIUM_HD constexpr Vec3 componentMin(Vec3 a, Vec3 b) {
    return {a.x < b.x ? a.x : b.x, a.y < b.y ? a.y : b.y, a.z < b.z ? a.z : b.z};
}
ATRIUM_HD constexpr Vec3 componentMax(Vec3 a, Vec3 b) {
    return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
}
ATRIUM_HD bool isFinite(Vec3 a) {
#if defined(__CUDACC__)
    return isfinite(a.x) && isfinite(a.y) && isfinite(a.z);
#else
    return std::isfinite(a.x) && std::isfinite(a.y) && std::isfinite(a.z);
#endif
}

/// Axis-aligned box [lo, hi].
struct Aabb {
    Vec3 lo, hi;
    ATRIUM_HD constexpr bool contains(Vec3 p) const {
        return p.x >= lo.x && p.x <= hi.x && p.y >= lo.y && p.y <= hi.y && p.z >= lo.z && p.z <= hi.z;
    }
    ATRIUM_HD constexpr Vec3 size() const { return hi - lo; }
};

} // namespace atrium::sph
