import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium, which `.ci/run` installs (`apt-get install chromium`); `TRESTLE_TEST_CHROMIUM` overrides it. */
export const CHROMIUM_PATH = process.env.TRESTLE_TEST_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Flags for a headless Chromium on a machine without a display or a network beyond loopback: no sandbox (tests run
 * as root), no GPU, and none of the background connections that a closed network refuses.
 */
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * Launches Debian's Chromium through playwright-core (which gives it a new, empty profile of its own).
 *
 * @throws an Error that says how to install Chromium when it is not there: a browser test must fail, not skip,
 *   where CI would have run it.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(
      `Chromium is not installed at ${CHROMIUM_PATH}: install Debian's chromium (apt-get install -y chromium, as ` +
        ".ci/run does) or set TRESTLE_TEST_CHROMIUM to a Chromium binary",
    );
  }
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

/** The directory a test keeps its screenshots in (a test artifact: `test-results/` is not committed). */
export function screenshotDir(name: string): string {
  const dir = join(import.meta.dirname, "..", "..", "test-results", name);
  mkdirSync(dir, { recursive: true });
  return dir;
}
