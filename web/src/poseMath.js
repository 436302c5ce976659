// Camera poses as the session sends them (docs/session-protocol.md): a position in mm in
// the heart's frame (+Z up), yaw (0 looks along +Y, positive turns left) and pitch
// (positive looks up, within +-89 degrees), both radians. The same arithmetic as
// narrative/CameraPose.cpp and narrative/NarrativePlayer.cpp's interpolatePose, so that
// the page shows the poses the desktop follower shows (web/test/poseBufferParity.mjs).

export const MAX_PITCH = (89 * Math.PI) / 180;

/** Radians wrapped into [-pi, pi), as narrative::wrapAngle. */
export function wrapAngle(radians) {
  const twoPi = 2 * Math.PI;
  let wrapped = (radians + Math.PI) % twoPi; // fmod: keeps the sign of the dividend
  if (wrapped < 0) wrapped += twoPi;
  wrapped -= Math.PI;
  return wrapped >= Math.PI ? -Math.PI : wrapped;
}

/** A pose {p: [x, y, z], yaw, pitch} with yaw wrapped and pitch clamped. */
export function makePose(p, yaw, pitch) {
  return { p: [p[0], p[1], p[2]], yaw: wrapAngle(yaw), pitch: Math.min(Math.max(pitch, -MAX_PITCH), MAX_PITCH) };
}

/** Unit view direction: (-sin yaw cos pitch, cos yaw cos pitch, sin pitch). */
export function forwardOf(pose) {
  const c = Math.cos(pose.pitch);
  return [-Math.sin(pose.yaw) * c, Math.cos(pose.yaw) * c, Math.sin(pose.pitch)];
}

function multiply(a, b) {
  return {
    w: a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    x: a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
    y: a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
    z: a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w,
  };
}

function orientation(pose) {
  const yaw = { w: Math.cos(0.5 * pose.yaw), x: 0, y: 0, z: Math.sin(0.5 * pose.yaw) };
  const pitch = { w: Math.cos(0.5 * pose.pitch), x: Math.sin(0.5 * pose.pitch), y: 0, z: 0 };
  return multiply(yaw, pitch);
}

function slerp(a, b, u) {
  let d = a.w * b.w + a.x * b.x + a.y * b.y + a.z * b.z;
  if (d < 0) {
    b = { w: -b.w, x: -b.x, y: -b.y, z: -b.z };
    d = -d;
  }
  let ka = 1 - u;
  let kb = u;
  if (d < 0.9995) {
    const theta = Math.acos(Math.min(d, 1));
    const s = Math.sin(theta);
    ka = Math.sin((1 - u) * theta) / s;
    kb = Math.sin(u * theta) / s;
  }
  const q = { w: ka * a.w + kb * b.w, x: ka * a.x + kb * b.x, y: ka * a.y + kb * b.y, z: ka * a.z + kb * b.z };
  const n = Math.sqrt(q.w * q.w + q.x * q.x + q.y * q.y + q.z * q.z);
  return { w: q.w / n, x: q.x / n, y: q.y / n, z: q.z / n };
}

function cross(a, b) {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}

function forwardOfQuaternion(q) {
  const u = [q.x, q.y, q.z];
  const t = cross(u, [0, 1, 0]).map((c) => 2 * c);
  const ut = cross(u, t);
  return [q.w * t[0] + ut[0], 1 + q.w * t[1] + ut[1], q.w * t[2] + ut[2]];
}

/** The pose a fraction u of the way from a to b: position on the line, orientation by slerp. */
export function interpolatePose(a, b, u) {
  if (u <= 0) return a;
  if (u >= 1) return b;
  const f = forwardOfQuaternion(slerp(orientation(a), orientation(b), u));
  const horizontal = Math.hypot(f[0], f[1]);
  const yaw = horizontal > 1e-9 ? Math.atan2(-f[0], f[1]) : a.yaw + u * wrapAngle(b.yaw - a.yaw);
  const p = [0, 1, 2].map((i) => a.p[i] + (b.p[i] - a.p[i]) * u);
  return makePose(p, yaw, Math.atan2(f[2], horizontal));
}
