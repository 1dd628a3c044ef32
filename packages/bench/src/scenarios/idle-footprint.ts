import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { childrenOf, processTree, readAnonRss, readPeakRss, readPss, readRss } from "../proc-stats.js";
import { startRouter } from "../router-process.js";

/** One process of an idle router as `pnpm start` runs it. */
export interface ProcessFootprint {
  /** `router`, or the built-in service's package (`service-http`, …). */
  process: string;
  rssBytes: number;
  /** RSS without file-backed pages (the node binary, shared by every node process). */
  anonBytes: number;
  /** Proportional set size: private pages plus a share of each shared one (0 when the kernel cannot say). */
  pssBytes: number;
  /** The most RSS it has held since it started (`VmHWM`): its start's peak, what a memory limit must allow. */
  peakRssBytes: number;
}

/** The idle footprint of a router with the embedded store and the built-in services, on one data directory. */
export interface IdleFootprintMeasurement {
  /** `fresh` (the store created at this start) or `reopened` (the same directory, started again). */
  dataDirectory: "fresh" | "reopened";
  /** Each process after {@link IDLE_MS} without a request: what an idle router holds (issue 19's targets). */
  processes: ProcessFootprint[];
  /**
   * Each process once the router's RSS first held still for a second after the start: before V8 has freed the
   * start's garbage (its memory reducer runs a few seconds after the allocation rate drops).
   */
  justStarted: ProcessFootprint[];
  startMs: number;
}

/** How long the router and its built-ins stay idle before {@link IdleFootprintMeasurement.processes} is read. */
export const IDLE_MS = 30_000;

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

/** Waits until the router's RSS holds still (two readings 1 s apart within 1 MiB), at most `maxMs`. */
async function untilSettled(routerPid: number, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = readRss(routerPid) ?? 0;
  for (;;) {
    await sleep(1_000);
    const now = readRss(routerPid) ?? 0;
    if (Math.abs(now - last) < 2 ** 20 || Date.now() > deadline) return;
    last = now;
  }
}

/**
 * The router's and each built-in's memory now. A built-in runs confined: the router's child is bubblewrap, whose
 * descendants run the service's node. Its figures are its whole tree's: the largest RSS among them (the node
 * process), and anonymous memory and PSS summed.
 */
function footprintNow(routerPid: number): ProcessFootprint[] {
  const router: ProcessFootprint = {
    process: "router",
    rssBytes: readRss(routerPid) ?? 0,
    anonBytes: readAnonRss(routerPid) ?? 0,
    pssBytes: readPss(routerPid) ?? 0,
    peakRssBytes: readPeakRss(routerPid) ?? 0,
  };
  const builtins = childrenOf(routerPid).map((child) => {
    const tree = processTree(child);
    const named = tree.map((pid) => nameOf(pid, routerPid)).find((name) => name.startsWith("service-"));
    return {
      process: named ?? nameOf(child, routerPid),
      rssBytes: Math.max(0, ...tree.map((pid) => readRss(pid) ?? 0)),
      anonBytes: tree.reduce((sum, pid) => sum + (readAnonRss(pid) ?? 0), 0),
      pssBytes: tree.reduce((sum, pid) => sum + (readPss(pid) ?? 0), 0),
      peakRssBytes: Math.max(0, ...tree.map((pid) => readPeakRss(pid) ?? 0)),
    };
  });
  return [router, ...builtins];
}

/**
 * Starts `trestle serve --builtins` (what `pnpm start` runs) on a new data directory, reads the memory of the
 * router and of each built-in service once the router's RSS holds still and again {@link IDLE_MS} after the
 * start, stops it, starts it again on the same directory and reads them again. The directory is removed
 * afterwards.
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
        // Let the built-ins register, then read once the router holds still, and again after a while idle.
        const idleFrom = Date.now();
        await sleep(3_000);
        await untilSettled(router.pid, 20_000);
        const justStarted = footprintNow(router.pid);
        await sleep(Math.max(0, idleFrom + IDLE_MS - Date.now()));
        const processes = footprintNow(router.pid);
        results.push({ dataDirectory, processes, justStarted, startMs });
        const line = (list: ProcessFootprint[]) =>
          list.map((p) => `${p.process} ${(p.rssBytes / 2 ** 20).toFixed(0)} MiB`).join(", ");
        log(`  ${dataDirectory}, just started: ${line(justStarted)}`);
        log(`  ${dataDirectory}, idle ${IDLE_MS / 1000} s: ${line(processes)}`);
      } finally {
        await router.stop();
      }
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return results;
}
