import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot, startRouter, stopAll } from "./support/processes.js";

const PROBE = join(repoRoot, "packages", "e2e", "fixtures", "runtime-tuning-probe.mjs");

/** `@trestle/server/runtime` is off for a library and on in `trestle serve` (the library side: packages/server). */
describe("trestle serve tunes its own process", () => {
  afterAll(stopAll);

  it("replaces Node's AsyncResource bind before it serves", async () => {
    const router = await startRouter([], {}, ["--import", PROBE]);
    const isProbe = (l: string) => l.includes('"probe":"runtime-tuning"');
    const line = await router.waitForLine(isProbe, 10_000);
    expect(JSON.parse(line)).toEqual({ probe: "runtime-tuning", asyncResourceBind: "replaced" });
    // Tuned at the start, long before the router listens (and before its first node:http2 request).
    expect(router.lines.findIndex(isProbe)).toBeLessThan(
      router.lines.findIndex((l) => l.includes('"router listening"')),
    );
  });
});
