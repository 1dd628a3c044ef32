import type { Headline } from "../../bench-report.js";
import type { PathRow } from "./path-rows.js";

/** The sections of the paths benchmark, in the order they run, as `--only` names them. */
export const PATH_SECTION_NAMES = [
  "stdio-forward",
  "http-forward",
  "a2a",
  "sandbox",
  "tracing",
  "audit",
] as const;

/** One path section's name. */
export type PathSectionName = (typeof PATH_SECTION_NAMES)[number];

/** Each path section's heading in the report. */
export const PATH_SECTION_TITLES: Readonly<Record<PathSectionName, string>> = {
  "stdio-forward": "A stdio MCP server: forwarded by the router vs mcp-proxy",
  "http-forward": "A Streamable HTTP MCP server: forwarded by the router vs called directly",
  a2a: "The A2A front calling a gRPC tool vs a bare @a2a-js/sdk agent",
  sandbox: "A sandboxed print(1), and a sandboxed stdio forward's start",
  tracing: "Tracing off and on: the router's CPU per call",
  audit: "The audit trail off and on: the router's CPU per call",
};

/** Latencies of calls made one at a time (a sandboxed program, a forward's start). */
export interface LatencyRow {
  label: string;
  /** Calls (or starts) measured. */
  count: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  /** CPU of the server process (the router) per call, µs; absent when not read. */
  serverCpuUsPerCall?: number;
  /** With its descendants (the built-in services, the sandboxes), µs. */
  treeCpuUsPerCall?: number;
}

/** What one section of the paths benchmark measured, ready for the report and the headlines. */
export interface PathSection {
  /** The section's name, as `--only` takes it. */
  name: string;
  title: string;
  /** How it was measured, for the report. */
  method: string;
  /** Load rows, the first the others are compared with; empty when the section measures latencies only. */
  rows: PathRow[];
  concurrency?: number;
  rounds?: number;
  latencyRows: LatencyRow[];
  headlines: Headline[];
}

/**
 * The throughput ratio headline of a comparison: the median of the per-round ratio of `subject`'s calls/s to the
 * first row's, with both rows' CPU per call in its detail.
 */
export function ratioHeadline(
  name: string,
  rows: readonly PathRow[],
  subject: string,
  minimum: number | undefined,
  concurrency: number,
): Headline {
  const base = rows[0];
  const row = rows.find((r) => r.label === subject);
  const value = row?.ratioToFirst ?? Number.NaN;
  const cpu = (r: PathRow | undefined) =>
    r ? `${Number.isFinite(r.serverCpuUsPerCall) ? r.serverCpuUsPerCall.toFixed(0) : "n/a"} µs` : "n/a";
  return {
    name,
    value,
    unit: "×",
    target: minimum === undefined ? "" : `≥ ${minimum.toFixed(1)}`,
    ...(minimum === undefined ? {} : { met: value >= minimum }),
    detail:
      `c${concurrency}, median over rounds of the ratio of calls/s measured in the same round; ` +
      `server CPU per call ${cpu(row)} (${subject}) vs ${cpu(base)} (${base?.label ?? "n/a"})`,
  };
}
