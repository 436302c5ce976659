// A narrative's text reaches the page inert: a lecture whose overlay holds
// <img src=x onerror=...>, <script> and an onclick handler is packed (atrium-pack) and
// served (atrium-session serve); headless Chromium shows the text, without the picture,
// the script or the handler, and nothing of them runs. The overlay shows at the node
// with the alpha of the narrative's timeline, and the node's cut opens the heart.
// Usage: node overlays.mjs ATRIUM_PACK ATRIUM_SESSION
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { check, launch, puppeteerOrSkip, serve, waitInPage } from "./browser.mjs";

const [atriumPack, atriumSession] = process.argv.slice(2);
const puppeteer = await puppeteerOrSkip();
const dir = mkdtempSync(join(tmpdir(), "atrium-overlays-"));
const hostile =
  '<h2>Inert heading</h2><img src=x onerror="window.pwned = 1"><script>window.pwned = 2</script>' +
  '<p onclick="window.pwned = 3">Plain text stays</p><a href="javascript:window.pwned=4">a link</a>';
const node = (y, text, view) => ({
  ...(view ? { view } : {}),
  title: "node",
  pose: { position: [0, y, 0], yaw: 0, pitch: 0 },
  dwell: 30,
  waitForKey: false,
  fadeIn: 0.2,
  fadeOut: 0.2,
  overlays: [{ kind: "text", rect: { x: 0.05, y: 0.1, width: 0.5, height: 0.3 }, z: 1, text }],
});
writeFileSync(join(dir, "manifest.json"), JSON.stringify({
  format: "atrium-content", version: 1, title: "Hostile text", heart: { source: "phantom", preset: "four-chamber" },
  narratives: "narratives.json", categories: [], resources: [],
}));
writeFileSync(join(dir, "narratives.json"), JSON.stringify({
  format: "atrium-narratives", version: 1,
  narratives: [{ title: "hostile", nodes: [node(-200, hostile, { clipping: { enabled: true, offset: 0.25 } }), node(-150, "second")], transitions: [{ duration: 2 }] }],
}));
const lecture = join(dir, "hostile.atrium");
execFileSync(atriumPack, ["create", lecture, "--manifest", join(dir, "manifest.json"), "--files", dir]);
const server = await serve(atriumSession, lecture);
const { browser, close } = await launch(puppeteer);
try {
  const page = await browser.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(server.info.pages.find((u) => u.includes("127.0.0.1")));
  await waitInPage(page, () => window.atriumPage && window.atriumPage().overlay.alpha === 1, 15000);
  const shown = await page.evaluate(() => ({
    overlay: window.atriumPage().overlay,
    text: document.getElementById("overlays").textContent,
    pwned: window.pwned,
    images: document.querySelectorAll("#overlays img, #overlays script, #overlays a, #overlays [onclick]").length,
  }));
  console.log(`overlay: ${shown.overlay.html}`);
  check(shown.overlay.node === 0 && shown.text.includes("Inert heading") && shown.text.includes("Plain text stays"), "the node's text shows, fully opaque in its dwell");
  check(shown.images === 0 && !/onerror|onclick|<script|javascript:/i.test(shown.overlay.html), "no picture, script, link or handler reaches the page");
  await page.click("body", { offset: { x: 100, y: 150 } }).catch(() => {});
  await new Promise((r) => setTimeout(r, 300));
  check((await page.evaluate(() => window.pwned)) === undefined && shown.pwned === undefined, "nothing of the narrative's markup ran");
  // The node opens the heart: the cut faces the camera, a quarter of the radius beyond the centre.
  const cut = await page.evaluate(() => ({ cut: window.atriumPage().cut, camera: window.atriumPage().camera.p }));
  const cameraSide = cut.cut ? cut.cut.normal.reduce((d, n, i) => d + n * cut.camera[i], cut.cut.constant) : 0;
  check(cut.cut !== null && cameraSide < 0, `the node's cut is on, its plane facing away from the camera (the near half cut away; camera at ${cameraSide.toFixed(1)} mm)`);
  check(errors.length === 0, `no script errors${errors.length ? ": " + errors.join("; ") : ""}`);
} finally {
  await close();
  server.process.removeAllListeners("exit");
  server.process.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
}
