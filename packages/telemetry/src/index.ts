/**
 * Observability for Trestle's call path: Prometheus metrics (prom-client, a registry per router) and OpenTelemetry
 * spans through `@opentelemetry/api` only (the SDK is the application's to start).
 */

export { Registry as MetricsRegistry } from "prom-client";
export type { CallDescription, DescribeCall, PrincipalClass } from "./call-description.js";
export { transportOf } from "./call-description.js";
export {
  CALL_LABELS,
  type CallLabel,
  type CallMetrics,
  type CallSeriesValues,
  createCallMetrics,
  DURATION_BUCKETS_SECONDS,
  type GaugeCell,
  MCP_REQUEST_LABELS,
  type McpRequestLabel,
  type McpRequestSeriesValues,
} from "./call-metrics.js";
export { type CallTracingOptions, callTracing, TRACER_NAME, withTraceContext } from "./call-tracing.js";
export { type CallMetricsInterceptors, callMetricsInterceptors } from "./metrics-interceptor.js";
export { errorOutcome, resultOutcome } from "./outcome.js";
export {
  CIRCUIT_STATES,
  type CircuitReading,
  type RouterStateSources,
  registerRouterGauges,
} from "./router-gauges.js";
export {
  routerTracer,
  type ServerRequestInfo,
  type ServerRequestObservation,
  type ServerRequestObserver,
  type ServerRequestObserverOptions,
  serverRequestObserver,
} from "./server-span.js";
export { type ClientSpanShape, clientSpanShape } from "./span-names.js";
export { tracingActive } from "./tracing-active.js";
