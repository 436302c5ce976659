// The page's narrative timeline (web/src/narrative.js) shows the node, stage and overlay
// alpha narrative::evaluate shows: the C++ fixture (tests/browser/NarrativeFixture.cpp)
// evaluates a narratives document at many timeline seconds, with and without a loop, an
// entry flight and key presses, and prints them beside the narratives as the page gets
// them; this evaluates the same in JavaScript and compares. The page's overlay sanitiser
// is checked in the browser (joinLecture.mjs, overlays.mjs).
// Usage: node narrativeParity.mjs NARRATIVE_FIXTURE NARRATIVES.json
import { execFileSync } from "node:child_process";

import { evaluateNarrative } from "../src/narrative.js";

const fixture = JSON.parse(execFileSync(process.argv[2], [process.argv[3]], { maxBuffer: 64 << 20 }).toString());
let frames = 0;
let worstAlpha = 0;
const stagesSeen = new Set();
for (const c of fixture.cases) {
  const n = fixture.narratives[c.index];
  for (const f of c.frames) {
    const e = evaluateNarrative(n, f.t, c.keys, c.loop, c.entry);
    ++frames;
    stagesSeen.add(f.stage);
    if (e.stage !== f.stage || e.node !== f.node)
      throw new Error(`narrative ${c.index} (loop ${c.loop}, entry ${c.entry}) at t = ${f.t}: ${e.stage} node ${e.node}, C++ ${f.stage} node ${f.node}`);
    worstAlpha = Math.max(worstAlpha, Math.abs(e.overlayAlpha - f.alpha));
  }
}
console.log(`${frames} frames of ${fixture.cases.length} cases, stages ${[...stagesSeen].join(", ")}: worst alpha difference ${worstAlpha.toExponential(2)}`);
if (frames < 1000 || stagesSeen.size < 5) throw new Error("the fixture did not exercise the timeline");
if (worstAlpha > 1e-12) throw new Error("the page's overlay alpha differs from narrative::evaluate");
console.log("ok: the page's narrative timeline matches narrative::evaluate");
