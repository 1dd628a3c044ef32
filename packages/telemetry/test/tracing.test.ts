import { context, propagation, SpanKind, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { Code, TrestleError, withInterceptors } from "@trestle/core";
import { Registry } from "prom-client";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createCallMetrics } from "../src/call-metrics.js";
import { callTracing } from "../src/call-tracing.js";
import { serverRequestObserver } from "../src/server-span.js";
import { tracingActive } from "../src/tracing-active.js";
import { fakeTransport, target } from "./fake-transport.js";

const CLIENT_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CLIENT_SPAN = "b7ad6b7169203331";
const TRACEPARENT = `00-${CLIENT_TRACE}-${CLIENT_SPAN}-01`;
const describeCall = () => ({ namespace: "team", tool: "echo", principalClass: "static" as const });
const call = { tool: { name: "echo", uri: "echo://", type: "echo" }, arguments: {} };

describe("without an SDK", () => {
  it("reports tracing inactive and makes no spans, passing calls through untouched", async () => {
    expect(tracingActive()).toBe(false);
    const { transport, seen } = fakeTransport(() => ({ content: [] }));
    const traced = withInterceptors(transport, [callTracing({ describe: describeCall })]);
    await traced.callTool(call, target("svc"), { metadata: { a: "b" } });
    expect(seen[0]?.metadata).toEqual({ a: "b" });
  });
});

describe("with an SDK", () => {
  let exporter: InMemorySpanExporter;
  beforeEach(() => {
    exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterEach(() => {
    trace.disable();
    propagation.disable();
    context.disable();
  });

  it("reports tracing active", () => {
    expect(tracingActive()).toBe(true);
  });

  it("makes a server span whose parent is the client's _meta traceparent, and a client span under it whose context goes out in the metadata", async () => {
    const { transport, seen } = fakeTransport(() => ({ content: [] }));
    const traced = withInterceptors(transport, [callTracing({ describe: describeCall })]);
    const registry = new Registry();
    const observer = serverRequestObserver({
      tracer: trace.getTracer("test"),
      metrics: createCallMetrics(registry),
    });
    const observation = observer.begin({
      protocol: "mcp",
      method: "tools/call",
      params: { name: "echo", arguments: {}, _meta: { traceparent: TRACEPARENT } },
      headers: { traceparent: `00-${"1".repeat(32)}-${"2".repeat(16)}-01` },
      namespace: "team",
      requestId: 7,
      sessionId: "s-1",
      protocolVersion: "2025-06-18",
      principalClass: "static",
    });
    await observation.run(() => traced.callTool(call, target("svc"), { metadata: { keep: "me" } }));
    observation.end(undefined);

    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    const client = spans.find((s) => s.kind === SpanKind.CLIENT);
    expect(server?.name).toBe("tools/call echo");
    expect(server?.spanContext().traceId).toBe(CLIENT_TRACE);
    expect(server?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(server?.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "echo",
      "jsonrpc.request.id": "7",
      "mcp.session.id": "s-1",
      "mcp.protocol.version": "2025-06-18",
      "trestle.namespace": "team",
    });
    expect(server?.links[0]?.context.traceId).toBe("1".repeat(32));
    expect(client?.name).toBe("ai.wanaku.tool.v1.ToolInvoker/InvokeTool");
    expect(client?.parentSpanContext?.spanId).toBe(server?.spanContext().spanId);
    expect(client?.attributes).toMatchObject({ "rpc.system": "grpc", "rpc.method": "InvokeTool" });
    expect(seen[0]?.metadata?.keep).toBe("me");
    expect(seen[0]?.metadata?.traceparent).toBe(`00-${CLIENT_TRACE}-${client?.spanContext().spanId}-01`);
    expect(await registry.metrics()).toMatch(
      /mcp_server_operation_duration_seconds_count\{mcp_method_name="tools\/call",namespace="team",principal_class="static",error_type=""\} 1/,
    );
  });

  it("takes the HTTP traceparent when _meta has none, and names an MCP upstream call after the MCP conventions", async () => {
    const { transport, seen } = fakeTransport(() => ({ content: [], isError: true }));
    const traced = withInterceptors(transport, [callTracing({ describe: describeCall })]);
    const observation = serverRequestObserver({ tracer: trace.getTracer("test") }).begin({
      protocol: "mcp",
      method: "tools/call",
      params: { name: "echo" },
      headers: { traceparent: TRACEPARENT },
      namespace: "",
      principalClass: "anonymous",
    });
    await observation.run(() => traced.callTool(call, target("upstream", "mcp")));
    observation.end("tool_error");
    const spans = exporter.getFinishedSpans();
    const server = spans.find((s) => s.kind === SpanKind.SERVER);
    const client = spans.find((s) => s.kind === SpanKind.CLIENT);
    expect(server?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(server?.attributes["error.type"]).toBe("tool_error");
    expect(client?.name).toBe("tools/call echo");
    expect(client?.attributes["mcp.method.name"]).toBe("tools/call");
    expect(client?.attributes["error.type"]).toBe("tool_error");
    expect(seen[0]?.metadata?.traceparent).toContain(CLIENT_TRACE);
  });

  it("records a failed call's error code on its client span", async () => {
    const { transport } = fakeTransport(() => {
      throw new TrestleError("down", Code.Unavailable);
    });
    const traced = withInterceptors(transport, [callTracing({ describe: describeCall })]);
    await expect(traced.callTool(call, target("svc", "connect"))).rejects.toThrow("down");
    const [client] = exporter.getFinishedSpans();
    expect(client?.attributes["error.type"]).toBe("unavailable");
    expect(client?.attributes["rpc.system"]).toBe("connect_rpc");
  });

  it("sends only traceparent and tracestate, never the client's baggage", async () => {
    const { W3CBaggagePropagator, CompositePropagator } = await import("@opentelemetry/core");
    propagation.disable();
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
    const { transport, seen } = fakeTransport(() => ({ content: [] }));
    const traced = withInterceptors(transport, [callTracing({ describe: describeCall })]);
    const withBaggage = propagation.setBaggage(
      context.active(),
      propagation.createBaggage({ user: { value: "secret-ish" } }),
    );
    await context.with(withBaggage, () => traced.callTool(call, target("svc")));
    expect(Object.keys(seen[0]?.metadata ?? {})).toEqual(["traceparent"]);
  });
});
