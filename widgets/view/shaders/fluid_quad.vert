#version 120
// Blood surface, full-screen passes: the quad's corners (-1..1) are mapped onto the
// blood's screen rectangle in NDC; no matrix applies. uv addresses the pass's textures.
uniform vec4 screenRect; // NDC: xmin, ymin, xmax, ymax
varying vec2 uv;

void main() {
    vec2 ndc = mix(screenRect.xy, screenRect.zw, gl_Vertex.xy * 0.5 + 0.5);
    uv = ndc * 0.5 + 0.5;
    gl_Position = vec4(ndc, 0.0, 1.0);
}
