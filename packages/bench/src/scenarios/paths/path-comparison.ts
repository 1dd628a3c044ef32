import { median, summariseLatencies } from "../../latency-summary.js";
import { runLoad } from "../../load-runner.js";
import type { LoadTarget } from "../../load-spec.js";
import { readSelfCpuMs, readTreeCpuMs } from "../../proc-stats.js";

/** One way of serving the same call: what the load generator calls, and the process whose CPU is counted. */
export interface PathVariant {
  label: string;
  target: LoadTarget;
  /** The server's process (the router, the bare server, the proxy): its CPU per call is the row's. */
  serverPid: number;
}

/** One variant in one round. */
export interface PathRound {
  round: number;
  callsPerSecond: number;
  /** CPU of the server process alone per call, µs. */
  serverCpuUsPerCall: number;
  /** CPU of the server process and its descendants (a stdio server, a sandbox) per call, µs. */
  treeCpuUsPerCall: number;
}

/** One variant over every round. */
export interface PathRow {
  label: string;
  /** Median over rounds. */
  callsPerSecond: number;
  /** Calls measured over every round. */
  calls: number;
  /** Percentiles of every measured call of every round together. */
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  errorSamples: string[];
  /** Medians over rounds. */
  serverCpuUsPerCall: number;
  treeCpuUsPerCall: number;
  /** The median over rounds of this row's calls/s ÷ the first row's in the same round (1 for the first row). */
  ratioToFirst: number;
  rounds: PathRound[];
}

/** Settings of {@link runPathComparison}. */
export interface PathComparisonOptions {
  concurrency: number;
  rounds: number;
  warmupMs: number;
  durationMs: number;
  log(line: string): void;
}

/** What one variant's runs gave, before it is summarised. */
export interface PathRuns {
  label: string;
  rounds: PathRound[];
  latenciesMs: number[];
  errors: number;
  errorSamples: string[];
}

/** Summarises each variant's runs into a row; ratios are taken round by round against the first variant. */
export function summarisePathRuns(runs: readonly PathRuns[]): PathRow[] {
  const first = runs[0];
  return runs.map((run) => {
    const latency = summariseLatencies(run.latenciesMs);
    const ratios: number[] = [];
    for (const round of run.rounds) {
      const base = first?.rounds.find((r) => r.round === round.round)?.callsPerSecond;
      if (base !== undefined && base > 0) ratios.push(round.callsPerSecond / base);
    }
    return {
      label: run.label,
      callsPerSecond: median(run.rounds.map((r) => r.callsPerSecond)),
      calls: latency.count,
      p50Ms: latency.p50,
      p99Ms: latency.p99,
      maxMs: latency.max,
      errors: run.errors,
      errorSamples: run.errorSamples.slice(0, 5),
      serverCpuUsPerCall: median(run.rounds.map((r) => r.serverCpuUsPerCall)),
      treeCpuUsPerCall: median(run.rounds.map((r) => r.treeCpuUsPerCall)),
      ratioToFirst: median(ratios),
      rounds: run.rounds,
    };
  });
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
