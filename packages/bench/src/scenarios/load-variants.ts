import type { ConfigurationName, RunningConfiguration } from "../configurations.js";
import { median } from "../latency-summary.js";
import { runLoad } from "../load-runner.js";
import { watchToolCallNotifications } from "../notifications-watcher.js";
import { readSelfCpuMs } from "../proc-stats.js";

/**
 * One way of loading a configuration that the throughput cells (a short word, nobody watching) do not show: calls
 * carrying documents, or a reader on the router's tool-call notifications (an operator's console left open).
 */
export interface LoadVariant {
  configuration: ConfigurationName;
  /** Characters added to each call's echoed text (about as many bytes each way); 0: the short word alone. */
  payloadBytes: number;
  /** A reader on `/api/v2/tool-calls/notifications` for the whole run (Trestle only). */
  watched: boolean;
}

/** The variants run, in this order (reversed every other round), when their configurations are running. */
export function loadVariants(payloadBytes: number): LoadVariant[] {
  return [
    { configuration: "trestle-grpc", payloadBytes: 0, watched: false },
    { configuration: "trestle-grpc", payloadBytes: 0, watched: true },
    { configuration: "bound-mcp", payloadBytes, watched: false },
    { configuration: "floor", payloadBytes, watched: false },
    { configuration: "trestle-grpc", payloadBytes, watched: false },
    { configuration: "trestle-grpc", payloadBytes, watched: true },
  ];
}

/** One variant over every round. */
export interface LoadVariantMeasurement extends LoadVariant {
  /** Median over rounds. */
  callsPerSecond: number;
  /** CPU of the server process per call, µs; median over rounds. */
  serverCpuUsPerCall: number;
  errors: number;
  /** Events the watcher read per call in the measured windows (2: a STARTED and a terminal event each). */
  eventsWatchedPerCall?: number;
  rounds: Array<{ callsPerSecond: number; serverCpuUsPerCall: number }>;
}

/** The load variants' results. */
export interface LoadVariantsResult {
  concurrency: number;
  rounds: number;
  variants: LoadVariantMeasurement[];
}

/** Settings of {@link runLoadVariants}. */
export interface LoadVariantsOptions {
  concurrency: number;
  rounds: number;
  warmupMs: number;
  durationMs: number;
  /** The document size of the payload variants. */
  payloadBytes: number;
  log(line: string): void;
}

/** A variant in words: `trestle-grpc, 16 KiB each way, watched`. */
export function describeLoadVariant(v: LoadVariant): string {
  const load = v.payloadBytes > 0 ? `${v.payloadBytes / 1024} KiB each way` : "short word";
  return `${v.configuration}, ${load}${v.watched ? ", watched" : ""}`;
}

/**
 * Runs each {@link loadVariants} variant whose configuration is running at one concurrency, interleaved over
 * rounds as the throughput benchmark is, and measures calls/s and the server's CPU per call.
 */
export async function runLoadVariants(
  configurations: readonly RunningConfiguration[],
  options: LoadVariantsOptions,
): Promise<LoadVariantsResult> {
  const byName = new Map(configurations.map((c) => [c.name, c]));
  const variants = loadVariants(options.payloadBytes).filter((v) => {
    const configuration = byName.get(v.configuration);
    return configuration !== undefined && (!v.watched || configuration.router !== undefined);
  });
  if (variants.length === 0) throw new Error("none of the variants' configurations is running");
  const results = variants.map((v) => ({
    variant: v,
    rounds: [] as Array<{ callsPerSecond: number; serverCpuUsPerCall: number }>,
    errors: 0,
    events: 0,
    calls: 0,
  }));
  for (let round = 1; round <= options.rounds; round++) {
    const order = round % 2 === 1 ? results : [...results].reverse();
    for (const entry of order) {
      const { variant } = entry;
      const configuration = byName.get(variant.configuration) as RunningConfiguration;
      const watcher = variant.watched
        ? await watchToolCallNotifications((configuration.target as { url: string }).url)
        : undefined;
      try {
        const load = (durationMs: number) => ({
          target: configuration.target,
          concurrency: options.concurrency,
          warmupMs: 0,
          durationMs,
          payloadBytes: variant.payloadBytes,
        });
        await runLoad(load(options.warmupMs));
        const before = readSelfCpuMs(configuration.serverPid);
        const eventsAtStart = watcher?.events ?? 0;
        let serverMs = Number.NaN;
        let eventsAtEnd = eventsAtStart;
        const result = await runLoad(load(options.durationMs), () => {
          serverMs = readSelfCpuMs(configuration.serverPid) - before;
          eventsAtEnd = watcher?.events ?? 0;
        });
        const measurement = {
          callsPerSecond: (result.calls * 1000) / result.windowMs,
          serverCpuUsPerCall: result.totalCalls > 0 ? (serverMs * 1000) / result.totalCalls : Number.NaN,
        };
        entry.rounds.push(measurement);
        entry.errors += result.errors;
        entry.events += eventsAtEnd - eventsAtStart;
        entry.calls += result.totalCalls;
        options.log(
          `  round ${round} ${describeLoadVariant(variant).padEnd(42)} ${measurement.callsPerSecond.toFixed(0).padStart(6)} calls/s  ` +
            `server ${measurement.serverCpuUsPerCall.toFixed(0)} µs/call  errors ${result.errors}`,
        );
      } finally {
        watcher?.stop();
      }
    }
  }
  return {
    concurrency: options.concurrency,
    rounds: options.rounds,
    variants: results.map((entry) => ({
      ...entry.variant,
      callsPerSecond: median(entry.rounds.map((r) => r.callsPerSecond)),
      serverCpuUsPerCall: median(entry.rounds.map((r) => r.serverCpuUsPerCall)),
      errors: entry.errors,
      ...(entry.variant.watched
        ? { eventsWatchedPerCall: entry.calls > 0 ? entry.events / entry.calls : Number.NaN }
        : {}),
      rounds: entry.rounds,
    })),
  };
}
