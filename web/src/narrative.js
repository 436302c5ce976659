// The narrative player's timeline (narrative/NarrativePlayer.cpp's walk and evaluate),
// for which node's overlays show and how opaque they are at a timeline second: per node
// fade-in, dwell (or a wait until the first key press at or after the node's arrival),
// fade-out, then the flight to the next node; looping flies back to node 0
// (loopDuration), and an entry pose adds a first flight (entryDuration). Only the node,
// the stage and the overlays' alpha are computed: the camera comes from the lecturer's
// poses. Narratives come from /content/narratives-<hash>.json (every field present).

const LOOP_DURATION = 3.0; // narrative::PlayerOptions' defaults, which the session uses
const ENTRY_DURATION = 2.0;

function* stages(n, keys, loop, entry) {
  const sorted = [...keys].sort((a, b) => a - b);
  let nextKey = 0;
  let c = 0;
  const count = n.nodes.length;
  if (count === 0) {
    yield { kind: "finished", node: -1, start: 0, end: Infinity };
    return;
  }
  if (entry) {
    yield { kind: "transition", node: 0, start: 0, end: ENTRY_DURATION };
    c = ENTRY_DURATION;
  }
  for (let cycle = 0; ; ++cycle) {
    for (let i = 0; i < count; ++i) {
      const node = n.nodes[i];
      const arrival = c;
      yield { kind: "fadeIn", node: i, start: c, end: c + node.fadeIn };
      c += node.fadeIn;
      if (node.waitForKey) {
        while (nextKey < sorted.length && sorted[nextKey] < arrival) ++nextKey;
        let release = nextKey < sorted.length ? sorted[nextKey++] : Infinity;
        release = Math.max(release, c);
        yield { kind: "waitingForKey", node: i, start: c, end: release };
        if (release === Infinity) return;
        c = release;
      } else {
        yield { kind: "dwell", node: i, start: c, end: c + node.dwell };
        c += node.dwell;
      }
      yield { kind: "fadeOut", node: i, start: c, end: c + node.fadeOut };
      c += node.fadeOut;
      if (i + 1 < count) {
        const d = n.transitions[i].duration;
        yield { kind: "transition", node: i + 1, start: c, end: c + d };
        c += d;
      }
    }
    if (!loop) {
      yield { kind: "finished", node: count - 1, start: c, end: Infinity };
      return;
    }
    yield { kind: "transition", node: 0, start: c, end: c + LOOP_DURATION };
    c += LOOP_DURATION;
  }
}

function fixedCycle(n, loop) {
  if (!loop || n.nodes.length === 0) return null;
  let length = LOOP_DURATION;
  for (let i = 0; i < n.nodes.length; ++i) {
    const node = n.nodes[i];
    if (node.waitForKey) return null;
    length += node.fadeIn + node.dwell + node.fadeOut + (i + 1 < n.nodes.length ? n.transitions[i].duration : 0);
  }
  return length;
}

/** {stage, node, overlayAlpha} at timeline second t, as narrative::evaluate gives them. */
export function evaluateNarrative(n, t, keys, loop, entry) {
  t = Number.isFinite(t) ? Math.max(t, 0) : 0;
  const cycle = fixedCycle(n, loop);
  if (cycle !== null) {
    const first = entry ? ENTRY_DURATION : 0;
    if (t >= first + cycle) t -= Math.min(Math.floor((t - first) / cycle), 1e9) * cycle;
  }
  for (const s of stages(n, keys, loop, entry)) {
    if (t >= s.end && s.kind !== "finished") continue;
    const length = s.end - s.start;
    const progress = Number.isFinite(length) && length > 0 ? Math.min(Math.max((t - s.start) / length, 0), 1) : 0;
    let alpha = 0;
    if (s.kind === "fadeIn") alpha = length > 0 ? progress : 1;
    else if (s.kind === "dwell" || s.kind === "waitingForKey") alpha = 1;
    else if (s.kind === "fadeOut") alpha = length > 0 ? 1 - progress : 0;
    return { stage: s.kind, node: s.node, overlayAlpha: alpha };
  }
  return { stage: "finished", node: -1, overlayAlpha: 0 };
}
