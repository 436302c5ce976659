#version 120
// Semi-transparent, two-sided myocardium: headlight diffuse + specular, more opaque at
// grazing angles (a rim term), and a dark silhouette where the wall turns away from
// the eye, so that the heart keeps its outline around the blood even when the wall is
// nearly transparent. Fragments on the negative side of the clipping plane are cut.
uniform vec3 wallColor;
uniform float opacity;        // 0..1 at normal incidence
uniform bool clipEnabled;
varying float viewCosine;
varying float clipDistance;

void main() {
    if (clipEnabled && clipDistance < 0.0) discard;
    float diffuse = max(gl_FrontFacing ? viewCosine : -viewCosine, 0.0);
    float specular = diffuse * diffuse; // diffuse^32 by squaring (pow() is dear in software)
    specular *= specular;
    specular *= specular;
    specular *= specular;
    specular *= specular;
    float grazing = 1.0 - min(abs(viewCosine), 1.0);
    float alpha = clamp(opacity + (1.0 - opacity) * 0.7 * grazing * grazing, 0.0, 1.0);
    // The silhouette: the last ~15 degrees before edge-on, darkened and nearly opaque.
    float edge = smoothstep(0.72, 0.97, grazing);
    vec3 color = wallColor * (0.25 + 0.75 * diffuse) + 0.15 * specular;
    color = mix(color, wallColor * 0.22, edge);
    alpha = mix(alpha, 0.92, edge);
    gl_FragColor = vec4(color, alpha);
}
