// The lecturer holds attention: the page says "held", a drag does not take the camera,
// and the Follow button stays hidden; released, a drag explores again. The lecturer is a
// remote one (tests/browser/AttentionDriver.cpp, with the secret atrium-session prints).
// The lecture runs over TLS with a classroom certificate (--self-signed): the page comes
// over https and follows over wss.
// Usage: node attention.mjs ATRIUM_SESSION LECTURE.atrium ATTENTION_DRIVER
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { check, launch, puppeteerOrSkip, serve, waitInPage } from "./browser.mjs";

const [atriumSession, lecture, attentionDriver] = process.argv.slice(2);
const puppeteer = await puppeteerOrSkip();
const server = await serve(atriumSession, lecture, ["--self-signed"]);
const url = server.info.urls.find((u) => u.includes("127.0.0.1"));
const driver = spawn(attentionDriver, [url, server.info.code, server.info.secret], { stdio: ["pipe", "pipe", "inherit"] });
const lines = createInterface({ input: driver.stdout })[Symbol.asyncIterator]();
const expectLine = async (want) => {
  const { value } = await lines.next();
  if (value !== want) throw new Error(`attention driver said ${value}, expected ${want}`);
};
const { browser, close } = await launch(puppeteer, undefined, true);
try {
  await expectLine("ready");
  const page = await browser.newPage();
  const pageUrl = server.info.pages.find((u) => u.includes("127.0.0.1"));
  check(pageUrl.startsWith("https://"), `over TLS the page's URL is https (${pageUrl})`);
  await page.goto(pageUrl);
  await waitInPage(page, () => window.atriumPage().state === "following" && window.atriumPage().framesDrawn > 0, 15000);
  // A drag, and then until the page has seen it (input is queued, and a loaded machine
  // may take a while to hand it to the page).
  const drag = async () => {
    const seen = await page.evaluate(() => window.atriumPage().pointerDowns);
    await page.mouse.move(640, 360);
    await page.mouse.down();
    await page.mouse.move(780, 420, { steps: 8 });
    await page.mouse.up();
    await waitInPage(page, (n) => window.atriumPage().pointerDowns > n, 10000, seen);
    await new Promise((r) => setTimeout(r, 200));
  };

  driver.stdin.write("hold\n");
  await expectLine("held");
  await waitInPage(page, () => window.atriumPage().state === "held", 15000);
  check(true, "the lecturer holds attention and the page says held");
  // The lecturer's app stands back while a remote lecturer drives: its camera rests.
  await new Promise((r) => setTimeout(r, 300));
  const before = await page.evaluate(() => window.atriumPage().camera.p);
  await drag();
  const held = await page.evaluate(() => ({ state: window.atriumPage().state, button: document.getElementById("follow").hidden, p: window.atriumPage().camera.p }));
  const moved = Math.hypot(...held.p.map((c, i) => c - before[i]));
  check(held.state === "held" && held.button && moved < 1e-6, `while held, a drag does not move the camera (${moved.toExponential(1)} mm) and there is no Follow button`);

  driver.stdin.write("free\n");
  await expectLine("freed");
  await waitInPage(page, () => window.atriumPage().state === "following", 15000);
  await drag();
  await waitInPage(page, () => window.atriumPage().state === "exploring", 10000);
  check(true, "released, a drag explores again");
} finally {
  driver.stdin.end();
  await close();
  server.process.removeAllListeners("exit");
  server.process.kill("SIGTERM");
}
