// The lecturer holds attention: the page says "held", a drag does not take the camera,
// and the Follow button stays hidden; released, a drag explores again. The lecturer is a
// remote one (tests/browser/AttentionDriver.cpp, with the secret atrium-session prints).
// The lecture runs over TLS with a classroom certificate (--self-signed): the page comes
// over https and follows over wss.
// Usage: node attention.mjs ATRIUM_SESSION LECTURE.atrium ATTENTION_DRIVER
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

import { check, launch, puppeteerOrSkip, serve } from "./browser.mjs";

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
  await page.waitForFunction(() => window.atriumPage().state === "following" && window.atriumPage().framesDrawn > 0, { timeout: 15000 });
  const drag = async () => {
    await page.mouse.move(640, 360);
    await page.mouse.down();
    await page.mouse.move(780, 420, { steps: 8 });
    await page.mouse.up();
    await new Promise((r) => setTimeout(r, 300));
  };

  driver.stdin.write("hold\n");
  await expectLine("held");
  await page.waitForFunction(() => window.atriumPage().state === "held", { timeout: 5000 });
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
  await page.waitForFunction(() => window.atriumPage().state === "following", { timeout: 5000 });
  await drag();
  check((await page.evaluate(() => window.atriumPage().state)) === "exploring", "released, a drag explores again");
} finally {
  driver.stdin.end();
  await close();
  server.process.removeAllListeners("exit");
  server.process.kill("SIGTERM");
}
