// The lecturer's app dies and comes back on the same port with the same code: the page
// keeps its last frame, says it is reconnecting, joins the new session by itself and
// follows again (its backoff: 0.25 s doubling to 5 s). On a phone-sized touch screen
// (390 x 844), a finger orbits and a pinch zooms.
// Usage: node reconnect.mjs ATRIUM_SESSION LECTURE.atrium
import net from "node:net";

import { check, launch, puppeteerOrSkip, serve, waitInPage } from "./browser.mjs";

const [atriumSession, lecture] = process.argv.slice(2);
const puppeteer = await puppeteerOrSkip();
const port = await new Promise((resolve) => {
  const s = net.createServer().listen(0, "127.0.0.1", () => {
    const p = s.address().port;
    s.close(() => resolve(p));
  });
});
const fixed = ["--port", String(port), "--code", "BROWSE7"];
let server = await serve(atriumSession, lecture, fixed);
const { browser, close } = await launch(puppeteer, { width: 390, height: 844, isMobile: true, hasTouch: true });
try {
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${port}/?code=BROWSE7`);
  await waitInPage(page, () => window.atriumPage().framesDrawn > 0 && window.atriumPage().state === "following", 15000);
  const first = await page.evaluate(() => window.atriumPage());
  check(first.state === "following", `a phone-sized page (390 x 844) joins session ${first.sessionId} and follows`);

  server.process.removeAllListeners("exit");
  server.process.kill("SIGKILL");
  await waitInPage(page, () => window.atriumPage().state === "reconnecting", 10000);
  const drawn = await page.evaluate(() => window.atriumPage().framesDrawn);
  await new Promise((r) => setTimeout(r, 1500));
  const during = await page.evaluate(() => window.atriumPage());
  check(during.state === "reconnecting" && during.framesDrawn > drawn, "with the lecturer gone the page says it is reconnecting and keeps drawing its last view");

  server = await serve(atriumSession, lecture, fixed);
  const restarted = Date.now();
  await waitInPage(page, (old) => window.atriumPage().state === "following" && window.atriumPage().sessionId !== old, 15000, first.sessionId);
  const back = await page.evaluate(() => window.atriumPage());
  check(back.sessionId === server.info.session, `it joins the restarted lecture by itself (${Date.now() - restarted} ms after the restart) and follows again`);

  // Touch: one finger orbits (the page explores), two fingers pinching apart zoom in.
  const cdp = await page.createCDPSession();
  const touch = (type, points) => cdp.send("Input.dispatchTouchEvent", { type, touchPoints: points.map(([x, y], id) => ({ x, y, id })) });
  const distance = async () => page.evaluate(() => Math.hypot(...window.atriumPage().camera.p));
  const before = await page.evaluate(() => window.atriumPage().camera.p);
  await touch("touchStart", [[195, 500]]);
  for (let i = 1; i <= 8; ++i) await touch("touchMove", [[195 + 10 * i, 500]]);
  await touch("touchEnd", []);
  await waitInPage(page, () => window.atriumPage().state === "exploring", 10000);
  const orbited = await page.evaluate(() => window.atriumPage().camera.p);
  check(Math.hypot(...orbited.map((c, j) => c - before[j])) > 1, "a one-finger drag orbits the camera and the page explores");
  const far = await distance();
  await touch("touchStart", [[195, 480], [195, 520]]);
  for (let i = 1; i <= 8; ++i) await touch("touchMove", [[195, 480 - 15 * i], [195, 520 + 15 * i]]);
  await touch("touchEnd", []);
  await new Promise((r) => setTimeout(r, 200));
  const near = await distance();
  check(near < far - 1, `pinching apart zooms in (${far.toFixed(1)} -> ${near.toFixed(1)} mm from the heart's frame origin)`);
} finally {
  await close();
  server.process.removeAllListeners("exit");
  server.process.kill("SIGTERM");
}
