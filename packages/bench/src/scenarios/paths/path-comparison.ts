import { runLoad } from "../../load-runner.js";
import type { LoadTarget } from "../../load-spec.js";
import { readSelfCpuMs, readTreeCpuMs } from "../../proc-stats.js";
import { type PathRound, type PathRow, type PathRuns, summarisePathRuns } from "./path-rows.js";

/** One way of serving the same call: what the load generator calls, and the process whose CPU is counted. */
export interface PathVariant {
  label: string;
  target: LoadTarget;
  /** The server's process (the router, the bare server, the proxy): its CPU per call is the row's. */
  serverPid: number;
}

/** Settings of {@link runPathComparison}. */
export interface PathComparisonOptions {
  concurrency: number;
  rounds: number;
  warmupMs: number;
  durationMs: number;
  log(line: string): void;
}

/**
 * Loads each variant in turn at one concurrency, in interleaved rounds (A B … then … B A), each run after an
 * unmeasured warm-up of its own, and reads each server's CPU from /proc around the measured run.
 */
export async function runPathComparison(
  variants: readonly PathVariant[],
  options: PathComparisonOptions,
): Promise<PathRow[]> {
  const runs: PathRuns[] = variants.map((v) => ({
    label: v.label,
    rounds: [],
    latenciesMs: [],
    errors: 0,
    errorSamples: [],
  }));
  for (let round = 1; round <= options.rounds; round++) {
    const order = variants.map((variant, index) => ({ variant, run: runs[index] as PathRuns }));
    for (const { variant, run } of round % 2 === 1 ? order : order.reverse()) {
      const load = (durationMs: number) => ({
        target: variant.target,
        concurrency: options.concurrency,
        warmupMs: 0,
        durationMs,
      });
      await runLoad(load(options.warmupMs));
      const selfBefore = readSelfCpuMs(variant.serverPid);
      const treeBefore = readTreeCpuMs(variant.serverPid);
      let selfMs = Number.NaN;
      let treeMs = Number.NaN;
      const result = await runLoad(load(options.durationMs), () => {
        selfMs = readSelfCpuMs(variant.serverPid) - selfBefore;
        treeMs = readTreeCpuMs(variant.serverPid) - treeBefore;
      });
      const perCall = (ms: number) => (result.totalCalls > 0 ? (ms * 1000) / result.totalCalls : Number.NaN);
      const measurement: PathRound = {
        round,
        callsPerSecond: (result.calls * 1000) / result.windowMs,
        serverCpuUsPerCall: perCall(selfMs),
        treeCpuUsPerCall: perCall(treeMs),
      };
      run.rounds.push(measurement);
      for (const latency of result.latenciesMs) run.latenciesMs.push(latency);
      run.errors += result.errors;
      run.errorSamples.push(...result.errorSamples);
      options.log(
        `  round ${round} ${variant.label.padEnd(36)} ${measurement.callsPerSecond.toFixed(0).padStart(6)} calls/s  ` +
          `server ${measurement.serverCpuUsPerCall.toFixed(0)} µs/call (with children ${measurement.treeCpuUsPerCall.toFixed(0)})  errors ${result.errors}`,
      );
    }
  }
  return summarisePathRuns(runs);
}
