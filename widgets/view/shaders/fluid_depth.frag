#version 120
// Blood surface, pass 1: the sphere under this pixel, front side, as eye-space depth in
// mm (positive in front of the eye; the target is cleared to 0 = no blood). The true
// sphere depth also goes to the depth buffer, so the nearest sphere wins.
uniform float radius; // mm
varying vec3 eyeCenter;

void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    c.y = -c.y;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    vec3 eye = eyeCenter + vec3(c, sqrt(1.0 - r2)) * radius;
    vec4 clip = gl_ProjectionMatrix * vec4(eye, 1.0);
    gl_FragDepth = 0.5 * (clip.z / clip.w) + 0.5;
    gl_FragColor = vec4(-eye.z, 0.0, 0.0, 1.0);
}
