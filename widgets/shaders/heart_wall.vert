#version 120
// The heart wall: world-space position kept for the clipping plane, eye-space normal
// and position for headlight shading. Vertices are in world units (mm).
varying vec3 eyeNormal;
varying vec3 eyePosition;
varying vec3 worldPosition;

void main() {
    vec4 eye = gl_ModelViewMatrix * gl_Vertex;
    eyePosition = eye.xyz;
    worldPosition = gl_Vertex.xyz;
    eyeNormal = gl_NormalMatrix * gl_Normal;
    gl_Position = gl_ProjectionMatrix * eye;
}
