import { Counter, Gauge, Histogram, type Registry } from "prom-client";

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

/**
 * The labels of an MCP request's series (the front's view: one per JSON-RPC request). No tool name: a client may
 * send any name, and a label must not take values from a client (the per-tool view is `trestle_call_*`).
 */
export const MCP_REQUEST_LABELS = ["mcp_method_name", "namespace", "principal_class", "error_type"] as const;

/** The metrics the call path records into, all in one registry (the router's own, never prom-client's global one). */
export interface CallMetrics {
  readonly registry: Registry;
  /** `trestle_calls_total`: transport calls that ended, by {@link CALL_LABELS}. */
  readonly calls: Counter<(typeof CALL_LABELS)[number]>;
  /** `trestle_call_duration_seconds`: how long they took, queueing for a slot included. */
  readonly callDuration: Histogram<(typeof CALL_LABELS)[number]>;
  /** `trestle_calls_in_flight`: transport calls started and not yet ended, queued ones included. */
  readonly inFlight: Gauge<"service" | "transport">;
  /** `trestle_calls_queued`: calls waiting for a slot of their service's concurrency limit. */
  readonly queued: Gauge<"service">;
  /** `mcp_server_operation_duration_seconds`: MCP requests the router answered, by {@link MCP_REQUEST_LABELS}. */
  readonly mcpServerDuration: Histogram<(typeof MCP_REQUEST_LABELS)[number]>;
}

/**
 * Defines the call path's metrics in `registry`. Each router passes a registry of its own: two routers in one
 * process (tests, embedding) never share a series.
 */
export function createCallMetrics(registry: Registry): CallMetrics {
  const registers = [registry];
  return {
    registry,
    calls: new Counter({
      name: "trestle_calls_total",
      help: "Calls the router made to capability services, MCP upstreams and A2A agents, by outcome (ok, tool_error, or the error code).",
      labelNames: CALL_LABELS,
      registers,
    }),
    callDuration: new Histogram({
      name: "trestle_call_duration_seconds",
      help: "Duration of the router's calls to services, from the call entering the call path (waiting for a concurrency slot included) to its end.",
      labelNames: CALL_LABELS,
      buckets: [...DURATION_BUCKETS_SECONDS],
      registers,
    }),
    inFlight: new Gauge({
      name: "trestle_calls_in_flight",
      help: "Calls to services started and not yet ended (those waiting for a concurrency slot included).",
      labelNames: ["service", "transport"],
      registers,
    }),
    queued: new Gauge({
      name: "trestle_calls_queued",
      help: "Calls waiting for a slot of their service's concurrency limit.",
      labelNames: ["service"],
      registers,
    }),
    mcpServerDuration: new Histogram({
      name: "mcp_server_operation_duration_seconds",
      help: "Duration of the MCP requests the router answered (OpenTelemetry mcp.server.operation.duration); error_type is the JSON-RPC error code, tool_error for an isError result, empty on success.",
      labelNames: MCP_REQUEST_LABELS,
      buckets: [...DURATION_BUCKETS_SECONDS],
      registers,
    }),
  };
}
