// The heart's wall from its ATRWALL1 encoding (session/StudentWall.h, documented in
// docs/session-protocol.md): each phase's mesh with its half-way displacements, decoded
// into floats once, and the wall at a cycle fraction by MovingHeartMesh::sample's rule.
// Every count is checked against the bytes present before anything is allocated.

const MAGIC = "ATRWALL1";

export class WallFormatError extends Error {}

/** Decodes an ArrayBuffer; throws WallFormatError naming the field. */
export function decodeWall(buffer) {
  const view = new DataView(buffer);
  let at = 0;
  const need = (bytes, what) => {
    if (bytes > buffer.byteLength - at)
      throw new WallFormatError(`wall: ${what}: needs ${bytes} bytes at byte ${at}, ${buffer.byteLength - at} remain`);
  };
  need(8, "magic");
  const magic = String.fromCharCode(...new Uint8Array(buffer, 0, 8));
  if (magic !== MAGIC) throw new WallFormatError("wall: magic: not an ATRWALL1 encoding");
  at = 8;
  need(40, "header");
  const version = view.getUint32(at, true);
  if (version !== 1) throw new WallFormatError(`wall: version: ${version}, this page reads 1`);
  const phaseCount = view.getUint32(at + 4, true);
  if (phaseCount < 2 || phaseCount > 256) throw new WallFormatError(`wall: phases: ${phaseCount}, needs 2 to 256`);
  at += 8;
  const low = [0, 1, 2].map((i) => view.getFloat32(at + 4 * i, true));
  const high = [0, 1, 2].map((i) => view.getFloat32(at + 12 + 4 * i, true));
  const range = view.getFloat32(at + 24, true);
  at += 28;
  const phases = [];
  for (let k = 0; k < phaseCount; ++k) {
    need(8, `phase ${k}: counts`);
    const n = view.getUint32(at, true);
    const t = view.getUint32(at + 4, true);
    at += 8;
    if (n === 0 || t === 0) throw new WallFormatError(`wall: phase ${k}: ${n} vertices, ${t} triangles`);
    const indexBytes = n <= 65536 ? 2 : 4;
    need(n * 18 + t * 3 * indexBytes, `phase ${k}: arrays`);
    const quantised = new Uint16Array(buffer.slice(at, at + n * 6));
    at += n * 6;
    const positions = new Float32Array(3 * n);
    for (let i = 0; i < 3 * n; ++i) {
      const a = i % 3;
      positions[i] = low[a] + (quantised[i] / 65535) * (high[a] - low[a]);
    }
    const displacement = () => {
      const q = new Int16Array(buffer.slice(at, at + n * 6));
      at += n * 6;
      const d = new Float32Array(3 * n);
      for (let i = 0; i < 3 * n; ++i) d[i] = (q[i] / 32767) * range;
      return d;
    };
    const forward = displacement();
    const backward = displacement();
    const indices = indexBytes === 2 ? new Uint16Array(buffer.slice(at, at + t * 6)) : new Uint32Array(buffer.slice(at, at + t * 12));
    at += t * 3 * indexBytes;
    for (let i = 0; i < indices.length; ++i)
      if (indices[i] >= n) throw new WallFormatError(`wall: phase ${k}: triangle ${Math.floor(i / 3)}: vertex index ${indices[i]} of ${n}`);
    phases.push({ positions, forward, backward, indices, vertexCount: n });
  }
  if (at !== buffer.byteLength) throw new WallFormatError(`wall: ${buffer.byteLength - at} bytes after the last phase`);
  return { phases, box: { low, high } };
}

/**
 * The wall at cycle fraction `c` (wraps): which phase's mesh, and its vertices written into
 * `outputs[k]` for that phase k (a Float32Array of its 3n floats). Returns k.
 */
export function sampleWall(wall, c, outputs) {
  const P = wall.phases.length;
  let t = c - Math.floor(c);
  if (t >= 1) t = 0;
  const u = t * P;
  const k = Math.min(Math.floor(u), P - 1);
  const s = Math.min(Math.max(u - k, 0), 1);
  let mesh, d, factor;
  if (s < 0.5) {
    mesh = k;
    d = wall.phases[mesh].forward;
    factor = s / 0.5;
  } else {
    mesh = (k + 1) % P;
    d = wall.phases[mesh].backward;
    factor = (1 - s) / 0.5;
  }
  const x = wall.phases[mesh].positions;
  const out = outputs[mesh];
  for (let i = 0; i < x.length; ++i) out[i] = x[i] + d[i] * factor;
  return mesh;
}
