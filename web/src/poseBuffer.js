// The student's adaptive pose buffer: session/PoseBuffer.{h,cpp} in JavaScript, step for
// step. Samples {t, pose} carry the lecturer's session time and arrive at the student's
// estimate of that clock; the lecturer's motion plays back `delay` seconds behind,
// interpolated between the two samples around that instant. The delay follows the
// samples' gap plus their lateness plus four mean deviations (Jacobson 1988), within
// [minDelay, maxDelay], moving at most `slew` seconds per second. Times in seconds.

import { interpolatePose } from "./poseMath.js";

export class PoseBuffer {
  constructor(options = {}) {
    this.options = { minDelay: 0.008, maxDelay: 0.5, initialDelay: 0.05, slew: 0.1, capacity: 512, ...options };
    this.samples = [];
    this.delay = this.options.initialDelay;
    this.lateMean = 0;
    this.lateDev = 0;
    this.gapMean = 1 / 60;
    this.estimated = false;
    this.lastNow = null;
  }

  /** A sample {t, pose} that arrived at session time `arrival`; false (dropped) when not newer than the newest. */
  push(sample, arrival) {
    const n = this.samples.length;
    if (n > 0 && !(sample.t > this.samples[n - 1].t)) return false;
    const late = arrival - sample.t;
    if (!this.estimated) {
      this.lateMean = late;
      this.lateDev = 0;
      this.estimated = true;
    } else {
      const error = late - this.lateMean;
      this.lateMean += error / 8;
      this.lateDev += (Math.abs(error) - this.lateDev) / 4;
    }
    if (n > 0) {
      const gap = Math.min(sample.t - this.samples[n - 1].t, 0.1);
      this.gapMean += (gap - this.gapMean) / 8;
    }
    this.samples.push(sample);
    while (this.samples.length > this.options.capacity) this.samples.shift();
    return true;
  }

  targetDelay() {
    const d = this.gapMean + Math.max(0, this.lateMean) + 4 * this.lateDev;
    return Math.min(Math.max(d, this.options.minDelay), this.options.maxDelay);
  }

  /** The pose to show at session time `now`, or null before any sample. */
  poseAt(now) {
    const s = this.samples;
    if (s.length === 0) return null;
    const dt = this.lastNow === null ? 0 : Math.min(Math.max(now - this.lastNow, 0), 1);
    this.lastNow = now;
    const step = this.options.slew * dt;
    this.delay += Math.min(Math.max(this.targetDelay() - this.delay, -step), step);
    const t = now - this.delay;
    while (s.length > 2 && s[1].t <= t) s.shift();
    if (t <= s[0].t) return s[0].pose;
    if (s.length === 1 || t >= s[s.length - 1].t) return s[s.length - 1].pose;
    const u = (t - s[0].t) / (s[1].t - s[0].t);
    return interpolatePose(s[0].pose, s[1].pose, Math.min(Math.max(u, 0), 1));
  }

  clear() {
    this.samples = [];
    this.lastNow = null;
  }
}

/** session/ClockSync: of the last 8 ping exchanges, the offset of the one with the shortest round trip. */
export class ClockSync {
  constructor() {
    this.recent = [];
  }
  addExchange(t0, ts, t1) {
    if (!(t1 >= t0)) return;
    this.recent.push({ offset: ts - 0.5 * (t0 + t1), roundTrip: t1 - t0 });
    if (this.recent.length > 8) this.recent.shift();
  }
  synced() {
    return this.recent.length > 0;
  }
  offset() {
    let best = null;
    for (const e of this.recent) if (!best || e.roundTrip < best.roundTrip) best = e;
    return best ? best.offset : 0;
  }
  toServer(local) {
    return local + this.offset();
  }
}
