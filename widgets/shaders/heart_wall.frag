#version 120
// Semi-transparent, two-sided myocardium: headlight diffuse + specular, and more
// opaque at grazing angles (a rim term) so the outline stays readable when the wall
// is nearly transparent. Fragments on the negative side of the clipping plane are cut.
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
    gl_FragColor = vec4(wallColor * (0.25 + 0.75 * diffuse) + 0.15 * specular, alpha);
}
