#version 120
// Shades a point sprite as a lit sphere and writes the sphere's true depth, so that
// particles intersect each other and the heart wall correctly. Written for software
// rasterisers too (llvmpipe runs it for every covered pixel): the depth comes from two
// entries of the projection matrix instead of a full transform, and the specular
// power from repeated squaring instead of pow().
uniform float radius;
varying vec3 eyeCenter;

const vec3 kLight = vec3(0.2591605, 0.4319342, 0.8638684); // normalize(0.3, 0.5, 1)
const vec3 kHalf = vec3(0.1342290, 0.2237149, 0.9653674);  // normalize(kLight + (0, 0, 1))

void main() {
    vec2 c = gl_PointCoord * 2.0 - 1.0;
    c.y = -c.y;
    float r2 = dot(c, c);
    if (r2 > 1.0) discard;
    vec3 n = vec3(c, sqrt(1.0 - r2));
    // Eye-space depth of the sphere's surface here; the projection's z and w rows only
    // depend on it (perspective or orthographic, no shear in z).
    float z = eyeCenter.z + n.z * radius;
    float clipZ = gl_ProjectionMatrix[2][2] * z + gl_ProjectionMatrix[3][2];
    float clipW = gl_ProjectionMatrix[2][3] * z + gl_ProjectionMatrix[3][3];
    gl_FragDepth = 0.5 * (clipZ / clipW) + 0.5;

    float diffuse = max(dot(n, kLight), 0.0);
    float s = max(dot(n, kHalf), 0.0); // s^40 = s^32 s^8
    s *= s;
    s *= s;
    float s8 = s * s;
    s = s8 * s8;
    s *= s;
    float specular = s * s8;
    gl_FragColor = vec4(gl_Color.rgb * (0.3 + 0.7 * diffuse) + 0.25 * specular, 1.0);
}
