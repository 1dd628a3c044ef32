import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ROUTER_MALLOC_ENV, ROUTER_NODE_FLAGS } from "@trestle/server/launch";
import { afterAll, describe, expect, it } from "vitest";
import { type RunningProcess, repoRoot, serviceHealthy, startNode } from "./support/processes.js";

/** The pids of `pid`'s children. */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync("ps", ["-o", "pid=", "--ppid", String(pid)], { encoding: "utf8" })
      .split("\n")
      .map((line) => Number(line.trim()))
      .filter((child) => child > 0);
  } catch {
    // ps exits 1 when there is none.
    return [];
  }
}

/** A process's environment, as `NAME=value` entries. */
function environmentOf(pid: number): string[] {
  return readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").filter(Boolean);
}

/** The README's main-job command, run as a newcomer runs it: `pnpm start` in a directory of their own. */
describe("pnpm start (scripts/start.mjs)", () => {
  const dir = mkdtempSync(join(tmpdir(), "trestle-start-"));
  let start: RunningProcess | undefined;

  afterAll(async () => {
    await start?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("starts the router with its launch settings and the built-in services on the embedded store, and stops on SIGTERM", async () => {
    // A NODE_OPTIONS of the shell applies to the router too; this newcomer's shell has none.
    // Probed every second (as every e2e router is) so that the built-ins show healthy soon.
    const env = { TRESTLE_PROBE_INTERVAL_MS: "1000" };
    start = startNode(join(repoRoot, "scripts", "start.mjs"), ["--port", "0"], env, [], {
      cwd: dir,
      unset: ["NODE_OPTIONS", ...Object.keys(ROUTER_MALLOC_ENV)],
    });
    // The build (cached unless a source changed) comes first, and says so.
    await start.waitForLine((l) => l.startsWith("trestle: building the workspace"), 30_000);
    await start.waitForLine((l) => /^trestle: built in \d+ s; starting the router/.test(l), 300_000);
    const line = await start.waitForLine((l) => l.includes("is serving MCP at"), 120_000);
    const url = (/serving MCP at (http:\/\/\S+?)\/mcp/.exec(line) as RegExpExecArray)[1] as string;

    const [routerPid] = childrenOf(start.child.pid as number);
    expect(routerPid).toBeGreaterThan(0);
    // The launch flags on node's command line, before the router's script; the malloc settings in its environment.
    const routerArgs = readFileSync(`/proc/${routerPid}/cmdline`, "utf8").split("\0");
    expect(routerArgs.slice(1, 1 + ROUTER_NODE_FLAGS.length)).toEqual([...ROUTER_NODE_FLAGS]);
    const routerEnv = environmentOf(routerPid as number);
    for (const [name, value] of Object.entries(ROUTER_MALLOC_ENV))
      expect(routerEnv).toContain(`${name}=${value}`);

    await Promise.all(["http", "file", "trestle"].map((name) => serviceHealthy(url, name)));
    const services = childrenOf(routerPid as number);
    expect(services.length).toBeGreaterThanOrEqual(3);
    for (const pid of services) {
      // The built-ins run with their own settings: the router's launch flags are not theirs.
      expect(environmentOf(pid).filter((entry) => entry.startsWith("NODE_OPTIONS="))).toEqual([]);
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")).not.toContain("--liftoff-only");
    }
    // The embedded default store, in the directory it was started from.
    expect(existsSync(join(dir, ".trestle", "data"))).toBe(true);

    const client = new Client({ name: "e2e-pnpm-start", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
    expect(client.getServerVersion()?.name).toBeTruthy();
    await client.close();

    expect(await start.stop(20_000)).toBe(0);
  }, 480_000);
});
