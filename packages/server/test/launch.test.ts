import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROUTER_MALLOC_ENV, ROUTER_NODE_FLAGS } from "../src/launch.js";

const repositoryRoot = join(import.meta.dirname, "..", "..", "..");

/**
 * Grows the young generation the way a start does (many objects that survive a while), then prints its capacity
 * in bytes: the semi-space in use (what is allocated in it plus what is still free).
 */
const GROW_YOUNG_GENERATION = `
const v8 = require("node:v8");
const kept = [];
for (let i = 0; i < 400000; i++) {
  kept.push({ i, text: "x" + i, pair: [i, i + 1] });
  if (kept.length > 100000) kept.splice(0, 50000);
}
const young = v8.getHeapSpaceStatistics().find((space) => space.space_name === "new_space");
console.log(young.space_used_size + young.space_available_size);
`;

function youngGenerationCapacity(flags: readonly string[]): number {
  const run = spawnSync(process.execPath, [...flags, "-e", GROW_YOUNG_GENERATION], { encoding: "utf8" });
  expect(run.stderr).toBe("");
  expect(run.status).toBe(0);
  return Number(run.stdout.trim());
}

describe("the router's launch settings", () => {
  it("are flags this node accepts on its command line (not all of them in NODE_OPTIONS)", () => {
    const run = spawnSync(process.execPath, [...ROUTER_NODE_FLAGS, "-e", "0"], { encoding: "utf8" });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("bound the young generation to 8 MiB semi-spaces, which a start-like load grows past by default", () => {
    expect(youngGenerationCapacity([])).toBeGreaterThan(8 * 2 ** 20);
    expect(youngGenerationCapacity(ROUTER_NODE_FLAGS)).toBeLessThanOrEqual(8 * 2 ** 20);
  });

  it("are what the container recipe sets", () => {
    const recipe = readFileSync(join(repositoryRoot, "examples", "container", "Dockerfile"), "utf8");
    expect(recipe).toContain(`ROUTER_NODE_FLAGS="${ROUTER_NODE_FLAGS.join(" ")}" `);
    expect(recipe).not.toContain("NODE_OPTIONS=");
    // The entrypoint gives them to node on its command line, where node takes every one of them.
    const entrypoint = readFileSync(join(repositoryRoot, "examples", "container", "entrypoint.sh"), "utf8");
    expect(entrypoint).toMatch(/^exec node \$\{ROUTER_NODE_FLAGS:-\} "\$\(command -v trestle\)" "\$@"$/m);
    for (const [name, value] of Object.entries(ROUTER_MALLOC_ENV))
      expect(recipe).toContain(`${name}=${value} `);
  });

  // What `pnpm start` gives the router it starts is read from the running router: packages/e2e/test/pnpm-start.test.ts.
});
