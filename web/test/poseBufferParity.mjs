// The page's pose buffer (web/src/poseBuffer.js) shows the poses session/PoseBuffer shows:
// the C++ fixture (tests/browser/PoseBufferFixture.cpp) prints a stream of samples with
// arrival times and, at query times between them, the pose shown and the delay; this
// replays the stream through the JavaScript buffer and compares every query.
// Usage: node poseBufferParity.mjs POSE_BUFFER_FIXTURE
import { execFileSync } from "node:child_process";

import { PoseBuffer } from "../src/poseBuffer.js";
import { forwardOf, makePose } from "../src/poseMath.js";

const fixture = JSON.parse(execFileSync(process.argv[2], { maxBuffer: 64 << 20 }).toString());
const buffer = new PoseBuffer();
let queries = 0;
let moving = 0;
let worstMm = 0;
let worstRad = 0;
let worstDelay = 0;
for (const e of fixture.events) {
  if (e.push) {
    const p = e.push.pose;
    const taken = buffer.push({ t: e.push.t, pose: makePose(p.p, p.yaw, p.pitch) }, e.arrival);
    if (taken !== e.taken) throw new Error(`push at t = ${e.push.t}: taken ${taken}, C++ ${e.taken}`);
    continue;
  }
  const shown = buffer.poseAt(e.query);
  ++queries;
  if ((shown === null) !== (e.pose === null)) throw new Error(`query at ${e.query}: ${shown} against ${JSON.stringify(e.pose)}`);
  worstDelay = Math.max(worstDelay, Math.abs(buffer.delay - e.delay));
  if (!shown) continue;
  const mm = Math.hypot(...shown.p.map((c, i) => c - e.pose.p[i]));
  const a = forwardOf(shown);
  const b = forwardOf(e.pose);
  const rad = 2 * Math.asin(Math.min(1, Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]) / 2));
  worstMm = Math.max(worstMm, mm);
  worstRad = Math.max(worstRad, rad);
  if (shown.p[0] !== buffer.samples[0].pose.p[0]) ++moving;
}
console.log(`${queries} queries (${moving} between samples): worst ${worstMm.toExponential(2)} mm, ${worstRad.toExponential(2)} rad, delay ${worstDelay.toExponential(2)} s`);
if (queries < 500 || moving < 200) throw new Error("the fixture did not exercise the buffer");
if (worstMm > 1e-9 || worstRad > 1e-9 || worstDelay > 1e-12) throw new Error("the page's pose buffer differs from session/PoseBuffer");
console.log("ok: the page's pose buffer matches session/PoseBuffer");
