import { median, summariseLatencies } from "../../latency-summary.js";

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
 * The median over rounds of the second row's server CPU per call ÷ the first row's in the same round: what a setting
 * costs the router, from two routers measured interleaved.
 */
export function medianCpuRatio(rows: readonly PathRow[]): number {
  const [base, other] = rows;
  if (!base || !other) return Number.NaN;
  const ratios: number[] = [];
  for (const round of other.rounds) {
    const baseCpu = base.rounds.find((r) => r.round === round.round)?.serverCpuUsPerCall;
    if (baseCpu !== undefined && baseCpu > 0) ratios.push(round.serverCpuUsPerCall / baseCpu);
  }
  return median(ratios);
}
