#version 120
// Blood particles as sphere impostors: one point sprite per particle, sized to the
// particle's projected diameter (Poyart 2016, 3.6: "particles drawn as spheres").
uniform float radius;         // particle radius, world units (mm)
uniform float viewportHeight; // pixels
varying vec3 eyeCenter;

void main() {
    vec4 eye = gl_ModelViewMatrix * gl_Vertex;
    eyeCenter = eye.xyz;
    gl_Position = gl_ProjectionMatrix * eye;
    // Projected diameter in pixels: 2 r * P11 / -z * (height / 2).
    gl_PointSize = max(2.0, viewportHeight * gl_ProjectionMatrix[1][1] * radius / max(-eye.z, 1e-3));
    gl_FrontColor = gl_Color;
}
