// What the browser tests share: a real `atrium-session serve` of a lecture on loopback, and
// Debian's headless Chromium driven by puppeteer-core with software WebGL (SwiftShader).
// Without Chromium or web/node_modules a test exits 77, which ctest reports as skipped
// (SKIP_RETURN_CODE), after saying why.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

export const CHROMIUM = process.env.ATRIUM_CHROMIUM || "/usr/bin/chromium";

export function skip(why) {
  console.log(`skipped: ${why}`);
  process.exit(77);
}

/** puppeteer-core, or a skip saying what is missing. */
export async function puppeteerOrSkip() {
  if (!existsSync(CHROMIUM)) skip(`${CHROMIUM} is missing (./scripts/setup installs Debian's chromium)`);
  try {
    return (await import("puppeteer-core")).default;
  } catch (e) {
    skip(`puppeteer-core is not installed in web/node_modules (./scripts/setup runs npm ci): ${e.message}`);
  }
}

/** Starts `atrium-session serve` and resolves with {process, info} once it prints its JSON line. */
export function serve(atriumSession, lecture, extra = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(atriumSession, ["serve", lecture, "--port", "0", "--loop", ...extra], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("exit", (code) => reject(new Error(`atrium-session serve exited ${code}: ${stderr}`)));
    createInterface({ input: child.stdout }).once("line", (line) => resolve({ process: child, info: JSON.parse(line), stderr: () => stderr }));
  });
}

/** A headless Chromium with a fresh profile; `close()` removes the profile too. */
export async function launch(puppeteer, viewport = { width: 1280, height: 720 }, acceptInsecureCerts = false) {
  const profile = mkdtempSync(join(tmpdir(), "atrium-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    acceptInsecureCerts, // a classroom's self-signed certificate, as a student accepts it once
    defaultViewport: viewport,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--use-angle=swiftshader",
      "--enable-unsafe-swiftshader",
    ],
  });
  return {
    browser,
    async close() {
      await browser.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export function check(condition, what) {
  if (!condition) throw new Error(`failed: ${what}`);
  console.log(`ok: ${what}`);
}

/** Waits until `predicate` holds in the page; on a timeout the error says what the page showed. */
export async function waitInPage(page, predicate, timeout, ...args) {
  try {
    await page.waitForFunction(predicate, { timeout, polling: 100 }, ...args); // by interval: frames may be throttled
  } catch (e) {
    const shown = await page.evaluate(() => (window.atriumPage ? window.atriumPage() : null)).catch(() => null);
    const text = shown
      ? JSON.stringify({ state: shown.state, framesDrawn: shown.framesDrawn, wallPhases: shown.wallPhases, sessionNow: shown.sessionNow, overlay: shown.overlay, narrative: shown.narrative })
      : "no page state";
    throw new Error(`${e.message}; the page showed ${text}`);
  }
}
