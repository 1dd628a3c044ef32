import { Counter, Gauge, type Registry } from "prom-client";
import { CellHistogram, type HistogramCell, newHistogramCell, observeInto } from "./cell-histogram.js";
import { type SeriesLabels, SeriesTable } from "./series-table.js";

/**
 * The buckets of every duration histogram, in seconds: those the OpenTelemetry MCP conventions advise for
 * `mcp.*.operation.duration` (10 ms to 5 min).
 */
export const DURATION_BUCKETS_SECONDS: readonly number[] = [
  0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300,
];

/** The labels of a transport call's series. */
export const CALL_LABELS = [
  "namespace",
  "tool",
  "service",
  "transport",
  "method",
  "principal_class",
  "outcome",
] as const;

/** A label of a transport call's series. */
export type CallLabel = (typeof CALL_LABELS)[number];

/**
 * The labels of an MCP request's series (the front's view: one per JSON-RPC request). No tool name: a client may
 * send any name, and a label must not take values from a client (the per-tool view is `trestle_call_*`).
 */
export const MCP_REQUEST_LABELS = ["mcp_method_name", "namespace", "principal_class", "error_type"] as const;

/** A label of an MCP request's series. */
export type McpRequestLabel = (typeof MCP_REQUEST_LABELS)[number];

/** A transport call's label values, in {@link CALL_LABELS} order. */
export type CallSeriesValues = readonly [
  namespace: string,
  tool: string,
  service: string,
  transport: string,
  method: string,
  principalClass: string,
  outcome: string,
];

/** An MCP request's label values, in {@link MCP_REQUEST_LABELS} order. */
export type McpRequestSeriesValues = readonly [
  mcpMethodName: string,
  namespace: string,
  principalClass: string,
  errorType: string,
];

/** A gauge series' current value: its owner adds and subtracts, the gauge reads it when scraped. */
export interface GaugeCell {
  value: number;
}

/**
 * The metrics the call path records into, all in one registry (the router's own, never prom-client's global one).
 * Recording touches plain cells only (no label object is validated or hashed per call); the registry reads them
 * when scraped and renders the same text prom-client's own metrics would for the same observations.
 */
export interface CallMetrics {
  readonly registry: Registry;
  /**
   * The `trestle_calls_in_flight` series of a service and transport (transport calls started and not yet ended,
   * queued ones included): add 1 when a call starts, subtract 1 when it ends.
   */
  inFlight(service: string, transport: string): GaugeCell;
  /**
   * The `trestle_calls_queued` series of a service (calls waiting for a slot of its concurrency limit): add 1 when a
   * call starts waiting, subtract 1 when it gets its slot or ends.
   */
  queued(service: string): GaugeCell;
  /**
   * Records a transport call that ended: one more in `trestle_calls_total` and an observation of `seconds` (queueing
   * for a slot included) in `trestle_call_duration_seconds`.
   */
  recordCall(series: CallSeriesValues, seconds: number): void;
  /** Records an MCP request the router answered, in `mcp_server_operation_duration_seconds`. */
  recordMcpRequest(series: McpRequestSeriesValues, seconds: number): void;
}

/** The name, help and labels of each call-path metric (the duration histograms take {@link DURATION_BUCKETS_SECONDS}). */
export const CALL_METRIC_DEFINITIONS = {
  calls: {
    name: "trestle_calls_total",
    help: "Calls the router made to capability services, MCP upstreams and A2A agents, by outcome (ok, tool_error, or the error code).",
    labelNames: CALL_LABELS,
  },
  callDuration: {
    name: "trestle_call_duration_seconds",
    help: "Duration of the router's calls to services, from the call entering the call path (waiting for a concurrency slot included) to its end.",
    labelNames: CALL_LABELS,
  },
  inFlight: {
    name: "trestle_calls_in_flight",
    help: "Calls to services started and not yet ended (those waiting for a concurrency slot included).",
    labelNames: ["service", "transport"],
  },
  queued: {
    name: "trestle_calls_queued",
    help: "Calls waiting for a slot of their service's concurrency limit.",
    labelNames: ["service"],
  },
  mcpServerDuration: {
    name: "mcp_server_operation_duration_seconds",
    help: "Duration of the MCP requests the router answered (OpenTelemetry mcp.server.operation.duration); error_type is the JSON-RPC error code, tool_error for an isError result, empty on success.",
    labelNames: MCP_REQUEST_LABELS,
  },
} as const;

/** A gauge series' cell: its labels, made once, and its value. */
interface LabelledGaugeCell<L extends string> extends GaugeCell {
  readonly labels: SeriesLabels<L>;
}

/** A new gauge cell, at 0. */
const newGaugeCell = <L extends string>(labels: SeriesLabels<L>): LabelledGaugeCell<L> => ({
  labels,
  value: 0,
});

/**
 * Defines the call path's metrics in `registry`, with cells of their own: each router passes a registry of its own,
 * and two routers in one process (tests, embedding) never share a series.
 *
 * A series is kept (as prom-client keeps it) for every combination of label values ever recorded, so every value
 * must come from a bounded set, never from a client's string. They do: service and transport name registered
 * services; namespace is one that exists (the fronts refuse others before a request is observed); tool is the
 * catalog's name of what was called, not the name the client sent; method is a transport method or, for
 * `mcp_method_name`, a method of the router's MCP method table (an unknown method is answered before it is
 * observed); principal class, outcome and error type are small enums (error codes, JSON-RPC codes).
 */
export function createCallMetrics(registry: Registry): CallMetrics {
  const registers = [registry];
  const bounds = [...DURATION_BUCKETS_SECONDS];
  const calls = new SeriesTable<CallLabel, HistogramCell<CallLabel>>(CALL_LABELS, (labels) =>
    newHistogramCell(labels, bounds.length),
  );
  const mcpRequests = new SeriesTable<McpRequestLabel, HistogramCell<McpRequestLabel>>(
    MCP_REQUEST_LABELS,
    (labels) => newHistogramCell(labels, bounds.length),
  );
  const inFlight = new SeriesTable(CALL_METRIC_DEFINITIONS.inFlight.labelNames, newGaugeCell);
  const queued = new SeriesTable(CALL_METRIC_DEFINITIONS.queued.labelNames, newGaugeCell);

  new Counter({
    ...CALL_METRIC_DEFINITIONS.calls,
    registers,
    collect() {
      // A call's count is its duration histogram's: both are recorded together.
      this.reset();
      for (const cell of calls.cells()) this.inc(cell.labels, cell.count);
    },
  });
  new CellHistogram({ ...CALL_METRIC_DEFINITIONS.callDuration, buckets: bounds, registers }, () =>
    calls.cells(),
  );
  for (const [definition, table] of [
    [CALL_METRIC_DEFINITIONS.inFlight, inFlight],
    [CALL_METRIC_DEFINITIONS.queued, queued],
  ] as const) {
    new Gauge({
      ...definition,
      registers,
      collect() {
        this.reset();
        for (const cell of table.cells()) this.set(cell.labels, cell.value);
      },
    });
  }
  new CellHistogram({ ...CALL_METRIC_DEFINITIONS.mcpServerDuration, buckets: bounds, registers }, () =>
    mcpRequests.cells(),
  );

  return {
    registry,
    inFlight: (service, transport) => inFlight.cell([service, transport]),
    queued: (service) => queued.cell([service]),
    recordCall: (series, seconds) => observeInto(calls.cell(series), bounds, seconds),
    recordMcpRequest: (series, seconds) => observeInto(mcpRequests.cell(series), bounds, seconds),
  };
}
