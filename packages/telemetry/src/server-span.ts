import {
  type Attributes,
  type Context,
  context,
  type Link,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { PrincipalClass } from "./call-description.js";
import type { CallMetrics } from "./call-metrics.js";
import { TRACER_NAME } from "./call-tracing.js";

/** One request a front received, as its span and metrics describe it. */
export interface ServerRequestInfo {
  /** The front: MCP (both eras) or A2A. */
  protocol: "mcp" | "a2a";
  /** The JSON-RPC method (`tools/call`, `message/send`, …). */
  method: string;
  /** Its params: `_meta.traceparent`/`tracestate` (MCP 2026-07-28 reserves them) and the tool's name are read. */
  params: unknown;
  /** The HTTP request's headers (lower-cased): `traceparent` when `params._meta` carries none. */
  headers: Readonly<Record<string, string | string[] | undefined>>;
  namespace: string;
  /** The JSON-RPC id. */
  requestId?: string | number | undefined;
  sessionId?: string | undefined;
  protocolVersion?: string | undefined;
  principalClass: PrincipalClass | "";
}

/** One request being observed: run its handler inside {@link run}, then {@link end} it once. */
export interface ServerRequestObservation {
  /** Runs `fn` with the request's span active, so the calls it makes are its children. */
  run<T>(fn: () => T): T;
  /**
   * Ends the observation. `errorType`: the JSON-RPC error code as a string, `tool_error` for a result marked
   * `isError`, `undefined` on success.
   */
  end(errorType: string | undefined, error?: unknown): void;
}

/** Starts observing requests. */
export interface ServerRequestObserver {
  begin(info: ServerRequestInfo): ServerRequestObservation;
}

/** Options for {@link serverRequestObserver}. */
export interface ServerRequestObserverOptions {
  /** Spans come from it; none are made without it (tracing off). */
  tracer?: Tracer | undefined;
  /** MCP requests are timed into its `mcp_server_operation_duration_seconds`; none without it. */
  metrics?: CallMetrics | undefined;
}

const headerGetter: TextMapGetter<Readonly<Record<string, unknown>>> = {
  keys: (carrier) => Object.keys(carrier),
  get(carrier, key) {
    const value = carrier[key.toLowerCase()];
    if (typeof value === "string") return value;
    if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
    return undefined;
  },
};

/** The `_meta` of a request's params, when it is an object. */
function metaOf(params: unknown): Readonly<Record<string, unknown>> | undefined {
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  return typeof meta === "object" && meta !== null ? (meta as Record<string, unknown>) : undefined;
}

/** The `name` of a request's params (the tool's or prompt's), when it is a string. */
function targetOf(params: unknown): string | undefined {
  const name = (params as { name?: unknown } | undefined)?.name;
  return typeof name === "string" && name.length <= 256 ? name : undefined;
}

/** The span context the client sent: `_meta` first (the MCP span's parent), else the HTTP `traceparent`. */
function parentOf(info: ServerRequestInfo): { parent: Context; links: Link[] } {
  const meta = metaOf(info.params);
  const fromHeaders = info.headers.traceparent
    ? propagation.extract(ROOT_CONTEXT, info.headers, headerGetter)
    : undefined;
  if (meta && typeof meta.traceparent === "string") {
    const parent = propagation.extract(ROOT_CONTEXT, meta, headerGetter);
    // The HTTP request's own context, when it differs, is a link (as the MCP conventions say).
    const http = fromHeaders ? trace.getSpanContext(fromHeaders) : undefined;
    return { parent, links: http ? [{ context: http }] : [] };
  }
  return { parent: fromHeaders ?? ROOT_CONTEXT, links: [] };
}

/** The attributes of a request's server span. */
function serverAttributes(info: ServerRequestInfo, target: string | undefined): Attributes {
  const attributes: Attributes = { "trestle.namespace": info.namespace };
  if (info.protocol === "mcp") {
    attributes["mcp.method.name"] = info.method;
    if (info.method === "tools/call" && target) {
      attributes["gen_ai.tool.name"] = target;
      attributes["gen_ai.operation.name"] = "execute_tool";
    }
    if (info.method === "prompts/get" && target) attributes["gen_ai.prompt.name"] = target;
    const uri = (info.params as { uri?: unknown } | undefined)?.uri;
    if (typeof uri === "string" && info.method.startsWith("resources/"))
      attributes["mcp.resource.uri"] = uri.slice(0, 1024);
    if (info.protocolVersion) attributes["mcp.protocol.version"] = info.protocolVersion;
    if (info.sessionId) attributes["mcp.session.id"] = info.sessionId;
  } else {
    attributes["rpc.system"] = "jsonrpc";
    attributes["rpc.method"] = info.method;
  }
  if (info.requestId !== undefined) attributes["jsonrpc.request.id"] = String(info.requestId);
  if (info.principalClass) attributes["trestle.principal.class"] = info.principalClass;
  return attributes;
}

/** The observation of a request nothing records: runs the handler as it is. */
const UNOBSERVED: ServerRequestObservation = { run: (fn) => fn(), end() {} };

/**
 * Observes the requests a front receives: a SERVER span per request named `{mcp.method.name} {target}` (the tool's
 * or prompt's name) after the OpenTelemetry MCP conventions (`{method}` for A2A), its parent the client's trace
 * context, active while the handler runs; and for MCP, the request's duration in
 * `mcp_server_operation_duration_seconds`. Returns a no-op observation when neither is configured.
 */
export function serverRequestObserver(options: ServerRequestObserverOptions): ServerRequestObserver {
  const { tracer, metrics } = options;
  if (!tracer && !metrics) return { begin: () => UNOBSERVED };
  return {
    begin(info) {
      const started = performance.now();
      const target =
        info.method === "tools/call" || info.method === "prompts/get" ? targetOf(info.params) : undefined;
      let span: Span | undefined;
      let active: Context | undefined;
      if (tracer) {
        const { parent, links } = parentOf(info);
        const name = target ? `${info.method} ${target}` : info.method;
        span = tracer.startSpan(name, { kind: SpanKind.SERVER, links }, parent);
        if (span.isRecording()) span.setAttributes(serverAttributes(info, target));
        active = trace.setSpan(parent, span);
      }
      let ended = false;
      return {
        run: (fn) => (active ? context.with(active, fn) : fn()),
        end(errorType, error) {
          if (ended) return;
          ended = true;
          if (span) {
            if (errorType) {
              span.setAttribute("error.type", errorType);
              span.setStatus({
                code: SpanStatusCode.ERROR,
                ...(error instanceof Error ? { message: error.message } : {}),
              });
            }
            span.end();
          }
          if (metrics && info.protocol === "mcp") {
            metrics.recordMcpRequest(
              [info.method, info.namespace, info.principalClass, errorType ?? ""],
              (performance.now() - started) / 1000,
            );
          }
        },
      };
    },
  };
}

/** The tracer the router's spans come from, by its conventional name. */
export function routerTracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}
