#version 120
// Semi-transparent, two-sided myocardium: headlight diffuse + specular, and more
// opaque at grazing angles (a rim term) so the outline stays readable when the wall
// is nearly transparent. Fragments on the negative side of the clipping plane are cut.
uniform vec3 wallColor;
uniform float opacity;        // 0..1 at normal incidence
uniform bool clipEnabled;
uniform vec4 clipPlane;       // world: dot(n, x) + d >= 0 is kept
varying vec3 eyeNormal;
varying vec3 eyePosition;
varying vec3 worldPosition;

void main() {
    if (clipEnabled && dot(clipPlane.xyz, worldPosition) + clipPlane.w < 0.0) discard;
    vec3 n = normalize(eyeNormal);
    if (!gl_FrontFacing) n = -n;
    vec3 v = normalize(-eyePosition);
    float facing = abs(dot(n, v));
    float diffuse = max(dot(n, v), 0.0);
    float specular = pow(diffuse, 30.0);
    float rim = pow(1.0 - facing, 2.0);
    float alpha = clamp(opacity + (1.0 - opacity) * 0.7 * rim, 0.0, 1.0);
    gl_FragColor = vec4(wallColor * (0.25 + 0.75 * diffuse) + 0.15 * specular, alpha);
}
