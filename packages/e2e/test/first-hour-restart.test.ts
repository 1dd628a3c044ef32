import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type RouterProcess, startRouter, stopAll } from "./support/processes.js";

/** A JSON log line's level and message, or undefined for a line that is not one (the banner). */
function logLine(line: string): { level: number; msg: string; line: string } | undefined {
  try {
    const parsed = JSON.parse(line) as { level?: unknown; msg?: unknown };
    return typeof parsed.level === "number"
      ? { level: parsed.level, msg: String(parsed.msg), line }
      : undefined;
  } catch {
    return undefined;
  }
}

/** Lines at warn (40) or above. */
const alarming = (lines: readonly string[]) =>
  lines.map(logLine).filter((l): l is NonNullable<typeof l> => l !== undefined && l.level >= 40);

/** Starts a router with the built-ins on `dataDir`, and waits until each built-in registered. */
async function startWithBuiltins(dataDir: string): Promise<RouterProcess> {
  // No Python: which interpreter can run in the sandbox depends on the machine, and exec says so at warn level.
  const router = await startRouter([
    "--data-dir",
    dataDir,
    "--builtins",
    "--builtin-arg",
    "exec=--no-python",
  ]);
  for (const service of ["file", "http", "exec"])
    await router.waitForLine(
      (l) =>
        l.includes('"built-in service event"') &&
        l.includes(`"service":"${service}"`) &&
        l.includes('"type":"registered"'),
      60_000,
    );
  // Past the first probe round (the e2e routers probe every second), where stale registrations would show.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  return router;
}

describe("the first hour: a clean stop and start on the same data directory", () => {
  const scratch = mkdtempSync(join(tmpdir(), "trestle-restart-"));

  afterAll(async () => {
    await stopAll();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("stops without failed deregistrations and starts again without a warning the first start did not give", async () => {
    const dataDir = join(scratch, "data");
    const first = await startWithBuiltins(dataDir);
    const beforeStop = first.lines.length;
    expect(await first.stop(20_000)).toBe(0);
    const stopping = first.lines.slice(beforeStop);
    expect(stopping.filter((l) => l.includes("deregistration-failed"))).toEqual([]);
    expect(alarming(stopping)).toEqual([]);

    const second = await startWithBuiltins(dataDir);
    // The machine's own warnings (no PID namespace, …) come at every start; a restart adds none.
    const known = new Set(alarming(first.lines).map((l) => l.msg));
    expect(alarming(second.lines).filter((l) => !known.has(l.msg))).toEqual([]);
    expect(second.lines.filter((l) => /"health":"down"|stale|recover|orphan|EADDRINUSE/i.test(l))).toEqual(
      [],
    );
    expect(await second.stop(20_000)).toBe(0);
  }, 180_000);
});
