import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./support/processes.js";

const PROBE = join(repoRoot, "packages", "e2e", "fixtures", "tick-shape-probe.mjs");

/**
 * The IC state of each property definition of `nextTick`'s tick object literal, from V8's `%DebugPrint` of the
 * function after full collections that ran while no tick was queued.
 */
async function tickLiteralFeedback(mode: "control" | "pin"): Promise<{ states: string[]; pinned: boolean }> {
  const { stdout, stderr } = await promisify(execFile)(
    process.execPath,
    ["--allow-natives-syntax", "--expose-gc", PROBE, mode],
    { timeout: 60_000, maxBuffer: 16 * 1024 * 1024 },
  );
  const states = [...stdout.matchAll(/DefineKeyedOwnPropertyInLiteral (\w+)/g)].map(
    (match) => match[1] as string,
  );
  return { states, pinned: (JSON.parse(stderr.trim()) as { pinned: boolean }).pinned };
}

describe("the tick object's shape, pinned", () => {
  it("control: full collections with no tick queued leave nextTick's literal megamorphic (this Node does)", async () => {
    const { states } = await tickLiteralFeedback("control");
    // Four properties: two computed ids, `callback`, `args`.
    expect(states).toHaveLength(4);
    expect(states).toContain("MEGAMORPHIC");
  }, 90_000);

  it("pinned as `trestle serve` pins it, every property definition stays monomorphic", async () => {
    // Megamorphic, every tick object would be built by V8's runtime: about 2 % of a router's CPU a call.
    const { states, pinned } = await tickLiteralFeedback("pin");
    expect(pinned).toBe(true);
    expect(states).toEqual(["MONOMORPHIC", "MONOMORPHIC", "MONOMORPHIC", "MONOMORPHIC"]);
  }, 90_000);
});
