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
    viewCosine = dot(normalize(gl_NormalMatrix * gl_Normal), normalize(-eye.xyz));
    clipDistance = dot(clipPlane.xyz, gl_Vertex.xyz) + clipPlane.w;
    gl_Position = gl_ProjectionMatrix * eye;
}
