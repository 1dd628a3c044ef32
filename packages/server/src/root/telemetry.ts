import { callRecordKey } from "@trestle/bridge";
import type { Interceptor, TransportRequest } from "@trestle/core";
import {
  type CallDescription,
  callMetricsInterceptors,
  callTracing,
  createCallMetrics,
  MetricsRegistry,
  type PrincipalClass,
  type RouterStateSources,
  registerRouterGauges,
  routerTracer,
  type ServerRequestObserver,
  serverRequestObserver,
  tracingActive,
} from "@trestle/telemetry";
import type { A2aEndpointOptions } from "../a2a/a2a-endpoint.js";
import { BUILTIN_PRINCIPAL, type RouterConfig } from "../config.js";
import { type MetricsExposure, metricsExposure } from "../config-telemetry.js";
import type { MetricsEndpoint } from "../http/metrics-route.js";
import type { McpDispatcherOptions } from "../mcp/mcp-dispatcher.js";

/** What the router observes itself with: metric interceptors, spans, and the registry `/metrics` renders. */
export interface TelemetryModule {
  /** Interceptors for the call path, by where they go (see `createCallsModule`); each absent when off. */
  readonly interceptors: {
    /** Outside the concurrency limit: counts and times every call. */
    readonly calls?: Interceptor;
    /** Just inside the concurrency limit: the call leaves the queue. */
    readonly admitted?: Interceptor;
    /** Innermost: the client span, and its trace context in the call's metadata. */
    readonly tracing?: Interceptor;
  };
  /** Observes MCP and A2A requests (server spans, MCP request durations); absent when both are off. */
  readonly requests: ServerRequestObserver | undefined;
  /** The class of a principal by its name (never the name itself in a label). */
  principalClassOf(name: string): PrincipalClass;
  /** How `/metrics` is served. */
  readonly exposure: MetricsExposure;
  /** Adds the gauges read at scrape time, once the modules they read exist. */
  watch(sources: RouterStateSources): void;
  /** `/metrics` as the front door serves it; undefined when metrics are off. */
  readonly endpoint: MetricsEndpoint | undefined;
  /** Observes each MCP request (see `McpDispatcherOptions.observe`); undefined when nothing would record. */
  readonly observeMcp: McpDispatcherOptions["observe"];
  /** Observes each A2A request (see `A2aEndpointOptions.observe`); undefined when nothing would record. */
  readonly observeA2a: A2aEndpointOptions["observe"];
}

/**
 * Builds the router's telemetry: a registry of its own (never prom-client's global one) unless `metrics: false`,
 * and spans only when an OpenTelemetry SDK registered a tracer provider before the router started (the CLI starts
 * one when the `OTEL_*` variables ask for it); otherwise nothing is added to the call path at all.
 */
export function createTelemetryModule(
  config: RouterConfig,
  internalPrincipals: readonly string[] = [],
): TelemetryModule {
  const exposure = metricsExposure(config.metrics);
  const staticNames = new Set(config.tokens.map((t) => t.name));
  const builtinNames = new Set([BUILTIN_PRINCIPAL, "stdio", ...internalPrincipals]);
  const principalClassOf = (name: string): PrincipalClass => {
    if (builtinNames.has(name)) return "builtin";
    if (name === "anonymous") return "anonymous";
    return staticNames.has(name) ? "static" : "oauth";
  };
  const describe = (request: TransportRequest): CallDescription => {
    const record = request.options.contextValues?.get(callRecordKey);
    return {
      namespace: record?.namespace ?? "",
      tool: record?.toolName ?? "",
      principalClass: record?.principal === undefined ? "" : principalClassOf(record.principal),
    };
  };
  const registry = exposure === "off" ? undefined : new MetricsRegistry();
  const metrics = registry ? createCallMetrics(registry) : undefined;
  const layers = metrics ? callMetricsInterceptors(metrics, describe) : undefined;
  const tracer = tracingActive() ? routerTracer() : undefined;
  const requests = tracer || metrics ? serverRequestObserver({ tracer, metrics }) : undefined;
  return {
    interceptors: {
      ...(layers ? { calls: layers.calls, admitted: layers.admitted } : {}),
      ...(tracer ? { tracing: callTracing({ tracer, describe }) } : {}),
    },
    requests,
    principalClassOf,
    exposure,
    watch(sources) {
      if (registry) registerRouterGauges(registry, sources);
    },
    endpoint: registry
      ? {
          open: exposure === "open",
          render: async () => ({ contentType: registry.contentType, body: await registry.metrics() }),
        }
      : undefined,
    observeMcp: requests
      ? (request, context) =>
          requests.begin({
            protocol: "mcp",
            method: request.method,
            params: request.params,
            headers: context.headers,
            namespace: context.namespace,
            requestId: request.id,
            sessionId: context.session?.id,
            protocolVersion: context.modern?.revision ?? context.session?.protocolVersion,
            principalClass: principalClassOf(context.principal.name),
          })
      : undefined,
    observeA2a: requests
      ? (request, req, namespace, principal) =>
          requests.begin({
            protocol: "a2a",
            method: request.method,
            params: request.params,
            headers: req.headers,
            namespace,
            requestId:
              typeof request.id === "string" || typeof request.id === "number" ? request.id : undefined,
            principalClass: principalClassOf(principal.name),
          })
      : undefined,
  };
}
