import { type BenchReport, type Headline, measured } from "../bench-report.js";
import type { ConfigurationName } from "../configurations.js";
import { median } from "../latency-summary.js";
import type { MemoryUnderLoadMeasurement } from "../scenarios/memory-under-load.js";
import type { RoundMeasurement, ThroughputResult } from "../scenarios/throughput.js";

const PEERS: ConfigurationName[] = ["supergateway", "mcp-proxy"];

function rounds(t: ThroughputResult, name: ConfigurationName, concurrency: number): RoundMeasurement[] {
  return t.cells.find((c) => c.configuration === name && c.concurrency === concurrency)?.rounds ?? [];
}

/** The median over rounds of a's calls/s divided by b's in the same round: noise that hits a round hits both. */
function ratioByRound(
  t: ThroughputResult,
  a: ConfigurationName,
  b: (round: number) => number | undefined,
  concurrency: number,
): number {
  const ratios: number[] = [];
  for (const m of rounds(t, a, concurrency)) {
    const other = b(m.round);
    if (other !== undefined && other > 0) ratios.push(m.callsPerSecond / other);
  }
  return median(ratios);
}

function callsInRound(t: ThroughputResult, name: ConfigurationName, concurrency: number, round: number) {
  return rounds(t, name, concurrency).find((m) => m.round === round)?.callsPerSecond;
}

/** Units shown without decimals. */
export const INTEGER_UNITS: ReadonlySet<string> = new Set(["calls", "connections", "bytes"]);

const fixed = (value: number, digits = 2) => (Number.isFinite(value) ? value.toFixed(digits) : "n/a");

/** The headline figures of issue 8, each with its target, from one run's measurements. */
export function computeHeadlines(report: Omit<BenchReport, "headlines">): Headline[] {
  const t = report.throughput;
  const has = (name: ConfigurationName) => t.configurations.some((c) => c.name === name);
  const cell = (name: ConfigurationName, concurrency: number) =>
    t.cells.find((c) => c.configuration === name && c.concurrency === concurrency);
  const headlines: Headline[] = [];

  /** trestle-grpc's calls/s over another's, round by round (see {@link ratioByRound}). */
  const throughputRatio = (
    against: string,
    callsAgainst: (round: number) => number | undefined,
    concurrency: number,
    minimum: number,
    detail: string,
  ) => {
    const value = ratioByRound(t, "trestle-grpc", callsAgainst, concurrency);
    headlines.push({
      name: `throughput trestle-grpc / ${against} at c${concurrency}`,
      value,
      unit: "×",
      target: `≥ ${minimum.toFixed(1)}`,
      met: value >= minimum,
      detail,
    });
  };
  const sameRound = "median over rounds of the ratio of calls/s measured in the same round";
  if (has("trestle-grpc") && has("bound-mcp")) {
    for (const concurrency of [16, 64]) {
      throughputRatio(
        "bound-mcp",
        (r) => callsInRound(t, "bound-mcp", concurrency, r),
        concurrency,
        1,
        sameRound,
      );
    }
  }
  // Issue 19's measuring stick: the floor does only the parsing and the hop; "doing all of that [a router's own
  // work] within about twice the floor is the goal".
  if (has("trestle-grpc") && has("floor")) {
    throughputRatio(
      "floor",
      (r) => callsInRound(t, "floor", 16, r),
      16,
      0.5,
      "the floor: node:http in, one node:http2 session out, no session, catalog, validation or events (issue 19's goal: within about twice the floor)",
    );
  }
  const peers = PEERS.filter(has);
  if (has("trestle-grpc") && peers.length > 0) {
    const best = (round: number) => Math.max(...peers.map((p) => callsInRound(t, p, 16, round) ?? 0));
    throughputRatio("best peer", best, 16, 2, `best of ${peers.join(", ")} in each round`);
  }
  if (has("trestle-grpc") && has("mcp-proxy")) {
    throughputRatio(
      "mcp-proxy",
      (r) => callsInRound(t, "mcp-proxy", 16, r),
      16,
      1.5,
      `${sameRound} (issue 19)`,
    );
  }
  const c256 = cell("trestle-grpc", 256);
  if (c256) {
    headlines.push({
      name: "errors of trestle-grpc at c256",
      value: c256.errors,
      unit: "calls",
      target: "0",
      met: c256.errors === 0,
      detail: "failed calls over every round at concurrency 256",
    });
  }
  const c64 = cell("trestle-grpc", 64);
  if (c64) {
    headlines.push({
      name: "errors of trestle-grpc at c64",
      value: c64.errors,
      unit: "calls",
      target: "0",
      met: c64.errors === 0,
      detail: "failed calls over every round at concurrency 64",
    });
  }
  // Issue 17: the stateless (2026-07-28) path costs no more router CPU per call than the session path.
  if (has("trestle-grpc") && has("trestle-grpc-stateless")) {
    const ratios: number[] = [];
    for (const concurrency of [...new Set(t.cells.map((c) => c.concurrency))]) {
      for (const m of rounds(t, "trestle-grpc-stateless", concurrency)) {
        const session = rounds(t, "trestle-grpc", concurrency).find((s) => s.round === m.round);
        if (session && session.serverCpuUsPerCall > 0)
          ratios.push(m.serverCpuUsPerCall / session.serverCpuUsPerCall);
      }
    }
    const value = median(ratios);
    headlines.push({
      name: "router CPU per call, stateless (2026-07-28) / session (2025-11-25)",
      value,
      unit: "×",
      target: "≤ 1.0",
      met: value <= 1,
      detail: "median over every round and concurrency of the ratio measured in the same round",
    });
  }
  const trestle1 = cell("trestle-grpc", 1);
  const bound1 = cell("bound-mcp", 1);
  if (trestle1 && bound1) {
    const value = trestle1.p50Ms - bound1.p50Ms;
    headlines.push({
      name: "p50 added latency, trestle-grpc − bound-mcp at c1",
      value,
      unit: "ms",
      target: "≤ 0.3",
      met: value <= 0.3,
      detail: `p50 ${fixed(trestle1.p50Ms, 3)} ms vs ${fixed(bound1.p50Ms, 3)} ms over every call of every round`,
    });
  }
  const hop1 = cell("bound-grpc", 1);
  if (trestle1 && hop1) {
    const value = trestle1.p50Ms - hop1.p50Ms;
    headlines.push({
      name: "p50 added latency, trestle-grpc − bound-grpc (the bare gRPC hop) at c1",
      value,
      unit: "ms",
      target: "≤ 0.3",
      met: value <= 0.3,
      detail: `p50 ${fixed(trestle1.p50Ms, 3)} ms vs ${fixed(hop1.p50Ms, 3)} ms over every call of every round (issue 19)`,
    });
  }
  for (const name of ["trestle-grpc", "trestle-connect"] as const) {
    const summary = t.configurations.find((c) => c.name === name);
    if (summary?.capabilityConnections !== undefined) {
      headlines.push({
        name: `capability connections per router (${name})`,
        value: summary.capabilityConnections,
        unit: "connections",
        target: "1",
        met: summary.capabilityConnections === 1,
        detail: `accepted by the echo capability over ${summary.totalCalls} calls from one router process`,
      });
    }
  }
  const trestle16 = cell("trestle-grpc", 16);
  if (trestle16) {
    headlines.push({
      name: "router CPU per call at c16 (trestle-grpc)",
      value: trestle16.serverCpuUsPerCall,
      unit: "µs",
      target: "≤ 250",
      met: trestle16.serverCpuUsPerCall <= 250,
      detail: "median over rounds; /proc CPU time of the router process ÷ calls (issue 19)",
    });
  }
  const comparisons = [
    ["floor", "the floor", "what the router's own work costs above parsing and the hop"],
    ["bound-mcp", "bound-mcp", "/proc CPU time ÷ calls"],
  ] as const;
  for (const [name, label, meaning] of comparisons) {
    const other16 = cell(name, 16);
    if (!trestle16 || !other16) continue;
    headlines.push({
      name: `server CPU per call at c16, trestle-grpc router vs ${label}`,
      value: trestle16.serverCpuUsPerCall / other16.serverCpuUsPerCall,
      unit: "×",
      target: "",
      detail: `${fixed(trestle16.serverCpuUsPerCall, 0)} µs vs ${fixed(other16.serverCpuUsPerCall, 0)} µs (median over rounds; ${meaning})`,
    });
  }
  if (measured(report.toolsList)) {
    const largest = report.toolsList.at(-1);
    if (largest) {
      headlines.push({
        name: `tools/list p50 at ${largest.tools} tools, whole list (${largest.pages} pages)`,
        value: largest.fullList.p50,
        unit: "ms",
        target: largest.tools >= 10_000 ? "≤ 50" : "",
        ...(largest.tools >= 10_000 ? { met: largest.fullList.p50 <= 50 } : {}),
        detail: `every page fetched in turn through nextCursor; ${fixed(largest.bytes / 1024, 0)} KiB of JSON`,
      });
      headlines.push({
        name: `tools/list p50 at ${largest.tools} tools, first page only`,
        value: largest.firstPage.p50,
        unit: "ms",
        target: largest.tools >= 10_000 ? "≤ 50" : "",
        ...(largest.tools >= 10_000 ? { met: largest.firstPage.p50 <= 50 } : {}),
        detail: "one tools/list without a cursor (page size 1,000, the router's default)",
      });
    }
  }
  if (measured(report.idleSessions)) {
    for (const m of report.idleSessions.filter((s) => s.server.startsWith("trestle"))) {
      const mb = m.rssAfterBytes / 2 ** 20;
      headlines.push({
        name: `router RSS with ${m.sessions} idle stateful sessions, ${m.server.replace(/^trestle \((.*)\)$/, "$1")}`,
        value: mb,
        unit: "MiB",
        target: "≤ 200",
        met: mb <= 200,
        detail: `${fixed(m.rssBeforeBytes / 2 ** 20, 0)} MiB before the sessions; ${fixed(m.bytesPerSession / 1024, 1)} KiB per session`,
      });
    }
  }
  if (report.idleFootprint && measured(report.idleFootprint)) {
    for (const m of report.idleFootprint) {
      for (const p of m.processes) {
        const mb = p.rssBytes / 2 ** 20;
        const limit = p.process === "router" ? 150 : 50;
        headlines.push({
          name: `idle RSS of ${p.process === "router" ? "the router" : `built-in ${p.process}`}, embedded store, ${m.dataDirectory} data directory`,
          value: mb,
          unit: "MiB",
          target: `≤ ${limit}`,
          met: mb <= limit,
          detail: `after 30 s idle; ${fixed((m.justStarted.find((q) => q.process === p.process)?.rssBytes ?? Number.NaN) / 2 ** 20, 0)} MiB just started; ${fixed(p.anonBytes / 2 ** 20, 0)} MiB of it anonymous (the rest: the node binary and other mapped files, shared); PSS ${fixed(p.pssBytes / 2 ** 20, 0)} MiB`,
        });
      }
      const router = m.processes.find((p) => p.process === "router");
      if (router?.peakRssBytes) {
        headlines.push({
          name: `peak RSS of the router during its start, embedded store, ${m.dataDirectory} data directory`,
          value: router.peakRssBytes / 2 ** 20,
          unit: "MiB",
          target: "",
          detail: "VmHWM: the most it held since it started, what a container's memory limit must allow",
        });
      }
    }
  }
  if (measured(report.codeExecution)) {
    const c = report.codeExecution;
    headlines.push({
      name: "code-execution chunk → client progress notification, p99",
      value: c.latency.p99,
      unit: "ms",
      target: "≤ 20",
      met: c.latency.p99 <= 20,
      detail: `p50 ${fixed(c.latency.p50)} ms, max ${fixed(c.latency.max)} ms over ${c.received} chunks`,
    });
  }
  if (measured(report.crossReplica)) {
    const c = report.crossReplica;
    headlines.push({
      name: "cross-replica catalog change → list_changed on the other replica, max",
      value: c.notified.max,
      unit: "ms",
      target: "≤ 1000",
      met: c.notified.max <= 1000,
      detail: `p50 ${fixed(c.notified.p50, 1)} ms; listed by tools/list there: p50 ${fixed(c.visible.p50, 1)} ms, max ${fixed(c.visible.max, 1)} ms`,
    });
  }
  if (report.memoryUnderLoad && measured(report.memoryUnderLoad)) {
    headlines.push(...memoryUnderLoadHeadlines(report.memoryUnderLoad));
  }
  for (const section of Object.values(report.paths ?? {})) {
    if (section && measured(section)) headlines.push(...section.headlines);
  }
  return headlines;
}

/** The soak's figures: RSS growth per call (the least-squares slope) and its errors. */
export function memoryUnderLoadHeadlines(m: MemoryUnderLoadMeasurement): Headline[] {
  const minutes = fixed(m.windowMs / 60_000, 1);
  return [
    {
      name: "memory growth per call under load",
      value: m.slopeBytesPerCall,
      unit: "bytes",
      target: "≤ 512",
      met: m.slopeBytesPerCall <= 512,
      detail:
        `least-squares slope of the router's RSS over ${fixed(m.calls, 0)} calls in ${minutes} min at c${m.concurrency} (trestle-grpc, after ${fixed(m.warmupMs / 1000, 0)} s of warm-up), ` +
        `${m.samples} samples; RSS ${fixed(m.rssStartBytes / 2 ** 20, 0)} → ${fixed(m.rssEndBytes / 2 ** 20, 0)} MiB (min ${fixed(m.rssMinBytes / 2 ** 20, 0)}, max ${fixed(m.rssMaxBytes / 2 ** 20, 0)}), ` +
        `end − start ÷ calls ${fixed(m.growthBytesPerCall, 0)} bytes (issue 19)`,
    },
    {
      name: "errors of trestle-grpc under load for memory",
      value: m.errors,
      unit: "calls",
      target: "0",
      met: m.errors === 0,
      detail: `failed calls in the ${minutes} min measured window at c${m.concurrency}`,
    },
  ];
}

/** One line per headline, for the terminal. */
export function headlineLines(headlines: readonly Headline[]): string[] {
  return headlines.map((h) => {
    const verdict = h.met === undefined ? "" : h.met ? "  ✓ target met" : "  ✗ target missed";
    const target = h.target ? ` (target ${h.target})` : "";
    return `${h.name}: ${fixed(h.value, INTEGER_UNITS.has(h.unit) ? 0 : 2)} ${h.unit}${target}${verdict}`;
  });
}
