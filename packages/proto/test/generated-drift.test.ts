import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const repoRoot = join(import.meta.dirname, "..", "..", "..");
const committedDir = join(repoRoot, "packages", "proto", "src", "gen");

function listFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) out.push(...listFiles(full));
    else out.push(full);
  }
  return out.sort();
}

/** Runs `buf generate` into a scratch directory and returns the directory holding the generated tree. */
function generateFresh(scratch: string): string {
  const bin = join(repoRoot, "node_modules", ".bin");
  execFileSync(join(bin, "buf"), ["generate", "--output", scratch], {
    cwd: repoRoot,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ""}` },
    stdio: "pipe",
  });
  return join(scratch, "packages", "proto", "src", "gen");
}

describe("generated code", () => {
  const scratch = mkdtempSync(join(tmpdir(), "trestle-buf-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  // buf compiles every proto on each run: allow for a busy machine.
  it("matches a fresh `buf generate` of proto/ byte for byte (run `pnpm generate` when this fails)", {
    timeout: 120_000,
  }, () => {
    const freshDir = generateFresh(scratch);
    const fresh = listFiles(freshDir).map((f) => relative(freshDir, f));
    const committed = listFiles(committedDir).map((f) => relative(committedDir, f));
    expect(committed).toEqual(fresh);
    for (const file of fresh) {
      const a = readFileSync(join(freshDir, file), "utf8");
      const b = readFileSync(join(committedDir, file), "utf8");
      expect(b, `packages/proto/src/gen/${file} is stale`).toBe(a);
    }
  });
});
