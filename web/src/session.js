// A receive-only student of a live lecture (docs/session-protocol.md): hello with the join
// code, welcome and snapshot, numbered deltas (a gap asks for a resync), pose samples into
// a PoseBuffer on the session clock that ping/pong keeps (ClockSync), reconnection with
// backoff (0.25 s doubling to 5 s, +-20 % jitter) and resume, and a watchdog that gives up
// on a connection silent for 8 s. It never drives: it sends only hello, ping, status and
// resync.

import { ClockSync, PoseBuffer } from "./poseBuffer.js";
import { makePose } from "./poseMath.js";

const localSeconds = () => performance.now() / 1000;

export class LectureSession {
  /** `onChange(what)` is called with "state", "status" or "refused" when those change. */
  constructor(url, code, onChange) {
    this.url = url;
    this.code = code;
    this.onChange = onChange;
    this.clock = new ClockSync();
    this.poses = new PoseBuffer();
    this.state = null; // the lecture's state (snapshot + deltas)
    this.seq = -1;
    this.memberId = null;
    this.sessionId = null;
    this.connected = false;
    this.refused = null; // the server's reason when it will not take us (do not retry)
    this.backoff = 0.25;
    this.pingId = 0;
    this.pings = new Map();
    this.awaitingSnapshot = false;
    this.connect();
  }

  /** The session clock now (the lecturer's), as well as it is known. */
  now() {
    return this.clock.toServer(localSeconds());
  }

  /** The session time to show the camera at: now(), or before the clock is known the
   *  snapshot's pose time (SessionFollower::pose). */
  cameraNow() {
    if (this.clock.synced()) return this.now();
    return this.state && this.state.pose ? this.state.pose.t : 0;
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify({ v: 1, ...message }));
  }

  /** Tells the lecturer whether this student follows or explores. */
  setFollowing(following) {
    this.following = following;
    this.send({ type: "status", following });
  }

  connect() {
    clearTimeout(this.retryTimer);
    const ws = new WebSocket(this.url, "atrium-session");
    this.ws = ws;
    this.lastHeard = localSeconds();
    ws.onopen = () => {
      const hello = { type: "hello", code: this.code, name: "browser" };
      if (this.memberId !== null) hello.resume = this.memberId;
      this.send(hello);
    };
    ws.onmessage = (event) => {
      this.lastHeard = localSeconds();
      let m;
      try {
        m = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(m);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.connected = false;
      clearInterval(this.pingTimer);
      clearInterval(this.watchdog);
      this.onChange("status");
      if (this.refused) return;
      const jitter = 1 + (Math.random() * 0.4 - 0.2);
      this.retryTimer = setTimeout(() => this.connect(), this.backoff * jitter * 1000);
      this.backoff = Math.min(this.backoff * 2, 5);
    };
    clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      if (localSeconds() - this.lastHeard > 8) ws.close();
    }, 1000);
  }

  ping() {
    const id = ++this.pingId;
    const t0 = localSeconds();
    this.pings.set(id, t0);
    this.send({ type: "ping", id, t0 });
  }

  receive(m) {
    switch (m.type) {
      case "welcome":
        if (this.sessionId !== null && m.session !== this.sessionId) this.poses.clear(); // the lecturer restarted
        this.sessionId = m.session;
        this.memberId = m.id;
        this.connected = true;
        this.backoff = 0.25;
        this.awaitingSnapshot = true;
        this.pings.clear();
        for (let i = 0; i < 5; ++i) setTimeout(() => this.ping(), 50 * i);
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.ping(), 1000);
        if (this.following === false) this.send({ type: "status", following: false });
        this.onChange("status");
        break;
      case "snapshot":
        this.state = m.state;
        this.seq = m.seq;
        this.awaitingSnapshot = false;
        if (m.state.pose) this.pushPose(m.state.pose);
        this.onChange("state");
        break;
      case "pong": {
        const t0 = this.pings.get(m.id);
        if (t0 === undefined) break;
        this.pings.delete(m.id);
        this.clock.addExchange(t0, m.ts, localSeconds());
        break;
      }
      case "pose":
        this.pushPose(m);
        break;
      case "bye":
        if (/wrong join code/.test(m.reason || "")) {
          this.refused = m.reason;
          this.onChange("refused");
        }
        break;
      case "narrative":
      case "sim":
      case "view":
      case "attention":
      case "floor":
      case "resource":
      case "pointer":
        this.delta(m);
        break;
      default:
        break;
    }
  }

  pushPose(sample) {
    if (!Array.isArray(sample.p) || sample.p.length !== 3) return;
    // Before the clock is known a sample counts as arriving on time, as SessionFollower does.
    const arrival = this.clock.synced() ? this.now() : sample.t;
    this.poses.push({ t: sample.t, pose: makePose(sample.p, sample.yaw, sample.pitch) }, arrival);
  }

  delta(m) {
    if (this.awaitingSnapshot || this.state === null) return;
    if (m.seq <= this.seq) return; // seen
    if (m.seq !== this.seq + 1) {
      this.awaitingSnapshot = true;
      this.send({ type: "resync" });
      return;
    }
    this.seq = m.seq;
    const s = this.state;
    if (m.type === "attention") s.attention = m.mode;
    else if (m.type === "floor") s.floor = m.holder;
    else if (m.type === "resource") s.resource = m.id;
    else if (m.type === "pointer") s.pointer = m.pointer;
    else s[m.type] = m.state;
    this.onChange("state");
  }

  /** The lecturer's heart phase in [0, 1) at session time `now`, or null before a state. */
  heartPhase(now) {
    const sim = this.state && this.state.sim;
    if (!sim) return null;
    const beating = sim.running ? ((now - sim.at) * sim.rateBpm) / 60 : 0;
    const c = sim.phase + beating;
    return c - Math.floor(c);
  }
}
