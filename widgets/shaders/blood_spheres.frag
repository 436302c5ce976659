#version 120
// Shades a point sprite as a lit sphere and writes the sphere's true depth, so that
// particles intersect each other and the heart wall correctly.
uniform float radius;
varying vec3 eyeCenter;

void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    c.y = -c.y;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    vec3 n = vec3(c, sqrt(1.0 - r2));
    vec4 clip = gl_ProjectionMatrix * vec4(eyeCenter + n * radius, 1.0);
    gl_FragDepth = 0.5 * (clip.z / clip.w) + 0.5;

    vec3 l = normalize(vec3(0.3, 0.5, 1.0));
    float diffuse = max(dot(n, l), 0.0);
    float specular = pow(max(dot(n, normalize(l + vec3(0.0, 0.0, 1.0))), 0.0), 40.0);
    gl_FragColor = vec4(gl_Color.rgb * (0.3 + 0.7 * diffuse) + 0.25 * specular, 1.0);
}
