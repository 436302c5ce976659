#version 120
// Blood surface, splat passes (depth and thickness): one point sprite per particle,
// sized to the splat's projected diameter, as blood_spheres.vert does.
uniform float radius;         // splat radius, world units (mm)
uniform float viewportHeight; // pixels of the pass's target
varying vec3 eyeCenter;
varying vec4 color;           // the particle's colour (the thickness pass carries it)

void main() {
    color = gl_Color;
    vec4 eye = gl_ModelViewMatrix * gl_Vertex;
    eyeCenter = eye.xyz;
    gl_Position = gl_ProjectionMatrix * eye;
    // Projected diameter in pixels: 2 r * P11 / -z * (height / 2).
    gl_PointSize = max(2.0, viewportHeight * gl_ProjectionMatrix[1][1] * radius / max(-eye.z, 1e-3));
}
