import type { ConfigurationName, RunningConfiguration } from "../configurations.js";
import { median, summariseLatencies } from "../latency-summary.js";
import { runLoad } from "../load-runner.js";
import { readPeakRss, readSelfCpuMs, readTreeCpuMs, sampleRss } from "../proc-stats.js";

/** Settings of the throughput benchmark. */
export interface ThroughputOptions {
  concurrencies: readonly number[];
  /** Interleaved rounds: each runs every configuration once at every concurrency. */
  rounds: number;
  warmupMs: number;
  durationMs: number;
  /** Before round 1, each configuration serves this long at concurrency 16, unmeasured, so that its JIT is warm. */
  preWarmMs: number;
  log(line: string): void;
}

/** One configuration at one concurrency in one round. */
export interface RoundMeasurement {
  round: number;
  callsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** Largest RSS of the server process sampled during the run, bytes. */
  peakRssBytes: number;
  /** CPU of the server process (the router, bare server or gateway) per call, µs. */
  serverCpuUsPerCall: number;
  /** CPU of what stands behind it (the echo capability, or the gateway's stdio servers) per call, µs. */
  backendCpuUsPerCall: number;
  /** CPU of the load generator per call, µs. */
  clientCpuUsPerCall: number;
}

/** One configuration at one concurrency, over every round. */
export interface ThroughputCell {
  configuration: ConfigurationName;
  concurrency: number;
  /** Median over rounds. */
  callsPerSecond: number;
  /** Percentiles of every call of every round together. */
  p50Ms: number;
  p99Ms: number;
  errors: number;
  errorSamples: string[];
  peakRssBytes: number;
  serverCpuUsPerCall: number;
  backendCpuUsPerCall: number;
  clientCpuUsPerCall: number;
  rounds: RoundMeasurement[];
}

/** What a configuration showed over the whole benchmark. */
export interface ConfigurationSummary {
  name: ConfigurationName;
  description: string;
  /** VmHWM of the server process at the end, bytes. */
  peakRssBytes: number;
  /** TCP connections the echo capability accepted over the whole benchmark (when there is one). */
  capabilityConnections?: number;
  /** Calls made through it (every round, warm-up and set-up included). */
  totalCalls: number;
}

/** The throughput benchmark's results. */
export interface ThroughputResult {
  cells: ThroughputCell[];
  configurations: ConfigurationSummary[];
  /** The order each round ran the configurations in. */
  schedule: string[];
}

/**
 * The order round `round` (from 1) runs `configurations` in at the concurrency listed `concurrencyIndex`-th: A B C …
 * or … C B A, alternating from one concurrency to the next within a round and from one round to the next at each
 * concurrency. So that a slow drift of the machine's load falls on all alike, and no configuration always runs
 * right after the same one at a concurrency (when the alternation went by block alone, four concurrencies a round
 * gave each concurrency the same order in every round).
 */
export function roundOrder<T>(configurations: readonly T[], round: number, concurrencyIndex: number): T[] {
  return (round + concurrencyIndex) % 2 === 1 ? [...configurations] : [...configurations].reverse();
}

/**
 * Runs every configuration at every concurrency, interleaved: each round runs all configurations in turn (in the
 * {@link roundOrder}), with the load generator in a process of its own.
 */
export async function runThroughput(
  configurations: readonly RunningConfiguration[],
  options: ThroughputOptions,
): Promise<ThroughputResult> {
  const measurements = new Map<
    string,
    { rounds: RoundMeasurement[]; latencies: number[]; errorSamples: string[] }
  >();
  const totals = new Map<ConfigurationName, number>();
  const schedule: string[] = [];
  for (const configuration of configurations) {
    const result = await runLoad({
      target: configuration.target,
      concurrency: 16,
      warmupMs: 0,
      durationMs: options.preWarmMs,
    });
    totals.set(configuration.name, result.totalCalls);
    options.log(`  warmed up ${configuration.name}: ${result.totalCalls} calls, ${result.errors} errors`);
  }
  for (let round = 1; round <= options.rounds; round++) {
    for (const [concurrencyIndex, concurrency] of options.concurrencies.entries()) {
      const order = roundOrder(configurations, round, concurrencyIndex);
      schedule.push(`round ${round}, c${concurrency}: ${order.map((c) => c.name).join(" → ")}`);
      for (const configuration of order) {
        const serverPid = configuration.serverPid;
        // bound-grpc's server is the capability itself: it has no backend of its own.
        const backendPid =
          configuration.capability?.pid === serverPid ? undefined : configuration.capability?.pid;
        const serverBefore = readSelfCpuMs(serverPid);
        const treeBefore = configuration.serverTree ? readTreeCpuMs(serverPid) : 0;
        const backendBefore = backendPid ? readSelfCpuMs(backendPid) : 0;
        let serverMs = Number.NaN;
        let backendMs = Number.NaN;
        const rss = sampleRss(() => [serverPid]);
        const result = await runLoad(
          {
            target: configuration.target,
            concurrency,
            warmupMs: options.warmupMs,
            durationMs: options.durationMs,
          },
          () => {
            serverMs = readSelfCpuMs(serverPid) - serverBefore;
            backendMs = configuration.serverTree
              ? readTreeCpuMs(serverPid) - treeBefore - serverMs
              : backendPid
                ? readSelfCpuMs(backendPid) - backendBefore
                : 0;
          },
        );
        const peakRssBytes = rss.stop();
        const perCall = (ms: number) =>
          result.totalCalls > 0 ? (ms * 1000) / result.totalCalls : Number.NaN;
        const latency = summariseLatencies(result.latenciesMs);
        const measurement: RoundMeasurement = {
          round,
          callsPerSecond: (result.calls * 1000) / result.windowMs,
          p50Ms: latency.p50,
          p99Ms: latency.p99,
          errors: result.errors,
          peakRssBytes,
          serverCpuUsPerCall: perCall(serverMs),
          backendCpuUsPerCall: perCall(backendMs),
          clientCpuUsPerCall: perCall(result.clientCpuMs),
        };
        const key = `${configuration.name}@${concurrency}`;
        const entry = measurements.get(key) ?? { rounds: [], latencies: [], errorSamples: [] };
        entry.rounds.push(measurement);
        for (const l of result.latenciesMs) entry.latencies.push(l);
        for (const e of result.errorSamples) if (entry.errorSamples.length < 5) entry.errorSamples.push(e);
        measurements.set(key, entry);
        totals.set(configuration.name, (totals.get(configuration.name) ?? 0) + result.totalCalls);
        options.log(
          `  round ${round} c${String(concurrency).padEnd(3)} ${configuration.name.padEnd(16)} ` +
            `${measurement.callsPerSecond.toFixed(0).padStart(6)} calls/s  p50 ${latency.p50.toFixed(2)} ms  ` +
            `p99 ${latency.p99.toFixed(2)} ms  errors ${result.errors}  server ${measurement.serverCpuUsPerCall.toFixed(0)} µs/call`,
        );
      }
    }
  }

  const cells: ThroughputCell[] = [];
  for (const configuration of configurations) {
    for (const concurrency of options.concurrencies) {
      const entry = measurements.get(`${configuration.name}@${concurrency}`);
      if (!entry) continue;
      const latency = summariseLatencies(entry.latencies);
      const pick = (f: (m: RoundMeasurement) => number) => median(entry.rounds.map(f));
      cells.push({
        configuration: configuration.name,
        concurrency,
        callsPerSecond: pick((m) => m.callsPerSecond),
        p50Ms: latency.p50,
        p99Ms: latency.p99,
        errors: entry.rounds.reduce((sum, m) => sum + m.errors, 0),
        errorSamples: entry.errorSamples,
        peakRssBytes: Math.max(...entry.rounds.map((m) => m.peakRssBytes)),
        serverCpuUsPerCall: pick((m) => m.serverCpuUsPerCall),
        backendCpuUsPerCall: pick((m) => m.backendCpuUsPerCall),
        clientCpuUsPerCall: pick((m) => m.clientCpuUsPerCall),
        rounds: entry.rounds,
      });
    }
  }

  const summaries: ConfigurationSummary[] = [];
  for (const configuration of configurations) {
    const connections = configuration.capability ? await configuration.capability.connections() : undefined;
    summaries.push({
      name: configuration.name,
      description: configuration.description,
      peakRssBytes: readPeakRss(configuration.serverPid) ?? Number.NaN,
      ...(connections !== undefined ? { capabilityConnections: connections } : {}),
      totalCalls: totals.get(configuration.name) ?? 0,
    });
  }
  return { cells, configurations: summaries, schedule };
}
