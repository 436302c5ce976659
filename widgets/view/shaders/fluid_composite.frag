#version 120
// Blood surface, pass 4 (main scene, opaque bin): shades the smoothed depth as a liquid.
// Normals come from finite differences of the eye-space positions, each taken on the
// side whose depth differs less, so that a silhouette does not bend its neighbours'
// normals. The colour is light that crossed the blood, absorbed per Beer-Lambert
// (red passes, green and blue die: thin blood is bright red, deep blood dark), mixed by
// Schlick's Fresnel term with a reflected sky, plus a highlight. Coverage grows with
// the thickness. The surface's depth is written, so that the translucent heart wall
// drawn next composes over it.
uniform sampler2D depthTex;     // smoothed eye depth, mm; 0 = no blood
uniform sampler2D thicknessTex; // rgb: colour x thickness; a: blood crossed by the view ray, mm
uniform bool colored;           // the particles' colours instead of blood's absorption
uniform vec2 texelSize;         // 1 / viewport size in pixels
uniform mat4 sceneProjection;   // the main camera's projection
uniform vec3 absorption;        // Beer-Lambert coefficients, 1/mm
uniform float opacityPerMm;     // coverage 1 - exp(-k (t - edgeThickness))...
uniform float edgeThickness;    // ...mm: less blood than this is no blood, so that the outline
                                // follows the smooth thickness, not the splats' discs
uniform float scatterDepth;     // mm of blood light crosses even at a thin rim before it leaves
uniform float depthFalloff;     // mm: depth steps larger than this between neighbours are edges
varying vec2 uv;

// Eye-space point seen at texture position t with eye depth d (mm).
vec3 eyePosition(vec2 t, float d) {
    vec2 ndc = t * 2.0 - 1.0;
    return vec3(d * (ndc.x + sceneProjection[2][0]) / sceneProjection[0][0],
                d * (ndc.y + sceneProjection[2][1]) / sceneProjection[1][1], -d);
}

// The surface's tangent along `offset`: the central difference where both neighbours
// lie on the surface, else the one-sided difference towards the neighbour nearer in
// depth (an edge); a neighbour without blood is never taken unless both are.
vec3 tangent(vec3 p, vec2 offset) {
    float dp = texture2D(depthTex, uv + offset).r, dm = texture2D(depthTex, uv - offset).r;
    vec3 forward = eyePosition(uv + offset, dp) - p, backward = p - eyePosition(uv - offset, dm);
    if (dp <= 0.0) return dm <= 0.0 ? vec3(0.0) : backward;
    if (dm <= 0.0) return forward;
    if (abs(forward.z - backward.z) < depthFalloff) return 0.5 * (forward + backward);
    return abs(forward.z) < abs(backward.z) ? forward : backward;
}

void main() {
    float d = texture2D(depthTex, uv).r;
    if (d <= 0.0) discard;
    vec3 p = eyePosition(uv, d);
    vec3 n = cross(tangent(p, vec2(texelSize.x, 0.0)), tangent(p, vec2(0.0, texelSize.y)));
    if (dot(n, n) <= 0.0) discard; // a one-pixel sliver of blood has no surface to shade
    n = normalize(n);
    vec3 v = normalize(-p);
    if (dot(n, v) < 0.0) n = -n;

    // Light through the blood, and a soft diffuse term so the body's shape reads.
    vec3 l = normalize(vec3(0.3, 0.5, 1.0));
    vec4 crossed = texture2D(thicknessTex, uv);
    float thickness = crossed.a;
    float coverage = 1.0 - exp(-opacityPerMm * (thickness - edgeThickness));
    if (coverage <= 0.0) discard;
    vec3 transmitted = colored ? crossed.rgb / max(thickness, 1e-6) : exp(-absorption * (thickness + scatterDepth));
    vec3 body = transmitted * (0.35 + 0.65 * max(dot(n, l), 0.0));

    // A dim environment (the view sits in a dark room): a grey sky above the eye and a
    // dark floor below, in eye space like the wall's headlight.
    vec3 r = reflect(-v, n);
    vec3 sky = mix(vec3(0.06, 0.05, 0.05), vec3(0.50, 0.52, 0.56), smoothstep(-0.3, 0.7, r.y));
    float cosTheta = max(dot(n, v), 0.0);
    float fresnel = 0.02 + 0.98 * pow(1.0 - cosTheta, 5.0); // Schlick, F0 of water-like plasma
    vec3 h = normalize(l + v);
    float specular = pow(max(dot(n, h), 0.0), 120.0);
    vec3 colour = mix(body, sky, fresnel) + 0.6 * specular;

    // A faint rim must not hide the wall behind it: it takes the far plane's depth.
    vec4 clip = sceneProjection * vec4(p, 1.0);
    gl_FragDepth = coverage < 0.5 ? 1.0 : 0.5 * (clip.z / clip.w) + 0.5;
    gl_FragColor = vec4(colour, coverage);
}
