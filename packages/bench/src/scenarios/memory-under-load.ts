import { startTrestle } from "../configurations.js";
import { type LatencySummary, summariseLatencies } from "../latency-summary.js";
import { runLoad } from "../load-runner.js";
import { type MemoryGrowth, type MemorySample, summariseMemoryGrowth } from "../memory-growth.js";
import { readRss } from "../proc-stats.js";

/** The router's memory over a long load (issue 19: "memory flat under 10 minutes of load"). */
export interface MemoryUnderLoadMeasurement extends MemoryGrowth {
  configuration: "trestle-grpc";
  concurrency: number;
  /** Load before the measured window, ms: long enough for the bounded call history and the caches to fill. */
  warmupMs: number;
  /** Length of the measured window, ms. */
  windowMs: number;
  callsPerSecond: number;
  /** Calls that failed in the measured window. */
  errors: number;
  errorSamples: string[];
  latency: LatencySummary;
  /** Router RSS once started and before any load, bytes. */
  rssBeforeWarmupBytes: number;
  /** Time between two samples, ms. */
  sampleIntervalMs: number;
  /** Every sample of the measured window, in order. */
  series: MemorySample[];
}

/** Settings of the soak. */
export interface MemoryUnderLoadOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  sampleIntervalMs: number;
  /** Flags for the router's node (e.g. `--heapsnapshot-signal=SIGUSR2` to look into a growth). */
  routerNodeArgs?: readonly string[];
  /** Called with the router's pid once it serves (e.g. to signal it for heap snapshots). */
  onRouterStarted?: (pid: number) => void;
  log?: (line: string) => void;
}

const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;

/**
 * Starts trestle-grpc, loads it for a warm-up, then keeps loading it for `durationMs` while reading the router's
 * RSS each time the load generator reports its count of answered calls, and fits RSS over calls.
 * @throws Error when the router does not start, the load generator fails, or the router ends mid-run.
 */
export async function runMemoryUnderLoad(
  options: MemoryUnderLoadOptions,
): Promise<MemoryUnderLoadMeasurement> {
  const log = options.log ?? (() => undefined);
  const trestle = await startTrestle(
    "grpc",
    options.routerNodeArgs ? { nodeArgs: options.routerNodeArgs } : {},
  );
  try {
    const pid = trestle.router.pid;
    options.onRouterStarted?.(pid);
    const rssBeforeWarmupBytes = readRss(pid) ?? Number.NaN;
    const series: MemorySample[] = [];
    let gone = false;
    const result = await runLoad(
      {
        target: trestle.target,
        concurrency: options.concurrency,
        warmupMs: options.warmupMs,
        durationMs: options.durationMs,
        progressIntervalMs: options.sampleIntervalMs,
      },
      undefined,
      (progress) => {
        const rssBytes = readRss(pid);
        if (rssBytes === undefined) {
          gone = true;
          return;
        }
        series.push({ elapsedMs: progress.elapsedMs, calls: progress.calls, rssBytes });
        // About once a minute, so that a long run shows it is alive.
        const every = Math.max(1, Math.round(60_000 / options.sampleIntervalMs));
        if ((series.length - 1) % every === 0) {
          log(
            `  ${(progress.elapsedMs / 1000).toFixed(0)} s: ${progress.calls} calls, ${progress.errors} errors, router RSS ${mib(rssBytes)}`,
          );
        }
      },
    );
    if (gone) throw new Error(`the router (pid ${pid}) ended during the load: ${trestle.router.output()}`);
    const growth = summariseMemoryGrowth(series);
    return {
      configuration: "trestle-grpc",
      concurrency: options.concurrency,
      warmupMs: options.warmupMs,
      windowMs: result.windowMs,
      callsPerSecond: (result.calls * 1000) / result.windowMs,
      errors: result.errors,
      errorSamples: result.errorSamples,
      latency: summariseLatencies(result.latenciesMs),
      rssBeforeWarmupBytes,
      sampleIntervalMs: options.sampleIntervalMs,
      ...growth,
      series,
    };
  } finally {
    await trestle.stop();
  }
}
