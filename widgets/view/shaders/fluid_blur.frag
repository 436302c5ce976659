#version 120
// Blood surface, pass 3: one direction of the separable bilateral filter on eye-space
// depth (Poyart 2016, 3.6.1; van der Laan et al. 2009). The kernel spans `blurScale`
// projected splat radii, so the spheres melt together at any distance; a neighbour's
// weight also falls with its depth difference, so silhouettes and a layer of blood in
// front of another stay sharp. Mirrors blurRadiusPixels() and bilateralWeight() of
// FluidSurface.h. Pixels without blood (0) are neither smoothed nor sampled.
uniform sampler2D depthTex;   // eye depth, mm; 0 = no blood
uniform vec2 texelSize;       // 1 / target size in pixels
uniform vec2 blurDirection;   // (1, 0) across, (0, 1) down
uniform float radius;         // splat radius, mm
uniform float pixelsPerMm;    // pixels covered by 1 mm at 1 mm depth: 0.5 * height * P11
uniform float blurScale;      // kernel radius in projected splat radii
uniform float maxBlurRadius;  // pixels
uniform float depthFalloff;   // mm: weight 1/e at this depth difference...
uniform float slopeTolerance; // ...plus this many mm per mm of image-plane offset
varying vec2 uv;

void main() {
    float d = texture2D(depthTex, uv).r;
    if (d <= 0.0) discard;
    float kernel = clamp(blurScale * radius * pixelsPerMm / d, 1.0, maxBlurRadius);
    float twoSigma2 = 2.0 * (0.5 * kernel) * (0.5 * kernel);
    float mmPerPixel = d / pixelsPerMm;
    float sum = d, weights = 1.0;
    // Every texel within the kernel: skipping some aliases with the splats' bumps and
    // the filter's own edges, and leaves a pattern in the normals.
    for (float x = 1.0; x <= kernel; x += 1.0) {
        // A slanted surface's depth changes along the kernel: tolerate that much more.
        float falloff = depthFalloff + slopeTolerance * x * mmPerPixel;
        float spatial = -x * x / twoSigma2;
        for (int side = -1; side <= 1; side += 2) {
            float s = texture2D(depthTex, uv + blurDirection * texelSize * (x * float(side))).r;
            if (s <= 0.0) continue;
            float dz = (s - d) / falloff;
            float w = exp(spatial - dz * dz);
            sum += s * w;
            weights += w;
        }
    }
    gl_FragColor = vec4(sum / weights, 0.0, 0.0, 1.0);
}
