import { readdirSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTrestle } from "../configurations.js";
import { type CpuProfile, type CpuProfileSummary, summariseCpuProfile } from "../cpu-profile-summary.js";
import { runLoad } from "../load-runner.js";

/** Where the router's CPU goes under load. */
export interface RouterProfileMeasurement {
  configuration: "trestle-grpc";
  concurrency: number;
  /** Calls made in the profiled window. */
  calls: number;
  callsPerSecond: number;
  /** Sampling interval of the profiler, µs. */
  samplingIntervalUs: number;
  summary: CpuProfileSummary;
}

/** Settings of the profiling run. */
export interface RouterProfileOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Where to keep the `.cpuprofile`; a temporary directory (removed) when absent. */
  keepIn?: string;
}

/**
 * Runs trestle-grpc with the router under `node --cpu-prof`: a warm-up load, then a measured load, then stops
 * the router (the profile is written as it exits) and sums the samples of the measured window.
 */
export async function runRouterProfile(options: RouterProfileOptions): Promise<RouterProfileMeasurement> {
  const first = await profileOnce(options);
  // On an overloaded machine the profiler's sampling thread can starve and leave a handful of samples, each
  // standing for seconds: such a profile says nothing, so it is taken once more.
  return first.summary.samples >= MIN_SAMPLES ? first : profileOnce(options);
}

/** Fewer samples than this in the measured window make a profile meaningless. */
export const MIN_SAMPLES = 1_000;

async function profileOnce(options: RouterProfileOptions): Promise<RouterProfileMeasurement> {
  const samplingIntervalUs = 250;
  const dir = options.keepIn ?? (await mkdtemp(join(tmpdir(), "trestle-bench-prof-")));
  const trestle = await startTrestle("grpc", {
    nodeArgs: ["--cpu-prof", "--cpu-prof-dir", dir, "--cpu-prof-interval", String(samplingIntervalUs)],
  });
  let window: { from: bigint; to: bigint; calls: number; callsPerSecond: number };
  try {
    await runLoad({
      target: trestle.target,
      concurrency: options.concurrency,
      warmupMs: 0,
      durationMs: options.warmupMs,
    });
    const from = process.hrtime.bigint();
    const result = await runLoad({
      target: trestle.target,
      concurrency: options.concurrency,
      warmupMs: 0,
      durationMs: options.durationMs,
    });
    const to = process.hrtime.bigint();
    window = { from, to, calls: result.totalCalls, callsPerSecond: (result.calls * 1000) / result.windowMs };
  } finally {
    await trestle.stop();
  }
  try {
    const file = readdirSync(dir).find(
      (f) => f.endsWith(".cpuprofile") && f.includes(`.${trestle.router.pid}.`),
    );
    if (!file) throw new Error(`the router wrote no CPU profile into ${dir}`);
    const profile = JSON.parse(await readFile(join(dir, file), "utf8")) as CpuProfile;
    return {
      configuration: "trestle-grpc",
      concurrency: options.concurrency,
      calls: window.calls,
      callsPerSecond: window.callsPerSecond,
      samplingIntervalUs,
      summary: summariseCpuProfile(profile, {
        fromUs: Number(window.from / 1000n),
        toUs: Number(window.to / 1000n),
        top: 40,
      }),
    };
  } finally {
    if (!options.keepIn) await rm(dir, { recursive: true, force: true });
  }
}
