#version 120
// The heart wall: headlight shading needs only the cosine between the surface normal
// and the direction to the eye, and the clipping plane only the signed distance to it;
// both are computed per vertex and interpolated, so the fragment shader - run for
// every layer of the translucent wall, on software rasterisers too - stays cheap.
// Vertices are in world units (mm).
uniform vec4 clipPlane;       // world: dot(n, x) + d >= 0 is kept
varying float viewCosine;     // dot(unit normal, unit direction to the eye), front side
varying float clipDistance;   // signed distance to the clipping plane (mm)

void main() {
    vec4 eye = gl_ModelViewMatrix * gl_Vertex;
    // A vertex of no triangle, or of folded ones, has no normal: seen edge-on, not NaN.
    vec3 n = gl_NormalMatrix * gl_Normal;
    float length2 = dot(n, n);
    viewCosine = length2 > 1e-12 ? dot(n * inversesqrt(length2), normalize(-eye.xyz)) : 0.0;
    clipDistance = dot(clipPlane.xyz, gl_Vertex.xyz) + clipPlane.w;
    gl_Position = gl_ProjectionMatrix * eye;
}
