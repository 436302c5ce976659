// A student joins a live lecture from a browser: a real `atrium-session serve` of the
// sample lecture on loopback, Debian's headless Chromium opening the URL the server prints.
//   (a) the first frame with the heart's wall is drawn within 5 s of opening the page;
//   (b) following: at three moments of a flight (and any between) the page's camera is within 1 mm and 0.1 degree of the
//       lecturer's pose at the lecturer time it shows (the samples the lecturer sent, as a
//       second WebSocket in the browser received them, interpolated as session/PoseBuffer does);
//   (c) explore by dragging, and "Follow lecturer" returns; the first node's text overlay shows;
//   (d) over HTTP, package entries, lock.json and traversal paths are refused (404).
// Usage: node joinLecture.mjs ATRIUM_SESSION LECTURE.atrium
import http from "node:http";

import { check, launch, puppeteerOrSkip, serve, waitInPage } from "./browser.mjs";
import { forwardOf, interpolatePose, makePose } from "../src/poseMath.js";

const [atriumSession, lecture] = process.argv.slice(2);
const puppeteer = await puppeteerOrSkip();
const server = await serve(atriumSession, lecture);
const pageUrl = server.info.pages.find((u) => u.includes("127.0.0.1"));
const { browser, close } = await launch(puppeteer);
const started = Date.now();
try {
  check(pageUrl === `http://127.0.0.1:${server.info.port}/?code=${server.info.code}`, `serve prints the page's URL with the code (${pageUrl})`);

  // A second connection records the lecturer's pose samples as they are sent.
  const recorder = await browser.newPage();
  await recorder.goto(`http://127.0.0.1:${server.info.port}/style.css`);
  await recorder.evaluate((code) => {
    window.samples = [];
    const ws = new WebSocket(`ws://${location.host}/`, "atrium-session");
    ws.onopen = () => ws.send(JSON.stringify({ v: 1, type: "hello", code, name: "recorder" }));
    ws.onmessage = (e) => {
      const m = JSON.parse(e.data);
      if (m.type === "pose") window.samples.push({ t: m.t, p: m.p, yaw: m.yaw, pitch: m.pitch });
      if (m.type === "snapshot" && m.state.pose) window.samples.push(m.state.pose);
    };
  }, server.info.code);

  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const opened = Date.now();
  await page.goto(pageUrl);
  await waitInPage(page, () => window.atriumPage && window.atriumPage().framesDrawn > 0, 15000);
  const first = await page.evaluate(() => window.atriumPage());
  console.log(`first frame ${first.firstFrameMs.toFixed(0)} ms after navigation (${Date.now() - opened} ms wall clock), wall ${first.wallBytes} bytes, ${first.wallPhases} phases`);
  check(first.firstFrameMs < 5000, "(a) the first frame with the heart's wall is drawn within 5 s");
  const transferred = await page.evaluate(() =>
    [...performance.getEntriesByType("navigation"), ...performance.getEntriesByType("resource")].reduce((sum, e) => sum + e.transferSize, 0));
  check(transferred < 8e6, `joining took ${(transferred / 1e6).toFixed(2)} MB over HTTP (issue 25's bound: 8 MB)`);
  const drawn = await page.evaluate(() => {
    const source = document.getElementById("view");
    const copy = document.createElement("canvas");
    copy.width = source.width;
    copy.height = source.height;
    const g = copy.getContext("2d");
    g.drawImage(source, 0, 0);
    const d = g.getImageData(0, 0, copy.width, copy.height).data;
    let lit = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x10) + Math.abs(d[i + 1] - 0x14) + Math.abs(d[i + 2] - 0x1c) > 24) ++lit;
    return lit / (d.length / 4);
  });
  check(drawn > 0.01, `the heart covers part of the view (${(100 * drawn).toFixed(1)} % of the pixels)`);
  check((await page.evaluate(() => window.atriumPage().state)) === "following", "the page says it is following");
  await waitInPage(page, () => window.atriumPage().overlay.alpha === 1, 15000);
  const overlay = await page.evaluate(() => ({ ...window.atriumPage().overlay, text: document.getElementById("overlays").textContent }));
  check(overlay.node === 0 && overlay.text.includes("The left heart"), "the first node's text overlay shows, fully opaque in its dwell");

  // (b) Follow: moments 0.3 s apart in the flight from the first node to the second (the
  // sample lecture's first node dwells 8 s and fades out, and the flight of 4 s starts at
  // about 9.4 s), until three of them fall in the motion; every moment must match.
  await waitInPage(page, () => window.atriumPage().sessionNow > 9.8, 15000);
  const phases = [];
  let moving = 0;
  let heldNewest = 0;
  for (let i = 0; i < 12 && moving < 3; ++i) {
    if (i > 0) await new Promise((r) => setTimeout(r, 300));
    const shown = await page.evaluate(() => window.atriumPage());
    // The lecturer's samples that had reached the page (the same stream): when the page
    // runs past its newest sample (the next one late), it holds that one, as it should.
    const sent = (await recorder.evaluate(() => window.samples)).map((s) => ({ t: s.t, pose: makePose(s.p, s.yaw, s.pitch) }));
    sent.sort((a, b) => a.t - b.t);
    const samples = sent.filter((s) => s.t <= shown.shown.newestT);
    const t = shown.shown.t;
    const after = sent.findIndex((s) => s.t > t);
    const inMotion = after > 0 && sent[after].t - sent[after - 1].t < 0.1; // between two samples of a motion
    if (inMotion) ++moving;
    if (t > shown.shown.newestT) ++heldNewest;
    check(samples.length > 0 && samples[0].t <= t, `moment ${i + 1}: the recorder holds the lecturer's samples before t = ${t.toFixed(3)} s`);
    const k = samples.findIndex((s) => s.t > t);
    phases.push(shown.heartPhase);
    const reference = k < 0 ? samples[samples.length - 1].pose : interpolatePose(samples[k - 1].pose, samples[k].pose, (t - samples[k - 1].t) / (samples[k].t - samples[k - 1].t));
    const distance = Math.hypot(...reference.p.map((c, j) => c - shown.camera.p[j]));
    const f = forwardOf(reference);
    const dot = f.reduce((s, c, j) => s + c * shown.camera.forward[j], 0);
    const angleDeg = (Math.acos(Math.min(1, Math.max(-1, dot))) * 180) / Math.PI;
    check(distance < 1 && angleDeg < 0.1, `(b) moment ${i + 1}${inMotion ? " (in motion)" : ""}: the page's camera is ${distance.toFixed(4)} mm and ${angleDeg.toFixed(4)} degrees from the lecturer's`);
  }

  check(moving >= 3, `${moving} moments fell in the lecturer's motion (heart phases ${phases.map((p) => p.toFixed(3)).join(", ")}; ${heldNewest} ran past the newest sample)`);
  check(new Set(phases.map((p) => p.toFixed(3))).size >= 3, "the wall beats: the heart's phase moves on between the moments");

  // (c) Explore by dragging, then follow again.
  const before = await page.evaluate(() => window.atriumPage().camera.p);
  await page.mouse.move(640, 360);
  await page.mouse.down();
  await page.mouse.move(760, 400, { steps: 8 });
  await page.mouse.up();
  await waitInPage(page, () => window.atriumPage().state === "exploring", 10000);
  const explored = await page.evaluate(() => window.atriumPage().camera.p);
  check(Math.hypot(...explored.map((c, j) => c - before[j])) > 1, "(c) dragging orbits the camera and the page says it is exploring");
  const button = await page.$("#follow");
  const box = await button.boundingBox();
  check(box.height >= 44 && box.width >= 44, `the Follow lecturer button is at least 44 px (${box.width.toFixed(0)} x ${box.height.toFixed(0)})`);
  await button.click();
  await waitInPage(page, () => window.atriumPage().state === "following", 10000);
  check(true, "(c) Follow lecturer returns to following");

  // (d) Only the listed paths are served.
  const status = (path) =>
    new Promise((resolve, reject) => {
      http.get({ host: "127.0.0.1", port: server.info.port, path }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on("error", reject);
    });
  for (const path of ["/lock.json", "/manifest.json", "/media/logo.svg", "/..%2flock.json", "/%2e%2e/%2e%2e/etc/passwd", "/content/../lock.json", "//etc/passwd"])
    check((await status(path)) === 404, `(d) ${path} is refused`);
  check(errors.length === 0, `no script errors in the page${errors.length ? ": " + errors.join("; ") : ""}`);
  console.log(`browser test took ${((Date.now() - started) / 1000).toFixed(1)} s`);
} finally {
  await close();
  server.process.removeAllListeners("exit");
  server.process.kill("SIGTERM");
}
