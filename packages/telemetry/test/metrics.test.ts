import { Code, type Interceptor, TrestleError, withInterceptors } from "@trestle/core";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import type { CallDescription } from "../src/call-description.js";
import { createCallMetrics } from "../src/call-metrics.js";
import { callMetricsInterceptors } from "../src/metrics-interceptor.js";
import { registerRouterGauges } from "../src/router-gauges.js";
import { serverRequestObserver } from "../src/server-span.js";
import { fakeTransport, target } from "./fake-transport.js";

const described: CallDescription = { namespace: "team", tool: "echo", principalClass: "oauth" };

function setUp(answer: Parameters<typeof fakeTransport>[0], between: Interceptor[] = []) {
  const registry = new Registry();
  const metrics = createCallMetrics(registry);
  const layers = callMetricsInterceptors(metrics, () => described);
  const { transport } = fakeTransport(answer);
  return {
    registry,
    metrics,
    transport: withInterceptors(transport, [layers.calls, ...between, layers.admitted]),
  };
}

const call = (name = "echo") => ({ tool: { name, uri: "echo://", type: "echo" }, arguments: {} });

describe("callMetricsInterceptors", () => {
  it("counts calls and times them by namespace, tool, service, transport, method, principal class and outcome", async () => {
    const { registry, transport } = setUp((name) =>
      name === "broken" ? { content: [], isError: true } : { content: [{ type: "text", text: "ok" }] },
    );
    await transport.callTool(call(), target("echo-service"));
    await transport.callTool(call(), target("echo-service"));
    await transport.callTool(call("broken"), target("echo-service", "mcp"));
    const text = await registry.metrics();
    expect(text).toContain(
      'trestle_calls_total{namespace="team",tool="echo",service="echo-service",transport="grpc",method="callTool",principal_class="oauth",outcome="ok"} 2',
    );
    expect(text).toContain(
      'trestle_calls_total{namespace="team",tool="echo",service="echo-service",transport="mcp",method="callTool",principal_class="oauth",outcome="tool_error"} 1',
    );
    expect(text).toMatch(/trestle_call_duration_seconds_bucket\{le="300",namespace="team".*outcome="ok"\} 2/);
    expect(text).toMatch(/trestle_call_duration_seconds_bucket\{le="0.01",/);
    expect(text).toContain('trestle_calls_in_flight{service="echo-service",transport="grpc"} 0');
    expect(text).toContain('trestle_calls_queued{service="echo-service"} 0');
  });

  it("names a failure by its error code and still lets the error through", async () => {
    const { registry, transport } = setUp(() => {
      throw new TrestleError("down", Code.Unavailable);
    });
    await expect(transport.callTool(call(), target("svc"))).rejects.toThrow("down");
    expect(await registry.metrics()).toMatch(/trestle_calls_total\{[^}]*outcome="unavailable"\} 1/);
  });

  it("holds a call in flight and queued until the limit admits it, and counts a refused call", async () => {
    let admit: (() => void) | undefined;
    const gate: Interceptor = (next) => (request) => {
      if (request.method !== "callTool") return next(request);
      return new Promise<void>((resolve) => {
        admit = resolve;
      }).then(() => next(request) as Promise<unknown>) as never;
    };
    let finish: ((v: { content: never[] }) => void) | undefined;
    const { registry, transport } = setUp(
      () =>
        new Promise((resolve) => {
          finish = resolve;
        }),
      [gate],
    );
    const pending = transport.callTool(call(), target("slow"));
    await Promise.resolve();
    let text = await registry.metrics();
    expect(text).toContain('trestle_calls_queued{service="slow"} 1');
    expect(text).toContain('trestle_calls_in_flight{service="slow",transport="grpc"} 1');
    admit?.();
    await new Promise((r) => setTimeout(r, 5));
    text = await registry.metrics();
    expect(text).toContain('trestle_calls_queued{service="slow"} 0');
    expect(text).toContain('trestle_calls_in_flight{service="slow",transport="grpc"} 1');
    finish?.({ content: [] });
    await pending;
    text = await registry.metrics();
    expect(text).toContain('trestle_calls_in_flight{service="slow",transport="grpc"} 0');

    const refuse: Interceptor = () => () =>
      Promise.reject(new TrestleError("queue full", Code.ResourceExhausted)) as never;
    const refused = setUp(() => ({ content: [] }), [refuse]);
    await expect(refused.transport.callTool(call(), target("full"))).rejects.toThrow("queue full");
    const refusedText = await refused.registry.metrics();
    expect(refusedText).toContain('trestle_calls_queued{service="full"} 0');
    expect(refusedText).toMatch(
      /trestle_calls_total\{[^}]*service="full"[^}]*outcome="resource_exhausted"\} 1/,
    );
  });

  it("measures a code execution stream when its consumer reads its end", async () => {
    const { registry, transport } = setUp(() => ({ content: [] }));
    const stream = transport.executeCode(
      { engineType: "exec", language: "python", code: "" },
      target("exec"),
    );
    let count = 0;
    for await (const _ of stream) count++;
    expect(count).toBe(2);
    expect(await registry.metrics()).toMatch(
      /trestle_calls_total\{[^}]*method="executeCode"[^}]*outcome="ok"\} 1/,
    );
  });

  it("counts concurrent calls in flight up and down, and keeps counting across scrapes", async () => {
    const finishes: Array<() => void> = [];
    const { registry, transport } = setUp(
      () =>
        new Promise((resolve) => {
          finishes.push(() => resolve({ content: [] }));
        }),
    );
    const inFlight = async () =>
      Number(
        /trestle_calls_in_flight\{service="busy",transport="grpc"\} (\d+)/.exec(
          await registry.metrics(),
        )?.[1],
      );
    const total = async () =>
      Number(
        /trestle_calls_total\{[^}]*service="busy"[^}]*outcome="ok"\} (\d+)/.exec(
          await registry.metrics(),
        )?.[1] ?? 0,
      );
    const calls = [1, 2, 3].map(() => transport.callTool(call(), target("busy")));
    await Promise.resolve();
    expect(await inFlight()).toBe(3);
    expect(await total()).toBe(0);
    finishes[1]?.();
    await calls[1];
    expect(await inFlight()).toBe(2);
    expect(await total()).toBe(1);
    finishes[0]?.();
    finishes[2]?.();
    await Promise.all(calls);
    expect(await inFlight()).toBe(0);
    expect(await total()).toBe(3);
    // A scrape changes nothing: later calls add to the same series.
    const next = transport.callTool(call(), target("busy"));
    await Promise.resolve();
    expect(await inFlight()).toBe(1);
    finishes[3]?.();
    await next;
    expect(await total()).toBe(4);
    expect(await registry.metrics()).toMatch(
      /trestle_call_duration_seconds_count\{[^}]*service="busy"[^}]*outcome="ok"\} 4/,
    );
  });

  it("ends a code execution stream's call when its consumer stops early or the stream fails", async () => {
    const { registry, metrics, transport } = setUp(() => ({ content: [] }));
    for await (const _ of transport.executeCode(
      { engineType: "exec", language: "python", code: "" },
      target("exec"),
    )) {
      break;
    }
    const { transport: inner } = fakeTransport(() => ({ content: [] }));
    const failing = withInterceptors(
      {
        ...inner,
        async *executeCode() {
          yield { type: "output", stream: "stdout", text: "1" } as const;
          throw new TrestleError("engine died", Code.Internal);
        },
      },
      [callMetricsInterceptors(metrics, () => described).calls],
    );
    const read = async () => {
      for await (const _ of failing.executeCode(
        { engineType: "exec", language: "python", code: "" },
        target("exec"),
      )) {
        // read to the end, which fails
      }
    };
    await expect(read()).rejects.toThrow("engine died");
    const text = await registry.metrics();
    expect(text).toMatch(/trestle_calls_total\{[^}]*method="executeCode"[^}]*outcome="ok"\} 1/);
    expect(text).toMatch(/trestle_calls_total\{[^}]*method="executeCode"[^}]*outcome="internal"\} 1/);
    expect(text).toContain('trestle_calls_in_flight{service="exec",transport="grpc"} 0');
    expect(text).toContain('trestle_calls_queued{service="exec"} 0');
  });

  it("leaves health probes out", async () => {
    const { registry, transport } = setUp(() => ({ content: [] }));
    await transport.probeHealth(target("probed"));
    expect(await registry.metrics()).not.toContain('service="probed"');
  });

  it("keeps each registry's series apart (no global state)", async () => {
    const one = setUp(() => ({ content: [] }));
    const two = setUp(() => ({ content: [] }));
    await one.transport.callTool(call(), target("only-one"));
    expect(await one.registry.metrics()).toContain('service="only-one"');
    expect(await two.registry.metrics()).not.toContain('service="only-one"');
  });
});

describe("registerRouterGauges", () => {
  it("reads sessions, listen streams and circuits when scraped", async () => {
    const registry = new Registry();
    let sessions = 3;
    registerRouterGauges(registry, {
      mcpSessions: () => sessions,
      listenStreams: () => 1,
      circuits: () => [{ service: "svc", instance: "svc-1", state: "open" }],
    });
    expect(await registry.metrics()).toContain("trestle_mcp_sessions 3");
    sessions = 5;
    const text = await registry.metrics();
    expect(text).toContain("trestle_mcp_sessions 5");
    expect(text).toContain("trestle_mcp_listen_streams 1");
    expect(text).toContain('trestle_service_circuit_state{service="svc",instance="svc-1",state="open"} 1');
    expect(text).toContain('trestle_service_circuit_state{service="svc",instance="svc-1",state="closed"} 0');
  });
});

describe("serverRequestObserver with metrics only", () => {
  it("times MCP requests by method, namespace, principal class and error type, and leaves A2A requests out", async () => {
    const registry = new Registry();
    const observer = serverRequestObserver({ metrics: createCallMetrics(registry) });
    const request = (protocol: "mcp" | "a2a", method: string) =>
      observer.begin({
        protocol,
        method,
        params: {},
        headers: {},
        namespace: "team",
        principalClass: "static",
      });
    for (const errorType of [undefined, "-32602", undefined]) {
      const observation = request("mcp", "tools/call");
      observation.run(() => undefined);
      observation.end(errorType);
      observation.end("ended twice: not recorded");
    }
    request("a2a", "message/send").end(undefined);
    const text = await registry.metrics();
    expect(text).toContain(
      'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",namespace="team",principal_class="static",error_type=""} 2',
    );
    expect(text).toContain(
      'mcp_server_operation_duration_seconds_count{mcp_method_name="tools/call",namespace="team",principal_class="static",error_type="-32602"} 1',
    );
    expect(text).not.toContain("ended twice");
    expect(text).not.toContain("message/send");
  });
});
