import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childrenOf, readAnonRss, readRss } from "../proc-stats.js";
import { startRouter } from "../router-process.js";

/** One process of an idle router as `pnpm start` runs it. */
export interface ProcessFootprint {
  /** `router`, or the built-in service's package (`service-http`, …). */
  process: string;
  rssBytes: number;
  /** RSS without file-backed pages (the node binary, shared by every node process). */
  anonBytes: number;
}

/** The idle footprint of a router with the embedded store and the built-in services, on one data directory. */
export interface IdleFootprintMeasurement {
  /** `fresh` (the store created at this start) or `reopened` (the same directory, started again). */
  dataDirectory: "fresh" | "reopened";
  processes: ProcessFootprint[];
  startMs: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What a process is, from its command line: the built-in's package directory, or `router`. */
function nameOf(pid: number, routerPid: number): string {
  if (pid === routerPid) return "router";
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    const script = argv.find((a) => /packages\/[^/]+\/dist\//.test(a));
    return script ? (/packages\/([^/]+)\/dist\//.exec(script)?.[1] ?? script) : (argv[0] ?? String(pid));
  } catch {
    return String(pid);
  }
}

/** Reads each process's RSS once the router's has settled (two readings 1 s apart within 1 MiB). */
async function settledFootprint(routerPid: number, maxMs: number): Promise<ProcessFootprint[]> {
  const deadline = Date.now() + maxMs;
  let last = readRss(routerPid) ?? 0;
  for (;;) {
    await sleep(1_000);
    const now = readRss(routerPid) ?? 0;
    if (Math.abs(now - last) < 2 ** 20 || Date.now() > deadline) break;
    last = now;
  }
  return [routerPid, ...childrenOf(routerPid)].map((pid) => ({
    process: nameOf(pid, routerPid),
    rssBytes: readRss(pid) ?? 0,
    anonBytes: readAnonRss(pid) ?? 0,
  }));
}

/**
 * Starts `trestle serve --builtins` (what `pnpm start` runs) on a new data directory, reads the RSS of the
 * router and of each built-in service once idle, stops it, starts it again on the same directory and reads them
 * again. The directory is removed afterwards.
 */
export async function measureIdleFootprint(
  log: (line: string) => void = () => undefined,
): Promise<IdleFootprintMeasurement[]> {
  const root = await mkdtemp(join(tmpdir(), "trestle-bench-footprint-"));
  const dataDir = join(root, "data");
  const results: IdleFootprintMeasurement[] = [];
  try {
    for (const dataDirectory of ["fresh", "reopened"] as const) {
      const started = performance.now();
      const router = await startRouter({ args: ["--builtins", "--data-dir", dataDir, "--root", root] });
      const startMs = performance.now() - started;
      try {
        // Let the start's garbage go and the built-ins register and settle.
        await sleep(3_000);
        const processes = await settledFootprint(router.pid, 20_000);
        results.push({ dataDirectory, processes, startMs });
        log(
          `  ${dataDirectory}: ${processes.map((p) => `${p.process} ${(p.rssBytes / 2 ** 20).toFixed(0)} MiB`).join(", ")}`,
        );
      } finally {
        await router.stop();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return results;
}
