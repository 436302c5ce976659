#version 120
// Blood surface, pass 2: added up over all splats (blending ONE, ONE, no depth test),
// the length of blood a view ray crosses, mm. Each splat adds peak (1 - rho^2)^2 at
// rho = distance from its centre / radius: one particle's share of blood, fading
// smoothly to the rim so that the sum (and the surface's translucent edge) shows no
// disc outlines. The particle's colour, weighted alike, goes beside it (rgb): divided
// by the thickness it is the blood's mean colour along the ray.
uniform float thicknessPeak; // mm, at the splat's centre
varying vec4 color;

void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    float falloff = 1.0 - r2;
    float t = thicknessPeak * falloff * falloff;
    gl_FragColor = vec4(color.rgb * t, t);
}
