import {
  type Attributes,
  context,
  propagation,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import type { CodeOutput, Interceptor, TransportRequest, TransportResponse } from "@trestle/core";
import { type DescribeCall, transportOf } from "./call-description.js";
import { errorOutcome, resultOutcome } from "./outcome.js";
import { clientSpanShape } from "./span-names.js";

/** Options for {@link callTracing}. */
export interface CallTracingOptions {
  /** Where spans come from (`trace.getTracer("@trestle/telemetry")` when absent). */
  tracer?: Tracer;
  /** Namespace, tool and principal class of a call. */
  describe: DescribeCall;
}

/** The name of the tracer the router's spans come from. */
export const TRACER_NAME = "@trestle/telemetry";

/** Ends `span` with the outcome of its call: `error.type` and an error status for a failure or a tool error. */
function endSpan(span: Span, outcome: string, error?: unknown): void {
  if (outcome !== "ok") {
    span.setAttribute("error.type", outcome);
    span.setStatus({
      code: SpanStatusCode.ERROR,
      ...(error instanceof Error ? { message: error.message } : {}),
    });
  }
  span.end();
}

/** Ends `span` when the stream ends, fails, or its consumer stops reading. */
function tracedStream(stream: AsyncIterable<CodeOutput>, span: Span): AsyncIterable<CodeOutput> {
  return {
    [Symbol.asyncIterator]() {
      const inner = stream[Symbol.asyncIterator]();
      let ended = false;
      const finish = (outcome: string, error?: unknown) => {
        if (ended) return;
        ended = true;
        endSpan(span, outcome, error);
      };
      return {
        async next() {
          try {
            const step = await inner.next();
            if (step.done) finish("ok");
            return step;
          } catch (error) {
            finish(errorOutcome(error), error);
            throw error;
          }
        },
        async return(value?: unknown) {
          finish("ok");
          return inner.return ? inner.return(value) : { done: true, value: undefined };
        },
      };
    },
  };
}

/**
 * `metadata` with the W3C trace context of `span` (`traceparent`, and `tracestate` when there is one). Only these
 * two keys: whatever else a propagator would add (baggage, the client's own entries) does not travel to services.
 */
export function withTraceContext(
  metadata: Readonly<Record<string, string>> | undefined,
  span: Span,
): Record<string, string> {
  const injected: Record<string, string> = {};
  propagation.inject(trace.setSpan(context.active(), span), injected);
  const out: Record<string, string> = { ...metadata };
  if (injected.traceparent) out.traceparent = injected.traceparent;
  if (injected.tracestate) out.tracestate = injected.tracestate;
  return out;
}

/**
 * A client span per transport call (not health probes), a child of the span active when the call is made (the
 * front's server span), named after the RPC conventions for gRPC and Connect (`{rpc.service}/{rpc.method}`) and the
 * MCP conventions for MCP upstreams (`tools/call {tool}`). The span's context goes out in the call's metadata as
 * W3C `traceparent`/`tracestate` (gRPC and Connect send metadata as headers; the MCP and A2A transports carry
 * those two keys in `_meta` and HTTP headers). Attributes are built only for a span that records.
 */
export function callTracing(options: CallTracingOptions): Interceptor {
  const tracer = options.tracer ?? trace.getTracer(TRACER_NAME);
  return (next) =>
    <R extends TransportRequest>(request: R): TransportResponse<R> => {
      if (request.method === "probeHealth") return next(request);
      const transport = transportOf(request);
      const description = options.describe(request);
      const shape = clientSpanShape(transport, request.method, description.tool);
      const span = tracer.startSpan(shape.name, { kind: SpanKind.CLIENT });
      if (!span.isRecording()) {
        span.end();
        return next(request);
      }
      const attributes: Attributes = {
        "trestle.namespace": description.namespace,
        "trestle.service": request.target.serviceName,
        "trestle.transport": transport,
        "server.address": request.target.host,
        "server.port": request.target.port,
      };
      if (shape.rpcSystem) {
        attributes["rpc.system"] = shape.rpcSystem;
        attributes["rpc.service"] = shape.rpcService;
        attributes["rpc.method"] = shape.rpcMethod;
      }
      if (shape.mcpMethod) attributes["mcp.method.name"] = shape.mcpMethod;
      if (request.method === "callTool" && description.tool) {
        attributes["gen_ai.tool.name"] = description.tool;
        attributes["gen_ai.operation.name"] = "execute_tool";
      }
      if (request.options.requestId) attributes["jsonrpc.request.id"] = request.options.requestId;
      span.setAttributes(attributes);
      const traced = {
        ...request,
        options: { ...request.options, metadata: withTraceContext(request.options.metadata, span) },
      } as R;
      let response: TransportResponse<R>;
      try {
        response = next(traced);
      } catch (error) {
        endSpan(span, errorOutcome(error), error);
        throw error;
      }
      if (request.method === "executeCode") {
        return tracedStream(response as AsyncIterable<CodeOutput>, span) as TransportResponse<R>;
      }
      return (response as Promise<unknown>).then(
        (result) => {
          endSpan(span, resultOutcome(result));
          return result;
        },
        (error: unknown) => {
          endSpan(span, errorOutcome(error), error);
          throw error;
        },
      ) as TransportResponse<R>;
    };
}
